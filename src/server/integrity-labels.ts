// Integrity labels for one executed call: find the items the answer carries (pure), read their
// authors' standings from Gitea once per call and repository, then label and hold back (pure).
import type { CatalogEntry } from '../catalog/types.js';
import { StandingReader } from '../gitea/standing.js';
import type { FactReader } from '../gitea/types.js';
import {
  itemsOf,
  labelResult,
  standingKey,
  type IntegrityCatalog,
  type IntegrityLevel,
  type IntegritySettings,
  type LabelledResult,
} from '../policy/integrity.js';

export interface LabelRequest {
  catalog: IntegrityCatalog;
  settings: IntegritySettings;
  entry: CatalogEntry;
  args: Record<string, unknown>;
  data: unknown;
  /** Null without a token: every standing is then unknown. */
  reader: FactReader | null;
}

/** The labelled answer, or null when the operation carries no authored text. */
export async function labelAnswer(request: LabelRequest): Promise<(LabelledResult & { lookups: number }) | null> {
  const { catalog, settings, entry, args } = request;
  const typeName = catalog.operations.get(entry.operationId);
  const type = typeName === undefined ? undefined : catalog.itemTypes.get(typeName);
  if (!type) return null;
  const reader = request.reader ? new StandingReader(request.reader) : null;
  const repository =
    typeof args.owner === 'string' && typeof args.repo === 'string' ? `${args.owner}/${args.repo}` : null;
  const vouched = await readFromBranch(reader, entry, args, type.ref_argument, repository);
  const { items, lookups } = itemsOf(catalog, entry.operationId, request.data, { repository, vouched }, settings);
  const standings = new Map<string, IntegrityLevel>();
  for (const found of reader ? await reader.standings(lookups) : []) {
    if (found.level !== null) standings.set(standingKey(found.repository, found.login), found.level);
  }
  return { ...labelResult(catalog, items, request.data, standings, settings), lookups: reader?.requests ?? 0 };
}

/** Read from a branch of the repository: no ref named (the default branch), or a ref Gitea knows as a branch. */
async function readFromBranch(
  reader: StandingReader | null,
  entry: CatalogEntry,
  args: Record<string, unknown>,
  refArgument: string | undefined,
  repository: string | null,
): Promise<boolean> {
  if (refArgument === undefined || repository === null) return false;
  if (!entry.parameters.query.some((param) => param.name === refArgument)) return false;
  const ref = args[refArgument];
  if (ref === undefined || ref === '') return true;
  return typeof ref === 'string' && reader !== null && (await reader.isBranch(repository, ref));
}
