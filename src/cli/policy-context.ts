// What the policy commands (check, decide, explain, diff, migrate) share: the loaded policy set,
// the reference-profile holders for hints, and files shown as the server shows them (shownPath).
import { loadPolicySet, type PolicySet } from '../policy-files/policy-set.js';
import { hintHolders } from '../policy-files/profile-files.js';
import { policiesDir, profilesDir, shownPath } from '../shared/paths.js';
import { withShownFiles, type Decision } from '../policy/decision.js';
import type { Finding } from '../policy/findings.js';
import type { DecideContext } from '../policy/decide.js';
import { decideContextFor } from '../policy/checks.js';

export const policyOptions = {
  policies: { type: 'string' },
  'reference-profiles': { type: 'string' },
} as const;

export function policySetFrom(values: { policies?: string | undefined }): PolicySet {
  return loadPolicySet(values.policies ?? policiesDir);
}

/** The decide() context of the policy commands: the same one the server builds, from the same files. */
export function decideContextFrom(
  policy: PolicySet,
  values: { 'reference-profiles'?: string | undefined },
): DecideContext {
  return decideContextFor(policy, {
    holders: hintHolders(policy, values['reference-profiles'] ?? profilesDir),
    guardedOnly: policy.guards.guarded_only,
  });
}

/** The decision as emitted by decide: files shown as the server shows them, the shape unchanged. */
export function forOutput(decision: Decision): Decision {
  return withShownFiles(decision, shownPath);
}

/** One finding for a person: `file:line: severity code: message (fix: ...)`, as check and migrate print it. */
export function findingLine(finding: Finding): string {
  return (
    `${shownPath(finding.file)}${finding.line ? `:${finding.line}` : ''}: ${finding.severity} ` +
    `${finding.code}: ${finding.message}${finding.fix ? ` (fix: ${finding.fix})` : ''}`
  );
}

export function fail(command: string, message: string): number {
  process.stderr.write(`gitea-warden ${command}: ${message}\n`);
  return 2;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : 'unexpected error';
}
