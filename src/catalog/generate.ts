// Generates the tool catalog (src/catalog/tools.json) and its documentation (docs/tools.md) from the
// pinned Gitea swagger 2.0 spec, and compares a fresh generation with the committed files (drift).
import { createHash } from 'node:crypto';
import { assignToolNames, domainFor } from './naming.js';
import { toJsonSchema, type Definitions } from './schema.js';
import type { Catalog, CatalogEntry, CatalogParameter, CatalogPathParameter, HttpMethod, JsonSchema } from './types.js';
import { LOGIN_SCHEMA, REPO_NAME_SCHEMA } from './gitea-names.js';
import { reachOf } from './reach.js';
import { requiredTokenScopes } from './token-scopes.js';

type SwaggerParameter = JsonSchema & {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
};
type SwaggerOperation = {
  operationId: string;
  tags?: string[];
  summary?: string;
  description?: string;
  deprecated?: boolean;
  consumes?: string[];
  produces?: string[];
  parameters?: SwaggerParameter[];
  responses?: Record<string, { $ref?: string; schema?: JsonSchema }>;
};
type SwaggerSpec = {
  info: { title: string; version: string };
  consumes?: string[];
  produces?: string[];
  paths: Record<string, Record<string, SwaggerOperation>>;
  definitions?: Definitions;
  responses?: Record<string, { schema?: JsonSchema }>;
};

const METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * Path parameters Gitea serves through wildcard routes (`/*`, `<ref:*>`): the value may span segments.
 * Keyed on route and parameter, not on the name: releases/tags/{tag} and editorconfig/{filepath} are
 * single-segment routes. pulls/{base}/{head} is `/{base}/*` in Gitea, so only head is a wildcard.
 */
const WILDCARD_ROUTES: Readonly<Record<string, string>> = {
  '/repos/{owner}/{repo}/branches/{branch}': 'branch',
  '/repos/{owner}/{repo}/branch_protections/{name}': 'name',
  '/repos/{owner}/{repo}/tags/{tag}': 'tag',
  '/repos/{owner}/{repo}/contents/{filepath}': 'filepath',
  '/repos/{owner}/{repo}/contents-ext/{filepath}': 'filepath',
  '/repos/{owner}/{repo}/raw/{filepath}': 'filepath',
  '/repos/{owner}/{repo}/media/{filepath}': 'filepath',
  '/repos/{owner}/{repo}/archive/{archive}': 'archive',
  '/repos/{owner}/{repo}/compare/{basehead}': 'basehead',
  '/repos/{owner}/{repo}/git/refs/{ref}': 'ref',
  '/repos/{owner}/{repo}/commits/{ref}/status': 'ref',
  '/repos/{owner}/{repo}/commits/{ref}/statuses': 'ref',
  '/repos/{owner}/{repo}/pulls/{base}/{head}': 'head',
};

const LOGIN_PARAMS = new Set([
  'owner',
  'org',
  'username',
  'template_owner',
  'collaborator',
  'assignee',
  'user',
  'target',
]);
const REPO_PARAMS = new Set(['repo', 'template_repo', 'repo_name']);
const SUDO_PROPERTY: JsonSchema = { ...LOGIN_SCHEMA, description: 'Run the call as this user (admin tokens only).' };

/** Credentials never become tool arguments: the server supplies them. */
const SECRET_HEADERS = /^(authorization|proxy-authorization|cookie|sudo|x-gitea-otp|.*token.*)$/i;

/** Writes that overwrite or remove state although their method is not DELETE. */
const DESTRUCTIVE_WRITES = new Set([
  'repoChangeFiles',
  'repoApplyDiffPatch',
  'repoTransfer',
  'repoReparent',
  'repoRenameBranch',
  'adminRenameUser',
  'renameOrg',
]);

export interface SpecSource {
  text: string;
}

export function generateCatalog(source: SpecSource): Catalog {
  const spec = JSON.parse(source.text) as SwaggerSpec;
  const definitions = spec.definitions ?? {};
  const operations = listOperations(spec);
  checkWildcardRoutes(operations.map((o) => o.path));
  const names = assignToolNames(
    operations.map(({ path, method, op }) => ({ path, method, operationId: op.operationId })),
  );
  const entries = operations.map(({ path, method, op }) =>
    buildEntry(spec, definitions, path, method, op, names.get(op.operationId) ?? ''),
  );
  entries.sort((a, b) => a.domain.localeCompare(b.domain) || a.name.localeCompare(b.name));
  return {
    source: {
      title: spec.info.title,
      version: spec.info.version,
      sha256: createHash('sha256').update(source.text).digest('hex'),
    },
    entries,
  };
}

function listOperations(spec: SwaggerSpec): Array<{ path: string; method: HttpMethod; op: SwaggerOperation }> {
  return Object.entries(spec.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method.toLowerCase()]).map((method) => ({
      path,
      method,
      op: item[method.toLowerCase()] as SwaggerOperation,
    })),
  );
}

function checkWildcardRoutes(paths: readonly string[]): void {
  const missing = Object.keys(WILDCARD_ROUTES).filter((route) => !paths.includes(route));
  if (missing.length > 0) throw new Error(`wildcard routes not in the spec: ${missing.join(', ')}`);
}

function buildEntry(
  spec: SwaggerSpec,
  definitions: Definitions,
  path: string,
  method: HttpMethod,
  op: SwaggerOperation,
  name: string,
): CatalogEntry {
  const params = op.parameters ?? [];
  const describe = (p: SwaggerParameter): CatalogParameter => ({
    name: p.name,
    required: p.required === true,
    ...(p.description ? { description: p.description } : {}),
    schema: parameterSchema(p, definitions),
  });
  const of = (location: string) => params.filter((p) => p.in === location);
  const bodyParam = of('body')[0];
  const parameters: CatalogEntry['parameters'] = {
    path: of('path').map((p) => ({ ...describe(p), required: true, wildcard: WILDCARD_ROUTES[path] === p.name })),
    query: of('query').map(describe),
    header: of('header')
      .filter((p) => !SECRET_HEADERS.test(p.name))
      .map(describe),
    form: of('formData')
      .filter((p) => p.type !== 'file')
      .map(describe),
    file: of('formData')
      .filter((p) => p.type === 'file')
      .map(describe),
    body: bodyParam?.schema
      ? { required: bodyParam.required === true, schema: toJsonSchema(bodyParam.schema, definitions) }
      : null,
  };
  return {
    name,
    operationId: op.operationId,
    domain: domainFor(path),
    tag: op.tags?.[0] ?? 'untagged',
    method,
    path,
    summary: op.summary ?? op.operationId,
    ...(op.description ? { description: op.description } : {}),
    ...(op.deprecated ? { deprecated: true } : {}),
    parameters,
    consumes: op.consumes ?? spec.consumes ?? [],
    produces: op.produces ?? spec.produces ?? [],
    annotations: annotate(method, op.operationId, parameters.query),
    inputSchema: inputSchema(name, parameters),
    reach: reachOf(spec, op),
    tokenScopes: requiredTokenScopes(method, path),
  };
}

function parameterSchema(param: SwaggerParameter, definitions: Definitions): JsonSchema {
  const schema = toJsonSchema(param, definitions);
  if (param.in !== 'path') return schema;
  if (LOGIN_PARAMS.has(param.name)) return { ...schema, ...LOGIN_SCHEMA };
  if (REPO_PARAMS.has(param.name)) return { ...schema, ...REPO_NAME_SCHEMA };
  return schema;
}

function annotate(
  method: HttpMethod,
  operationId: string,
  query: readonly CatalogParameter[],
): CatalogEntry['annotations'] {
  const replacingPut = method === 'PUT' && /^(update|replace)|Update|Replace/.test(operationId);
  const queryNames = new Set(query.map((q) => q.name));
  return {
    readOnly: method === 'GET',
    destructive: method === 'DELETE' || replacingPut || DESTRUCTIVE_WRITES.has(operationId),
    idempotent: method === 'GET' || method === 'PUT' || method === 'DELETE',
    paginated: queryNames.has('page') && queryNames.has('limit'),
  };
}

function inputSchema(toolName: string, parameters: CatalogEntry['parameters']): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const add = (p: CatalogParameter | CatalogPathParameter) => {
    if (properties[p.name]) throw new Error(`${toolName}: two parameters named ${p.name}`);
    properties[p.name] = p.description ? { ...p.schema, description: p.description } : p.schema;
    if (p.required) required.push(p.name);
  };
  [...parameters.path, ...parameters.query, ...parameters.header, ...parameters.form, ...parameters.file].forEach(add);
  if (parameters.body) add({ name: 'body', required: parameters.body.required, schema: parameters.body.schema });
  add({ name: 'sudo', required: false, schema: SUDO_PROPERTY });
  return { type: 'object', properties, required, additionalProperties: false };
}

/** The committed form of the catalog: pretty-printed, stable order, trailing newline. */
export function renderCatalogJson(catalog: Catalog): string {
  return `${JSON.stringify(catalog, null, 2)}\n`;
}

export function renderToolsDoc(catalog: Catalog): string {
  const lines = [
    '# Gitea tools',
    '',
    '<!-- Generated file: do not edit. Regenerate with `gitea-warden catalog generate`;',
    '     CI checks it with `gitea-warden catalog generate --check`. -->',
    '',
    `Generated from ${catalog.source.title} ${catalog.source.version} (spec sha256 \`${catalog.source.sha256}\`): ` +
      `${catalog.entries.length} tools.`,
    '',
  ];
  for (const [domain, entries] of groupByDomain(catalog.entries)) {
    lines.push(`## ${domain} (${entries.length})`, '');
    lines.push(
      '| Tool | Method | Path | operationId | Annotations | Token scopes | Summary |',
      '|---|---|---|---|---|---|---|',
    );
    for (const e of entries) {
      const cells = [
        `\`${e.name}\``,
        e.method,
        `\`${e.path}\``,
        e.operationId,
        annotationWords(e).join(', '),
        tokenScopeWords(e),
        e.summary,
      ];
      lines.push(`| ${cells.map(escapeCell).join(' | ')} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

/** The scopes column: each scope, `none` when Gitea checks none, `?` where its route groups do not place the route. */
function tokenScopeWords(entry: CatalogEntry): string {
  if (entry.tokenScopes === null) return '?';
  return entry.tokenScopes.length === 0 ? 'none' : entry.tokenScopes.join(', ');
}

export function groupByDomain(entries: readonly CatalogEntry[]): Map<string, CatalogEntry[]> {
  const groups = new Map<string, CatalogEntry[]>();
  for (const e of [...entries].sort((a, b) => a.domain.localeCompare(b.domain) || a.name.localeCompare(b.name))) {
    groups.set(e.domain, [...(groups.get(e.domain) ?? []), e]);
  }
  return groups;
}

export function annotationWords(entry: CatalogEntry): string[] {
  return (Object.entries(entry.annotations) as Array<[string, boolean]>).filter(([, on]) => on).map(([word]) => word);
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** The generated files as text, keyed the same way for the committed and the fresh generation. */
export interface GeneratedFiles {
  catalogJson: string;
  toolsDoc: string;
}

export function renderGeneratedFiles(catalog: Catalog): GeneratedFiles {
  return { catalogJson: renderCatalogJson(catalog), toolsDoc: renderToolsDoc(catalog) };
}

const MAX_REPORTED_LINES = 20;

/**
 * Differences between a fresh generation (`expected`) and the committed files (`actual`), each a
 * line a person can act on. Empty when they match byte for byte.
 */
export function catalogDrift(expected: GeneratedFiles, actual: GeneratedFiles): string[] {
  const findings: string[] = [];
  if (expected.catalogJson !== actual.catalogJson)
    findings.push(...catalogJsonDrift(expected.catalogJson, actual.catalogJson));
  if (expected.toolsDoc !== actual.toolsDoc)
    findings.push(...lineDrift('docs/tools.md', expected.toolsDoc, actual.toolsDoc));
  return findings;
}

function catalogJsonDrift(expectedText: string, actualText: string): string[] {
  let actual: Catalog;
  try {
    actual = JSON.parse(actualText) as Catalog;
  } catch {
    return ['src/catalog/tools.json: not valid JSON; regenerate it'];
  }
  const expected = JSON.parse(expectedText) as Catalog;
  const findings: string[] = [];
  if (JSON.stringify(expected.source) !== JSON.stringify(actual.source)) {
    findings.push(
      `src/catalog/tools.json: source differs (committed ${describeSource(actual)}, spec ${describeSource(expected)})`,
    );
  }
  const actualByName = new Map((actual.entries ?? []).map((e) => [e.name, e]));
  const expectedByName = new Map(expected.entries.map((e) => [e.name, e]));
  for (const [name, entry] of expectedByName) {
    const committed = actualByName.get(name);
    if (!committed) findings.push(`src/catalog/tools.json: missing tool ${name}`);
    else if (JSON.stringify(committed) !== JSON.stringify(entry))
      findings.push(`src/catalog/tools.json: ${name} differs in ${differingFields(entry, committed).join(', ')}`);
  }
  for (const name of actualByName.keys()) {
    if (!expectedByName.has(name)) findings.push(`src/catalog/tools.json: unexpected tool ${name}`);
  }
  if (findings.length === 0) findings.push('src/catalog/tools.json: same content, different formatting or order');
  return findings;
}

function describeSource(catalog: Catalog): string {
  const s = catalog.source;
  return s ? `${s.title} ${s.version} ${String(s.sha256).slice(0, 12)}` : 'none';
}

function differingFields(expected: CatalogEntry, actual: CatalogEntry): string[] {
  const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]) as Set<keyof CatalogEntry>;
  return [...keys].filter((key) => JSON.stringify(expected[key]) !== JSON.stringify(actual[key]));
}

export function lineDrift(file: string, expected: string, actual: string): string[] {
  const want = expected.split('\n');
  const have = actual.split('\n');
  const findings: string[] = [];
  for (let i = 0; i < Math.max(want.length, have.length) && findings.length < MAX_REPORTED_LINES; i++) {
    if (want[i] !== have[i]) findings.push(`${file}:${i + 1}: differs from a fresh generation`);
  }
  return findings;
}
