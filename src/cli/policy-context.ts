// What the policy commands (check, decide, explain, diff, migrate) share: the loaded policy set,
// the reference-profile holders for hints, and paths shown relative to the working directory.
import { relative } from 'node:path';
import { loadPolicySet, type PolicySet } from '../config/policies.js';
import { referenceHolders } from '../config/profiles.js';
import { policiesDir, profilesDir } from '../config/paths.js';
import type { HolderIndex } from '../policy/hints.js';
import type { Decision } from '../policy/decision.js';

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

export function displayPath(file: string): string {
  if (file.startsWith('<')) return file;
  const shown = relative(process.cwd(), file);
  return shown.startsWith('..') ? file : shown;
}

/** The decision as emitted by decide: paths relative, the shape unchanged. */
export function forOutput(decision: Decision): Decision {
  const hint = decision.hint?.split(decision.determining.file).join(displayPath(decision.determining.file));
  return { ...decision, determining: { ...decision.determining, file: displayPath(decision.determining.file) }, ...(hint !== undefined ? { hint } : {}) };
}

export function fail(command: string, message: string): number {
  process.stderr.write(`gitea-warden ${command}: ${message}\n`);
  return 2;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : 'unexpected error';
}
