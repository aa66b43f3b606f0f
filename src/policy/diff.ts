// What a profile gains or loses between two versions: effective operations after normalization,
// wildcard expansion and forbidden entries (a broken forbidden entry means no access at all), and
// resource-scope changes (a new allow pattern or a lifted restriction is a gain; a removed allow
// pattern, a new deny pattern or a new restriction is a loss).
import { effectiveOperations, type CompiledProfile } from './profile.js';
import type { PatternList } from './scope-patterns.js';
import type { CompiledScopes } from './scopes.js';
import type { Vocabulary } from './vocabulary.js';

export interface ProfileDiff {
  gained: string[];
  lost: string[];
  /** Scope changes, one line each, e.g. `repositories.write + acme/*`. */
  scopes: { gained: string[]; lost: string[] };
}

export function diffProfiles(before: CompiledProfile, after: CompiledProfile, vocabulary: Vocabulary): ProfileDiff {
  const old = effectiveOperations(before, vocabulary);
  const now = effectiveOperations(after, vocabulary);
  return {
    gained: [...now].filter((name) => !old.has(name)).sort(),
    lost: [...old].filter((name) => !now.has(name)).sort(),
    scopes: diffScopes(before.scopes, after.scopes),
  };
}

type Restriction = 'allow' | 'deny';

export function diffScopes(before: CompiledScopes, after: CompiledScopes): { gained: string[]; lost: string[] } {
  const gained: string[] = [];
  const lost: string[] = [];
  const compare = (field: string, was: PatternList | null, is: PatternList | null, kind: Restriction): void => {
    // For an allow list, null is "no restriction"; for a deny list, null is "nothing denied".
    const [widen, narrow] = kind === 'allow' ? [gained, lost] : [lost, gained];
    if (kind === 'allow' && was !== null && is === null) return void gained.push(`${field}: restriction removed`);
    if (kind === 'allow' && was === null && is !== null)
      return void lost.push(`${field}: restriction added (${writtenOf(is).join(', ') || 'empty'})`);
    const a = new Set(writtenOf(was));
    const b = new Set(writtenOf(is));
    for (const pattern of b) if (!a.has(pattern)) widen.push(`${field} + ${pattern}`);
    for (const pattern of a) if (!b.has(pattern)) narrow.push(`${field} - ${pattern}`);
  };
  compare('repositories.read', before.repositories.read, after.repositories.read, 'allow');
  compare('repositories.write', before.repositories.write, after.repositories.write, 'allow');
  for (const operation of new Set([...before.branches.keys(), ...after.branches.keys()])) {
    compare(
      `branches.${operation}`,
      before.branches.get(operation) ?? null,
      after.branches.get(operation) ?? null,
      'allow',
    );
  }
  for (const side of ['read', 'write'] as const) {
    compare(`paths.${side}.allow`, before.paths[side].allow, after.paths[side].allow, 'allow');
    compare(`paths.${side}.deny`, before.paths[side].deny, after.paths[side].deny, 'deny');
  }
  return { gained: gained.sort(), lost: lost.sort() };
}

function writtenOf(list: PatternList | null): string[] {
  return list ? [...list.patterns, ...list.broken].map((pattern) => pattern.written) : [];
}
