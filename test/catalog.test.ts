import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import { catalogFile, defaultSpecPath, toolsDocFile } from '../src/shared/paths.js';
import { catalogDrift, generateCatalog, renderGeneratedFiles, type GeneratedFiles } from '../src/catalog/generate.js';
import { catalogByName, catalogByOperationId, loadCatalog, readCatalog } from '../src/catalog/load.js';
import { TOOL_NAME_PATTERN } from '../src/catalog/naming.js';
import { containsRef } from '../src/catalog/schema.js';

const Ajv = AjvModule.default ?? AjvModule;
const addFormats = addFormatsModule.default ?? addFormatsModule;

const catalog = loadCatalog();
const byName = catalogByName();

function newAjv() {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  return ajv;
}

describe('committed catalog', () => {
  test('has one entry per operation of the pinned spec, with its source recorded', () => {
    assert.equal(catalog.entries.length, 485);
    assert.equal(catalogByOperationId().size, 485);
    assert.equal(catalog.source.title, 'Gitea API');
    assert.equal(catalog.source.version, '1.27.1');
    assert.match(catalog.source.sha256, /^[0-9a-f]{64}$/);
  });

  test('tool names are unique and valid MCP names', () => {
    assert.equal(byName.size, catalog.entries.length);
    for (const e of catalog.entries) assert.match(e.name, TOOL_NAME_PATTERN, e.name);
    for (const e of catalog.entries) assert.ok(e.name.startsWith(`gitea_${e.domain}_`), e.name);
  });

  test('names read as domain and action', () => {
    const expected: Array<[string, string]> = [
      ['repoMergePullRequest', 'gitea_pulls_merge'],
      ['repoGetPullRequest', 'gitea_pulls_get'],
      ['repoDeleteBranch', 'gitea_branches_delete'],
      ['repoCreateFile', 'gitea_contents_create_file'],
      ['repoListHooks', 'gitea_webhooks_list'],
      ['orgListHooks', 'gitea_webhooks_org_list'],
      ['issueCreateComment', 'gitea_comments_create'],
      ['repoListReleases', 'gitea_releases_list'],
    ];
    for (const [operationId, name] of expected)
      assert.equal(catalogByOperationId().get(operationId)?.name, name, operationId);
  });

  test('no $ref anywhere in the catalog', () => {
    assert.equal(containsRef(catalog), false);
  });

  test('every input schema compiles with ajv and is a closed object with an optional sudo', () => {
    const ajv = newAjv();
    for (const e of catalog.entries) {
      assert.doesNotThrow(() => ajv.compile(e.inputSchema), e.name);
      assert.equal(e.inputSchema.type, 'object', e.name);
      assert.equal(e.inputSchema.additionalProperties, false, e.name);
      assert.ok(!(e.inputSchema.required as string[]).includes('sudo'), e.name);
    }
  });

  test('annotations follow the method, with replacing writes marked destructive', () => {
    const cases: Array<[string, Partial<(typeof catalog.entries)[0]['annotations']>]> = [
      ['repoListPullRequests', { readOnly: true, destructive: false, idempotent: true, paginated: true }],
      ['repoDeleteBranch', { readOnly: false, destructive: true, idempotent: true }],
      ['repoMergePullRequest', { readOnly: false, destructive: false, idempotent: false }],
      ['repoUpdateFile', { destructive: true, idempotent: true }],
      ['issueReplaceLabels', { destructive: true }],
      ['repoAddCollaborator', { destructive: false, idempotent: true }],
      ['repoChangeFiles', { destructive: true, idempotent: false }],
    ];
    for (const [operationId, expected] of cases) {
      const annotations = catalogByOperationId().get(operationId)?.annotations;
      assert.deepEqual({ ...annotations, ...expected }, annotations, operationId);
    }
  });

  test('wildcard path parameters are keyed on the route, not the name', () => {
    const wildcard = (operationId: string, param: string) =>
      catalogByOperationId()
        .get(operationId)
        ?.parameters.path.find((p) => p.name === param)?.wildcard;
    const cases: Array<[string, string, boolean]> = [
      ['repoGetBranch', 'branch', true],
      ['repoGetTag', 'tag', true],
      ['repoGetReleaseByTag', 'tag', false],
      ['repoGetContents', 'filepath', true],
      ['repoGetEditorConfig', 'filepath', false],
      ['repoCompareDiff', 'basehead', true],
      ['repoListGitRefs', 'ref', true],
      ['repoGetCombinedStatusByRef', 'ref', true],
      ['repoGetCommitPullRequest', 'sha', false],
      ['repoGetPullRequestByBaseHead', 'base', false],
      ['repoGetPullRequestByBaseHead', 'head', true],
      ['repoGetWikiPage', 'pageName', false],
    ];
    for (const [operationId, param, expected] of cases)
      assert.equal(wildcard(operationId, param), expected, `${operationId} ${param}`);
  });
});

describe('a catalog file that cannot be served', () => {
  const cases: Array<[string, string | null, RegExp]> = [
    ['missing', null, /cannot read the tool catalog .*tools\.json; regenerate it with: gitea-warden catalog generate/],
    ['not JSON', '{"source": {', /cannot read the tool catalog .*tools\.json; regenerate/],
    ['without entries', '{"source": {"title": "Gitea API"}, "entries": []}', /has no source or no entries; regenerate/],
    ['without a source', '{"entries": [{}]}', /has no source or no entries; regenerate/],
  ];
  for (const [label, text, message] of cases) {
    test(`${label}: refused with the file and how to regenerate it`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'catalog-'));
      try {
        const file = join(dir, 'tools.json');
        if (text !== null) writeFileSync(file, text);
        assert.throws(() => readCatalog(file), message);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe('input validation', () => {
  const ajv = newAjv();
  const validate = (name: string, args: unknown) => {
    const check = ajv.compile(byName.get(name)!.inputSchema);
    return { ok: check(args), paths: (check.errors ?? []).map((e) => e.instancePath || e.params) };
  };

  test('a merge is owner, repo, index and the JSON body as one `body` property', () => {
    assert.equal(
      validate('gitea_pulls_merge', { owner: 'acme', repo: 'widgets', index: 3, body: { do: 'merge' } }).ok,
      true,
    );
  });

  test('invalid arguments are rejected', () => {
    const cases: Array<[string, unknown]> = [
      ['missing index', { owner: 'acme', repo: 'widgets', body: { do: 'merge' } }],
      ['body without do', { owner: 'acme', repo: 'widgets', index: 3, body: { delete_branch_after_merge: true } }],
      ['unknown merge style', { owner: 'acme', repo: 'widgets', index: 3, body: { do: 'yolo' } }],
      ['extra top-level property', { owner: 'acme', repo: 'widgets', index: 3, body: { do: 'merge' }, force: true }],
      // Gitea reads JSON keys case-insensitively: a case variant of force_merge must not slip past the policy rules.
      [
        'case variant of a body field',
        { owner: 'acme', repo: 'widgets', index: 3, body: { do: 'merge', FORCE_MERGE: true } },
      ],
      ['owner with a slash', { owner: 'acme/x', repo: 'widgets', index: 3, body: { do: 'merge' } }],
      ['repo named ..', { owner: 'acme', repo: '..', index: 3, body: { do: 'merge' } }],
      ['index as text', { owner: 'acme', repo: 'widgets', index: 'three', body: { do: 'merge' } }],
      ['sudo with a space', { owner: 'acme', repo: 'widgets', index: 3, body: { do: 'merge' }, sudo: 'a b' }],
    ];
    for (const [label, args] of cases) assert.equal(validate('gitea_pulls_merge', args).ok, false, label);
  });

  test('sudo is accepted as a login', () => {
    assert.equal(validate('gitea_pulls_get', { owner: 'acme', repo: 'widgets', index: 3, sudo: 'alice' }).ok, true);
  });

  test('multipart files are base64 strings', () => {
    const entry = catalogByOperationId().get('issueCreateIssueAttachment')!;
    assert.deepEqual(
      entry.parameters.file.map((f) => f.name),
      ['attachment'],
    );
    const props = entry.inputSchema.properties as Record<string, Record<string, unknown>>;
    assert.equal(props.attachment?.type, 'string');
    assert.equal(props.attachment?.contentEncoding, 'base64');
  });
});

describe('drift between the spec and the committed files', () => {
  const specPath = defaultSpecPath();

  function freshAndCommitted(): { fresh: GeneratedFiles; committed: GeneratedFiles } {
    assert.ok(existsSync(specPath), `the pinned Gitea spec is missing at ${specPath}; set GITEA_SPEC to its path`);
    const fresh = renderGeneratedFiles(generateCatalog({ text: readFileSync(specPath, 'utf8') }));
    const committed = { catalogJson: readFileSync(catalogFile, 'utf8'), toolsDoc: readFileSync(toolsDocFile, 'utf8') };
    return { fresh, committed };
  }

  test('committed tools.json and docs/tools.md match a fresh generation', () => {
    const { fresh, committed } = freshAndCommitted();
    assert.deepEqual(catalogDrift(fresh, committed), []);
  });

  test('a hand edit of tools.json is reported by tool and field', () => {
    const { fresh, committed } = freshAndCommitted();
    const edited = JSON.parse(committed.catalogJson);
    edited.entries[0].annotations.destructive = !edited.entries[0].annotations.destructive;
    const drift = catalogDrift(fresh, { ...committed, catalogJson: `${JSON.stringify(edited, null, 2)}\n` });
    assert.deepEqual(drift, [`src/catalog/tools.json: ${edited.entries[0].name} differs in annotations`]);
  });

  test('a removed tool and an edited docs line are both reported', () => {
    const { fresh, committed } = freshAndCommitted();
    const edited = JSON.parse(committed.catalogJson);
    const removed = edited.entries.pop();
    const doc = committed.toolsDoc.replace('| Tool |', '| Tools |');
    const drift = catalogDrift(fresh, { catalogJson: `${JSON.stringify(edited, null, 2)}\n`, toolsDoc: doc });
    assert.ok(drift.includes(`src/catalog/tools.json: missing tool ${removed.name}`), drift.join('\n'));
    assert.ok(
      drift.some((d) => d.startsWith('docs/tools.md:')),
      drift.join('\n'),
    );
  });
});
