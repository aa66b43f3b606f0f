// What a profile gains or loses between two versions: effective operations after normalization,
// wildcard expansion and forbidden entries (a broken forbidden entry means no access at all).
import { effectiveOperations, type CompiledProfile } from './profile.js';
import type { Vocabulary } from './vocabulary.js';

export interface ProfileDiff {
  gained: string[];
  lost: string[];
}

export function diffProfiles(before: CompiledProfile, after: CompiledProfile, vocabulary: Vocabulary): ProfileDiff {
  const old = effectiveOperations(before, vocabulary);
  const now = effectiveOperations(after, vocabulary);
  return {
    gained: [...now].filter((name) => !old.has(name)).sort(),
    lost: [...old].filter((name) => !now.has(name)).sort(),
  };
}
