// Issue 24: the guards judge what a call changes in Gitea, not how it is spelled. Each way through is
// an attacker's attempt played through the official MCP SDK client against the sandbox (which follows
// Gitea 1.27 where these guards lean on it: the timeline, reviews kept across a retarget, the caller's
// review commit_id, forks and refs/pull/N/head, branch update and rename, repository rename), each with
// a control showing the legitimate use still works.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { defaultSeed, startSandbox, type Sandbox } from '../src/sandbox/index.js';
import type { SandboxResponseEvent } from '../src/sandbox/server.js';
import { answerToolCall } from '../src/server/call/pipeline.js';
import { payloadOf, tempDir } from './support/namespace.js';
import { connectInProcess, type InProcessConnection } from './support/in-process.js';
import { answering, askingRound, YES } from './support/rounds.js';
import { b64, sandboxClient } from './support/sandbox-client.js';
import { recordContract } from './support/spec-contract.js';

const W = { owner: 'acme', repo: 'widgets' };
const dir = tempDir('warden-e2e-effects-');
const contract = recordContract();
/** Called with every answer the sandbox sends, after the contract check: a test's way to act between two requests. */
let onAnswer: ((event: SandboxResponseEvent) => void) | null = null;
let sandbox: Sandbox;
let gitea: ReturnType<typeof sandboxClient>;
let author: InProcessConnection;
let reviewer: InProcessConnection;
let merger: InProcessConnection;
let reconciler: InProcessConnection;
let owner: InProcessConnection;
let scoped: InProcessConnection;
let gadgetsAdmin: InProcessConnection;
const connections: InProcessConnection[] = [];

async function connect(profile: string, env: Record<string, string>): Promise<InProcessConnection> {
  const connection = await connectInProcess({
    GITEA_URL: sandbox.url,
    GITEA_MCP_PROFILE: profile,
    AUDIT_LOG: join(dir.path, `${connections.length}.jsonl`),
    LOG_LEVEL: 'silent',
    TOOL_MODE: 'static',
    TOOLSETS: 'all',
    ...env,
  });
  connections.push(connection);
  return connection;
}

const token = (login: string): string => sandbox.users[login]?.token ?? '';

function profileFile(name: string, data: Record<string, unknown>): string {
  const file = join(dir.path, `${name}.yaml`);
  writeFileSync(file, stringify({ profile_name: name, ...data }));
  return file;
}

before(async () => {
  sandbox = await startSandbox({
    seed: defaultSeed(),
    onResponse: (event) => {
      contract.onResponse(event);
      onAnswer?.(event);
    },
  });
  gitea = sandboxClient(sandbox);
  author = await connect('gitea-author', { GITEA_AUTHOR_TOKEN: token('alice') });
  reviewer = await connect('gitea-reviewer', { GITEA_REVIEWER_TOKEN: token('bob') });
  merger = await connect('gitea-merger', { GITEA_MERGER_TOKEN: token('carol') });
  reconciler = await connect('gitea-reconciler', { GITEA_RECONCILER_TOKEN: token('dave') });
  owner = await connect('gitea-owner', { GITEA_OWNER_TOKEN: token('admin') });
  scoped = await connect(
    profileFile('widgets-reader', {
      role: 'reviewer',
      authenticated_username: 'dave',
      token_source_name: 'SCOPED_TOKEN',
      allowed_operations: ['gitea.read'],
      repositories: ['acme/widgets'],
    }),
    { SCOPED_TOKEN: token('dave') },
  );
  gadgetsAdmin = await connect(
    profileFile('gadgets-admin', {
      role: 'owner',
      authenticated_username: 'admin',
      token_source_name: 'GADGETS_ADMIN_TOKEN',
      allowed_operations: ['gitea.read', 'gitea.repo.settings'],
      repositories: ['acme/gadgets'],
    }),
    { GADGETS_ADMIN_TOKEN: token('admin') },
  );
});

after(async () => {
  for (const connection of connections) await connection.close();
  await sandbox.close();
  dir.dispose();
});

async function call(
  ns: InProcessConnection,
  name: string,
  args: Record<string, unknown>,
): Promise<Record<string, any>> {
  return payloadOf(await ns.client.callTool({ name, arguments: args }));
}

/**
 * A call a person confirms (policies/confirmations.yaml: merges, the reconciler's writes): its two
 * rounds as a client that asks its person sends them, the person ticking yes. The SDK server does not
 * hand the client's elicitation to the pipeline yet (the protocol lane's move), so these go to the
 * namespace's pipeline directly; a refusal by a guard comes before the question, in the first round.
 */
async function confirmed(ns: InProcessConnection, name: string, args: Record<string, unknown>) {
  const first = await answerToolCall(ns.namespace, name, args, askingRound());
  if (!first.ask) return payloadOf(first.result);
  return payloadOf((await answerToolCall(ns.namespace, name, args, answering(first, YES))).result);
}

/** The payload of a call and the requests other than GET it sent to Gitea. */
async function attempt(
  ns: InProcessConnection,
  name: string,
  args: Record<string, unknown>,
  confirm = false,
): Promise<{ payload: Record<string, any>; writes: string[] }> {
  const start = sandbox.requests.length;
  const payload = confirm ? await confirmed(ns, name, args) : await call(ns, name, args);
  const writes = sandbox.requests
    .slice(start)
    .filter((r) => r.method !== 'GET')
    .map((r) => `${r.method} ${r.path}`);
  return { payload, writes };
}

const failedCodes = (payload: Record<string, any>): string[] =>
  (payload.error?.failed ?? []).map((f: { code: string }) => f.code);

function assertRefused(result: { payload: Record<string, any>; writes: string[] }, reason: string): void {
  assert.equal(result.payload.error?.kind, 'policy_denied', JSON.stringify(result.payload));
  assert.ok(
    result.payload.error?.reason === reason || failedCodes(result.payload).includes(reason),
    `expected ${reason}: ${JSON.stringify(result.payload.error)}`,
  );
  assert.deepEqual(result.writes, [], 'a refused call reached Gitea');
}

function assertDone(result: { payload: Record<string, any>; writes: string[] }): void {
  assert.equal(result.payload.error, undefined, JSON.stringify(result.payload.error));
  assert.equal(result.writes.length, 1, `one write reached Gitea: ${result.writes.join(', ')}`);
}

let branches = 0;
/** alice's new branch off `base` of acme/widgets with one new file, and her pull request from it into `base`. */
async function openPull(base = 'main'): Promise<{ index: number; branch: string; head: string }> {
  const branch = `feature/effects-${++branches}`;
  const made = await call(author, 'gitea_contents_create_file', {
    ...W,
    filepath: `src/effects-${branches}.js`,
    body: { content: b64(`change ${branches}\n`), branch: base, new_branch: branch, message: `Change ${branches}` },
  });
  assert.equal(made.error, undefined, JSON.stringify(made.error));
  const opened = await call(author, 'gitea_pulls_create', { ...W, body: { head: branch, base, title: branch } });
  assert.equal(typeof opened.data?.number, 'number', JSON.stringify(opened));
  return { index: opened.data.number, branch, head: opened.data.head.sha };
}

/** A commit on `branch` of acme/widgets made by alice, outside the product (a push with git). */
async function pushFile(branch: string, path: string, content = 'x\n'): Promise<string> {
  const pushed = await gitea('POST', '/repos/acme/widgets/contents', {
    as: 'alice',
    body: { branch, files: [{ operation: 'create', path, content: b64(content) }] },
  });
  assert.equal(pushed.status, 201, JSON.stringify(pushed.body));
  return pushed.body.commit.sha;
}

const approve = (index: number, body: Record<string, unknown> = {}) =>
  attempt(reviewer, 'gitea_pulls_create_review', {
    ...W,
    index,
    body: { event: 'APPROVED', body: 'looks good', ...body },
  });

const merge = (index: number, head: string) =>
  attempt(
    merger,
    'gitea_pulls_merge',
    { ...W, index, body: { do: 'merge', head_commit_id: head, delete_branch_after_merge: false } },
    true,
  );

describe('1. an approval counts only for the content it saw', () => {
  test('an approval given against another base does not count after a retarget (Gitea keeps the review)', async () => {
    assert.equal(
      (
        await gitea('POST', '/repos/acme/widgets/branches', {
          body: { new_branch_name: 'staging', old_branch_name: 'main' },
        })
      ).status,
      201,
    );
    const pr = await openPull('staging');
    assertDone(await approve(pr.index));
    const retarget = await attempt(author, 'gitea_pulls_edit', { ...W, index: pr.index, body: { base: 'main' } });
    assertDone(retarget);
    const review = (await gitea('GET', `/repos/acme/widgets/pulls/${pr.index}/reviews`)).body[0];
    assert.deepEqual([review.official, review.stale, review.dismissed], [true, false, false], 'Gitea still counts it');
    const refused = await merge(pr.index, pr.head);
    assertRefused(refused, 'approval_base_changed');
    assert.match(JSON.stringify(refused.payload.error.failed), /staging to main/);
    assert.match(refused.payload.error.failed[0].fact, /timeline/);

    // Control: a re-approval after the retarget counts.
    assertDone(await approve(pr.index));
    assertDone(await merge(pr.index, pr.head));
  });
});

describe('2. a ref move is a write of what it brings', () => {
  let forkHead = '';
  let forkPull = 0;
  before(async () => {
    // erin, an outsider, forks acme/widgets and opens a pull request whose head adds a workflow.
    assert.equal((await gitea('POST', '/repos/acme/widgets/forks', { as: 'erin', body: {} })).status, 202);
    const made = await gitea('POST', '/repos/erin/widgets/contents', {
      as: 'erin',
      body: {
        branch: 'main',
        new_branch: 'ci',
        files: [{ operation: 'create', path: '.gitea/workflows/ci.yml', content: b64('on: push\njobs: {}\n') }],
      },
    });
    assert.equal(made.status, 201);
    const pr = await gitea('POST', '/repos/acme/widgets/pulls', {
      as: 'erin',
      body: { head: 'erin:ci', base: 'main', title: 'CI' },
    });
    assert.equal(pr.status, 201, JSON.stringify(pr.body));
    forkPull = pr.body.number;
    forkHead = pr.body.head.sha;
  });

  test("a branch created from a fork's refs/pull/N/head brings its workflow into this repository: refused", async () => {
    const refused = await attempt(author, 'gitea_branches_create', {
      ...W,
      body: { new_branch_name: 'try-ci', old_ref_name: `refs/pull/${forkPull}/head` },
    });
    assertRefused(refused, 'path_not_allowed');
    assert.match(JSON.stringify(refused.payload.error.failed), /\.gitea\/workflows\/ci\.yml/);
    assert.equal((await gitea('GET', '/repos/acme/widgets/branches/try-ci')).status, 404);
    // Control: a branch from main brings nothing new.
    assertDone(
      await attempt(author, 'gitea_branches_create', {
        ...W,
        body: { new_branch_name: 'from-main', old_ref_name: 'main' },
      }),
    );
  });

  test('pointing a branch at a commit (PUT /branches, new in 1.27) is judged by the files it brings', async () => {
    const pr = await openPull();
    const refused = await attempt(author, 'gitea_branches_update', {
      ...W,
      branch: pr.branch,
      body: { new_commit_id: forkHead, force: true },
    });
    assertRefused(refused, 'path_not_allowed');
    // Control: a fast-forward to a commit with an ordinary file.
    await gitea('POST', '/repos/acme/widgets/branches', {
      body: { new_branch_name: `${pr.branch}-next`, old_branch_name: pr.branch },
    });
    const next = await pushFile(`${pr.branch}-next`, 'src/next.js');
    assertDone(
      await attempt(author, 'gitea_branches_update', { ...W, branch: pr.branch, body: { new_commit_id: next } }),
    );
    // A commit with no history in common with the branch cannot be told apart: refused.
    const repo = sandbox.state.repo('acme', 'widgets');
    assert.ok(repo);
    const orphan = sandbox.state.addCommit(repo, {
      parents: [],
      message: 'unrelated',
      author: { name: 'Alice', email: 'a@example.invalid', login: 'alice' },
      date: sandbox.state.timestamp(),
      tree: { 'x.txt': 'x\n' },
    });
    const unrelated = await attempt(author, 'gitea_branches_update', {
      ...W,
      branch: pr.branch,
      body: { new_commit_id: orphan.sha, force: true },
    });
    assertRefused(unrelated, 'target_unreadable');
    assert.match(JSON.stringify(unrelated.payload.error.failed), /share no history/);
  });

  test("a tag's target and a release's target_commitish write what they point at", async () => {
    const tag = await attempt(owner, 'gitea_tags_create', { ...W, body: { tag_name: 'v-ci', target: forkHead } });
    assertRefused(tag, 'path_not_allowed');
    const release = await attempt(owner, 'gitea_releases_create', {
      ...W,
      body: { tag_name: 'v-ci2', target_commitish: forkHead, name: 'CI' },
    });
    assertRefused(release, 'path_not_allowed');
    // Control: a tag and a release of main.
    assertDone(await attempt(owner, 'gitea_tags_create', { ...W, body: { tag_name: 'v1.0', target: 'main' } }));
    assertDone(await attempt(owner, 'gitea_releases_create', { ...W, body: { tag_name: 'v1.1', name: 'One' } }));
  });

  test('syncing a fork brings what its upstream has: a workflow upstream is refused, other files pass', async () => {
    assert.equal((await gitea('POST', '/repos/acme/gadgets/forks', { as: 'admin', body: {} })).status, 202);
    const sync = { owner: 'admin', repo: 'gadgets', body: { branch: 'sync' } };
    await gitea('POST', '/repos/admin/gadgets/branches', {
      as: 'admin',
      body: { new_branch_name: 'sync', old_branch_name: 'main' },
    });
    const upstream = await gitea('POST', '/repos/acme/gadgets/contents', {
      as: 'alice',
      body: {
        branch: 'main',
        files: [{ operation: 'create', path: '.github/workflows/x.yml', content: b64('on: push\n') }],
      },
    });
    assert.equal(upstream.status, 201);
    const refused = await attempt(owner, 'gitea_repos_merge_upstream', sync);
    assertRefused(refused, 'path_not_allowed');
    // Control: once the fork has it (synced by hand, outside the product), an upstream change of an ordinary file syncs.
    assert.equal(
      (await gitea('POST', '/repos/admin/gadgets/merge-upstream', { as: 'admin', body: sync.body })).status,
      200,
    );
    assert.equal(
      (
        await gitea('POST', '/repos/acme/gadgets/contents', {
          as: 'alice',
          body: { branch: 'main', files: [{ operation: 'create', path: 'notes.txt', content: b64('n\n') }] },
        })
      ).status,
      201,
    );
    assertDone(await attempt(owner, 'gitea_repos_merge_upstream', sync));
  });
});

describe('3. a call is judged on every name it makes', () => {
  before(() => {
    const repo = sandbox.state.repo('acme', 'widgets');
    assert.ok(repo);
    const at = sandbox.state.timestamp();
    repo.protections.push({
      ruleName: 'release/*',
      requiredApprovals: 1,
      enablePush: false,
      dismissStaleApprovals: false,
      blockOnRejectedReviews: false,
      created: at,
      updated: at,
    });
  });

  test("a branch renamed into a Gitea protection rule's names is refused (Gitea checks only the old name)", async () => {
    await gitea('POST', '/repos/acme/widgets/branches', {
      body: { new_branch_name: 'topic/rename', old_branch_name: 'main' },
    });
    const glob = await attempt(owner, 'gitea_branches_rename', {
      ...W,
      branch: 'topic/rename',
      body: { name: 'release/2.0' },
    });
    assertRefused(glob, 'protected_branch');
    assert.match(JSON.stringify(glob.payload.error.failed), /release\/\*/);
    const policy = await attempt(owner, 'gitea_branches_rename', {
      ...W,
      branch: 'topic/rename',
      body: { name: 'master' },
    });
    assertRefused(policy, 'protected_branch');
    // Control: a rename to an unprotected name.
    assertDone(
      await attempt(owner, 'gitea_branches_rename', { ...W, branch: 'topic/rename', body: { name: 'topic/renamed' } }),
    );
    assert.equal((await gitea('GET', '/repos/acme/widgets/branches/topic/renamed')).status, 200);
  });

  test('a repository rename is judged on its new full name against the repository scope', async () => {
    const renamed = await attempt(gadgetsAdmin, 'gitea_repos_edit', {
      owner: 'acme',
      repo: 'gadgets',
      body: { name: 'gadgets-elsewhere' },
    });
    assertRefused(renamed, 'repository_out_of_scope');
    assert.match(JSON.stringify(renamed.payload.error.failed), /acme\/gadgets-elsewhere/);
    // Control: an edit that renames nothing.
    assertDone(
      await attempt(gadgetsAdmin, 'gitea_repos_edit', {
        owner: 'acme',
        repo: 'gadgets',
        body: { description: 'Gadgets!' },
      }),
    );
  });

  test('after a rename outside the product, Gitea redirects the old name; the product does not follow it', async () => {
    assert.equal(
      (await gitea('POST', '/user/repos', { as: 'admin', body: { name: 'moving', auto_init: true } })).status,
      201,
    );
    assert.equal((await gitea('PATCH', '/repos/admin/moving', { as: 'admin', body: { name: 'moved' } })).status, 200);
    const answer = await call(owner, 'gitea_repos_get', { owner: 'admin', repo: 'moving' });
    assert.equal(answer.error?.status, 307, JSON.stringify(answer));
    assert.match(answer.error.message, /admin\/moved: the repository was renamed/);
  });
});

describe('4. a verdict names the head it judged', () => {
  test('an approval through the product naming a commit that is not the head is refused', async () => {
    const pr = await openPull();
    await gitea('POST', '/repos/acme/widgets/branches', {
      body: { new_branch_name: `${pr.branch}-later`, old_branch_name: pr.branch },
    });
    const future = await pushFile(`${pr.branch}-later`, 'src/later.js');
    assertRefused(await approve(pr.index, { commit_id: future }), 'review_head_mismatch');
  });

  test('an approval of a future commit given outside the product does not count once that commit is pushed', async () => {
    const pr = await openPull();
    await gitea('POST', '/repos/acme/widgets/branches', {
      body: { new_branch_name: `${pr.branch}-later`, old_branch_name: pr.branch },
    });
    const future = await pushFile(`${pr.branch}-later`, 'src/later.js');
    const outside = await gitea('POST', `/repos/acme/widgets/pulls/${pr.index}/reviews`, {
      as: 'bob',
      body: { event: 'APPROVED', body: 'approving what comes next', commit_id: future },
    });
    assert.equal(outside.status, 200);
    assert.equal(
      (await gitea('PUT', `/repos/acme/widgets/branches/${pr.branch}`, { body: { new_commit_id: future } })).status,
      204,
    );
    const review = (await gitea('GET', `/repos/acme/widgets/pulls/${pr.index}/reviews/${outside.body.id}`)).body;
    assert.deepEqual([review.commit_id, review.stale, review.official], [future, false, true], 'Gitea counts it now');
    assertRefused(await merge(pr.index, future), 'approval_unseen_head');
  });

  test('control: an approval naming no commit carries the live head and the merge goes through', async () => {
    const pr = await openPull();
    assertDone(await approve(pr.index));
    const reviews = (await gitea('GET', `/repos/acme/widgets/pulls/${pr.index}/reviews`)).body;
    assert.equal(reviews.at(-1).commit_id, pr.head);
    assertDone(await merge(pr.index, pr.head));
  });
});

describe('5. sudo never makes two people: authoring under sudo is refused too', () => {
  test('a pull request opened or a commit made as bob is refused; a read as bob is not', async () => {
    await gitea('POST', '/repos/acme/widgets/branches', {
      body: { new_branch_name: 'as-bob', old_branch_name: 'main' },
    });
    await pushFile('as-bob', 'src/bob.js');
    const opened = await attempt(owner, 'gitea_pulls_create', {
      ...W,
      sudo: 'bob',
      body: { head: 'as-bob', base: 'main', title: 'opened as bob' },
    });
    assertRefused(opened, 'sudo_not_independent');
    const commit = await attempt(owner, 'gitea_contents_create_file', {
      ...W,
      sudo: 'bob',
      filepath: 'src/bob2.js',
      body: { content: b64('b\n'), branch: 'as-bob' },
    });
    assertRefused(commit, 'sudo_not_independent');
    const read = await call(owner, 'gitea_repos_get', { ...W, sudo: 'bob' });
    assert.equal(read.error, undefined, JSON.stringify(read.error));
  });
});

describe('6. the write follows the proof immediately', () => {
  test('a push between the proof and the delete keeps the branch; without it the branch goes', async () => {
    const pr = await openPull();
    assertDone(await approve(pr.index));
    assertDone(await merge(pr.index, pr.head));
    const repo = sandbox.state.repo('acme', 'widgets');
    assert.ok(repo);
    const args = { ...W, pr_number: pr.index, branch: pr.branch };
    // The first round proves and asks the person; the retry with their yes proves again, and someone
    // pushes to the merged branch right after that proof's last read (the compare).
    const asked = await answerToolCall(reconciler.namespace, 'gitea_cleanup_merged_pr_branch', args, askingRound());
    assert.ok(asked.ask, JSON.stringify(asked.result.structuredContent));
    let pushed = '';
    onAnswer = (event) => {
      if (event.method !== 'GET' || !/\/compare\//.test(event.path) || pushed) return;
      pushed = sandbox.state.addCommit(repo, {
        parents: [repo.branches.get(pr.branch) as string],
        message: 'late work',
        author: { name: 'Alice', email: 'a@example.invalid', login: 'alice' },
        date: sandbox.state.timestamp(),
        tree: { ...repo.commits.get(repo.branches.get(pr.branch) as string)?.tree, 'late.js': 'late\n' },
      }).sha;
      sandbox.state.moveBranch(repo, pr.branch, pushed, 'alice');
    };
    try {
      const start = sandbox.requests.length;
      const answer = await answerToolCall(
        reconciler.namespace,
        'gitea_cleanup_merged_pr_branch',
        args,
        answering(asked, YES),
      );
      const writes = sandbox.requests
        .slice(start)
        .filter((r) => r.method !== 'GET')
        .map((r) => `${r.method} ${r.path}`);
      assertRefused({ payload: payloadOf(answer.result), writes }, 'branch_moved');
      assert.equal((await gitea('GET', `/repos/acme/widgets/branches/${pr.branch}`)).body.commit.id, pushed);
    } finally {
      onAnswer = null;
    }
    // Control: a branch nobody touches is cleaned up once its pull request merged.
    const other = await openPull();
    assertDone(await approve(other.index));
    assertDone(await merge(other.index, other.head));
    const done = await attempt(
      reconciler,
      'gitea_cleanup_merged_pr_branch',
      { ...W, pr_number: other.index, branch: other.branch },
      true,
    );
    assert.equal(done.payload.action, 'deleted', JSON.stringify(done.payload));
  });
});

describe('7. scoped answers are scoped all the way down', () => {
  test("a timeline's reference from another repository is reduced; a reference from this one is kept", async () => {
    const target = await gitea('POST', '/repos/acme/widgets/issues', { as: 'alice', body: { title: 'Target' } });
    const n = target.body.number;
    await gitea('POST', '/repos/acme/gadgets/issues', {
      as: 'alice',
      body: { title: 'Secret plan', body: `see acme/widgets#${n}` },
    });
    await gitea('POST', '/repos/acme/widgets/issues', { as: 'alice', body: { title: 'Same repo', body: `see #${n}` } });
    const answer = await call(scoped, 'gitea_issues_get_comments_and_timeline', { ...W, index: n });
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    const refs = answer.data.filter((e: { type: string }) => e.type === 'issue_ref');
    assert.equal(refs.length, 2);
    assert.equal(refs[0].ref_issue, null, 'the reference from acme/gadgets is reduced');
    assert.doesNotMatch(JSON.stringify(answer.data), /Secret plan|acme\/gadgets/);
    assert.equal(refs[1].ref_issue.repository.full_name, 'acme/widgets');
    assert.match(answer.scope_reduced, /\[\d+\]\.ref_issue/);
  });

  test("a compare against another owner's fork names that repository: outside the scope, refused", async () => {
    const forked = await call(scoped, 'gitea_commits_compare_diff', { ...W, basehead: 'main...erin:ci' });
    assert.equal(forked.error?.reason, 'repository_out_of_scope', JSON.stringify(forked));
    assert.match(JSON.stringify(forked.error.failed), /erin\/widgets/);
    // Control: a compare within the repository.
    const own = await call(scoped, 'gitea_commits_compare_diff', { ...W, basehead: 'main...feature/login' });
    assert.equal(own.error, undefined, JSON.stringify(own.error));
  });

  test("a pull request's head repository in a private fork outside the scope is reduced", async () => {
    assert.equal((await gitea('PATCH', '/repos/erin/widgets', { as: 'erin', body: { private: true } })).status, 200);
    const pulls = await call(scoped, 'gitea_pulls_list', { ...W, state: 'all', limit: 50 });
    const fromFork = pulls.data.find((p: { title: string }) => p.title === 'CI');
    assert.ok(fromFork, JSON.stringify(pulls));
    assert.equal(fromFork.head.repo, null);
    assert.doesNotMatch(JSON.stringify(pulls.data), /erin\/widgets/);
    const single = await call(scoped, 'gitea_pulls_get', { ...W, index: fromFork.number });
    assert.equal(single.data.head.repo, null);
    assert.match(single.scope_reduced, /head\.repo/);
    // Control: a pull request whose head is a branch of this repository keeps its head repository.
    const own = await call(scoped, 'gitea_pulls_get', { ...W, index: 1 });
    assert.equal(own.data.head.repo.full_name, 'acme/widgets');
    assert.equal(own.scope_reduced, undefined);
  });
});

test('every sandbox answer matched the pinned spec', () => {
  assert.deepEqual(contract.problems, []);
});
