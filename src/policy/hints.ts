// What a denial says can be done. The hint goes to the agent with the tool result: which namespace
// already holds the operation, or that a person decides; never how to edit a profile, since an agent
// told to "add X to allowed_operations of FILE" may do just that where it can write the file. The
// edit itself is the decision's `fix`, which only `explain` and `decide` show, to people.
import type { Normalized } from './normalize.js';
import type { CompiledProfile } from './profile.js';

/** Canonical operation -> names of the (reference) profiles that may perform it. */
export type HolderIndex = ReadonlyMap<string, readonly string[]>;

/** `fallback` profiles (the owner, who holds nearly everything) are named only when no other profile holds the operation. */
export function buildHolderIndex(
  profiles: Iterable<{ name: string; operations: Iterable<string>; fallback?: boolean }>,
): HolderIndex {
  const primary = new Map<string, string[]>();
  const fallback = new Map<string, string[]>();
  for (const profile of profiles) {
    const index = profile.fallback ? fallback : primary;
    for (const operation of profile.operations) index.set(operation, [...(index.get(operation) ?? []), profile.name]);
  }
  for (const [operation, names] of fallback) if (!primary.has(operation)) primary.set(operation, names);
  return primary;
}

export function notAllowedHint(operation: string, profile: CompiledProfile, holders?: HolderIndex): string {
  const other = namespaceHint(operation, profile, holders);
  const person = `whether this role should have ${operation} is for the people who maintain its profile to decide`;
  return other ? `${other}; ${person}` : `this namespace does not hold ${operation}; ${person}`;
}

/** For people (explain, decide): the edit that would grant the operation. */
export function notAllowedFix(operation: string, profile: CompiledProfile): string {
  return `add ${operation} to allowed_operations of ${profile.file} if this role should have it (gitea-warden diff shows the gain)`;
}

export function forbiddenHint(operation: string, profile: CompiledProfile, holders?: HolderIndex): string {
  const other = namespaceHint(operation, profile, holders);
  const why = `${operation} is forbidden for this profile (forbidden wins over allowed)`;
  return other ? `${why}; ${other}` : `${why}; no reference namespace holds it`;
}

export function normalizeHint(written: string, result: Extract<Normalized, { ok: false }>): string {
  switch (result.reason) {
    case 'ambiguous_operation':
      return result.suggestion
        ? `write the qualified name ${result.suggestion}`
        : `write a qualified name (gitea.<area>.<verb>); see policies/vocabulary.yaml`;
    case 'cross_service_operation':
      return `check '${written}' against its own service, or use a gitea.* name`;
    case 'invalid_pattern':
      return 'name one canonical operation; patterns are only gitea.* and gitea.<area>.* in profile lists';
    default:
      return result.suggestion
        ? `did you mean ${result.suggestion}? Otherwise use a canonical name from policies/vocabulary.yaml`
        : 'use a canonical name from policies/vocabulary.yaml (gitea.<area>.<verb>) or a listed alias';
  }
}

function namespaceHint(operation: string, profile: CompiledProfile, holders?: HolderIndex): string | null {
  const names = (holders?.get(operation) ?? []).filter((name) => name !== profile.name);
  return names.length === 0 ? null : `use the ${names.join(' or ')} namespace, which holds ${operation}`;
}
