// A policy file read and checked against its JSON Schema: the first finding is thrown as a
// DocumentError (file:line, JSON path, never the value), so a loader built on it fails closed.
import { DocumentError, readDocument, validateDocument, type LoadedDocument } from './document.js';

export function readValidatedDocument(file: string, schemaFile: string): LoadedDocument {
  const schema = readDocument(schemaFile).data;
  if (typeof schema !== 'object' || schema === null) throw new DocumentError(schemaFile, null, 'the schema is not an object');
  const doc = readDocument(file);
  const findings = validateDocument(doc, schema);
  const first = findings[0];
  if (first) {
    const more = findings.length > 1 ? ` (and ${findings.length - 1} more)` : '';
    throw new DocumentError(file, first.line, `${first.path}: ${first.message}${more}`);
  }
  return doc;
}
