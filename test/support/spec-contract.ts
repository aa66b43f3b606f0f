// Checks a response against the pinned Gitea spec: the schema of (operationId, status), compiled
// with ajv from the swagger 2.0 definitions, plus a walk that flags every property the body sends
// that the schema does not declare (made-up fields). Gitea's schemas rarely mark anything required
// and leave Go pointers unmarked though Gitea sends them as null, so objects ($ref) and date-times
// may be null; everything else must have its declared type.
//
// Statuses: a declared status is checked against its schema (no schema: a 2xx has no body, an
// error may carry Gitea's APIError body). 401, 403, 404 and 422 come from Gitea's middleware
// (auth, permission, visibility, binding) for any operation, so they are accepted undeclared, with
// an APIError body; so is the 307 of repoAssignment (context.RedirectToRepo) for a repository path
// under a renamed repository's old name, with a Location header and no JSON body. Anything else
// undeclared is a problem.
//
// Usage: const contract = recordContract();
//        startSandbox({ onResponse: contract.onResponse }); ... assert.deepEqual(contract.problems, [])
import { readFileSync } from 'node:fs';
import AjvModule, { type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import assert from 'node:assert/strict';
import { defaultSpecPath } from '../../src/shared/paths.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';

const Ajv = AjvModule.default ?? AjvModule;
const addFormats = addFormatsModule.default ?? addFormatsModule;

type Schema = Record<string, unknown>;

interface SwaggerResponse {
  schema?: Schema;
  $ref?: string;
}

interface SwaggerOperation {
  operationId?: string;
  responses?: Record<string, SwaggerResponse>;
}

export interface SwaggerSpec {
  paths: Record<string, Record<string, SwaggerOperation>>;
  definitions: Record<string, Schema>;
  responses: Record<string, SwaggerResponse>;
}

export interface ContractEvent {
  operationId: string | null;
  status: number;
  body: unknown;
  /** A body of bytes (a download), which no JSON schema describes. */
  binary?: { contentType: string; size: number };
  method?: string;
  path?: string;
  headers?: Record<string, string>;
}

export interface ContractChecker {
  /** Problems with one response, empty when it conforms. */
  check(event: ContractEvent): string[];
  /** operationId -> { method, path } of every operation in the spec. */
  operations: Map<string, { method: string; path: string }>;
}

const middlewareStatuses = new Set([401, 403, 404, 422]);
/**
 * Operations whose success Gitea answers with a file's bytes though the spec's response names no
 * schema: repoGetArchive (services/repository/archiver ServeRepoArchive streams the archive as
 * application/octet-stream). Operations declaring `schema: {type: file}` need no entry.
 */
const undeclaredDownloads = new Set(['repoGetArchive']);
/**
 * Error statuses Gitea answers that the spec leaves out, with an APIError body: repoGetArchive's 400
 * for a name that does not end in .zip, .tar.gz or .bundle (routers/api/v1/repo/download.go
 * serveRepoArchive on archiver.ErrUnknownArchiveFormat).
 */
const undeclaredErrors = new Map([['repoGetArchive', new Set([400])]]);
const apiErrorRef = { $ref: '#/definitions/APIError' };

export function loadSpec(path: string = defaultSpecPath()): SwaggerSpec {
  return JSON.parse(readFileSync(path, 'utf8')) as SwaggerSpec;
}

/** Copies a schema, letting $ref objects and date-times be null (Gitea's unset pointers). */
function nullable(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(nullable);
  if (typeof schema !== 'object' || schema === null) return schema;
  const s = schema as Schema;
  const copy: Schema = {};
  for (const [key, value] of Object.entries(s)) {
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      copy.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, nullableValue(v)]));
    } else if (key === 'items' || key === 'additionalProperties') {
      copy[key] = nullableValue(value);
    } else {
      copy[key] = nullable(value);
    }
  }
  return copy;
}

function nullableValue(schema: unknown): unknown {
  const copy = nullable(schema) as Schema;
  if (typeof copy !== 'object' || copy === null) return copy;
  if (typeof copy.$ref === 'string') return { anyOf: [copy, { type: 'null' }] };
  if (copy.format === 'date-time' || copy['x-nullable'] === true) return { anyOf: [copy, { type: 'null' }] };
  return copy;
}

/** The response a status declares, following its $ref; undefined when the ref names nothing. */
function resolveResponse(spec: SwaggerSpec, response: SwaggerResponse): SwaggerResponse | undefined {
  if (response.$ref) return spec.responses[response.$ref.replace('#/responses/', '')];
  return response;
}

export function createContractChecker(spec: SwaggerSpec): ContractChecker {
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  addFormats(ajv);
  const definitions = nullable(spec.definitions) as Record<string, Schema>;
  ajv.addSchema({ $id: 'gitea-spec', definitions });
  const byOperation = new Map<string, SwaggerOperation>();
  const operations = new Map<string, { method: string; path: string }>();
  for (const [path, methods] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!op.operationId) continue;
      byOperation.set(op.operationId, op);
      operations.set(op.operationId, { method: method.toUpperCase(), path });
    }
  }
  const compiled = new Map<string, ValidateFunction>();

  const toAjv = (schema: Schema): Schema =>
    JSON.parse(JSON.stringify(schema).replaceAll('"#/definitions/', '"gitea-spec#/definitions/')) as Schema;

  function validator(key: string, schema: Schema): ValidateFunction {
    let fn = compiled.get(key);
    if (!fn) {
      fn = ajv.compile(toAjv(nullable(schema) as Schema));
      compiled.set(key, fn);
    }
    return fn;
  }

  function deref(schema: Schema | undefined): Schema | undefined {
    if (!schema) return undefined;
    if (typeof schema.$ref === 'string') return deref(definitions[schema.$ref.replace('#/definitions/', '')]);
    if (Array.isArray(schema.anyOf)) return deref((schema.anyOf as Schema[]).find((s) => s.type !== 'null'));
    return schema;
  }

  /** Properties sent that the schema does not declare, as JSON paths. */
  function undeclared(schema: Schema | undefined, data: unknown, at: string, problems: string[]): void {
    const s = deref(schema);
    if (!s || data === null || typeof data !== 'object') return;
    if (Array.isArray(data)) {
      data.forEach((item, i) => undeclared(s.items as Schema | undefined, item, `${at}/${i}`, problems));
      return;
    }
    const properties = s.properties as Record<string, Schema> | undefined;
    const additional = typeof s.additionalProperties === 'object' ? (s.additionalProperties as Schema) : undefined;
    for (const [key, value] of Object.entries(data)) {
      const declared = properties?.[key];
      if (declared) undeclared(declared, value, `${at}/${key}`, problems);
      else if (additional) undeclared(additional, value, `${at}/${key}`, problems);
      else if (properties || s.type === 'object') problems.push(`${at}/${key} is not declared by the spec`);
    }
  }

  function checkSchema(key: string, schema: Schema, body: unknown, label: string): string[] {
    if (body === undefined) return [`${label}: the spec declares a body, none was sent`];
    let fn: ValidateFunction;
    try {
      fn = validator(key, schema);
    } catch (error) {
      return [
        `${label}: the spec's schema does not compile: ${error instanceof Error ? error.message : String(error)}`,
      ];
    }
    const problems: string[] = [];
    if (!fn(body)) {
      for (const e of fn.errors ?? []) problems.push(`${label}: ${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
    }
    const extra: string[] = [];
    undeclared(schema, body, '', extra);
    return [...problems, ...extra.map((p) => `${label}: ${p}`)];
  }

  function check(event: ContractEvent): string[] {
    const where = `${event.method ?? ''} ${event.path ?? ''}`.trim();
    const label = `${event.operationId ?? '(no operation)'} ${event.status}${where ? ` (${where})` : ''}`;
    if (event.operationId === null) return [`${label}: response for no spec operation`];
    const op = byOperation.get(event.operationId);
    if (!op) return [`${label}: operationId is not in the spec`];
    const declared = op.responses?.[String(event.status)];
    if (!declared && event.status === 307) return renamedRepositoryRedirect(event, op, label);
    if (!declared) {
      const known = middlewareStatuses.has(event.status) || undeclaredErrors.get(event.operationId)?.has(event.status);
      if (!known) return [`${label}: status is not declared for this operation`];
      return event.body === undefined ? [] : checkSchema('APIError', apiErrorRef, event.body, label);
    }
    const response = resolveResponse(spec, declared);
    if (!response) return [`${label}: the spec's response ${declared.$ref ?? ''} is not defined`];
    if (event.binary) {
      const file = response.schema?.type === 'file' || (!response.schema && undeclaredDownloads.has(event.operationId));
      return file && event.status < 300 ? [] : [`${label}: bytes were sent where the spec declares no file`];
    }
    if (response.schema) return checkSchema(`${event.operationId}:${event.status}`, response.schema, event.body, label);
    if (event.body === undefined) return [];
    if (event.status >= 400) return checkSchema('APIError', apiErrorRef, event.body, label);
    return [`${label}: the spec declares no body, one was sent`];
  }

  /** routers/api/v1.repoAssignment's redirect: only below /repos/{owner}/{repo}, to a Location, without a body. */
  function renamedRepositoryRedirect(event: ContractEvent, op: SwaggerOperation, label: string): string[] {
    const path = [...operations].find(([id]) => byOperation.get(id) === op)?.[1].path ?? '';
    const problems: string[] = [];
    if (!path.startsWith('/repos/{owner}/{repo}')) problems.push(`${label}: status is not declared for this operation`);
    if (!event.headers?.Location) problems.push(`${label}: a redirect without a Location header`);
    if (event.body !== undefined) problems.push(`${label}: a redirect with a body`);
    return problems;
  }

  return { check, operations };
}

export interface ContractRecorder {
  /** Pass as startSandbox's onResponse. */
  onResponse(event: ContractEvent): void;
  /** Every problem seen so far, in order. */
  readonly problems: string[];
  /** operationIds of the Gitea responses checked so far. */
  readonly checked: Set<string>;
}

let sharedChecker: ContractChecker | undefined;

/**
 * Checks every Gitea answer a sandbox sends. The sandbox's own answers (501 for an operation it
 * does not serve, 404 outside the API) are not Gitea's and are left out; any other response
 * without an operation is a problem.
 */
export function recordContract(
  checker: ContractChecker = (sharedChecker ??= createContractChecker(loadSpec())),
): ContractRecorder {
  const problems: string[] = [];
  const checked = new Set<string>();
  return {
    problems,
    checked,
    onResponse(event) {
      if (event.status === 501 || (event.operationId === null && event.status === 404)) return;
      if (event.operationId) checked.add(event.operationId);
      problems.push(...checker.check(event));
    },
  };
}

/**
 * A sandbox whose every Gitea answer is checked against the pinned spec while a test file runs:
 * end-to-end tests then also prove the stand-in stayed Gitea-shaped for everything they did.
 * Call `assertConformed()` last (it names each problem and which operations were checked).
 */
export type ContractSandbox = Sandbox & { assertConformed(): void };

export async function startContractSandbox(options: Omit<SandboxOptions, 'onResponse'> = {}): Promise<ContractSandbox> {
  const contract = recordContract();
  const sandbox = await startSandbox({ ...options, onResponse: contract.onResponse });
  return Object.assign(sandbox, {
    assertConformed: () =>
      assert.deepEqual(
        contract.problems,
        [],
        `non-conforming sandbox answers (operations checked: ${[...contract.checked].join(', ')})`,
      ),
  });
}
