// Issue 12, points 6-12, through the official MCP SDK client (in-memory transport) against the
// sandbox Gitea: a pull request's base edit is a branch target, a pull request is an issue on every
// issue route, the default branch and Gitea's `protected` flag are live facts, sudo does not make a
// second person, one token source per profile, ownership of pull requests, token scopes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { payloadOf, tempDir } from './support/namespace.js';
import { connectInProcess, type InProcessConnection } from './support/in-process.js';
import { startContractSandbox, type ContractSandbox } from './support/spec-contract.js';

const dir = tempDir('warden-routes-identity-');
let sandbox: ContractSandbox;
const open: InProcessConnection[] = [];

/** The reference author's lists, opening pull requests into feature/* only. */
const FEATURE_AUTHOR = `profile_name: gitea-author-features
role: author
authenticated_username: alice
token_source_name: GITEA_AUTHOR_TOKEN
allowed_operations: [gitea.read, gitea.pr.create, gitea.pr.edit, gitea.pr.close]
forbidden_operations: [gitea.pr.approve, gitea.pr.request_changes, gitea.pr.merge, gitea.pr.force_merge]
can_approve_prs: false
can_merge_prs: false
can_push_branches: false
can_mutate_issues: false
can_author_impl_prs: true
branches:
  gitea.pr.create: ['feature/*']
`;

before(async () => {
  sandbox = await startContractSandbox();
  writeFileSync(join(dir.path, 'gitea-author-features.yaml'), FEATURE_AUTHOR);
});

after(async () => {
  for (const connection of open) await connection.close();
  await sandbox.close();
  dir.dispose();
});

/** A namespace of `profile` (a reference name or a file) with `env` on top of the sandbox's URL and an audit log. */
async function connect(profile: string, env: Record<string, string>): Promise<InProcessConnection> {
  const connection = await connectInProcess({
    GITEA_URL: sandbox.url,
    GITEA_MCP_PROFILE: profile,
    AUDIT_LOG: join(dir.path, `${open.length}.jsonl`),
    TOOLSETS: 'all',
    ...env,
  });
  open.push(connection);
  return connection;
}

const tokenOf = (login: string): string => sandbox.users[login]?.token ?? '';

/** Calls a tool through the SDK client; the payload and the sandbox requests the call caused. */
async function call(connection: InProcessConnection, name: string, args: Record<string, unknown>) {
  const before = sandbox.requests.length;
  const result = await connection.client.callTool({ name, arguments: args });
  const requests = sandbox.requests.slice(before);
  return {
    isError: result.isError === true,
    payload: payloadOf(result),
    requests,
    writes: requests.filter((r) => r.method !== 'GET'),
  };
}

function widgets() {
  const repo = sandbox.state.repo('acme', 'widgets');
  assert.ok(repo);
  return repo;
}

describe('6: editing a pull request base retargets it, under the branch scope of gitea.pr.create', () => {
  let author: InProcessConnection;
  let index: number;
  before(async () => {
    author = await connect(join(dir.path, 'gitea-author-features.yaml'), { GITEA_AUTHOR_TOKEN: tokenOf('alice') });
    const main = widgets().branches.get('main') as string;
    widgets().branches.set('feature/y', main);
    widgets().branches.set('feature/z', main);
    const opened = await call(author, 'gitea_pulls_create', {
      owner: 'acme',
      repo: 'widgets',
      body: { head: 'feature/login', base: 'feature/y', title: 'Login into y' },
    });
    assert.equal(opened.isError, false, JSON.stringify(opened.payload));
    index = opened.payload.data.number;
  });

  test('opening into main is outside the scope', async () => {
    const { payload, writes } = await call(author, 'gitea_pulls_create', {
      owner: 'acme',
      repo: 'widgets',
      body: { head: 'feature/login', base: 'main', title: 'Login' },
    });
    assert.equal(payload.error?.reason, 'branch_out_of_scope');
    assert.deepEqual(writes, []);
  });

  for (const [name, tool, args] of [
    [
      'the pull request tool',
      'gitea_pulls_edit',
      (n: number) => ({ owner: 'acme', repo: 'widgets', index: n, body: { base: 'main' } }),
    ],
    [
      'the raw tool',
      'gitea_api_request',
      (n: number) => ({ method: 'PATCH', path: `/repos/acme/widgets/pulls/${n}`, body: { base: 'main', title: 'x' } }),
    ],
  ] as const) {
    test(`retargeting it to main through ${name} is refused and never reaches Gitea`, async () => {
      const { payload, writes } = await call(author, tool, args(index));
      assert.equal(payload.error?.kind, 'policy_denied', JSON.stringify(payload));
      assert.equal(payload.error?.reason, 'branch_out_of_scope');
      assert.ok(payload.error?.operations.includes('gitea.pr.create'));
      assert.match(JSON.stringify(payload.error?.failed), /branch main is outside branches\.gitea\.pr\.create/);
      assert.deepEqual(writes, []);
      assert.equal(widgets().issues.find((i) => i.number === index)?.pull?.base, 'feature/y');
    });
  }

  test('retargeting it to another feature branch is allowed, and Gitea retargets it', async () => {
    const { isError, payload } = await call(author, 'gitea_pulls_edit', {
      owner: 'acme',
      repo: 'widgets',
      index,
      body: { base: 'feature/z' },
    });
    assert.equal(isError, false, JSON.stringify(payload));
    assert.equal(payload.data.base.ref, 'feature/z');
  });

  test('a title edit names no base and needs no branch scope', async () => {
    const { isError, payload } = await call(author, 'gitea_pulls_edit', {
      owner: 'acme',
      repo: 'widgets',
      index,
      body: { title: 'Login, retargeted' },
    });
    assert.equal(isError, false, JSON.stringify(payload));
    assert.equal(payload.data.base.ref, 'feature/z');
  });

  test('the sandbox answers a base that does not exist as Gitea does (404, NewBaseBranchNotExist)', async () => {
    const owner = await connect('gitea-owner', { GITEA_OWNER_TOKEN: tokenOf('admin') });
    const { payload } = await call(owner, 'gitea_pulls_edit', {
      owner: 'acme',
      repo: 'widgets',
      index,
      body: { base: 'nowhere' },
    });
    assert.equal(payload.error?.status, 404, JSON.stringify(payload));
  });
});

describe('7: a pull request is an issue on every issue route', () => {
  let issues: InProcessConnection;
  let reviewer: InProcessConnection;
  before(async () => {
    issues = await connect('gitea-issue-manager', { GITEA_ISSUE_MANAGER_TOKEN: tokenOf('erin') });
    reviewer = await connect('gitea-reviewer', { GITEA_REVIEWER_TOKEN: tokenOf('bob') });
  });
  const cases: [string, () => InProcessConnection, string, Record<string, unknown>, 'allow' | string[]][] = [
    [
      'the issue manager labels PR #1',
      () => issues,
      'gitea_issues_add_label',
      { index: 1, body: { labels: [1] } },
      ['gitea.issue.label', 'gitea.pr.edit'],
    ],
    [
      'the issue manager comments on PR #1',
      () => issues,
      'gitea_comments_create',
      { index: 1, body: { body: 'Triage note' } },
      ['gitea.issue.comment', 'gitea.pr.comment'],
    ],
    [
      'the issue manager labels issue #3',
      () => issues,
      'gitea_issues_add_label',
      { index: 3, body: { labels: [1] } },
      'allow',
    ],
    [
      'the issue manager comments on issue #3',
      () => issues,
      'gitea_comments_create',
      { index: 3, body: { body: 'Confirmed' } },
      'allow',
    ],
    [
      'the reviewer, who may comment on pull requests, comments on PR #1 there',
      () => reviewer,
      'gitea_comments_create',
      { index: 1, body: { body: 'Looks fine' } },
      'allow',
    ],
  ];
  for (const [name, who, tool, args, expected] of cases) {
    test(`${name}: ${expected === 'allow' ? 'allowed' : 'refused'}`, async () => {
      const { isError, payload, writes } = await call(who(), tool, { owner: 'acme', repo: 'widgets', ...args });
      if (expected === 'allow') {
        assert.equal(isError, false, JSON.stringify(payload));
        assert.equal(writes.length, 1);
        return;
      }
      assert.equal(payload.error?.reason, 'not_allowed', JSON.stringify(payload));
      assert.deepEqual(payload.error?.operations, expected);
      assert.deepEqual(writes, [], 'a refused call reached Gitea');
    });
  }
});

describe('9: sudo does not make a second person', () => {
  let owner: InProcessConnection;
  let index: number;
  let head: string;
  before(async () => {
    owner = await connect('gitea-owner', { GITEA_OWNER_TOKEN: tokenOf('admin') });
    const commit = await call(owner, 'gitea_contents_create_file', {
      owner: 'acme',
      repo: 'widgets',
      filepath: 'src/admin.js',
      body: {
        content: Buffer.from('export const admin = true;\n').toString('base64'),
        branch: 'main',
        new_branch: 'admin/tweak',
        message: 'Admin tweak',
      },
    });
    assert.equal(commit.isError, false, JSON.stringify(commit.payload));
    const opened = await call(owner, 'gitea_pulls_create', {
      owner: 'acme',
      repo: 'widgets',
      body: { head: 'admin/tweak', base: 'main', title: 'Admin tweak' },
    });
    assert.equal(opened.isError, false, JSON.stringify(opened.payload));
    index = opened.payload.data.number;
    head = opened.payload.data.head.sha;
  });
  const cases: [string, string, (n: number) => Record<string, unknown>][] = [
    [
      'the owner approves its own pull request as bob',
      'gitea_pulls_create_review',
      (n) => ({ owner: 'acme', repo: 'widgets', index: n, sudo: 'bob', body: { event: 'APPROVED', body: 'ok' } }),
    ],
    [
      'the same approval through the raw tool',
      'gitea_api_request',
      (n) => ({
        method: 'POST',
        path: `/repos/acme/widgets/pulls/${n}/reviews`,
        query: { sudo: 'bob' },
        body: { event: 'APPROVED' },
      }),
    ],
    [
      'the owner requests changes as bob',
      'gitea_pulls_create_review',
      (n) => ({
        owner: 'acme',
        repo: 'widgets',
        index: n,
        sudo: 'bob',
        body: { event: 'REQUEST_CHANGES', body: 'no' },
      }),
    ],
    [
      'the owner merges it as carol',
      'gitea_pulls_merge',
      (n) => ({ owner: 'acme', repo: 'widgets', index: n, sudo: 'carol', body: { do: 'merge', head_commit_id: head } }),
    ],
  ];
  for (const [name, tool, args] of cases) {
    test(`${name}: refused, sudo_not_independent`, async () => {
      const { payload, writes } = await call(owner, tool, args(index));
      assert.equal(payload.error?.reason, 'sudo_not_independent', JSON.stringify(payload));
      assert.deepEqual(writes, [], 'a refused call reached Gitea');
    });
  }
  test("a comment review under sudo is authoring in bob's name too: refused", async () => {
    const { payload, writes } = await call(owner, 'gitea_pulls_create_review', {
      owner: 'acme',
      repo: 'widgets',
      index,
      sudo: 'bob',
      body: { event: 'COMMENT', body: 'a note' },
    });
    assert.equal(payload.error?.reason, 'sudo_not_independent', JSON.stringify(payload));
    assert.deepEqual(writes, []);
  });

  test('a read under sudo is not refused for it', async () => {
    const { payload } = await call(owner, 'gitea_pulls_get', { owner: 'acme', repo: 'widgets', index, sudo: 'bob' });
    assert.equal(payload.error, undefined, JSON.stringify(payload));
    assert.equal(payload.data.number, index);
  });
});

describe('10: one token source per profile', () => {
  let author: InProcessConnection;
  before(async () => {
    // The author's own variable is unset; an admin's token sits in GITEA_TOKEN.
    author = await connect('gitea-author', { GITEA_TOKEN: tokenOf('admin') });
  });
  for (const [name, tool, args] of [
    ['a private repository the author cannot see', 'gitea_repos_get', { owner: 'erin', repo: 'notes' }],
    ['a public repository', 'gitea_repos_get', { owner: 'acme', repo: 'widgets' }],
    ['the same read through the raw tool', 'gitea_api_request', { method: 'GET', path: '/repos/erin/notes' }],
    ['a comment', 'gitea_comments_create', { owner: 'acme', repo: 'widgets', index: 3, body: { body: 'hi' } }],
  ] as const) {
    test(`${name}: refused (token_missing), never read with GITEA_TOKEN or anonymously`, async () => {
      const { payload, requests } = await call(author, tool, args);
      assert.equal(payload.error?.kind, 'token_missing', JSON.stringify(payload));
      assert.match(payload.error?.message, /GITEA_AUTHOR_TOKEN is not set/);
      assert.deepEqual(requests, [], 'the call reached Gitea');
    });
  }
  test('gitea_whoami says the identity is unverified, and no request went out as the admin', async () => {
    const { payload } = await call(author, 'gitea_whoami', {});
    assert.equal(payload.verified, false);
    assert.equal(payload.login, null);
    assert.ok(!sandbox.requests.some((r) => r.login === 'admin' && r.path === '/api/v1/repos/erin/notes'));
  });
});

describe('12: what the token itself may do (token scopes)', () => {
  /** A second token of alice's with only these scopes, as Gitea's token page would issue it. */
  function scopedToken(value: string, scopes: string[]): string {
    sandbox.state.tokens.push({
      id: 900 + sandbox.state.tokens.length,
      owner: 'alice',
      name: value,
      value,
      scopes,
      created: '2026-12-01T00:00:00Z',
    });
    return value;
  }
  test("the sandbox refuses GET /user without read:user with Gitea's own message", async () => {
    const token = scopedToken('a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6a7b8c9d0', ['write:repository', 'write:issue']);
    const answer = await fetch(`${sandbox.url}/api/v1/user`, { headers: { authorization: `token ${token}` } });
    assert.equal(answer.status, 403);
    const body = (await answer.json()) as { message: string };
    assert.equal(
      body.message,
      'token does not have at least one of required scope(s), required=[read:user], token scope=write:repository,write:issue',
    );
    const repo = await fetch(`${sandbox.url}/api/v1/repos/acme/widgets`, {
      headers: { authorization: `token ${token}` },
    });
    assert.equal(repo.status, 200);
  });

  test('a token without read:user reads as a scope failure, not as a wrong or unverified identity', async () => {
    const token = scopedToken('b1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6a7b8c9d0', ['write:repository', 'write:issue']);
    const author = await connect('gitea-author', { GITEA_AUTHOR_TOKEN: token });
    const whoami = (await call(author, 'gitea_whoami', {})).payload;
    assert.equal(whoami.verified, false);
    assert.equal(whoami.cause, 'token_scope');
    assert.match(whoami.detail, /lacks the scope read:user/);
    const comment = await call(author, 'gitea_comments_create', {
      owner: 'acme',
      repo: 'widgets',
      index: 3,
      body: { body: 'hi' },
    });
    assert.equal(comment.payload.error?.kind, 'token_scope_missing', JSON.stringify(comment.payload));
    assert.match(comment.payload.error?.hint, /read:user/);
    assert.deepEqual(comment.writes, []);
    const read = await call(author, 'gitea_repos_get', { owner: 'acme', repo: 'widgets' });
    assert.equal(read.isError, false, JSON.stringify(read.payload));
  });

  test("a call the token has no scope for answers Gitea's 403 with a hint naming the scope", async () => {
    const token = scopedToken('c1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6a7b8c9d0', ['read:user', 'write:repository']);
    const author = await connect('gitea-author', { GITEA_AUTHOR_TOKEN: token });
    assert.equal((await call(author, 'gitea_whoami', {})).payload.verified, true);
    const comment = await call(author, 'gitea_comments_create', {
      owner: 'acme',
      repo: 'widgets',
      index: 3,
      body: { body: 'hi' },
    });
    assert.equal(comment.payload.error?.status, 403, JSON.stringify(comment.payload));
    assert.match(comment.payload.error?.hint, /lacks the scope write:issue/);
  });
});

describe("11: the author edits and closes its own pull requests, not someone else's", () => {
  let author: InProcessConnection;
  let theirs: number;
  before(async () => {
    author = await connect('gitea-author', { GITEA_AUTHOR_TOKEN: tokenOf('alice') });
    const owner = await connect('gitea-owner', { GITEA_OWNER_TOKEN: tokenOf('admin') });
    const commit = await call(owner, 'gitea_contents_create_file', {
      owner: 'acme',
      repo: 'widgets',
      filepath: 'src/owner.js',
      body: {
        content: Buffer.from('export const owner = 1;\n').toString('base64'),
        branch: 'main',
        new_branch: 'admin/owned',
        message: 'Owner change',
      },
    });
    assert.equal(commit.isError, false, JSON.stringify(commit.payload));
    const opened = await call(owner, 'gitea_pulls_create', {
      owner: 'acme',
      repo: 'widgets',
      body: { head: 'admin/owned', base: 'main', title: 'Owner change' },
    });
    assert.equal(opened.isError, false, JSON.stringify(opened.payload));
    theirs = opened.payload.data.number;
  });
  const cases: [string, string, (n: number) => Record<string, unknown>][] = [
    [
      'retitling it',
      'gitea_pulls_edit',
      (n) => ({ owner: 'acme', repo: 'widgets', index: n, body: { title: 'mine now' } }),
    ],
    [
      'closing it',
      'gitea_pulls_edit',
      (n) => ({ owner: 'acme', repo: 'widgets', index: n, body: { state: 'closed' } }),
    ],
    [
      'closing it through the raw tool',
      'gitea_api_request',
      (n) => ({ method: 'PATCH', path: `/repos/acme/widgets/pulls/${n}`, body: { state: 'closed' } }),
    ],
  ];
  for (const [name, tool, args] of cases) {
    test(`${name}: refused, naming the live poster`, async () => {
      const { payload, writes } = await call(author, tool, args(theirs));
      assert.equal(payload.error?.reason, 'own_pull_request', JSON.stringify(payload));
      assert.match(JSON.stringify(payload.error?.failed), /opened by admin \(live: user\.login\)/);
      assert.deepEqual(writes, [], 'a refused call reached Gitea');
    });
  }
  test('retitling its own pull request #1 is allowed', async () => {
    const { isError, payload } = await call(author, 'gitea_pulls_edit', {
      owner: 'acme',
      repo: 'widgets',
      index: 1,
      body: { title: 'Add the login form' },
    });
    assert.equal(isError, false, JSON.stringify(payload));
    assert.equal(payload.data.title, 'Add the login form');
  });
});

describe("8: the repository's default branch and Gitea's protected flag are live facts", () => {
  let author: InProcessConnection;
  before(async () => {
    author = await connect('gitea-author', { GITEA_AUTHOR_TOKEN: tokenOf('alice') });
    const gadgets = sandbox.state.repo('acme', 'gadgets');
    assert.ok(gadgets);
    gadgets.branches.set('trunk', gadgets.branches.get('main') as string);
    gadgets.defaultBranch = 'trunk';
    const tip = widgets().branches.get('main') as string;
    for (const name of ['release/1.0', 'stable', 'feature/free']) widgets().branches.set(name, tip);
    const at = '2026-12-01T00:00:00Z';
    const rule = {
      requiredApprovals: 0,
      enablePush: true,
      dismissStaleApprovals: false,
      blockOnRejectedReviews: false,
      created: at,
      updated: at,
    };
    widgets().protections.push({ ruleName: 'release/*', ...rule }, { ruleName: 'Stable', ...rule });
  });
  const commit = (repo: string, branch: string) => ({
    owner: 'acme',
    repo,
    filepath: `notes/${branch.replace(/\W/g, '-')}.md`,
    body: { content: Buffer.from('note\n').toString('base64'), branch, message: 'A note' },
  });
  const cases: [string, string, string, RegExp | 'allow'][] = [
    [
      'trunk, the default branch of acme/gadgets',
      'gadgets',
      'trunk',
      /branch trunk is the default branch of acme\/gadgets \(live: default_branch\)/,
    ],
    [
      'release/1.0, protected by the glob rule release/*',
      'widgets',
      'release/1.0',
      /Gitea protects branch release\/1\.0 of acme\/widgets \(live: protected\)/,
    ],
    [
      'stable, protected by the rule Stable (plain names match case-insensitively)',
      'widgets',
      'stable',
      /Gitea protects branch stable/,
    ],
    ['feature/free, which nothing protects', 'widgets', 'feature/free', 'allow'],
  ];
  for (const [name, repo, branch, expected] of cases) {
    test(`the author commits onto ${name}: ${expected === 'allow' ? 'allowed' : 'refused'}`, async () => {
      const { isError, payload, writes } = await call(author, 'gitea_contents_create_file', commit(repo, branch));
      if (expected === 'allow') {
        assert.equal(isError, false, JSON.stringify(payload));
        return;
      }
      assert.equal(payload.error?.reason, 'protected_branch', JSON.stringify(payload));
      assert.match(JSON.stringify(payload.error?.failed), expected);
      assert.deepEqual(writes, [], 'a refused commit reached Gitea');
    });
  }
});

test('every answer the sandbox gave in this file conforms to the pinned Gitea spec', () => {
  sandbox.assertConformed();
});
