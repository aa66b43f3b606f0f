// The package's own policy and reference-profile files, parsed when the package is built
// (scripts/precompile-documents.mjs writes dist/shared/precompiled-documents.json): their data and the
// line of every node, keyed by the sha256 of the file's text. A text that is exactly one of them is not
// parsed again at start (parsing YAML with line numbers was a third of a namespace's start-up); any
// other text (a user's profile, an edited policy, running from src/ without a build) is parsed as before.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A parsed document: its data and, per node path (pathKey), the 1-based line the node starts on. */
export interface ParsedDocument {
  data: unknown;
  lines: Record<string, number>;
  /** From the build only: the sha256 (schemaSha256) of each package schema the text satisfies. */
  validAgainst?: readonly string[];
}

/** What the generated file holds per text: the data as JSON text (parsed afresh for each caller). */
export interface DocumentSnapshot {
  json: string;
  lines: Record<string, number>;
  validAgainst: string[];
}

export const PRECOMPILED_DOCUMENTS = 'precompiled-documents.json';

export function textSha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A node path as a JSON pointer; segments compare as text, as YAML's own getIn does for indexes. */
export function pathKey(path: readonly (string | number)[]): string {
  return path.map((segment) => `/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

let loaded: Record<string, DocumentSnapshot> | null | undefined;

function snapshots(): Record<string, DocumentSnapshot> | null {
  if (loaded !== undefined) return loaded;
  try {
    loaded = JSON.parse(readFileSync(join(import.meta.dirname, PRECOMPILED_DOCUMENTS), 'utf8')) as Record<
      string,
      DocumentSnapshot
    >;
  } catch {
    loaded = null;
  }
  return loaded;
}

/** The document parsed at build time from exactly this text, or null. */
export function precompiledDocument(text: string): ParsedDocument | null {
  const table = snapshots();
  const snapshot = table ? table[textSha256(text)] : undefined;
  return snapshot
    ? { data: JSON.parse(snapshot.json) as unknown, lines: snapshot.lines, validAgainst: snapshot.validAgainst }
    : null;
}
