// The explicit, one-time translation of legacy spellings in profile lists into canonical names.
// Runtime normalization stays strict; only `gitea-warden migrate` uses the migration table.
import { normalizeName } from './normalize.js';
import type { Vocabulary } from './vocabulary.js';

export interface MigrationStep {
  index: number;
  from: string;
  /** The canonical replacement, or null when the entry is left as is. */
  to: string | null;
  /** Why: alias, legacy_category, already_canonical, unknown (left for a person to fix). */
  kind: 'alias' | 'legacy_category' | 'canonical' | 'unknown';
}

export function planMigration(
  entries: readonly string[],
  vocabulary: Vocabulary,
  legacyCategories: ReadonlyMap<string, string>,
): MigrationStep[] {
  return entries.map((from, index): MigrationStep => {
    const normalized = normalizeName(from, vocabulary, { allowPatterns: true });
    if (normalized.ok && normalized.via === 'alias')
      return { index, from, to: normalized.canonical[0] as string, kind: 'alias' };
    if (normalized.ok) return { index, from, to: null, kind: 'canonical' };
    const legacy = legacyCategories.get(from);
    if (legacy !== undefined && vocabulary.operations.has(legacy))
      return { index, from, to: legacy, kind: 'legacy_category' };
    return { index, from, to: null, kind: 'unknown' };
  });
}
