// Integrity labels for one executed call: find the objects with text the answer carries (pure), read
// the facts that place their authors in the profile's trust domain from Gitea (once per call, at most
// max_lookups), then label and hold back (pure).
import type { CatalogEntry } from '../catalog/types.js';
import { StandingReader } from '../gitea/standing.js';
import type { FactReader } from '../gitea/gitea-identity.js';
import { factKey, type IntegrityLevel, type IntegritySettings } from '../policy/integrity.js';
import {
  findItems,
  labelFound,
  neededFacts,
  type IntegrityCatalog,
  type LabelledResult,
} from '../policy/integrity-walk.js';

export interface LabelRequest {
  catalog: IntegrityCatalog;
  settings: IntegritySettings;
  entry: CatalogEntry;
  args: Record<string, unknown>;
  data: unknown;
  /** Null without a token: every fact is then unknown. */
  reader: FactReader | null;
  /** The login the namespace acts as. */
  self: string | null;
}

/** Rounds of fact reads: repository standings, then organisations, then teams for whoever is still below. */
const ROUNDS = 3;

/** The labelled answer, or null when the operation carries no text a person wrote. */
export async function labelAnswer(request: LabelRequest): Promise<(LabelledResult & { lookups: number }) | null> {
  const { catalog, settings, entry, args } = request;
  const root = catalog.answers.get(entry.operationId);
  if (!root) return null;
  const reader = request.reader ? new StandingReader(request.reader) : null;
  const repository =
    typeof args.owner === 'string' && typeof args.repo === 'string' ? `${args.owner}/${args.repo}` : null;
  const refArguments = catalog.refArguments.get(root.name) ?? [];
  const vouched = await readFromBranch(reader, entry, args, refArguments, repository);
  const organisation = typeof args.org === 'string' ? args.org : null;
  const context = { repository, vouched, self: request.self, organisation };
  const found = findItems(catalog, entry.operationId, request.data, context);
  const facts = new Map<string, IntegrityLevel | boolean | null>();
  let asked = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const needs = neededFacts(found, settings, facts, context);
    if (needs.length === 0) break;
    const batch = reader ? needs.slice(0, Math.max(0, catalog.maxLookups - asked)) : [];
    // Past the bound, a fact is unknown: never guessed upward.
    for (const request of needs.slice(batch.length)) facts.set(factKey(request), null);
    asked += batch.length;
    const answers = await Promise.all(batch.map((request) => (reader as StandingReader).fact(request)));
    batch.forEach((request, position) => facts.set(factKey(request), answers[position] ?? null));
  }
  return { ...labelFound(found, request.data, settings, facts, context), lookups: reader?.requests ?? 0 };
}

/**
 * Whether the content was read from a branch of the repository: the ref argument absent (the default
 * branch) or naming a branch Gitea knows; the head of a compare that names no other owner; an archive
 * of a branch. A write's answer shows what it just put on a branch.
 */
async function readFromBranch(
  reader: StandingReader | null,
  entry: CatalogEntry,
  args: Record<string, unknown>,
  names: readonly string[],
  repository: string | null,
): Promise<boolean> {
  if (repository === null || names.length === 0) return false;
  if (entry.method !== 'GET') return true;
  const isBranch = (ref: string) => (reader === null ? Promise.resolve(false) : reader.isBranch(repository, ref));
  for (const name of names) {
    const inPath = entry.parameters.path.some((param) => param.name === name);
    const inQuery = entry.parameters.query.some((param) => param.name === name);
    if (!inPath && !inQuery) continue;
    const value = args[name];
    if (name === 'basehead') return typeof value === 'string' && headBranch(value, isBranch);
    if (name === 'archive') {
      const ref = typeof value === 'string' ? value.replace(/\.(zip|tar\.gz|bundle)$/, '') : '';
      return ref !== '' && ref !== value && isBranch(ref);
    }
    if (inPath) continue;
    if (value === undefined || value === '') return true;
    return typeof value === 'string' && isBranch(value);
  }
  return false;
}

/** `base...head` or `base..head`: vouched when head is a branch of this repository, not `owner:branch` of a fork. */
async function headBranch(basehead: string, isBranch: (ref: string) => Promise<boolean>): Promise<boolean> {
  const separator = basehead.includes('...') ? '...' : '..';
  const at = basehead.indexOf(separator);
  if (at < 0) return false;
  const head = basehead.slice(at + separator.length);
  return head !== '' && !head.includes(':') && isBranch(head);
}
