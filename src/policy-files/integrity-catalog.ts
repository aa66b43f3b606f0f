// policies/integrity.yaml as the pure core's IntegrityCatalog: the definitions of Gitea's answers that
// carry text, who wrote each, and which operations answer with them. Loaded and linted with the policy set.
import type { Finding } from '../policy/findings.js';
import { compileIntegrityCatalog, type IntegrityCatalog, type IntegrityFileData } from '../policy/integrity-walk.js';
import type { LoadedDocument } from '../shared/document.js';

export function buildIntegrityCatalog(doc: LoadedDocument): IntegrityCatalog {
  return compileIntegrityCatalog(doc.data as IntegrityFileData);
}

/** An embed or operation list naming no definition, an operation listed twice, a definition's text without an author. */
export function integrityFindings(doc: LoadedDocument): Finding[] {
  const data = doc.data as IntegrityFileData;
  const findings: Finding[] = [];
  const error = (
    path: Array<string | number>,
    code: 'unknown_item_type' | 'duplicate_mapping',
    message: string,
    fix: string,
  ) => findings.push({ file: doc.file, line: doc.lineOf(path), severity: 'error', code, message, fix });
  for (const [name, definition] of Object.entries(data.definitions)) {
    for (const [key, target] of Object.entries(definition.embeds ?? {})) {
      if (!(target in data.definitions))
        error(
          ['definitions', name, 'embeds', key],
          'unknown_item_type',
          `${name}.${key} embeds ${target}, which is not in definitions`,
          'add the definition or name an existing one',
        );
    }
    const attributed = [definition.author, definition.organisation, definition.origin].filter((v) => v !== undefined);
    if ((definition.text ?? []).length > 0 && attributed.length !== 1)
      error(
        ['definitions', name],
        'unknown_item_type',
        `${name} carries text but names ${attributed.length === 0 ? 'no' : 'more than one'} author, organisation or origin`,
        'give it exactly one of author, organisation or origin',
      );
  }
  const seen = new Map<string, string>();
  const listed = (id: string, where: string, path: Array<string | number>) => {
    const first = seen.get(id);
    if (first === undefined) seen.set(id, where);
    else
      error(
        path,
        'duplicate_mapping',
        `${id} is listed under ${first} and ${where}`,
        'keep it under the one answer it is',
      );
  };
  for (const [name, ids] of Object.entries(data.operations)) {
    if (!(name in data.definitions))
      error(
        ['operations', name],
        'unknown_item_type',
        `${name} is not in definitions`,
        'add the definition or list the operations under an existing one',
      );
    ids.forEach((id, index) => listed(id, name, ['operations', name, index]));
  }
  for (const [name, raw] of Object.entries(data.raw)) {
    raw.operations.forEach((id, index) => listed(id, name, ['raw', name, 'operations', index]));
  }
  return findings;
}
