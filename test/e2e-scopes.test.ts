// Resource scopes end to end: real `serve` namespaces over stdio, the MCP SDK client and the sandbox
// Gitea. A denied call must never reach the sandbox; listings must never show an out-of-scope repository.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  connectStdio,
  identityChecked,
  namespaceEnv,
  payloadOf,
  repoRoot,
  tempDir,
  type Connected,
} from './support/namespace.js';
import { startContractSandbox, type ContractSandbox } from './support/spec-contract.js';

const WIDGETS_PROFILE = join(repoRoot, 'profiles', 'examples', 'gitea-author-widgets.yaml');
const WORKFLOW = '.gitea/workflows/ci.yml';

let sandbox: ContractSandbox;
let dir: ReturnType<typeof tempDir>;
let author: Connected;
let widgets: Connected;
let merger: Connected;

/** The reference merger, allowed to merge into release/* only. */
const RELEASE_MERGER = `profile_name: gitea-merger-release
role: merger
authenticated_username: carol
token_source_name: GITEA_MERGER_TOKEN
allowed_operations: [gitea.read, gitea.pr.merge]
forbidden_operations: [gitea.pr.approve, gitea.branch.push, gitea.repo.commit]
can_approve_prs: false
can_merge_prs: true
can_push_branches: false
can_mutate_issues: false
can_author_impl_prs: false
branches:
  gitea.pr.merge: ['release/*']
`;

before(async () => {
  sandbox = await startContractSandbox();
  dir = tempDir('warden-scopes-');
  const alice = sandbox.users.alice?.token ?? '';
  const releaseMerger = join(dir.path, 'gitea-merger-release.yaml');
  writeFileSync(releaseMerger, RELEASE_MERGER);
  [author, widgets, merger] = await Promise.all([
    connectStdio(namespaceEnv(sandbox, 'gitea-author', { auditLog: join(dir.path, 'author.jsonl') })),
    connectStdio(
      namespaceEnv(sandbox, WIDGETS_PROFILE, {
        auditLog: join(dir.path, 'widgets.jsonl'),
        extra: { GITEA_AUTHOR_TOKEN: alice, TOOLSETS: 'all' },
      }),
    ),
    connectStdio(
      namespaceEnv(sandbox, releaseMerger, {
        auditLog: join(dir.path, 'merger.jsonl'),
        extra: { GITEA_MERGER_TOKEN: sandbox.users.carol?.token ?? '' },
      }),
    ),
  ]);
  await identityChecked(author, widgets, merger);
});
after(async () => {
  await Promise.all([author?.close(), widgets?.close(), merger?.close()]);
  await sandbox?.close();
  dir?.dispose();
});

function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

/** Calls a tool and returns its payload with the sandbox requests the call caused. */
async function call(ns: Connected, name: string, args: Record<string, unknown>) {
  const before = sandbox.requests.length;
  const result = await ns.client.callTool({ name, arguments: args });
  return { isError: result.isError === true, payload: payloadOf(result), requests: sandbox.requests.slice(before) };
}

/** A policy denial whose failed conditions include `code`, with no request sent to Gitea. */
async function assertDenied(ns: Connected, name: string, args: Record<string, unknown>, code: string) {
  const { isError, payload, requests } = await call(ns, name, args);
  assert.equal(isError, true, `${name} should be refused`);
  assert.equal(payload.error?.kind, 'policy_denied');
  assert.equal(payload.error?.reason, code);
  assert.ok(
    payload.error.failed.some((f: { code: string }) => f.code === code),
    JSON.stringify(payload.error.failed),
  );
  assert.deepEqual(requests, [], `${name} reached the sandbox`);
}

describe('the reference author never writes a workflow file', () => {
  const onFeature = { branch: 'feature/login', message: 'ci' };
  const attempts: Array<[string, string, Record<string, unknown>]> = [
    [
      'create through the generated tool',
      'gitea_contents_create_file',
      { owner: 'acme', repo: 'widgets', filepath: WORKFLOW, body: { ...onFeature, content: base64('on: push\n') } },
    ],
    [
      'change through the multi-file tool',
      'gitea_contents_change_files',
      {
        owner: 'acme',
        repo: 'widgets',
        body: {
          ...onFeature,
          files: [
            { operation: 'create', path: 'docs/ok.md', content: base64('ok\n') },
            { operation: 'create', path: WORKFLOW, content: base64('on: push\n') },
          ],
        },
      },
    ],
    [
      'create through gitea_api_request',
      'gitea_api_request',
      {
        method: 'POST',
        path: `/repos/acme/widgets/contents/${WORKFLOW}`,
        body: { ...onFeature, content: base64('on: push\n') },
      },
    ],
  ];
  for (const [what, tool, args] of attempts) {
    test(`${what}: path_not_allowed, nothing sent`, () => assertDenied(author, tool, args, 'path_not_allowed'));
  }

  test('an ordinary file on a feature branch is written', async () => {
    const { isError, payload } = await call(author, 'gitea_contents_create_file', {
      owner: 'acme',
      repo: 'widgets',
      filepath: 'docs/scopes.md',
      body: { branch: 'feature/login', message: 'docs', content: base64('# scopes\n') },
    });
    assert.equal(isError, false, JSON.stringify(payload));
    assert.equal(payload.status, 201);
  });

  test('a contents write to the protected main branch: protected_branch, nothing sent', () =>
    assertDenied(
      author,
      'gitea_contents_create_file',
      {
        owner: 'acme',
        repo: 'widgets',
        filepath: 'docs/main.md',
        body: { branch: 'main', message: 'x', content: base64('x\n') },
      },
      'protected_branch',
    ));
});

describe('a profile scoped to acme/widgets', () => {
  const outside: Array<[string, string, Record<string, unknown>]> = [
    ['reads acme/gadgets through the generated tool', 'gitea_repos_get', { owner: 'acme', repo: 'gadgets' }],
    ['reads a gadgets file', 'gitea_contents_get', { owner: 'acme', repo: 'gadgets', filepath: 'README.md' }],
    [
      'reads acme/gadgets through gitea_api_request',
      'gitea_api_request',
      { method: 'GET', path: '/repos/acme/gadgets' },
    ],
    [
      'writes to acme/gadgets',
      'gitea_contents_create_file',
      {
        owner: 'acme',
        repo: 'gadgets',
        filepath: 'x.md',
        body: { new_branch: 'feature/x', message: 'x', content: base64('x\n') },
      },
    ],
    [
      'writes to acme/gadgets through gitea_api_request',
      'gitea_api_request',
      {
        method: 'POST',
        path: '/repos/acme/gadgets/contents/x.md',
        body: { new_branch: 'feature/x', message: 'x', content: base64('x\n') },
      },
    ],
  ];
  for (const [what, tool, args] of outside) {
    test(`${what}: repository_out_of_scope, nothing sent`, () =>
      assertDenied(widgets, tool, args, 'repository_out_of_scope'));
  }

  test('reads acme/widgets', async () => {
    const { isError, payload } = await call(widgets, 'gitea_repos_get', { owner: 'acme', repo: 'widgets' });
    assert.equal(isError, false, JSON.stringify(payload));
    assert.equal(payload.data.full_name, 'acme/widgets');
  });

  test('repository search shows only acme/widgets and says how many were removed', async () => {
    const { isError, payload } = await call(widgets, 'gitea_repos_search', { limit: 50 });
    assert.equal(isError, false, JSON.stringify(payload));
    assert.deepEqual(
      payload.data.data.map((r: { full_name: string }) => r.full_name),
      ['acme/widgets'],
    );
    assert.match(
      payload.scope_filtered,
      /^\d+ items outside this profile's repository scope were removed from this page/,
    );
    assert.ok(payload.pagination.removed_by_scope > 0, JSON.stringify(payload.pagination));
    // The unscoped author sees more than one repository in the same search.
    const unscoped = await call(author, 'gitea_repos_search', { limit: 50 });
    assert.ok(unscoped.payload.data.data.length > 1);
    assert.equal(unscoped.payload.scope_filtered, undefined);
  });

  test("the user's repository list holds nothing outside acme/widgets", async () => {
    for (const [tool, args] of [
      ['gitea_repos_current_list', {}],
      ['gitea_api_request', { method: 'GET', path: '/orgs/acme/repos' }],
    ] as const) {
      const { isError, payload } = await call(widgets, tool, args);
      assert.equal(isError, false, JSON.stringify(payload));
      assert.ok(
        (payload.data as Array<{ full_name: string }>).every((r) => r.full_name === 'acme/widgets'),
        `${tool}: ${JSON.stringify(payload.data)}`,
      );
    }
  });

  test('gitea_whoami shows the active scopes', async () => {
    const { payload } = await call(widgets, 'gitea_whoami', {});
    assert.deepEqual(payload.scopes.repositories, { read: ['acme/widgets'], write: ['acme/widgets'] });
    assert.deepEqual(payload.scopes.branches['gitea.branch.push'], ['feature/*', 'fix/*']);
    assert.ok(payload.scopes.paths.write.deny.includes('.gitea/workflows/**'));
  });
});

describe('a merger scoped to release/* branches', () => {
  test("a merge into main: branch_out_of_scope from the pull request's live base, nothing but that read sent", async () => {
    const open = await fetch(`${sandbox.url}/api/v1/repos/acme/widgets/pulls?state=open`, {
      headers: { authorization: `token ${sandbox.users.carol?.token}` },
    });
    const pull = ((await open.json()) as Array<{ number: number; base: { ref: string } }>).find(
      (p) => p.base.ref === 'main',
    );
    assert.ok(pull, 'an open pull request into main');
    const { isError, payload, requests } = await call(merger, 'gitea_pulls_merge', {
      owner: 'acme',
      repo: 'widgets',
      index: pull.number,
      body: { do: 'merge' },
    });
    assert.equal(isError, true);
    assert.equal(payload.error.kind, 'policy_denied');
    assert.deepEqual(
      payload.error.failed.map((f: { code: string }) => f.code),
      ['branch_out_of_scope'],
      JSON.stringify(payload.error),
    );
    assert.match(payload.error.failed[0].message, /branch main is outside/);
    assert.deepEqual(
      requests.map((r) => `${r.method} ${r.path}`),
      [`GET /api/v1/repos/acme/widgets/pulls/${pull.number}`],
    );
  });

  test('a merge into release/*: the live base and the merge guard share one read of the pull request', async () => {
    const admin = { authorization: `token ${sandbox.users.admin?.token}`, 'content-type': 'application/json' };
    const api = `${sandbox.url}/api/v1/repos/acme/widgets`;
    const branch = await fetch(`${api}/branches`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ new_branch_name: 'release/1.0', old_branch_name: 'main' }),
    });
    assert.equal(branch.status, 201);
    const opened = await fetch(`${api}/pulls`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ title: 'Release login', head: 'feature/login', base: 'release/1.0' }),
    });
    assert.equal(opened.status, 201);
    const { number } = (await opened.json()) as { number: number };
    const { isError, payload, requests } = await call(merger, 'gitea_pulls_merge', {
      owner: 'acme',
      repo: 'widgets',
      index: number,
      body: { do: 'merge' },
    });
    // In scope by the live base, then refused by the merge guard, which judged the same pull request.
    assert.equal(isError, true);
    assert.equal(payload.error.kind, 'policy_denied', JSON.stringify(payload.error));
    assert.ok(
      !payload.error.failed.some((f: { code: string }) => f.code === 'branch_out_of_scope'),
      JSON.stringify(payload.error),
    );
    assert.ok(
      requests.some((r) => r.path.endsWith(`/pulls/${number}/reviews`)),
      'the merge guard ran',
    );
    const pullReads = requests.filter(
      (r) => r.method === 'GET' && r.path === `/api/v1/repos/acme/widgets/pulls/${number}`,
    );
    assert.equal(pullReads.length, 1, JSON.stringify(requests));
  });
});

test('every answer the sandbox gave in this file conforms to the pinned Gitea spec', () => {
  sandbox.assertConformed();
});
