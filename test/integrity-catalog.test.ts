// policies/integrity.yaml against the pinned spec. Coverage is derived from every definition an answer
// embeds, not from the answer's top-level type: a string field of any embedded definition is either a
// text field of that definition's rule or data; an embedded object that carries text is in its
// parent's embeds; every operation whose answer carries text is labelled as the answer it is. So a spec
// upgrade that adds a text-bearing field, object or route anywhere fails here until it is labelled.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadPolicySet } from '../src/policy-files/policy-set.js';
import type { IntegrityFileData } from '../src/policy/integrity-walk.js';
import { policiesDir } from '../src/shared/paths.js';
import { loadSpec, type SwaggerSpec } from './support/spec-contract.js';

type Schema = Record<string, any>;

const spec = loadSpec();
const file = parse(readFileSync(join(policiesDir, 'integrity.yaml'), 'utf8')) as IntegrityFileData;
const catalog = loadPolicySet().integrity;

/** Operations whose answer is a bare string, a file or nothing, and carries no third party's text. */
const BARE_WITHOUT_TEXT: Record<string, string> = {
  adminUnadoptedList: 'repository names',
  listGitignoresTemplates: 'template names',
  listLabelTemplates: 'template names',
  renderMarkdown: "the caller's own text, rendered",
  renderMarkdownRaw: "the caller's own text, rendered",
  renderMarkup: "the caller's own text, rendered",
  repoGetLanguages: 'language names and byte counts',
  repoGetLicenses: 'license names',
  repoSigningKey: 'a public key',
  repoSigningKeySSH: 'a public key',
  getSigningKey: 'a public key',
  getSigningKeySSH: 'a public key',
  getVerificationToken: 'a token to sign',
  adminCreateRunnerRegistrationToken: 'a token',
  orgCreateRunnerRegistrationToken: 'a token',
  repoCreateRunnerRegistrationToken: 'a token',
  userCreateRunnerRegistrationToken: 'a token',
  // routers/api/v1/repo/file.go GetEditorconfig: a file's editorconfig definition, as settings.
  repoGetEditorConfig: 'editorconfig settings (indent style, sizes)',
  updateOrgSecret: 'no body',
  updateOrgVariable: 'no body',
  createOrgVariable: 'no body',
  updateRepoSecret: 'no body',
  updateRepoVariable: 'no body',
  createRepoVariable: 'no body',
  updateUserSecret: 'no body',
  updateUserVariable: 'no body',
  createUserVariable: 'no body',
  deleteUserVariable: 'no body',
  linkPackage: 'no body',
  unlinkPackage: 'no body',
  rerunFailedWorkflowRun: 'no body',
  issueStartStopWatch: 'no body',
  issueStopStopWatch: 'no body',
  issueAddSubscription: 'no body',
  issueDeleteSubscription: 'no body',
  repoMirrorSync: 'no body',
  repoMergePullRequest: 'no body',
  repoUpdatePullRequest: 'no body',
  repoPushMirrorSync: 'no body',
};

const refName = (ref: string): string => ref.split('/').pop() ?? ref;

interface Answer {
  operationId: string;
  schema: Schema | null;
}

/** The 200 (or 201) answer schema of every operation. */
function answersOf(source: SwaggerSpec): Answer[] {
  const list: Answer[] = [];
  for (const methods of Object.values(source.paths)) {
    for (const op of Object.values(methods as Record<string, any>)) {
      if (typeof op !== 'object' || !op.operationId) continue;
      const response = op.responses?.['200'] ?? op.responses?.['201'];
      if (!response) continue;
      const resolved = response.$ref ? (source.responses as Record<string, any>)[refName(response.$ref)] : response;
      list.push({ operationId: op.operationId, schema: (resolved?.schema as Schema | undefined) ?? null });
    }
  }
  return list;
}

interface Coverage {
  /** Every field, embed or definition the catalog leaves unlabelled (or names wrongly), one line each. */
  problems: string[];
  /** operationId -> the definition (or `{data}` wrapper) of its answer, for answers that carry text. */
  expected: Map<string, string>;
  /** Operations whose answer is a bare string, file or nothing. */
  bare: string[];
}

/** What `file` must say to cover `source`: derived from every definition reachable from an answer. */
function coverage(source: SwaggerSpec, file: IntegrityFileData): Coverage {
  const definitions = source.definitions as Record<string, Schema>;
  const isObject = (name: string): boolean => definitions[name]?.properties !== undefined;
  const properties = (name: string) => (definitions[name]?.properties ?? {}) as Record<string, Schema>;
  // String-valued fields (maps and string lists too); enums and dates are not prose.
  const stringFields = (name: string): string[] =>
    Object.entries(properties(name))
      .filter(([, value]) => {
        const ref: string | undefined = value.$ref ?? value.items?.$ref;
        if (ref !== undefined) {
          const target = definitions[refName(ref)] ?? {};
          return !isObject(refName(ref)) && (target.type === 'string' || target.items?.type === 'string');
        }
        if (value.type === 'string') return value.enum === undefined && !['date-time', 'date'].includes(value.format);
        if (value.type === 'array') return value.items?.type === 'string' && value.items.enum === undefined;
        return value.type === 'object';
      })
      .map(([key]) => key);
  const embedded = (name: string): Map<string, string> => {
    const found = new Map<string, string>();
    for (const [key, value] of Object.entries(properties(name))) {
      const ref: string | undefined = value.$ref ?? value.items?.$ref;
      if (ref !== undefined && isObject(refName(ref))) found.set(key, refName(ref));
    }
    return found;
  };
  const dataFields = new Set(file.data_fields);
  const isData = (name: string, field: string) =>
    dataFields.has(field) || (file.definitions[name]?.data ?? []).includes(field);
  const memo = new Map<string, boolean>();
  const carriesText = (name: string, path: readonly string[] = []): boolean => {
    const known = memo.get(name);
    if (known !== undefined) return known;
    if (path.includes(name)) return false;
    const own = stringFields(name).some((field) => !isData(name, field));
    const result = own || [...embedded(name).values()].some((inner) => carriesText(inner, [...path, name]));
    if (path.length === 0) memo.set(name, result);
    return result;
  };
  const answers = answersOf(source);
  const reached = new Set<string>();
  const visit = (name: string) => {
    if (reached.has(name) || !isObject(name)) return;
    reached.add(name);
    for (const inner of embedded(name).values()) visit(inner);
  };
  const refs = (schema: unknown): void => {
    if (Array.isArray(schema)) schema.forEach(refs);
    else if (schema !== null && typeof schema === 'object')
      for (const [key, value] of Object.entries(schema)) {
        if (key === '$ref' && typeof value === 'string') visit(refName(value));
        else refs(value);
      }
  };
  for (const answer of answers) refs(answer.schema);

  const problems: string[] = [];
  for (const name of [...reached].sort()) {
    const rule = file.definitions[name];
    const text = new Set(rule?.text ?? []);
    const fields = new Set(stringFields(name));
    for (const field of fields)
      if (!text.has(field) && !isData(name, field)) problems.push(`${name}.${field} is neither text nor data`);
    for (const field of [...(rule?.text ?? []), ...(rule?.data ?? [])])
      if (!fields.has(field)) problems.push(`${name}.${field} is listed, but ${name} has no such string field`);
    const written = rule?.embeds ?? {};
    for (const [field, inner] of embedded(name))
      if (carriesText(inner) && written[field] !== inner)
        problems.push(`${name}.${field} (${inner}) carries text and is not in its embeds`);
    for (const [field, inner] of Object.entries(written))
      if (embedded(name).get(field) !== inner)
        problems.push(`${name}.${field} embeds ${inner}, which the spec does not`);
    if (carriesText(name) && rule === undefined) problems.push(`${name} carries text and has no definition`);
  }
  const everywhere = new Set([...reached].flatMap(stringFields));
  for (const field of file.data_fields)
    if (!everywhere.has(field)) problems.push(`data_fields: ${field} is in no answer`);

  const expected = new Map<string, string>();
  const bare: string[] = [];
  for (const { operationId, schema } of answers) {
    const ref: string | undefined = schema?.$ref ?? schema?.items?.$ref;
    if (ref !== undefined) {
      if (isObject(refName(ref)) && carriesText(refName(ref))) expected.set(operationId, refName(ref));
    } else if (schema?.type === 'object' && schema.properties) {
      const inner = Object.entries(schema.properties as Record<string, Schema>)
        .filter(([, value]) => value.items?.$ref && carriesText(refName(value.items.$ref as string)))
        .map(([key, value]) => `${key}: ${refName(value.items.$ref as string)}`);
      if (inner.length > 0) expected.set(operationId, `{${inner.join(', ')}}`);
    } else bare.push(operationId);
  }
  return { problems, expected, bare };
}

/** The catalog's answer per operation, wrappers of pseudo definitions spelled as the inline schema would be. */
function labelled(): Map<string, string> {
  const found = new Map<string, string>();
  for (const [id, rule] of catalog.answers) {
    if (rule.raw) continue;
    const pseudo = !(rule.name in spec.definitions);
    found.set(id, pseudo ? `{${rule.embeds.map(([key, inner]) => `${key}: ${inner.name}`).join(', ')}}` : rule.name);
  }
  return found;
}

describe('every text-bearing field of every definition an answer embeds is labelled', () => {
  test('the pinned spec: nothing unlabelled, nothing stale', () => {
    assert.deepEqual(coverage(spec, file).problems, []);
  });

  test('a new prose field in a definition that is only ever embedded fails', () => {
    const changed = structuredClone(spec);
    (changed.definitions.User as Schema).properties.pronouns = { type: 'string' };
    (changed.definitions.Label as Schema).properties.long_description = { type: 'string' };
    assert.deepEqual(coverage(changed, file).problems, [
      'Label.long_description is neither text nor data',
      'User.pronouns is neither text nor data',
    ]);
  });

  test('a new embedded object that carries text fails, wherever it is embedded', () => {
    const changed = structuredClone(spec);
    (changed.definitions as Record<string, Schema>).Sponsor = {
      type: 'object',
      properties: { id: { type: 'integer' }, pitch: { type: 'string' } },
    };
    (changed.definitions.Milestone as Schema).properties.sponsor = { $ref: '#/definitions/Sponsor' };
    const problems = coverage(changed, file).problems;
    assert.ok(
      problems.includes('Milestone.sponsor (Sponsor) carries text and is not in its embeds'),
      problems.join('\n'),
    );
    assert.ok(problems.includes('Sponsor.pitch is neither text nor data'));
    assert.ok(problems.includes('Sponsor carries text and has no definition'));
  });

  test('every definition with text names its author, organisation or origin', () => {
    for (const [name, rule] of catalog.rules) if (rule.text.length > 0) assert.notEqual(rule.attribution, null, name);
  });
});

describe('every operation whose answer carries text is labelled as the answer it is', () => {
  test('JSON answers: the definition (or list of it) they are; an inline {data} by its wrapper', () => {
    const { expected } = coverage(spec, file);
    assert.ok(expected.size > 200, `found ${expected.size} operations`);
    assert.deepEqual(Object.fromEntries([...labelled()].sort()), Object.fromEntries([...expected].sort()));
  });

  test('a new route answering with a text-bearing definition fails until it is listed', () => {
    const changed = structuredClone(spec);
    changed.paths['/repos/{owner}/{repo}/sponsors'] = {
      get: {
        operationId: 'repoListSponsors',
        responses: { '200': { schema: { type: 'array', items: { $ref: '#/definitions/User' } } } },
      },
    };
    assert.equal(coverage(changed, file).expected.get('repoListSponsors'), 'User');
    assert.equal(catalog.answers.get('repoListSponsors'), undefined);
  });

  test('bare answers are raw answers of the catalog or carry no one else’s text', () => {
    const { bare } = coverage(spec, file);
    const raw = new Set([...catalog.answers].filter(([, rule]) => rule.raw).map(([id]) => id));
    assert.deepEqual(
      bare.filter((id) => !raw.has(id) && !(id in BARE_WITHOUT_TEXT)),
      [],
    );
    assert.deepEqual(
      [...raw].filter((id) => !bare.includes(id)),
      [],
    );
  });

  test('secrecy names only operations the spec has', () => {
    const all = new Set(answersOf(spec).map((answer) => answer.operationId));
    for (const methods of Object.values(spec.paths))
      for (const op of Object.values(methods as Record<string, any>)) if (op?.operationId) all.add(op.operationId);
    const named = [
      ...Object.keys(file.secrecy.url_arguments),
      ...Object.keys(file.secrecy.private_arguments),
      ...Object.keys(file.secrecy.visibility_arguments),
      ...file.secrecy.public_targets,
      ...file.secrecy.no_sink,
    ];
    assert.deepEqual(
      named.filter((id) => !all.has(id)),
      [],
    );
  });
});
