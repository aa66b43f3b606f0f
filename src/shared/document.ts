// Reads a YAML or JSON file (JSON is YAML) keeping line numbers, so every finding about a profile
// or policy can point at file:line. Validation with ajv names the JSON path and never the value.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as YamlModule from 'yaml';
import type AjvModule from 'ajv';
import type { ValidateFunction } from 'ajv';
import type addFormatsModule from 'ajv-formats';
import {
  pathKey,
  precompiledDocument,
  textSha256,
  type DocumentSnapshot,
  type ParsedDocument,
} from './precompiled-documents.js';
import { precompiledValidator, schemaSha256 } from './precompiled-schemas.js';
import { schemaProblems, type PathSegment, type SchemaProblem } from './schema-problems.js';

export type { PathSegment };

export interface LoadedDocument {
  file: string;
  text: string;
  data: unknown;
  /** 1-based line of the node at `path` (or of its nearest existing parent), null when unknown. */
  lineOf(path: readonly PathSegment[]): number | null;
  /** Served from the build: the sha256 of each of the package's schemas this very text satisfies. */
  validAgainst?: readonly string[];
}

export interface DocumentFinding {
  file: string;
  line: number | null;
  /** JSON pointer-like path, e.g. /allowed_operations/2. */
  path: string;
  /** The JSON Schema keyword that failed (type, required, additionalProperties, oneOf, enum, ...). */
  keyword: string;
  /** The fields involved: the missing or unknown one, or those of which exactly one is needed. */
  fields: string[];
  message: string;
}

/** Why a file could not be read as a document; `parse_error` unless a more precise reason applies. */
export type DocumentProblem = 'parse_error' | 'unreadable' | 'too_large' | 'binary' | 'empty';

export class DocumentError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | null,
    message: string,
    readonly problem: DocumentProblem = 'parse_error',
    /** The plain message, without the file:line prefix. */
    readonly detail: string = message,
  ) {
    super(`${file}${line ? `:${line}` : ''}: ${message}`);
    this.name = 'DocumentError';
  }
}

/**
 * Profiles and policies are hand-written and small (the largest reference file is 17 kB); past this a
 * file is a mistake, and parsing it would cost seconds and gigabytes before saying so.
 */
export const MAX_DOCUMENT_BYTES = 256 * 1024;

/** Reads a profile or policy file as text: bounded in size, UTF-8, no NUL bytes. The content is never quoted. */
export function readDocumentText(file: string): string {
  let bytes: Buffer;
  let fd: number | null = null;
  try {
    fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    if (size > MAX_DOCUMENT_BYTES) {
      const message = `is ${size} bytes, over the ${MAX_DOCUMENT_BYTES}-byte limit for profile and policy files`;
      throw new DocumentError(file, null, message, 'too_large');
    }
    bytes = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, bytes, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    bytes = bytes.subarray(0, read);
  } catch (error) {
    if (error instanceof DocumentError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new DocumentError(file, null, `cannot read file (${code})`, 'unreadable');
  } finally {
    if (fd !== null) closeSync(fd);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    text = '\0';
  }
  if (text.includes('\0')) {
    throw new DocumentError(file, null, 'is binary, not a YAML or JSON text file (its content is not shown)', 'binary');
  }
  return text;
}

export function parseDocumentText(text: string, file: string): LoadedDocument {
  const { data, lines, validAgainst } = precompiledDocument(text) ?? parseYaml(text, file);
  const lineOf = (path: readonly PathSegment[]): number | null => {
    for (let depth = path.length; depth >= 0; depth--) {
      const line = lines[pathKey(path.slice(0, depth))];
      if (line !== undefined) return line;
    }
    return null;
  };
  return validAgainst ? { file, text, data, lineOf, validAgainst } : { file, text, data, lineOf };
}

/**
 * What scripts/precompile-documents.mjs stores for a file of the package (precompiled-documents.ts):
 * its data, its lines, and which of `schemas` it satisfies, so a start does not validate it again.
 */
export function documentSnapshot(
  text: string,
  file: string,
  schemas: readonly object[] = [],
): { sha256: string; snapshot: DocumentSnapshot } {
  const { data, lines } = parseYaml(text, file);
  const validAgainst = schemas.filter((schema) => schemaValidator(schema)(data)).map(schemaSha256);
  return { sha256: textSha256(text), snapshot: { json: JSON.stringify(data), lines, validAgainst } };
}

// Loaded on the first parse: a start-up that finds every file precompiled never loads the parser.
let yamlModule: typeof YamlModule | undefined;
function yaml(): typeof YamlModule {
  yamlModule ??= createRequire(import.meta.url)('yaml') as typeof YamlModule;
  return yamlModule;
}

function parseYaml(text: string, file: string): ParsedDocument {
  const { LineCounter, parseDocument, isMap, isNode, isScalar, isSeq } = yaml();
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const firstError = doc.errors[0];
  if (firstError) {
    const position = lineCounter.linePos(firstError.pos[0]);
    const line = position.line;
    // With prettyErrors off, yaml's message names the construct, never the content around it.
    const what = firstError.code === 'RESOURCE_EXHAUSTION' ? 'nested too deeply' : firstError.message;
    const where = ` at line ${position.line}, column ${position.col}`;
    throw new DocumentError(file, line, `not valid YAML/JSON${where}: ${what} (${firstError.code})`);
  }
  if (doc.contents === null) {
    throw new DocumentError(file, null, 'is empty (no YAML or JSON content, only blanks or comments)', 'empty');
  }
  // The line of every node reachable by keys and indexes (an alias is a node of its own, not followed).
  const lines: Record<string, number> = {};
  const visit = (node: unknown, path: PathSegment[]): void => {
    if (!isNode(node)) return;
    if (node.range) lines[pathKey(path)] ??= lineCounter.linePos(node.range[0]).line;
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? pair.key.value : pair.key;
        if (typeof key === 'string' || typeof key === 'number') visit(pair.value, [...path, key]);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => visit(item, [...path, index]));
    }
  };
  visit(doc.contents, []);
  return { data: doc.toJS({ maxAliasCount: 50 }), lines };
}

export function readDocument(file: string): LoadedDocument {
  return parseDocumentText(readDocumentText(file), file);
}

// Created on the first schema compiled here: a start that finds every validator precompiled never loads
// ajv's compiler. The options are the build's (scripts/precompile-schemas.mjs): findings read nothing only one build reports.
let ajvInstance: AjvModule.default | undefined;
function ajv(): AjvModule.default {
  if (ajvInstance) return ajvInstance;
  const require = createRequire(import.meta.url);
  // ajv and ajv-formats are CommonJS modules with a default export.
  const Ajv = (require('ajv') as typeof AjvModule).default;
  const addFormats = (require('ajv-formats') as typeof addFormatsModule).default;
  ajvInstance = new Ajv({ allErrors: true, strict: false });
  addFormats(ajvInstance);
  return ajvInstance;
}
const compiled = new Map<object, ValidateFunction>();
/** Every schema validated here by its $id: an error inside a referenced schema is read against it. */
const knownSchemas = new Map<string, object>();
/** Schemas served by a precompiled validator, added to ajv only when a schema compiled here refers to one. */
const notInAjv = new Map<string, object>();

/**
 * Compiles once per schema object. A schema read again from another directory (a copy of policies/)
 * carries the same `$id`: the same text reuses the compiled one, a changed text replaces it. The
 * built package carries validators precompiled from policies/*.schema.json (precompiled-schemas.ts);
 * one is used only for the very schema it was compiled from (same `$id`, same sha256).
 */
export function schemaValidator(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (validate) return validate;
  const id = (schema as { $id?: unknown }).$id;
  if (typeof id === 'string') knownSchemas.set(id, schema);
  const precompiled = typeof id === 'string' ? precompiledValidator(id, schema) : null;
  if (precompiled && typeof id === 'string') {
    if (!ajvInstance?.getSchema(id)) notInAjv.set(id, schema);
    compiled.set(schema, precompiled);
    return precompiled;
  }
  if (typeof id === 'string') {
    const existing = ajv().getSchema(id);
    if (existing && JSON.stringify(existing.schema) === JSON.stringify(schema)) validate = existing;
    else if (existing) ajv().removeSchema(id);
    notInAjv.delete(id);
  }
  for (const [pendingId, pending] of notInAjv) {
    ajv().addSchema(pending);
    notInAjv.delete(pendingId);
  }
  validate ??= ajv().compile(schema);
  compiled.set(schema, validate);
  return validate;
}

/** Validation findings with file, line and path, one per mistake; messages never contain the offending value. */
export function validateDocument(doc: LoadedDocument, schema: object): DocumentFinding[] {
  // This exact text was validated against this exact schema when the package was built.
  if (doc.validAgainst?.includes(schemaSha256(schema))) return [];
  return problemsOf(schema, doc.data).map((problem) => ({
    file: doc.file,
    line: doc.lineOf(problem.path),
    path: toPointer(problem.path),
    keyword: problem.keyword,
    fields: problem.fields,
    message: problem.message,
  }));
}

/** Validates any value against a schema: each mistake as a JSON pointer, its keyword, fields and message, never the value. */
export function validationErrors(
  schema: object,
  data: unknown,
): Array<{ path: string; keyword: string; fields: string[]; message: string }> {
  return problemsOf(schema, data).map((problem) => ({
    path: toPointer(problem.path),
    keyword: problem.keyword,
    fields: problem.fields,
    message: problem.message,
  }));
}

function problemsOf(schema: object, data: unknown): SchemaProblem[] {
  const validate = schemaValidator(schema);
  if (validate(data)) return [];
  const others = [...knownSchemas.values()].filter((known) => known !== schema);
  return schemaProblems(validate.errors ?? [], data, schema, others);
}

export function toPointer(path: readonly PathSegment[]): string {
  return path.length === 0 ? '/' : `/${path.map((s) => String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
}
