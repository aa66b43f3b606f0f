// The sandbox Gitea end to end over HTTP, every response checked against the pinned spec.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { unzipSync } from 'fflate';
import { readPaxRecords, readTar } from '../src/shared/tar.js';
import { sandboxRoutes, startSandbox, type Sandbox } from '../src/sandbox/server.js';
import { recordContract } from './support/spec-contract.js';
import { arrangeReachWorld } from './support/reach-world.js';
import { b64, sandboxClient, type CallOptions, type CallResult } from './support/sandbox-client.js';

const contract = recordContract();
let sandbox: Sandbox;
let call: (method: string, path: string, options?: CallOptions) => Promise<CallResult>;

const W = '/repos/acme/widgets';

before(async () => {
  sandbox = await startSandbox({ onResponse: contract.onResponse });
  call = sandboxClient(sandbox);
});

after(async () => {
  await sandbox.close();
});

async function fileSha(path: string, ref: string): Promise<string> {
  const res = await call('GET', `${W}/contents/${path}?ref=${encodeURIComponent(ref)}`);
  assert.equal(res.status, 200);
  return res.body.sha;
}

describe('the seeded world', () => {
  test('version, and each seeded user is who their token says', async () => {
    assert.deepEqual((await call('GET', '/version', { as: null })).body, { version: '1.27.1' });
    for (const login of ['admin', 'alice', 'bob', 'carol', 'dave', 'erin']) {
      const res = await call('GET', '/user', { as: login });
      assert.equal(res.status, 200);
      assert.equal(res.body.login, login);
      assert.equal(res.body.is_admin, login === 'admin');
    }
  });

  test("/user/teams lists the signed-in user's teams with their organization", async () => {
    const bob = await call('GET', '/user/teams', { as: 'bob' });
    assert.equal(bob.status, 200);
    assert.deepEqual(
      bob.body.map((t: { name: string; organization: { username: string } }) => `${t.organization.username}/${t.name}`),
      ['acme/Developers'],
    );
    const admin = await call('GET', '/user/teams', { as: 'admin' });
    assert.deepEqual(
      admin.body.map((t: { name: string }) => t.name),
      ['Owners'],
    );
    assert.equal((await call('GET', '/user/teams', { as: null })).status, 401);
  });

  test('acme/widgets: every role user may push; main and dev are protected, main needs one approval', async () => {
    for (const login of ['alice', 'bob', 'carol', 'dave', 'erin']) {
      const repo = await call('GET', W, { as: login });
      assert.deepEqual(repo.body.permissions, { admin: false, push: true, pull: true });
    }
    const main = await call('GET', `${W}/branches/main`);
    assert.equal(main.body.protected, true);
    assert.equal(main.body.required_approvals, 1);
    assert.equal((await call('GET', `${W}/branches/dev`)).body.protected, true);
    const names = (await call('GET', `${W}/branches`)).body.map((b: { name: string }) => b.name);
    assert.deepEqual(names, ['dev', 'feature/login', 'feature/old-docs', 'main']);
  });

  test('PR #1 is open and ahead of main; PR #2 is merged and its head branch still exists', async () => {
    const pr1 = (await call('GET', `${W}/pulls/1`)).body;
    assert.equal(pr1.state, 'open');
    assert.equal(pr1.user.login, 'alice');
    assert.equal(pr1.head.ref, 'feature/login');
    assert.equal(pr1.mergeable, true);
    const ahead = (await call('GET', `${W}/compare/main...feature/login`)).body;
    assert.equal(ahead.total_commits, 1);
    assert.equal(ahead.commits[0].sha, pr1.head.sha);
    const pr2 = (await call('GET', `${W}/pulls/2`)).body;
    assert.equal(pr2.merged, true);
    assert.equal(pr2.merged_by.login, 'carol');
    assert.equal((await call('GET', `${W}/branches/feature/old-docs`)).status, 200);
    assert.equal((await call('GET', `${W}/compare/main...feature/old-docs`)).body.total_commits, 0);
    assert.equal((await call('GET', `${W}/pulls/2/merge`)).status, 204);
    assert.equal((await call('GET', `${W}/pulls/1/merge`)).status, 404);
  });

  test('a private repository is invisible to others (404) and visible to its owner', async () => {
    assert.equal((await call('GET', '/repos/erin/notes', { as: 'alice' })).status, 404);
    assert.equal((await call('GET', '/repos/erin/notes', { as: 'erin' })).status, 200);
    assert.equal((await call('GET', '/repos/acme/gadgets', { as: null })).status, 200);
  });
});

describe('authentication', () => {
  test('no credentials where needed is 401; a bad token is 401', async () => {
    assert.equal((await call('GET', '/user', { as: null })).status, 401);
    const bad = await fetch(`${sandbox.url}/api/v1/user`, { headers: { Authorization: 'token nope' } });
    assert.equal(bad.status, 401);
    assert.equal(typeof ((await bad.json()) as { message: unknown }).message, 'string');
  });

  test('an anonymous write or admin read is 401 before any repository lookup, even of one that does not exist', async () => {
    const cases: Array<[string, string, unknown]> = [
      ['POST', `${W}/branches`, { new_branch_name: 'x' }],
      ['DELETE', `${W}/branches/main`, undefined],
      ['GET', `${W}/branch_protections`, undefined],
      ['GET', `${W}/hooks`, undefined],
      ['POST', `${W}/labels`, { name: 'x', color: '00aabb' }],
      ['POST', `${W}/contents/new.txt`, { content: b64('x') }],
      ['POST', '/repos/acme/no-such-repo/labels', { name: 'x', color: '00aabb' }],
    ];
    for (const [method, path, body] of cases) {
      assert.equal((await call(method, path, { as: null, body })).status, 401, `${method} ${path}`);
    }
  });

  test('sudo works for the site admin and is 403 for anyone else', async () => {
    const asAlice = await call('GET', '/user', { as: 'admin', headers: { Sudo: 'alice' } });
    assert.equal(asAlice.body.login, 'alice');
    const refused = await call('GET', '/user', { as: 'bob', headers: { Sudo: 'alice' } });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.message, 'Only administrators allowed to sudo.');
  });

  test('the request log names the acting user and the status', async () => {
    const before = sandbox.requests.length;
    await call('GET', '/user', { as: 'admin', headers: { Sudo: 'dave' } });
    assert.deepEqual(sandbox.requests.slice(before), [
      { method: 'GET', path: '/api/v1/user', login: 'dave', status: 200 },
    ]);
  });
});

describe('access tokens and OAuth2 applications', () => {
  test('creating a token needs basic authentication; its value is shown once and works', async () => {
    const withToken = await call('POST', '/users/dave/tokens', {
      as: 'dave',
      body: { name: 'ci', scopes: ['read:repository'] },
    });
    assert.equal(withToken.status, 401);
    assert.equal(withToken.body.message, 'auth method not allowed');
    const created = await call('POST', '/users/dave/tokens', {
      as: 'dave',
      basic: true,
      body: { name: 'ci', scopes: ['read:repository', 'read:user'] },
    });
    assert.equal(created.status, 201);
    assert.match(created.body.sha1, /^[0-9a-f]{40}$/);
    const listed = await call('GET', '/users/dave/tokens', { as: 'dave', basic: true });
    assert.ok(listed.body.every((t: Record<string, unknown>) => !('sha1' in t)));
    const me = await fetch(`${sandbox.url}/api/v1/user`, { headers: { Authorization: `token ${created.body.sha1}` } });
    assert.equal(((await me.json()) as { login: string }).login, 'dave');
    assert.equal(
      (await call('POST', '/users/dave/tokens', { as: 'erin', basic: true, body: { name: 'x', scopes: ['all'] } }))
        .status,
      403,
    );
    assert.equal(
      (await call('POST', '/users/dave/tokens', { as: 'dave', basic: true, body: { name: 'y' } })).status,
      400,
    );
    assert.equal(
      (await call('DELETE', `/users/dave/tokens/${created.body.id}`, { as: 'dave', basic: true })).status,
      204,
    );
  });

  test('an OAuth2 application shows its client_secret only on creation', async () => {
    const created = await call('POST', '/user/applications/oauth2', {
      as: 'erin',
      body: { name: 'app', redirect_uris: ['https://app.invalid/cb'] },
    });
    assert.equal(created.status, 201);
    assert.match(created.body.client_secret, /^gto_/);
    const list = await call('GET', '/user/applications/oauth2', { as: 'erin' });
    assert.equal(list.body.length, 1);
    assert.ok(!('client_secret' in list.body[0]));
    const one = await call('GET', `/user/applications/oauth2/${created.body.id}`, { as: 'erin' });
    assert.ok(!('client_secret' in one.body));
    assert.equal((await call('GET', `/user/applications/oauth2/${created.body.id}`, { as: 'bob' })).status, 404);
    assert.equal((await call('DELETE', `/user/applications/oauth2/${created.body.id}`, { as: 'erin' })).status, 204);
  });
});

describe('reviews and merging', () => {
  test('the author can neither approve nor request changes on their own pull request', async () => {
    const approve = await call('POST', `${W}/pulls/1/reviews`, { as: 'alice', body: { event: 'APPROVED' } });
    assert.equal(approve.status, 422);
    assert.equal(approve.body.message, 'approve your own pull is not allowed');
    const reject = await call('POST', `${W}/pulls/1/reviews`, {
      as: 'alice',
      body: { event: 'REQUEST_CHANGES', body: 'no' },
    });
    assert.equal(reject.body.message, 'reject your own pull is not allowed');
    const comment = await call('POST', `${W}/pulls/1/reviews`, {
      as: 'alice',
      body: { event: 'COMMENT', body: 'note to self' },
    });
    assert.equal(comment.status, 200);
  });

  test('an approval goes stale when the head moves', async () => {
    const head = (await call('GET', `${W}/pulls/1`)).body.head.sha;
    const review = await call('POST', `${W}/pulls/1/reviews`, { as: 'bob', body: { event: 'APPROVED', body: 'ok' } });
    assert.equal(review.body.commit_id, head);
    assert.equal(review.body.stale, false);
    const push = await call('PUT', `${W}/contents/src/login.js`, {
      as: 'alice',
      body: {
        branch: 'feature/login',
        content: b64('export function login(user) {}\n'),
        sha: await fileSha('src/login.js', 'feature/login'),
      },
    });
    assert.equal(push.status, 200);
    const moved = (await call('GET', `${W}/pulls/1`)).body.head.sha;
    assert.equal(moved, push.body.commit.sha);
    const again = await call('GET', `${W}/pulls/1/reviews/${review.body.id}`);
    assert.equal(again.body.stale, true);
    const all = await call('GET', `${W}/pulls/1/reviews`);
    assert.ok(all.body.some((r: { id: number; stale: boolean }) => r.id === review.body.id && r.stale));
  });

  test('a pending review is submitted later', async () => {
    const pending = await call('POST', `${W}/pulls/1/reviews`, { as: 'dave', body: { body: 'thinking' } });
    assert.equal(pending.body.state, 'PENDING');
    const submitted = await call('POST', `${W}/pulls/1/reviews/${pending.body.id}`, {
      as: 'dave',
      body: { event: 'COMMENT', body: 'done' },
    });
    assert.equal(submitted.body.state, 'COMMENT');
  });

  test('merge: stale head id is 409, missing approvals 405, admin force merges; the head becomes an ancestor', async () => {
    const branch = await call('POST', `${W}/contents`, {
      as: 'alice',
      body: {
        branch: 'main',
        new_branch: 'feature/extra',
        files: [{ operation: 'create', path: 'extra.txt', content: b64('x\n') }],
      },
    });
    assert.equal(branch.status, 201);
    const pr = await call('POST', `${W}/pulls`, {
      as: 'alice',
      body: { head: 'feature/extra', base: 'main', title: 'Extra' },
    });
    assert.equal(pr.status, 201);
    const index = pr.body.number;
    assert.equal(
      (await call('POST', `${W}/pulls/${index}/merge`, { as: 'carol', body: { Do: 'merge' } })).body.message,
      'does not have enough approvals',
    );
    const forced = await call('POST', `${W}/pulls/${index}/merge`, {
      as: 'admin',
      body: { Do: 'merge', force_merge: true, delete_branch_after_merge: true },
    });
    assert.equal(forced.status, 200);
    assert.equal((await call('GET', `${W}/branches/feature/extra`)).status, 404);
    assert.equal((await call('POST', `${W}/pulls/${index}/merge`, { as: 'carol', body: { Do: 'merge' } })).status, 405);

    const stale = await call('POST', `${W}/pulls/1/merge`, {
      as: 'carol',
      body: { Do: 'merge', head_commit_id: 'f'.repeat(40) },
    });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.message, 'head out of date');
    const oldMain = (await call('GET', `${W}/branches/main`)).body.commit.id;
    const head = (await call('GET', `${W}/pulls/1`)).body.head.sha;
    assert.equal(
      (await call('POST', `${W}/pulls/1/merge`, { as: 'carol', body: { Do: 'merge', head_commit_id: head } })).status,
      200,
    );
    const merged = (await call('GET', `${W}/pulls/1`)).body;
    assert.equal(merged.merged, true);
    assert.equal(merged.state, 'closed');
    const commit = (await call('GET', `${W}/git/commits/${merged.merge_commit_sha}`)).body;
    assert.deepEqual(
      commit.parents.map((p: { sha: string }) => p.sha),
      [oldMain, head],
    );
    assert.equal((await call('GET', `${W}/compare/main...${head}`)).body.total_commits, 0);
    assert.equal((await call('GET', `${W}/compare/${oldMain}...main`)).body.total_commits, 3);
    const history = (await call('GET', `${W}/commits?sha=main&limit=50`)).body.map((c: { sha: string }) => c.sha);
    assert.ok(history.includes(head));
  });
});

describe('branches, contents, issues, pulls, repositories, hooks', () => {
  test('branches: create and delete; a protected or default branch cannot be deleted', async () => {
    assert.equal(
      (await call('POST', `${W}/branches`, { body: { new_branch_name: 'topic', old_branch_name: 'main' } })).status,
      201,
    );
    assert.equal((await call('POST', `${W}/branches`, { body: { new_branch_name: 'topic' } })).status, 409);
    assert.equal((await call('DELETE', `${W}/branches/topic`)).status, 204);
    const dev = await call('DELETE', `${W}/branches/dev`);
    assert.equal(dev.status, 403);
    assert.equal(dev.body.message, 'branch protected');
    assert.equal((await call('DELETE', `${W}/branches/main`)).status, 403);
    assert.equal((await call('DELETE', `${W}/branches/nope`)).status, 404);
  });

  test('branch protections are for repository admins', async () => {
    assert.equal((await call('GET', `${W}/branch_protections`)).status, 403);
    const list = await call('GET', `${W}/branch_protections`, { as: 'admin' });
    assert.deepEqual(
      list.body.map((p: { rule_name: string }) => p.rule_name),
      ['main', 'dev'],
    );
    assert.equal((await call('GET', `${W}/branch_protections/main`, { as: 'admin' })).body.required_approvals, 1);
  });

  test('contents: read, create, update with the right sha only, delete; protected branches refuse writes', async () => {
    const readme = await call('GET', `${W}/contents/README.md`);
    assert.equal(Buffer.from(readme.body.content, 'base64').toString(), '# widgets\n');
    assert.equal(
      (await call('GET', `${W}/contents`)).body.some(
        (e: { name: string; type: string }) => e.name === 'src' && e.type === 'dir',
      ),
      true,
    );
    const onMain = await call('POST', `${W}/contents/new.txt`, { body: { content: b64('x') } });
    assert.equal(onMain.status, 403);
    const created = await call('POST', `${W}/contents/new.txt`, { body: { content: b64('x'), new_branch: 'files' } });
    assert.equal(created.status, 201);
    const wrong = await call('PUT', `${W}/contents/new.txt`, {
      body: { branch: 'files', content: b64('y'), sha: 'a'.repeat(40) },
    });
    assert.equal(wrong.status, 422);
    const updated = await call('PUT', `${W}/contents/new.txt`, {
      body: { branch: 'files', content: b64('y'), sha: created.body.content.sha },
    });
    assert.equal(updated.status, 200);
    const removed = await call('DELETE', `${W}/contents/new.txt`, {
      body: { branch: 'files', sha: updated.body.content.sha },
    });
    assert.equal(removed.status, 200);
    assert.equal(removed.body.content, null);
    assert.equal((await call('GET', `${W}/contents/new.txt?ref=files`)).status, 404);
  });

  test('issues: list, create, edit, comments, labels', async () => {
    const issues = await call('GET', `${W}/issues?type=issues`);
    assert.deepEqual(
      issues.body.map((i: { number: number }) => i.number),
      [4, 3],
    );
    const created = await call('POST', `${W}/issues`, { as: 'erin', body: { title: 'Flaky test', labels: [1] } });
    assert.equal(created.status, 201);
    const n = created.body.number;
    assert.equal((await call('GET', `${W}/issues/${n}`)).body.labels[0].name, 'bug');
    assert.equal(
      (await call('PATCH', `${W}/issues/${n}`, { as: 'erin', body: { state: 'closed' } })).body.state,
      'closed',
    );
    assert.equal((await call('POST', `${W}/issues/${n}/comments`, { as: 'bob', body: { body: 'seen' } })).status, 201);
    assert.equal((await call('GET', `${W}/issues/${n}/comments`)).body[0].body, 'seen');
    const label = await call('POST', `${W}/labels`, { as: 'erin', body: { name: 'triage', color: '#aabbcc' } });
    assert.equal(label.status, 201);
    const added = await call('POST', `${W}/issues/${n}/labels`, { as: 'erin', body: { labels: ['triage'] } });
    assert.deepEqual(
      added.body.map((l: { name: string }) => l.name),
      ['bug', 'triage'],
    );
    assert.equal((await call('GET', `${W}/issues/${n}/labels`)).body.length, 2);
    assert.equal((await call('GET', `${W}/labels`)).body.length, 4);
  });

  test('comments by id: the comment says whether its issue is a pull request; the deprecated index is ignored', async () => {
    const onPull = (await call('POST', `${W}/issues/1/comments`, { as: 'bob', body: { body: 'on the PR' } })).body;
    const onIssue = (await call('POST', `${W}/issues/3/comments`, { as: 'bob', body: { body: 'on the issue' } })).body;
    const pullComment = (await call('GET', `${W}/issues/comments/${onPull.id}`)).body;
    assert.match(pullComment.pull_request_url, /\/acme\/widgets\/pulls\/1$/);
    assert.equal(pullComment.issue_url, '');
    const issueComment = (await call('GET', `${W}/issues/comments/${onIssue.id}`)).body;
    assert.equal(issueComment.pull_request_url, '');
    assert.match(issueComment.issue_url, /\/acme\/widgets\/issues\/3$/);
    const edited = await call('PATCH', `${W}/issues/comments/${onIssue.id}`, { as: 'bob', body: { body: 'edited' } });
    assert.equal(edited.body.body, 'edited');
    // The deprecated route names issue #3, yet edits the comment on the pull request (Gitea ignores {index}).
    const viaIndex = await call('PATCH', `${W}/issues/3/comments/${onPull.id}`, {
      as: 'bob',
      body: { body: 'moved?' },
    });
    assert.equal(viaIndex.body.pull_request_url, pullComment.pull_request_url);
    assert.equal((await call('DELETE', `${W}/issues/3/comments/${onPull.id}`, { as: 'bob' })).status, 204);
    assert.equal((await call('DELETE', `${W}/issues/comments/${onIssue.id}`, { as: 'bob' })).status, 204);
    assert.equal((await call('GET', `${W}/issues/comments/${onIssue.id}`)).status, 404);
  });

  test('pulls: create, list, close and reopen; an empty or duplicate pull request is refused', async () => {
    assert.equal(
      (await call('POST', `${W}/pulls`, { body: { head: 'dev', base: 'main', title: 'nothing' } })).status,
      422,
    );
    await call('POST', `${W}/branches`, { body: { new_branch_name: 'feature/b', old_branch_name: 'main' } });
    await call('POST', `${W}/contents/b.txt`, { body: { content: b64('b'), branch: 'feature/b' } });
    const pr = await call('POST', `${W}/pulls`, { as: 'bob', body: { head: 'feature/b', base: 'main', title: 'B' } });
    assert.equal(pr.status, 201);
    assert.equal(
      (await call('POST', `${W}/pulls`, { as: 'bob', body: { head: 'feature/b', base: 'main', title: 'B' } })).status,
      409,
    );
    const open = await call('GET', `${W}/pulls?state=open`);
    assert.ok(open.body.some((p: { number: number }) => p.number === pr.body.number));
    const closed = await call('PATCH', `${W}/pulls/${pr.body.number}`, {
      as: 'bob',
      body: { state: 'closed', title: 'B (closed)' },
    });
    assert.equal(closed.status, 201);
    assert.equal(closed.body.state, 'closed');
    // EditPullRequest: a state change of a merged pull request is 412 Precondition Failed.
    assert.equal((await call('PATCH', `${W}/pulls/2`, { as: 'carol', body: { state: 'open' } })).status, 412);
  });

  test('repositories: a repository nobody forked lists no forks', async () => {
    const forks = await call('GET', `${W}/forks`);
    assert.equal(forks.status, 200);
    assert.deepEqual(forks.body, []);
  });

  test('repositories: search, per user and organization lists, creation', async () => {
    const search = await call('GET', '/repos/search?q=gad', { as: 'alice' });
    assert.equal(search.body.ok, true);
    assert.deepEqual(
      search.body.data.map((r: { full_name: string }) => r.full_name),
      ['acme/gadgets'],
    );
    assert.deepEqual((await call('GET', '/users/erin/repos', { as: 'alice' })).body, []);
    assert.equal((await call('GET', '/users/erin/repos', { as: 'erin' })).body.length, 1);
    assert.equal((await call('GET', '/orgs/acme/repos')).body.length, 2);
    assert.equal((await call('GET', '/user/repos', { as: 'erin' })).body.length, 3);
    const mine = await call('POST', '/user/repos', {
      as: 'bob',
      body: { name: 'scratch', auto_init: true, private: true },
    });
    assert.equal(mine.status, 201);
    assert.equal(mine.body.full_name, 'bob/scratch');
    assert.equal((await call('POST', '/user/repos', { as: 'bob', body: { name: 'scratch' } })).status, 409);
    assert.equal((await call('POST', '/orgs/acme/repos', { as: 'alice', body: { name: 'x' } })).status, 403);
    assert.equal((await call('POST', '/orgs/acme/repos', { as: 'admin', body: { name: 'tools' } })).status, 201);
  });

  test('webhooks: admins only; the authorization header is echoed back as Gitea does', async () => {
    const body = {
      type: 'gitea',
      config: { url: 'http://127.0.0.1:9/hook', content_type: 'json' },
      authorization_header: 'Bearer s3cret',
      active: true,
    };
    assert.equal((await call('POST', `${W}/hooks`, { as: 'alice', body })).status, 403);
    const hook = await call('POST', `${W}/hooks`, { as: 'admin', body });
    assert.equal(hook.status, 201);
    assert.equal(hook.body.authorization_header, 'Bearer s3cret');
    assert.equal((await call('GET', `${W}/hooks`, { as: 'admin' })).body.length, 1);
    assert.equal(
      (await call('GET', `${W}/hooks/${hook.body.id}`, { as: 'admin' })).body.config.url,
      'http://127.0.0.1:9/hook',
    );
    assert.equal(
      (await call('PATCH', `${W}/hooks/${hook.body.id}`, { as: 'admin', body: { active: false } })).body.active,
      false,
    );
    assert.equal((await call('DELETE', `${W}/hooks/${hook.body.id}`, { as: 'admin' })).status, 204);
  });
});

describe('routes that reach repositories without naming them', () => {
  before(() => arrangeReachWorld(sandbox.state));

  test("the user's stopwatches and tracked times span repositories, each naming its issue's repository", async () => {
    const watches = await call('GET', '/user/stopwatches');
    assert.deepEqual(
      watches.body.map((w: { repo_owner_name: string; repo_name: string }) => `${w.repo_owner_name}/${w.repo_name}`),
      ['acme/widgets', 'acme/gadgets'],
    );
    assert.equal(watches.headers.get('x-total-count'), '2');
    const times = await call('GET', '/user/times');
    assert.deepEqual(
      times.body.map((t: { issue: { repository: { full_name: string } } }) => t.issue.repository.full_name),
      ['acme/widgets', 'acme/gadgets'],
    );
    assert.equal(times.body[0].time, 900);
    assert.deepEqual((await call('GET', '/user/times', { as: 'bob' })).body, []);
  });

  test("Actions runs and jobs of every repository an owner owns; an organization's for its owners only", async () => {
    const mine = await call('GET', '/user/actions/runs');
    assert.deepEqual(
      mine.body.workflow_runs.map((r: { repository: { full_name: string } }) => r.repository.full_name),
      ['alice/dotfiles'],
    );
    assert.equal(mine.body.workflow_runs[0].status, 'in_progress');
    const jobs = await call('GET', '/user/actions/jobs');
    assert.match(jobs.body.jobs[0].url, /\/api\/v1\/repos\/alice\/dotfiles\/actions\/jobs\/\d+$/);
    const org = await call('GET', '/orgs/acme/actions/runs', { as: 'admin' });
    assert.deepEqual(
      org.body.workflow_runs.map((r: { repository: { full_name: string } }) => r.repository.full_name),
      ['acme/gadgets', 'acme/widgets'],
    );
    assert.equal(org.body.total_count, 2);
    assert.deepEqual(
      org.body.workflow_runs.map((r: { conclusion: string }) => r.conclusion),
      ['failure', 'success'],
    );
    assert.equal((await call('GET', '/orgs/acme/actions/jobs', { as: 'admin' })).body.jobs.length, 2);
    assert.equal((await call('GET', '/orgs/acme/actions/runs')).status, 403);
    assert.equal((await call('GET', '/orgs/nobody/actions/jobs', { as: 'admin' })).status, 404);
  });

  test("notifications name their repository; one the user may no longer read only in the subject's URL", async () => {
    const threads = (await call('GET', '/notifications')).body;
    assert.deepEqual(
      threads.map((t: { repository: { full_name: string } | null }) => t.repository?.full_name ?? null),
      [null, 'acme/gadgets', 'acme/widgets'],
    );
    assert.match(threads[0].subject.url, /\/api\/v1\/repos\/erin\/notes\/issues\/1$/);
    assert.equal(threads[1].repository.permissions, undefined);
    assert.deepEqual((await call('GET', '/notifications', { as: 'bob' })).body, []);
  });

  test('packages of an owner link to a repository, or to none', async () => {
    const list = await call('GET', '/packages/acme');
    assert.deepEqual(
      list.body.map((p: { name: string; repository: { full_name: string } | null }) => [
        p.name,
        p.repository?.full_name ?? null,
      ]),
      [
        ['widgets-lib', 'acme/widgets'],
        ['gadgets-lib', 'acme/gadgets'],
        ['orphan-lib', null],
      ],
    );
    assert.equal((await call('GET', '/packages/acme?q=gadgets')).body.length, 1);
    const one = await call('GET', '/packages/acme/npm/gadgets-lib/1.0.0');
    assert.equal(one.body.html_url, `${sandbox.url}/acme/-/packages/npm/gadgets-lib/1.0.0`);
    assert.equal((await call('GET', '/packages/acme/npm/gadgets-lib/9.9.9')).status, 404);
  });

  test('markdown is HTML; in gfm mode an issue reference links into the context repository; an unknown mode is 422', async () => {
    const gfm = await call('POST', '/markdown', {
      body: { Text: 'See #1 & more', Mode: 'gfm', Context: '/acme/gadgets/src/branch/main' },
    });
    assert.equal(gfm.status, 200);
    assert.match(gfm.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(
      gfm.body,
      `<p>See <a href="${sandbox.url}/acme/gadgets/issues/1" class="ref-issue">#1</a> &amp; more</p>\n`,
    );
    assert.equal((await call('POST', '/markdown', { body: { Text: 'See #1' } })).body, '<p>See #1</p>\n');
    assert.equal((await call('POST', '/markdown', { body: { Text: 'x', Mode: 'shout' } })).status, 422);
  });
});

describe('permission lookups (integrity labels)', () => {
  test("a user's permission is told to site admins, repository admins and the user themself", async () => {
    const asAdmin = await call('GET', `${W}/collaborators/bob/permission`, { as: 'admin' });
    assert.equal(asAdmin.status, 200);
    assert.equal(asAdmin.body.permission, 'write');
    assert.equal((await call('GET', `${W}/collaborators/admin/permission`, { as: 'admin' })).body.permission, 'admin');
    assert.equal((await call('GET', `${W}/collaborators/alice/permission`, { as: 'alice' })).body.permission, 'write');
    const refused = await call('GET', `${W}/collaborators/bob/permission`, { as: 'alice' });
    assert.equal(refused.status, 403);
    assert.match(refused.body.message, /collaborators can query only their own/);
    assert.equal(
      (await call('GET', '/repos/erin/notes/collaborators/erin/permission', { as: 'erin' })).body.permission,
      'owner',
    );
    assert.equal((await call('GET', `${W}/collaborators/nobody/permission`, { as: 'admin' })).status, 404);
  });

  test('a user object says is_admin only to the user and to site admins (toUser)', async () => {
    const seen = await call('GET', `${W}/collaborators/admin/permission`, { as: 'admin' });
    assert.equal(seen.body.user.is_admin, true);
    const pull = await call('GET', `${W}/pulls/1`, { as: 'bob' });
    assert.equal(pull.body.user.is_admin, false);
  });

  test('organization membership is told to members', async () => {
    assert.equal((await call('GET', '/orgs/acme/members/bob', { as: 'alice' })).status, 204);
    assert.equal((await call('GET', '/orgs/acme/members/erin', { as: 'admin' })).status, 204);
    assert.equal((await call('GET', '/orgs/acme/members/nobody', { as: 'alice' })).status, 404);
    assert.equal((await call('GET', '/orgs/acme/members/erin', { as: 'erin' })).status, 204);
  });

  test('a collaborator check: 204 an explicit collaborator, 404 a team member or stranger, 422 no such user', async () => {
    // repo.IsCollaborator counts explicit collaborators only, not the owner's teams.
    sandbox.state.repo('acme', 'gadgets')?.collaborators.set('erin', 'read');
    assert.equal((await call('GET', '/repos/acme/gadgets/collaborators/erin', { as: 'alice' })).status, 204);
    assert.equal((await call('GET', '/repos/acme/gadgets/collaborators/bob', { as: 'alice' })).status, 404);
    const ghost = await call('GET', '/repos/acme/gadgets/collaborators/ghost', { as: 'alice' });
    assert.equal(ghost.status, 422);
    assert.match(ghost.body.message, /user does not exist/);
    sandbox.state.repo('acme', 'gadgets')?.collaborators.delete('erin');
  });
});

describe('repository archives (repoGetArchive)', () => {
  const download = async (name: string) => {
    const response = await fetch(`${sandbox.url}/api/v1${W}/archive/${name}`, {
      headers: { Authorization: `token ${sandbox.users.alice?.token}` },
    });
    return { response, bytes: Buffer.from(await response.arrayBuffer()) };
  };

  test('a .tar.gz, .zip and .bundle of a ref, as application/octet-stream named <repo>-<ref>.<ext>', async () => {
    const main = (await call('GET', `${W}/branches/main`)).body.commit.id as string;
    const tar = await download('main.tar.gz');
    assert.equal(tar.response.status, 200);
    assert.equal(tar.response.headers.get('content-type'), 'application/octet-stream');
    assert.match(tar.response.headers.get('content-disposition') ?? '', /filename="widgets-main\.tar\.gz"/);
    const entries = readTar(gunzipSync(tar.bytes), 100);
    assert.equal(entries[0]?.type, 'g');
    assert.deepEqual(readPaxRecords(entries[0]?.data ?? Buffer.alloc(0)), [['comment', main]]);
    const readme = entries.find((e) => e.name === 'widgets/README.md');
    assert.equal(readme?.data.toString('utf8'), '# widgets\n');

    const zip = await download('main.zip');
    const files = unzipSync(zip.bytes);
    assert.equal(Buffer.from(files['widgets/README.md'] ?? []).toString('utf8'), '# widgets\n');

    const bundle = await download('main.bundle');
    assert.equal(
      bundle.bytes.subarray(0, 70).toString('latin1'),
      `# v2 git bundle\n${main} refs/heads/main\n\nPACK`.slice(0, 70),
    );
  });

  test('an unknown format is 400, an unknown ref 404', async () => {
    assert.equal((await call('GET', `${W}/archive/main.rar`)).status, 400);
    assert.equal((await call('GET', `${W}/archive/no-such-ref.zip`)).status, 404);
  });
});

describe('what a call changes in Gitea: timelines, forks, ref moves and renames', () => {
  const G = '/repos/acme/gadgets';
  /** alice's new branch off `base` of acme/gadgets with one file, and her pull request from it. */
  async function gadgetPull(branch: string, file: string, base = 'main'): Promise<{ index: number; head: string }> {
    const made = await call('POST', `${G}/contents`, {
      as: 'alice',
      body: {
        branch: base,
        new_branch: branch,
        files: [{ operation: 'create', path: file, content: b64(`${file}\n`) }],
      },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const pr = await call('POST', `${G}/pulls`, { as: 'alice', body: { head: branch, base, title: branch } });
    assert.equal(pr.status, 201, JSON.stringify(pr.body));
    return { index: pr.body.number, head: pr.body.head.sha };
  }
  async function push(branch: string, file: string, content: string): Promise<string> {
    const pushed = await call('POST', `${G}/contents`, {
      as: 'alice',
      body: { branch, files: [{ operation: 'create', path: file, content: b64(content) }] },
    });
    assert.equal(pushed.status, 201, JSON.stringify(pushed.body));
    return pushed.body.commit.sha;
  }
  const timeline = async (path: string, as = 'bob') => (await call('GET', `${path}/timeline?limit=50`, { as })).body;
  const kinds = (entries: Array<{ type: string }>) => entries.map((e) => e.type);

  test('a pull request starts with a pull_push of its commits; each push adds one whose last id is the new head', async () => {
    const pr = await gadgetPull('fx/timeline', 'a.txt');
    const second = await push('fx/timeline', 'b.txt', 'b\n');
    const entries = await timeline(`${G}/issues/${pr.index}`);
    assert.deepEqual(kinds(entries), ['pull_push', 'pull_push']);
    assert.deepEqual(JSON.parse(entries[0].body), { is_force_push: false, commit_ids: [pr.head] });
    assert.deepEqual(JSON.parse(entries[1].body), { is_force_push: false, commit_ids: [second] });
    assert.equal(entries[1].user.login, 'alice');
    // A push that rewrites history is a force push, recorded as [old, new].
    const orphan = sandbox.state.addCommit(sandbox.state.repo('acme', 'gadgets')!, {
      parents: [],
      message: 'rewritten',
      author: { name: 'Alice', email: 'a@example.invalid', login: 'alice' },
      date: sandbox.state.timestamp(),
      tree: { 'c.txt': 'c\n' },
    });
    sandbox.state.moveBranch(sandbox.state.repo('acme', 'gadgets')!, 'fx/timeline', orphan.sha, 'alice');
    const after = await timeline(`${G}/issues/${pr.index}`);
    assert.deepEqual(JSON.parse(after[2].body), { is_force_push: true, commit_ids: [second, orphan.sha] });
  });

  test('a retarget is a change_target_branch entry and keeps every review as it was', async () => {
    await call('POST', `${G}/branches`, { body: { new_branch_name: 'release', old_branch_name: 'main' } });
    const pr = await gadgetPull('fx/retarget', 'r.txt', 'release');
    const approved = await call('POST', `${G}/pulls/${pr.index}/reviews`, {
      as: 'bob',
      body: { event: 'APPROVED', body: 'fine for release' },
    });
    const moved = await call('PATCH', `${G}/pulls/${pr.index}`, { as: 'alice', body: { base: 'main' } });
    assert.equal(moved.status, 201);
    assert.equal(moved.body.base.ref, 'main');
    const entries = await timeline(`${G}/issues/${pr.index}`);
    assert.deepEqual(kinds(entries), ['pull_push', 'review', 'change_target_branch']);
    assert.equal(entries[1].review_id, approved.body.id);
    assert.deepEqual([entries[2].old_ref, entries[2].new_ref], ['release', 'main']);
    const review = (await call('GET', `${G}/pulls/${pr.index}/reviews/${approved.body.id}`)).body;
    assert.deepEqual([review.official, review.stale, review.dismissed], [true, false, false]);
  });

  test("a review's commit_id is the caller's; the push of that commit makes a stale approval current", async () => {
    const pr = await gadgetPull('fx/future', 'f1.txt');
    // A commit that is not the head yet: pushed to another branch first.
    await call('POST', `${G}/branches`, { body: { new_branch_name: 'fx/future-next', old_branch_name: 'fx/future' } });
    const future = await push('fx/future-next', 'f2.txt', 'later\n');
    const approved = await call('POST', `${G}/pulls/${pr.index}/reviews`, {
      as: 'bob',
      body: { event: 'APPROVED', body: 'approving what comes next', commit_id: future },
    });
    assert.equal(approved.body.commit_id, future);
    assert.equal(approved.body.stale, true, 'the diff of that commit is not the diff of the head');
    const update = await call('PUT', `${G}/branches/fx/future`, { as: 'alice', body: { new_commit_id: future } });
    assert.equal(update.status, 204);
    const review = (await call('GET', `${G}/pulls/${pr.index}/reviews/${approved.body.id}`)).body;
    assert.equal(review.stale, false, 'MarkReviewsAsNotStale: its commit is the head now');
    assert.deepEqual(kinds(await timeline(`${G}/issues/${pr.index}`)), ['pull_push', 'review', 'pull_push']);
  });

  test('PUT /branches/{branch}: any ref, old_commit_id must be the tip, a non-fast-forward needs force, protection applies', async () => {
    await call('POST', `${G}/branches`, { body: { new_branch_name: 'fx/ptr', old_branch_name: 'main' } });
    const ahead = await push('fx/ptr', 'p.txt', 'p\n');
    await call('POST', `${G}/branches`, { body: { new_branch_name: 'fx/ptr2', old_branch_name: 'main' } });
    const tip = (await call('GET', `${G}/branches/fx/ptr2`)).body.commit.id;
    const stale = await call('PUT', `${G}/branches/fx/ptr2`, { body: { new_commit_id: ahead, old_commit_id: ahead } });
    assert.equal(stale.status, 409);
    assert.equal(
      (await call('PUT', `${G}/branches/fx/ptr2`, { body: { new_commit_id: 'fx/ptr', old_commit_id: tip } })).status,
      204,
    );
    assert.equal((await call('GET', `${G}/branches/fx/ptr2`)).body.commit.id, ahead);
    assert.equal((await call('PUT', `${G}/branches/fx/ptr2`, { body: { new_commit_id: tip } })).status, 409);
    assert.equal(
      (await call('PUT', `${G}/branches/fx/ptr2`, { body: { new_commit_id: tip, force: true } })).status,
      204,
    );
    assert.equal(
      (await call('PUT', `${W}/branches/main`, { body: { new_commit_id: 'feature/old-docs', force: true } })).status,
      403,
    );
    assert.equal((await call('PUT', `${G}/branches/nope`, { body: { new_commit_id: tip } })).status, 404);
  });

  test('rename: Gitea judges the old name only; an exact rule moves with the branch; bases and the default follow', async () => {
    const repo = await call('POST', '/user/repos', { as: 'alice', body: { name: 'renames', auto_init: true } });
    assert.equal(repo.status, 201);
    const R = '/repos/alice/renames';
    for (const name of ['topic', 'release/1.0', 'work'])
      await call('POST', `${R}/branches`, { body: { new_branch_name: name, old_branch_name: 'main' } });
    await push2(R, 'work', 'w.txt');
    const state = sandbox.state.repo('alice', 'renames')!;
    const at = sandbox.state.timestamp();
    const rule = {
      requiredApprovals: 0,
      enablePush: false,
      dismissStaleApprovals: false,
      blockOnRejectedReviews: false,
      created: at,
      updated: at,
    };
    state.protections.push({ ruleName: 'release/*', ...rule }, { ruleName: 'topic', ...rule });
    const pr = await call('POST', `${R}/pulls`, { body: { head: 'work', base: 'topic', title: 'w' } });
    assert.equal(pr.status, 201);
    assert.equal((await call('PATCH', `${R}/branches/topic`, { body: { name: 'work' } })).status, 422);
    assert.equal((await call('PATCH', `${R}/branches/missing`, { body: { name: 'x' } })).status, 404);
    assert.equal((await call('PATCH', `${R}/branches/release/1.0`, { body: { name: 'x' } })).status, 403);
    assert.equal((await call('PATCH', `${R}/branches/topic`, { body: { name: 'topic2' } })).status, 204);
    assert.equal((await call('GET', `${R}/branches/topic2`)).body.protected, true, 'the exact rule moved');
    assert.equal((await call('GET', `${R}/pulls/${pr.body.number}`)).body.base.ref, 'topic2');
    // The new name is not checked: a branch renamed into a glob rule's names is protected only from now on.
    assert.equal((await call('PATCH', `${R}/branches/work`, { body: { name: 'release/9.9' } })).status, 204);
    assert.equal((await call('GET', `${R}/branches/release/9.9`)).body.protected, true);
    assert.equal((await call('PATCH', `${R}/branches/main`, { body: { name: 'trunk' } })).status, 204);
    assert.equal((await call('GET', R)).body.default_branch, 'trunk');
  });

  async function push2(repoPath: string, branch: string, file: string): Promise<void> {
    const pushed = await call('POST', `${repoPath}/contents`, {
      body: { branch, files: [{ operation: 'create', path: file, content: b64('x\n') }] },
    });
    assert.equal(pushed.status, 201, JSON.stringify(pushed.body));
  }

  test('a repository rename answers 307 from the old name, for every method, to the same path under the new one', async () => {
    await call('POST', '/user/repos', { as: 'bob', body: { name: 'old-name', auto_init: true } });
    const renamed = await call('PATCH', '/repos/bob/old-name', { as: 'bob', body: { name: 'new-name' } });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.full_name, 'bob/new-name');
    const get = await fetch(`${sandbox.url}/api/v1/repos/bob/old-name/branches?limit=5`, {
      redirect: 'manual',
      headers: { Authorization: `token ${sandbox.users.bob?.token}` },
    });
    assert.equal(get.status, 307);
    assert.equal(get.headers.get('location'), '/api/v1/repos/bob/new-name/branches?limit=5');
    const write = await fetch(`${sandbox.url}/api/v1/repos/bob/old-name`, { method: 'PATCH', redirect: 'manual' });
    assert.equal(write.status, 307);
    assert.equal((await call('GET', '/repos/bob/new-name', { as: 'bob' })).status, 200);
    assert.equal((await call('PATCH', '/repos/bob/new-name', { as: 'alice', body: { name: 'x' } })).status, 403);
  });

  test("a fork's pull request: the head lives in the fork, refs/pull/N/head in the base, compare owner:branch sees it", async () => {
    const fork = await call('POST', `${G}/forks`, { as: 'erin', body: {} });
    assert.equal(fork.status, 202);
    assert.equal(fork.body.full_name, 'erin/gadgets');
    assert.equal(fork.body.fork, true);
    assert.equal(fork.body.parent.full_name, 'acme/gadgets');
    assert.equal((await call('POST', `${G}/forks`, { as: 'erin', body: {} })).status, 409);
    const F = '/repos/erin/gadgets';
    const made = await call('POST', `${F}/contents`, {
      as: 'erin',
      body: {
        branch: 'main',
        new_branch: 'evil',
        files: [{ operation: 'create', path: '.gitea/workflows/x.yml', content: b64('on: push\n') }],
      },
    });
    assert.equal(made.status, 201);
    const listed = await call('GET', `${G}/forks`);
    assert.deepEqual(
      listed.body.map((r: { full_name: string }) => r.full_name),
      ['erin/gadgets'],
    );
    const compared = await call('GET', `${G}/compare/main...erin:evil`);
    assert.equal(compared.status, 200);
    assert.equal(compared.body.total_commits, 1);
    assert.deepEqual(compared.body.commits[0].files, [{ filename: '.gitea/workflows/x.yml', status: 'added' }]);
    assert.equal((await call('GET', `${G}/compare/main...nobody:evil`)).status, 404);
    const pr = await call('POST', `${G}/pulls`, {
      as: 'erin',
      body: { head: 'erin:evil', base: 'main', title: 'evil' },
    });
    assert.equal(pr.status, 201, JSON.stringify(pr.body));
    assert.equal(pr.body.head.repo.full_name, 'erin/gadgets');
    assert.equal(pr.body.head.ref, 'evil');
    // The fork's head is kept in the base repository: a branch of acme/gadgets can be made from it.
    const fromFork = await call('POST', `${G}/branches`, {
      as: 'alice',
      body: { new_branch_name: 'copied', old_ref_name: `refs/pull/${pr.body.number}/head` },
    });
    assert.equal(fromFork.status, 201);
    assert.equal(fromFork.body.commit.id, pr.body.head.sha);
    assert.deepEqual(fromFork.body.commit.added, ['.gitea/workflows/x.yml']);
    // A push to the fork's branch moves the pull request and its base-repository ref.
    const again = await call('POST', `${F}/contents`, {
      as: 'erin',
      body: { branch: 'evil', files: [{ operation: 'create', path: 'y.txt', content: b64('y') }] },
    });
    assert.equal((await call('GET', `${G}/pulls/${pr.body.number}`)).body.head.sha, again.body.commit.sha);
    const entries = await timeline(`${G}/issues/${pr.body.number}`);
    assert.deepEqual(kinds(entries), ['pull_push', 'pull_push']);
  });

  test('merge upstream: the parent branch is fast-forwarded or merged into the fork', async () => {
    const F = '/repos/erin/gadgets';
    const upstream = await push('main', 'up.txt', 'up\n');
    const synced = await call('POST', `${F}/merge-upstream`, { as: 'erin', body: { branch: 'main' } });
    assert.deepEqual(synced.body, { merge_type: 'fast-forward' });
    assert.equal((await call('GET', `${F}/branches/main`, { as: 'erin' })).body.commit.id, upstream);
    assert.deepEqual((await call('POST', `${F}/merge-upstream`, { as: 'erin', body: { branch: 'main' } })).body, {
      merge_type: 'up-to-date',
    });
    await call('POST', `${F}/contents`, {
      as: 'erin',
      body: { branch: 'main', files: [{ operation: 'create', path: 'mine.txt', content: b64('m') }] },
    });
    await push('main', 'up2.txt', 'up2\n');
    assert.equal(
      (await call('POST', `${F}/merge-upstream`, { as: 'erin', body: { branch: 'main', ff_only: true } })).status,
      400,
    );
    assert.deepEqual((await call('POST', `${F}/merge-upstream`, { as: 'erin', body: { branch: 'main' } })).body, {
      merge_type: 'merge',
    });
    assert.equal((await call('POST', `${G}/merge-upstream`, { body: { branch: 'main' } })).status, 400);
  });

  test('cross-references and dependencies name the other issue, from any repository the reader may see', async () => {
    const target = await call('POST', `${G}/issues`, { as: 'alice', body: { title: 'Target' } });
    const n = target.body.number;
    const mention = await call('POST', `${W}/issues`, {
      as: 'alice',
      body: { title: 'Mentions', body: `see acme/gadgets#${n}` },
    });
    await call('POST', `${W}/issues/${mention.body.number}/comments`, {
      as: 'bob',
      body: { body: `also acme/gadgets#${n}` },
    });
    // erin's private repository mentions it too: only readers of erin/notes see that reference.
    await call('POST', '/repos/erin/notes/issues', {
      as: 'erin',
      body: { title: 'Private', body: `acme/gadgets#${n}` },
    });
    const dep = await call('POST', `${G}/issues/${n}/dependencies`, {
      as: 'alice',
      body: { owner: 'acme', repo: 'widgets', index: mention.body.number },
    });
    assert.equal(dep.status, 201);
    const seen = await timeline(`${G}/issues/${n}`);
    assert.deepEqual(kinds(seen), ['issue_ref', 'comment_ref', 'add_dependency']);
    assert.equal(seen[0].ref_issue.repository.full_name, 'acme/widgets');
    assert.equal(seen[1].ref_comment.body, `also acme/gadgets#${n}`);
    assert.equal(seen[2].dependent_issue.number, mention.body.number);
    const erins = await timeline(`${G}/issues/${n}`, 'erin');
    assert.deepEqual(kinds(erins), ['issue_ref', 'comment_ref', 'issue_ref', 'add_dependency']);
    assert.equal(erins[2].ref_issue.repository.full_name, 'erin/notes');
    assert.deepEqual(kinds(await timeline(`${W}/issues/${mention.body.number}`)), ['comment', 'add_dependency']);
  });

  test('tags and releases point a ref at their target; a draft release makes no tag', async () => {
    const tip = (await call('GET', `${G}/branches/fx/ptr`)).body.commit.id;
    const tag = await call('POST', `${G}/tags`, { body: { tag_name: 'v1', target: 'fx/ptr' } });
    assert.equal(tag.status, 200);
    assert.equal(tag.body.commit.sha, tip);
    assert.equal((await call('POST', `${G}/tags`, { body: { tag_name: 'v1' } })).status, 409);
    assert.equal((await call('POST', `${G}/tags`, { body: { tag_name: 'v2', target: 'nowhere' } })).status, 404);
    const release = await call('POST', `${G}/releases`, {
      body: { tag_name: 'v3', target_commitish: 'fx/ptr', name: 'Three' },
    });
    assert.equal(release.status, 201);
    assert.equal(release.body.target_commitish, 'fx/ptr');
    const draft = await call('POST', `${G}/releases`, { body: { tag_name: 'v4', draft: true } });
    assert.equal(draft.status, 201);
    const tags = (await call('GET', `${G}/tags`)).body.map((t: { name: string }) => t.name);
    assert.deepEqual(tags, ['v1', 'v3']);
    assert.equal((await call('GET', `${G}/releases`)).body.length, 2);
  });
});

describe('paging and unserved operations', () => {
  test('limit is capped at 50, the default page is 30, with X-Total-Count and Link', async () => {
    for (let i = 0; i < 60; i++)
      await call('POST', '/repos/acme/gadgets/labels', { body: { name: `l${i}`, color: '00aabb' } });
    const capped = await call('GET', '/repos/acme/gadgets/labels?limit=100');
    assert.equal(capped.body.length, 50);
    assert.equal(capped.headers.get('x-total-count'), '60');
    const link = capped.headers.get('link') ?? '';
    assert.match(link, /<[^>]*\?limit=50&page=2>; rel="next"/);
    assert.match(link, /rel="last"/);
    assert.equal((await call('GET', '/repos/acme/gadgets/labels')).body.length, 30);
    const second = await call('GET', '/repos/acme/gadgets/labels?page=2&limit=50');
    assert.equal(second.body.length, 10);
    assert.match(second.headers.get('link') ?? '', /rel="first".*rel="prev"/);
  });

  test('an unserved Gitea operation is 501 naming it; a path outside the API is 404', async () => {
    const wiki = await call('GET', `${W}/wiki/pages`);
    assert.equal(wiki.status, 501);
    assert.match(wiki.body.message, /GET \/repos\/\{owner\}\/\{repo\}\/wiki\/pages/);
    assert.equal((await call('GET', '/no/such/thing')).status, 404);
  });
});

test('every served route answered and every answer matched the spec', () => {
  assert.deepEqual(contract.problems, []);
  const missing = sandboxRoutes.map((r) => r.operationId).filter((id) => !contract.checked.has(id));
  assert.deepEqual(missing, []);
});
