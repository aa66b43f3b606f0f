// A profile in words a person can judge before consenting (the consent page of per-user OAuth):
// what an agent may do, what it may never do, where, and which paths are out of its reach. The
// sentences are the vocabulary's own meanings, so the page says what the policy says.
import type { CompiledProfile } from './profile.js';
import type { Vocabulary } from './vocabulary.js';

export interface ProfileWords {
  role: string;
  /** One plain sentence per operation the profile allows. */
  may: string[];
  /** One plain sentence per operation it forbids. */
  never: string[];
  /** Which repositories, in words. */
  repositories: string;
  /** Path limits, one sentence each (empty when none). */
  paths: string[];
}

export function profileWords(profile: CompiledProfile, vocabulary: Vocabulary): ProfileWords {
  const meaning = (op: string) => vocabulary.operations.get(op)?.meaning ?? op;
  // In the vocabulary's order: reading first, then each area as policies/vocabulary.yaml lists it.
  const order = [...vocabulary.operations.keys()];
  const inOrder = (ops: Iterable<string>) =>
    [...ops].sort((a, b) => rank(order, a) - rank(order, b) || a.localeCompare(b));
  const allowed = inOrder([...profile.allowed].filter((op) => !profile.forbidden.has(op)));
  const forbidden = inOrder(profile.forbidden);
  return {
    role: profile.role ?? 'unnamed',
    may: profile.brokenForbidden.length > 0 ? [] : allowed.map(meaning),
    never: forbidden.map(meaning),
    repositories: repositoryWords(profile.data.repositories),
    paths: pathWords(profile.data.paths),
  };
}

function rank(order: readonly string[], op: string): number {
  const at = order.indexOf(op);
  return at < 0 ? order.length : at;
}

function repositoryWords(repos: CompiledProfile['data']['repositories']): string {
  if (repos === undefined) return 'any repository your account can reach';
  if (Array.isArray(repos)) return `the repositories ${repos.join(', ')}`;
  const parts = [
    repos.read ? `reading ${repos.read.join(', ')}` : null,
    repos.write ? `writing ${repos.write.join(', ')}` : null,
  ];
  return parts.filter(Boolean).join(' and ') || 'no repository';
}

function pathWords(paths: CompiledProfile['data']['paths']): string[] {
  const words: string[] = [];
  for (const side of ['read', 'write'] as const) {
    const rules = paths?.[side];
    if (rules?.allow?.length) words.push(`It ${side}s files only under ${rules.allow.join(', ')}.`);
    if (rules?.deny?.length) words.push(`It never ${side}s ${rules.deny.join(', ')}.`);
  }
  return words;
}
