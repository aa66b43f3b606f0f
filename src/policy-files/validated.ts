// A policy file read and checked against its JSON Schema with the policy loaders' own steps
// (conflict markers, parse, schema). Findings for `check`; or the first one thrown as a DocumentError
// (file:line, JSON path, never the value), so a loader built on it fails closed.
import { DocumentError, type LoadedDocument } from '../shared/document.js';
import { loadSchema, readChecked, schemaFindings } from './policy-set.js';
import type { Finding } from '../policy/findings.js';

export function validatedFindings(
  file: string,
  schemaName: string,
): { doc: LoadedDocument | null; findings: Finding[] } {
  const read = readChecked(file);
  if (!read.doc) return read;
  return { doc: read.doc, findings: [...read.findings, ...schemaFindings(read.doc, loadSchema(schemaName))] };
}

export function readValidatedDocument(file: string, schemaName: string): LoadedDocument {
  const { doc, findings } = validatedFindings(file, schemaName);
  const first = findings[0];
  if (first) {
    const more = findings.length > 1 ? ` (and ${findings.length - 1} more)` : '';
    throw new DocumentError(first.file, first.line, `${first.code}: ${first.message}${more}`);
  }
  if (!doc) throw new DocumentError(file, null, 'unreadable');
  return doc;
}
