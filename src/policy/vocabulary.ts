// The canonical operation names (policies/vocabulary.yaml) and the legacy aliases (policies/aliases.yaml),
// as data the rest of the policy core reads. Patterns expand here, against the vocabulary only, so a
// pattern can never match a name the vocabulary does not know.

export type RiskClass = 'read' | 'write' | 'destructive' | 'admin' | 'credential';

export interface VocabularyEntry {
  name: string;
  risk: RiskClass;
  meaning: string;
}

export interface Vocabulary {
  /** The service whose names these are: always `gitea` here. */
  service: string;
  operations: ReadonlyMap<string, VocabularyEntry>;
  /** Legacy spelling -> canonical name; applies to this service only. */
  aliases: ReadonlyMap<string, string>;
}

const PATTERN = /^gitea\.(?:\*|([a-z0-9]+)\.\*)$/;

export function looksLikePattern(name: string): boolean {
  return name.includes('*');
}

/** `gitea.*` or `gitea.<area>.*` -> the vocabulary names it covers; null for any other pattern shape. */
export function expandPattern(pattern: string, vocabulary: Vocabulary): string[] | null {
  const match = PATTERN.exec(pattern);
  if (!match) return null;
  const area = match[1];
  const prefix = area === undefined ? 'gitea.' : `gitea.${area}.`;
  return [...vocabulary.operations.keys()].filter((name) => name.startsWith(prefix));
}
