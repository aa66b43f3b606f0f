// policies/integrity.yaml as the pure core's IntegrityCatalog: which operations return which item
// types, and how each names its author and text. Loaded and linted with the policy set.
import type { Finding } from '../policy/findings.js';
import type { IntegrityCatalog, ItemType } from '../policy/integrity.js';
import type { LoadedDocument } from '../shared/document.js';

interface IntegrityFile {
  max_lookups: number;
  item_types: Record<string, ItemType>;
  operations: Record<string, string[]>;
}

export function buildIntegrityCatalog(doc: LoadedDocument): IntegrityCatalog {
  const data = doc.data as IntegrityFile;
  const operations = new Map<string, string>();
  for (const [type, ids] of Object.entries(data.operations)) {
    for (const id of ids) if (!operations.has(id)) operations.set(id, type);
  }
  return { itemTypes: new Map(Object.entries(data.item_types)), operations, maxLookups: data.max_lookups };
}

/** An operation listed under an item type that does not exist, or under two types. */
export function integrityFindings(doc: LoadedDocument): Finding[] {
  const data = doc.data as IntegrityFile;
  const findings: Finding[] = [];
  const seen = new Map<string, string>();
  for (const [type, ids] of Object.entries(data.operations)) {
    const line = doc.lineOf(['operations', type]);
    if (!(type in data.item_types)) {
      const fix = 'add the item type or list the operations under an existing one';
      findings.push({
        file: doc.file,
        line,
        severity: 'error',
        code: 'unknown_item_type',
        message: `${type} is not in item_types`,
        fix,
      });
    }
    for (const id of ids) {
      const first = seen.get(id);
      if (first === undefined) seen.set(id, type);
      else {
        const message = `${id} is listed under ${first} and ${type}`;
        findings.push({
          file: doc.file,
          line,
          severity: 'error',
          code: 'duplicate_mapping',
          message,
          fix: 'keep it under the one item type its answer is',
        });
      }
    }
  }
  return findings;
}
