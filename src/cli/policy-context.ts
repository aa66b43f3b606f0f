// What the policy commands (check, decide, explain, diff, migrate) share: the loaded policy set,
// the reference-profile holders for hints, and paths shown relative to the working directory.
import { relative } from 'node:path';
import { loadPolicySet, type PolicySet } from '../config/policies.js';
import { referenceHolders } from '../config/profiles.js';
import { policiesDir, profilesDir } from '../config/paths.js';
import type { HolderIndex } from '../policy/hints.js';
import type { Decision } from '../policy/decision.js';
import type { DecideContext } from '../policy/decide.js';
import { policyChecks } from '../policy/checks.js';

export const policyOptions = {
  policies: { type: 'string' },
  'reference-profiles': { type: 'string' },
} as const;

export function policySetFrom(values: { policies?: string | undefined }): PolicySet {
  return loadPolicySet(values.policies ?? policiesDir);
}

/** Holders for hints; hints are a convenience, so an unusable reference set only drops them. */
export function holdersFrom(policy: PolicySet, values: { 'reference-profiles'?: string | undefined }): HolderIndex | undefined {
  try {
    return referenceHolders(policy, values['reference-profiles'] ?? profilesDir);
  } catch {
    return undefined;
  }
}

/** The decide() context of the policy commands: vocabulary, hint holders, scopes and conditions. */
export function decideContextFrom(policy: PolicySet, values: { 'reference-profiles'?: string | undefined }): DecideContext {
  const holders = holdersFrom(policy, values);
  return { vocabulary: policy.vocabulary, ...(holders ? { holders } : {}), checks: policyChecks(policy) };
}

export function displayPath(file: string): string {
  if (file.startsWith('<')) return file;
  const shown = relative(process.cwd(), file);
  return shown.startsWith('..') ? file : shown;
}

/** The decision as emitted by decide: paths relative, the shape unchanged. */
export function forOutput(decision: Decision): Decision {
  const hint = decision.hint?.split(decision.determining.file).join(displayPath(decision.determining.file));
  const failed = decision.failed.map((f) => (f.entry ? { ...f, entry: { ...f.entry, file: displayPath(f.entry.file) } } : f));
  return { ...decision, determining: { ...decision.determining, file: displayPath(decision.determining.file) }, failed, ...(hint !== undefined ? { hint } : {}) };
}

export function fail(command: string, message: string): number {
  process.stderr.write(`gitea-warden ${command}: ${message}\n`);
  return 2;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : 'unexpected error';
}
