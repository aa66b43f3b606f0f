// The fact gatherers and the guarded reconciler actions against a fake Gitea (FactReader + GiteaWriter):
// unreadable, missing or malformed facts deny, and a write happens only after every check passed.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  gatherCallFacts,
  readBranch,
  readLandingEvidence,
  readOpenPulls,
  readProtectionRules,
  readCompareHeadRepository,
  readPull,
  readRefMoveFiles,
  readRepository,
  readReviews,
  readTimeline,
} from '../src/gitea/facts.js';
import { cleanupMergedPrBranch, reconcileAlreadyLandedPr } from '../src/gitea/reconcile.js';
import type { FactReader, GiteaWriter, ReadResult, WriteResult } from '../src/gitea/gitea-identity.js';
import { callGuardsFor, judgeCall } from '../src/policy/guards/call-guards.js';
import { judgeCleanup, type CleanupRequest } from '../src/policy/guards/cleanup-branch-guard.js';
import { judgeReconcileLanded } from '../src/policy/guards/reconcile-landed-guard.js';
import { judgeUnmoved } from '../src/policy/guards/unmoved-guard.js';
import type { BranchPatterns, FactBounds, MergeSettings } from '../src/policy/guards/guard-settings.js';
import { applyGuardVerdict } from '../src/policy/guards/verdict.js';
import type { Decision } from '../src/policy/decision.js';
import { loadPolicySet } from '../src/policy-files/policy-set.js';

type Answer = ReadResult | 'throw';
type Query = Record<string, string | number | boolean> | undefined;

/** A fake Gitea: routes keyed by path; every GET and write is recorded. */
class FakeGitea implements FactReader, GiteaWriter {
  readonly reads: Array<{ path: string; query: Query }> = [];
  readonly writes: string[] = [];
  writeStatus: Record<string, number> = {};
  constructor(readonly routes: Record<string, Answer | ((query: Query) => Answer)>) {}

  async get(path: string, query?: Record<string, string | number | boolean>): Promise<ReadResult> {
    this.reads.push({ path, query });
    const route = this.routes[path];
    const answer =
      typeof route === 'function' ? route(query) : (route ?? { status: 404, data: { message: 'not found' } });
    if (answer === 'throw') throw new Error('connect ECONNREFUSED');
    return answer;
  }
  private async write(what: string): Promise<WriteResult> {
    this.writes.push(what);
    return { status: this.writeStatus[what.split(' ')[0] ?? ''] ?? 204 };
  }
  deleteBranch(owner: string, repo: string, branch: string): Promise<WriteResult> {
    return this.write(`delete ${owner}/${repo} ${branch}`);
  }
  closePull(owner: string, repo: string, index: number): Promise<WriteResult> {
    return this.write(`close ${owner}/${repo} #${index}`);
  }
  commentIssue(owner: string, repo: string, index: number, body: string): Promise<WriteResult> {
    return this.write(`comment ${owner}/${repo} #${index} ${body}`);
  }
}

const R = '/repos/acme/app';
/** Commit ids as Gitea reports them (40 hex digits), named for what they are in the fixtures. */
const sha = (tag: string): string => tag.replace(/[^0-9a-f]/g, 'f').padEnd(40, '0');
const H1 = sha('b1');
const H2 = sha('b2');
const M4 = sha('e4');
const M5 = sha('e5');
const O1 = sha('0d1');
const BOUNDS: FactBounds = { page_size: 2, max_pages: 3 };
const ok = (data: unknown): ReadResult => ({ status: 200, data });

function giteaPull(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    number: 7,
    state: 'closed',
    merged: true,
    user: { login: 'alice' },
    head: { label: 'feature/x', ref: 'feature/x', sha: H2, repo: { full_name: 'acme/app' } },
    base: { label: 'main', ref: 'main', sha: M5, repo: { full_name: 'acme/app' } },
    ...overrides,
  };
}

/** Paginated list answers: items split by limit, then empty pages; X-Total-Count the number of items. */
function pages(items: unknown[], hidden: (item: unknown) => boolean = () => false): (query: Query) => Answer {
  return (query) => {
    const page = Number(query?.page ?? 1);
    const limit = Number(query?.limit ?? 50);
    // Gitea cuts the page first, then leaves out what the caller may not see (a short page).
    return {
      ...ok(items.slice((page - 1) * limit, page * limit).filter((item) => !hidden(item))),
      totalCount: items.length,
    };
  };
}

/** The compare body of commit...target: the commits listed, each with its parents. */
const compareBody = (commits: Array<[string, string[]]>) =>
  ok({
    total_commits: commits.length,
    commits: commits.map(([id, parents]) => ({ sha: id, parents: parents.map((p) => ({ sha: p })) })),
  });

const openPullItem = (number: number, head: string, base = 'main', headRepo: string | null = 'acme/app') => ({
  number,
  head: { label: head, ref: head, sha: H1, repo: headRepo ? { full_name: headRepo } : null },
  base: { label: base, ref: base },
});

/** A repository where PR #7 (feature/x at H2) is merged into main (M5, a merge commit of M4 and H2) and cleanup should pass. */
/** Timeline pages as ListIssueCommentsAndTimeline answers them: X-Total-Count is the page's own count. */
function timeline(entries: unknown[]): (query: Query) => Answer {
  return (query) => {
    const page = Number(query?.page ?? 1);
    const limit = Number(query?.limit ?? 50);
    const shown = entries.slice((page - 1) * limit, page * limit).filter((e) => e !== HIDDEN);
    return { ...ok(shown), totalCount: shown.length };
  };
}
/** An entry Gitea leaves out of the page (a code comment, a cross-reference the token cannot read). */
const HIDDEN = { hidden: true };
const pushed = (...ids: string[]) => ({
  type: 'pull_push',
  body: JSON.stringify({ is_force_push: false, commit_ids: ids }),
});
const reviewed = (id: number) => ({ type: 'review', review_id: id, body: '' });

function mergedRepo(overrides: Record<string, Answer | ((query: Query) => Answer)> = {}): FakeGitea {
  return new FakeGitea({
    [`${R}/issues/7/timeline`]: timeline([pushed(H1, H2), reviewed(1), reviewed(2)]),
    [R]: ok({ full_name: 'acme/app', default_delete_branch_after_merge: false, parent: null }),
    [`${R}/forks`]: pages([]),
    [`${R}/pulls/7`]: ok(giteaPull()),
    [`${R}/branches/main`]: ok({ name: 'main', commit: { id: M5 }, protected: true }),
    [`${R}/branches/feature/x`]: ok({ name: 'feature/x', commit: { id: H2 }, protected: false }),
    [`${R}/compare/${H2}...${M5}`]: compareBody([[M5, [M4, H2]]]),
    [`${R}/branch_protections`]: ok([{ rule_name: 'main' }, { branch_name: 'release/*' }]),
    [`${R}/pulls`]: pages([openPullItem(8, 'feature/y')]),
    ...overrides,
  });
}

describe('fact gatherers', () => {
  const ref = { owner: 'acme', repo: 'app', index: 7 };

  test('a readable pull request becomes facts, the author from user.login', async () => {
    const fact = await readPull(mergedRepo(), ref);
    assert.deepEqual(fact, {
      ok: true,
      value: {
        number: 7,
        author: 'alice',
        state: 'closed',
        merged: true,
        headSha: H2,
        headRef: 'feature/x',
        headBranchExists: true,
        headRepo: 'acme/app',
        baseRef: 'main',
        baseRepo: 'acme/app',
      },
    });
  });

  test('after the head branch is deleted, head.ref reads refs/pull/N/head: the branch name comes from head.label', async () => {
    const deleted = giteaPull({
      head: { label: 'feature/x', ref: 'refs/pull/7/head', sha: H2, repo: { full_name: 'acme/app' } },
    });
    const fact = await readPull(mergedRepo({ [`${R}/pulls/7`]: ok(deleted) }), ref);
    assert.equal(fact.ok && fact.value.headRef, 'feature/x');
    assert.equal(fact.ok && fact.value.headBranchExists, false);
  });

  test('a head.sha that is not a commit id (refs/pull/7/head) is a missing fact, never compared or matched', async () => {
    const quirk = giteaPull({
      head: { label: 'feature/x', ref: 'feature/x', sha: 'refs/pull/7/head', repo: { full_name: 'acme/app' } },
    });
    const fact = await readPull(mergedRepo({ [`${R}/pulls/7`]: ok(quirk) }), ref);
    assert.equal(fact.ok, false);
    assert.match(fact.ok ? '' : fact.detail, /head commit SHA/);
  });

  const unreadable: Array<[string, Answer, RegExp]> = [
    ['404', { status: 404, data: { message: 'not found' } }, /HTTP 404, not found/],
    ['500', { status: 500, data: null }, /HTTP 500/],
    ['a network failure', 'throw', /did not answer/],
    ['an answer without head', ok(giteaPull({ head: null })), /lacks/],
    ['an answer that is not an object', ok('<html>'), /lacks/],
  ];
  for (const [name, answer, detail] of unreadable) {
    test(`a pull request read that gives ${name} is a missing fact`, async () => {
      const fact = await readPull(mergedRepo({ [`${R}/pulls/7`]: answer }), ref);
      assert.equal(fact.ok, false);
      assert.match(fact.ok ? '' : fact.detail, detail);
    });
  }

  test('an unreported author stays unknown (the guard then denies)', async () => {
    const fact = await readPull(mergedRepo({ [`${R}/pulls/7`]: ok(giteaPull({ user: null })) }), ref);
    assert.equal(fact.ok && fact.value.author, null);
  });

  const approval = (i: number, extra: Record<string, unknown> = {}) => ({
    id: i,
    user: { login: `r${i}` },
    state: 'APPROVED',
    commit_id: H2,
    stale: false,
    dismissed: false,
    official: true,
    ...extra,
  });

  test('reviews are read page by page, as many pages as X-Total-Count implies, then one empty page', async () => {
    const reviews = [1, 2, 3, 4, 5].map((i) => approval(i));
    const gitea = mergedRepo({ [`${R}/pulls/7/reviews`]: pages(reviews) });
    const fact = await readReviews(gitea, ref, { page_size: 2, max_pages: 5 });
    assert.equal(fact.ok && fact.value.length, 5);
    assert.deepEqual(
      gitea.reads.map((r) => r.query?.page),
      [1, 2, 3, 4],
    );
    assert.ok(gitea.reads.every((r) => r.query?.limit === 2));
  });

  test("a short or empty page before the end (another user's pending reviews left out) does not end the list", async () => {
    // Reviews 1-4 are someone else's pending ones: pages 1 and 2 come back empty; X-Total-Count says 6.
    const reviews = [1, 2, 3, 4, 5, 6].map((i) =>
      approval(i, i <= 4 ? { state: 'PENDING' } : { state: 'REQUEST_CHANGES' }),
    );
    const gitea = mergedRepo({
      [`${R}/pulls/7/reviews`]: pages(reviews, (r) => (r as { state: string }).state === 'PENDING'),
    });
    const fact = await readReviews(gitea, ref, { page_size: 2, max_pages: 5 });
    assert.deepEqual(fact.ok && fact.value.map((r) => r.id), [5, 6]);
  });

  test('without X-Total-Count the first empty page ends the list', async () => {
    const gitea = mergedRepo({ [`${R}/pulls/7/reviews`]: (q) => ok(Number(q?.page) === 1 ? [approval(1)] : []) });
    const fact = await readReviews(gitea, ref, { page_size: 2, max_pages: 5 });
    assert.equal(fact.ok && fact.value.length, 1);
  });

  test('reviews beyond the page bound are a missing fact, not a partial list', async () => {
    const reviews = Array.from({ length: 10 }, (_, i) => ({ id: i + 1, user: { login: `r${i}` }, state: 'COMMENT' }));
    const fact = await readReviews(mergedRepo({ [`${R}/pulls/7/reviews`]: pages(reviews) }), ref, BOUNDS);
    assert.equal(fact.ok, false);
    assert.match(fact.ok ? '' : fact.detail, /more than 3 pages of 2/);
  });

  const badReviews: Array<[string, Answer | ((q: Query) => Answer)]> = [
    [
      'a failing second page',
      (q) =>
        q?.page === 2
          ? { status: 500, data: null }
          : ok([
              { id: 1, state: 'APPROVED' },
              { id: 2, state: 'COMMENT' },
            ]),
    ],
    ['a page that is not a list', ok({ message: 'oops' })],
    ['a review without state', pages([{ id: 1, user: { login: 'carol' }, commit_id: H2 }])],
    [
      'a review without id (its order is unknown)',
      pages([{ user: { login: 'carol' }, state: 'APPROVED', commit_id: H2 }]),
    ],
  ];
  for (const [name, answer] of badReviews) {
    test(`reviews with ${name} are a missing fact`, async () => {
      const fact = await readReviews(mergedRepo({ [`${R}/pulls/7/reviews`]: answer }), ref, BOUNDS);
      assert.equal(fact.ok, false);
    });
  }

  test('a review that does not report stale, dismissed or official counts against the approval', async () => {
    const fact = await readReviews(
      mergedRepo({
        [`${R}/pulls/7/reviews`]: pages([{ id: 3, user: { login: 'carol' }, state: 'APPROVED', commit_id: H2 }]),
      }),
      ref,
      BOUNDS,
    );
    assert.deepEqual(fact.ok && fact.value[0], {
      id: 3,
      reviewer: 'carol',
      state: 'APPROVED',
      commitId: H2,
      stale: true,
      dismissed: true,
      official: false,
    });
  });

  test('the repository default for deleting a merged head branch is read from default_delete_branch_after_merge', async () => {
    assert.deepEqual(await readRepository(mergedRepo(), 'acme', 'app'), {
      ok: true,
      value: { fullName: 'acme/app', defaultDeleteBranchAfterMerge: false, parent: null },
    });
    const silent = await readRepository(mergedRepo({ [R]: ok({ full_name: 'acme/app' }) }), 'acme', 'app');
    assert.equal(silent.ok, false);
  });

  test('a branch name keeps its slashes; a dot segment is never sent', async () => {
    const gitea = mergedRepo();
    assert.deepEqual(await readBranch(gitea, 'acme', 'app', 'feature/x'), {
      ok: true,
      value: { name: 'feature/x', sha: H2, protected: false },
    });
    const dots = await readBranch(gitea, 'acme', 'app', '../../admin');
    assert.equal(dots.ok, false);
    assert.deepEqual(
      gitea.reads.map((r) => r.path),
      [`${R}/branches/feature/x`],
    );
  });

  test('a branch without its protected flag is a missing fact', async () => {
    const fact = await readBranch(
      mergedRepo({ [`${R}/branches/main`]: ok({ name: 'main', commit: { id: M5 } }) }),
      'acme',
      'app',
      'main',
    );
    assert.equal(fact.ok, false);
  });

  test('protection rules are read by rule name, or the legacy branch name', async () => {
    assert.deepEqual(await readProtectionRules(mergedRepo(), 'acme', 'app'), {
      ok: true,
      value: ['main', 'release/*'],
    });
    const nameless = await readProtectionRules(
      mergedRepo({ [`${R}/branch_protections`]: ok([{ priority: 1 }]) }),
      'acme',
      'app',
    );
    assert.equal(nameless.ok, false);
  });

  test('protection rules hidden from a non-admin (403) leave the branch flag to judge; other failures deny', async () => {
    assert.deepEqual(
      await readProtectionRules(
        mergedRepo({ [`${R}/branch_protections`]: { status: 403, data: null } }),
        'acme',
        'app',
      ),
      { ok: true, value: null },
    );
    for (const answer of [{ status: 404, data: null }, { status: 500, data: null }, 'throw'] as const) {
      assert.equal(
        (await readProtectionRules(mergedRepo({ [`${R}/branch_protections`]: answer }), 'acme', 'app')).ok,
        false,
      );
    }
  });

  test("the landing evidence is the compare commit...target with each listed commit's parents", async () => {
    assert.deepEqual(await readLandingEvidence(mergedRepo(), 'acme', 'app', H2, M5), {
      ok: true,
      value: { commit: H2, target: M5, commits: [{ sha: M5, parents: [M4, H2] }] },
    });
    for (const body of [
      { total_commits: 0 },
      { commits: [{ sha: M5 }] },
      { commits: [{ sha: M5, parents: [{ sha: 'refs/heads/main' }] }] },
    ]) {
      const bad = await readLandingEvidence(
        mergedRepo({ [`${R}/compare/${H2}...${M5}`]: ok(body) }),
        'acme',
        'app',
        H2,
        M5,
      );
      assert.equal(bad.ok, false, JSON.stringify(body));
    }
  });

  test('open pull requests are read from the repository, its parent and its forks (CloseBranchPulls reaches them all)', async () => {
    const gitea = mergedRepo({
      [R]: ok({
        full_name: 'acme/app',
        default_delete_branch_after_merge: false,
        parent: { full_name: 'upstream/app' },
      }),
      [`${R}/forks`]: pages([{ full_name: 'bob/app' }]),
      '/repos/upstream/app/pulls': pages([openPullItem(4, 'feature/x', 'main', 'acme/app')]),
      '/repos/bob/app/pulls': pages([]),
    });
    const fact = await readOpenPulls(gitea, 'acme', 'app', BOUNDS);
    assert.deepEqual(fact.ok && fact.value.map((p) => `${p.repo}#${p.number}`), ['acme/app#8', 'upstream/app#4']);
    const unreadableFork = await readOpenPulls(
      mergedRepo({ [`${R}/forks`]: pages([{ full_name: 'bob/app' }]) }),
      'acme',
      'app',
      BOUNDS,
    );
    assert.equal(unreadableFork.ok, false, 'a fork whose pull requests cannot be read is a missing fact');
  });
});

describe('call guards end to end over a fake Gitea', () => {
  const allowed: Decision = {
    effect: 'allow',
    operation: 'gitea.pr.merge',
    operations: ['gitea.pr.merge'],
    reason: 'allowed',
    determining: { file: 'profiles/gitea-merger.yaml', line: 9, rule: 'allowed_operations: gitea.pr.merge' },
    failed: [],
  };
  const strict: MergeSettings = { require_head_sha: true, require_independent_approval: true };
  const openPull = ok(giteaPull({ state: 'open', merged: false }));
  const carol = [
    {
      id: 1,
      user: { login: 'carol' },
      state: 'APPROVED',
      commit_id: H2,
      stale: false,
      dismissed: false,
      official: true,
    },
  ];

  async function decide(
    gitea: FakeGitea,
    operations: string[],
    identity: string | null,
    index: number | null = 7,
    deleteBranch: boolean | null = false,
  ): Promise<Decision> {
    const guards = callGuardsFor(operations, loadPolicySet().callGuards);
    const facts = await gatherCallFacts(
      gitea,
      guards,
      { owner: 'acme', repo: 'app', index, identity, expectedHeadSha: H2, deleteBranch },
      BOUNDS,
    );
    return applyGuardVerdict(
      { ...allowed, operations, operation: operations[0] ?? null },
      judgeCall(guards, facts, strict),
    );
  }

  const table: Array<[string, () => FakeGitea, string[], string | null, string[]]> = [
    [
      'merge by someone else, approved by carol',
      () => mergedRepo({ [`${R}/pulls/7`]: openPull, [`${R}/pulls/7/reviews`]: pages(carol) }),
      ['gitea.pr.merge'],
      'bob',
      [],
    ],
    [
      'merge by the author',
      () => mergedRepo({ [`${R}/pulls/7`]: openPull, [`${R}/pulls/7/reviews`]: pages(carol) }),
      ['gitea.pr.merge'],
      'alice',
      ['self_merge'],
    ],
    [
      'merge while reviews answer 500',
      () => mergedRepo({ [`${R}/pulls/7`]: openPull, [`${R}/pulls/7/reviews`]: { status: 500, data: null } }),
      ['gitea.pr.merge'],
      'bob',
      ['fact_unavailable'],
    ],
    [
      'merge of a pull request that answers 404',
      () => mergedRepo({ [`${R}/pulls/7`]: { status: 404, data: null } }),
      ['gitea.pr.merge'],
      'bob',
      ['fact_unavailable'],
    ],
    [
      'approval by the author',
      () => mergedRepo({ [`${R}/pulls/7`]: openPull }),
      ['gitea.pr.approve'],
      'alice',
      ['self_review'],
    ],
    ['approval by carol', () => mergedRepo({ [`${R}/pulls/7`]: openPull }), ['gitea.pr.approve'], 'carol', []],
    [
      'approval with an unverified session',
      () => mergedRepo({ [`${R}/pulls/7`]: openPull }),
      ['gitea.pr.request_changes'],
      null,
      ['fact_unavailable'],
    ],
    [
      'merge approved by carol, who then requested changes',
      () =>
        mergedRepo({
          [`${R}/pulls/7`]: openPull,
          [`${R}/pulls/7/reviews`]: pages([...carol, { ...carol[0], id: 2, state: 'REQUEST_CHANGES' }]),
        }),
      ['gitea.pr.merge'],
      'bob',
      ['no_independent_approval', 'changes_requested'],
    ],
    [
      'merge approved only by a read-only outsider (official: false)',
      () =>
        mergedRepo({
          [`${R}/pulls/7`]: openPull,
          [`${R}/pulls/7/reviews`]: pages([{ ...carol[0], user: { login: 'mallory' }, official: false }]),
        }),
      ['gitea.pr.merge'],
      'bob',
      ['no_independent_approval'],
    ],
  ];
  for (const [name, gitea, operations, identity, codes] of table) {
    test(name, async () => {
      const decision = await decide(gitea(), operations, identity);
      assert.equal(decision.effect, codes.length === 0 ? 'allow' : 'deny');
      assert.deepEqual(
        decision.failed.map((f) => f.code),
        codes,
      );
    });
  }

  test('an approval reads only the pull request, never the reviews', async () => {
    const gitea = mergedRepo({ [`${R}/pulls/7`]: openPull });
    await decide(gitea, ['gitea.pr.approve'], 'carol');
    assert.deepEqual(
      gitea.reads.map((r) => r.path),
      [`${R}/pulls/7`],
    );
  });

  test('a merge naming no delete_branch_after_merge reads the repository default and is refused when Gitea would delete', async () => {
    const deletes = mergedRepo({
      [`${R}/pulls/7`]: openPull,
      [`${R}/pulls/7/reviews`]: pages(carol),
      [R]: ok({ full_name: 'acme/app', default_delete_branch_after_merge: true }),
    });
    const decision = await decide(deletes, ['gitea.pr.merge'], 'bob', 7, null);
    assert.deepEqual(
      decision.failed.map((f) => f.code),
      ['branch_deleted_by_default'],
    );
    assert.match(decision.failed[0]?.fact ?? '', /default_delete_branch_after_merge/);
    const named = mergedRepo({
      [`${R}/pulls/7`]: openPull,
      [`${R}/pulls/7/reviews`]: pages(carol),
      [R]: { status: 500, data: null },
    });
    assert.equal(
      (await decide(named, ['gitea.pr.merge'], 'bob', 7, false)).effect,
      'allow',
      'an explicit false needs no repository read',
    );
    assert.ok(!named.reads.some((r) => r.path === R));
  });

  test('a call that names no pull request is denied without reading anything', async () => {
    const gitea = mergedRepo();
    const decision = await decide(gitea, ['gitea.pr.merge'], 'bob', null);
    assert.deepEqual(
      decision.failed.map((f) => f.code),
      ['fact_unavailable'],
    );
    assert.deepEqual(gitea.reads, []);
  });
});

describe('the timeline reader', () => {
  const ref = { owner: 'acme', repo: 'app', index: 7 };
  const read = (entries: unknown[], bounds = BOUNDS) =>
    readTimeline(new FakeGitea({ [`${R}/issues/7/timeline`]: timeline(entries) }), ref, bounds);

  test('reads pushes (the head each left), changes of base and reviews in order, skipping other entries', async () => {
    const entries = [
      pushed(H1),
      { type: 'comment', body: 'hi' },
      reviewed(3),
      { type: 'change_target_branch', old_ref: 'dev', new_ref: 'main' },
      pushed(M4, H2),
    ];
    assert.deepEqual(await read(entries), {
      ok: true,
      value: [
        { kind: 'push', head: H1 },
        { kind: 'review', reviewId: 3 },
        { kind: 'retarget', from: 'dev', to: 'main' },
        { kind: 'push', head: H2 },
      ],
    });
  });

  test('a page Gitea left empty (every entry hidden) does not end the list; two empty pages do', async () => {
    const entries = [pushed(H1), reviewed(3), HIDDEN, HIDDEN, pushed(H2)];
    const result = await read(entries);
    assert.ok(result.ok);
    assert.deepEqual(result.value.at(-1), { kind: 'push', head: H2 }, 'the push after the hidden page is read');
  });

  const broken: Array<[string, unknown[], RegExp]> = [
    ['a pull_push body that is not JSON', [{ type: 'pull_push', body: 'x' }], /incompletely/],
    ['a pull_push with no commit', [pushed()], /incompletely/],
    ['a pull_push naming a ref instead of a commit', [pushed('refs/pull/7/head')], /incompletely/],
    ['a change of base without its refs', [{ type: 'change_target_branch', old_ref: 'dev' }], /incompletely/],
    ['a review without its id', [{ type: 'review', review_id: 0 }], /incompletely/],
    ['an entry without a type', [{ id: 3 }], /incompletely/],
  ];
  for (const [name, entries, detail] of broken) {
    test(`${name} is a missing fact`, async () => {
      const result = await read(entries);
      assert.equal(result.ok, false);
      assert.match(result.ok ? '' : result.detail, detail);
    });
  }

  test('more pages than the bound, or a failed page, is a missing fact', async () => {
    const long = await read(Array.from({ length: 7 }, () => pushed(H1)));
    assert.match(long.ok ? '' : long.detail, /more than 3 pages/);
    const failed = await readTimeline(
      new FakeGitea({ [`${R}/issues/7/timeline`]: { status: 500, data: null } }),
      ref,
      BOUNDS,
    );
    assert.match(failed.ok ? '' : failed.detail, /HTTP 500/);
  });
});

describe('what a ref move brings', () => {
  const S = sha('5a');
  const S2 = sha('5b');
  const commit = (id: string, files: string[], parents: string[] = []) => ({
    sha: id,
    parents: parents.map((p) => ({ sha: p })),
    files: files.map((filename) => ({ filename, status: 'added' })),
  });
  const repoWith = (routes: Record<string, Answer | ((query: Query) => Answer)>) =>
    new FakeGitea({
      [R]: ok({ full_name: 'acme/app', default_branch: 'main', parent: null }),
      [`${R}/branches/main`]: ok({ name: 'main', commit: { id: M5 }, protected: true }),
      [`${R}/commits`]: (query) => (query?.sha === 'refs/pull/3/head' ? ok([{ sha: S }]) : ok([{ sha: M5 }])),
      ...routes,
    });
  const move = { owner: 'acme', repo: 'app', source: 'refs/pull/3/head', upstream: false, onto: null };

  test('the files every commit onto lacks changed, from a source Gitea resolves (refs/pull/N/head)', async () => {
    const gitea = repoWith({
      [`${R}/compare/${M5}...${S}`]: ok({
        commits: [commit(S, ['.gitea/workflows/x.yml'], [S2]), commit(S2, ['a.txt'])],
      }),
    });
    assert.deepEqual(await readRefMoveFiles(gitea, move, BOUNDS), {
      ok: true,
      value: { files: ['.gitea/workflows/x.yml', 'a.txt'], compare: `main@${M5}...acme/app@${S}` },
    });
    assert.deepEqual(gitea.reads.find((r) => r.path === `${R}/commits`)?.query?.sha, 'refs/pull/3/head');
  });

  test("a source that is onto's tip, or that onto is shown to contain, brings nothing", async () => {
    const tip = await readRefMoveFiles(repoWith({}), { ...move, source: null }, BOUNDS);
    assert.deepEqual(tip.ok && tip.value.files, []);
    const contained = repoWith({
      [`${R}/compare/${M5}...${S}`]: ok({ commits: [] }),
      [`${R}/compare/${S}...${M5}`]: compareBody([[M5, [S]]]),
    });
    const result = await readRefMoveFiles(contained, move, BOUNDS);
    assert.deepEqual(result.ok && result.value.files, []);
  });

  const unknown: Array<[string, Record<string, Answer>, RegExp]> = [
    [
      'a compare listing nothing for histories that share nothing',
      { [`${R}/compare/${M5}...${S}`]: ok({ commits: [] }), [`${R}/compare/${S}...${M5}`]: ok({ commits: [] }) },
      /share no history/,
    ],
    ['a commit whose files are not listed', { [`${R}/compare/${M5}...${S}`]: ok({ commits: [{ sha: S }] }) }, /files/],
    ['a compare that fails', { [`${R}/compare/${M5}...${S}`]: { status: 500, data: null } }, /HTTP 500/],
    ['a source Gitea cannot resolve', { [`${R}/commits`]: { status: 404, data: null } }, /404/],
    [
      'more commits than the bounds read',
      { [`${R}/compare/${M5}...${S}`]: ok({ commits: Array.from({ length: 7 }, () => commit(S, ['a'])) }) },
      /more than 6 commits/,
    ],
  ];
  for (const [name, routes, detail] of unknown) {
    test(`${name} is a missing fact`, async () => {
      const result = await readRefMoveFiles(repoWith(routes), move, BOUNDS);
      assert.equal(result.ok, false);
      assert.match(result.ok ? '' : result.detail, detail);
    });
  }

  test("a fork's upstream: the parent's branch of the same name, else its default branch, compared as owner:sha", async () => {
    const F = '/repos/erin/app';
    const gitea = new FakeGitea({
      [F]: ok({ full_name: 'erin/app', default_branch: 'main', parent: { full_name: 'acme/app' } }),
      [`${F}/branches/topic`]: ok({ name: 'topic', commit: { id: M4 }, protected: false }),
      [`${R}/branches/topic`]: { status: 404, data: null },
      [R]: ok({ full_name: 'acme/app', default_branch: 'main' }),
      [`${R}/commits`]: (query) => (query?.sha === 'main' ? ok([{ sha: S }]) : { status: 404, data: null }),
      [`${F}/compare/${M4}...acme%3A${S}`]: ok({ commits: [commit(S, ['up.txt'])] }),
    });
    const result = await readRefMoveFiles(
      gitea,
      { owner: 'erin', repo: 'app', source: null, upstream: true, onto: 'topic' },
      BOUNDS,
    );
    assert.deepEqual(result.ok && result.value.files, ['up.txt']);
    const notFork = await readRefMoveFiles(repoWith({}), { ...move, upstream: true, source: null }, BOUNDS);
    assert.match(notFork.ok ? '' : notFork.detail, /not a fork/);
  });

  test("a compare's owner:ref head: that owner's fork, else the parent it owns, else a missing fact", async () => {
    const gitea = new FakeGitea({
      [`${R}/forks`]: pages([{ full_name: 'erin/app-fork' }]),
      [R]: ok({ full_name: 'acme/app', default_delete_branch_after_merge: false, parent: { full_name: 'up/app' } }),
    });
    assert.deepEqual(await readCompareHeadRepository(gitea, 'acme', 'app', 'Erin', BOUNDS), {
      ok: true,
      value: 'erin/app-fork',
    });
    assert.deepEqual(await readCompareHeadRepository(gitea, 'acme', 'app', 'up', BOUNDS), {
      ok: true,
      value: 'up/app',
    });
    const none = await readCompareHeadRepository(gitea, 'acme', 'app', 'nobody', BOUNDS);
    assert.match(none.ok ? '' : none.detail, /no fork/);
  });
});

describe('cleanup_merged_pr_branch', () => {
  const patterns: BranchPatterns = {
    protected_branches: ['main', 'master', 'dev'],
    preserved_refs: ['preserve/**', 'evidence/**'],
  };
  const request: CleanupRequest = {
    owner: 'acme',
    repo: 'app',
    prNumber: 7,
    branch: 'feature/x',
  };
  const run = (gitea: FakeGitea, r: CleanupRequest = request) =>
    cleanupMergedPrBranch(
      { reader: gitea, writer: gitea },
      r,
      { judge: (facts) => judgeCleanup(r, facts, patterns), unmoved: judgeUnmoved },
      BOUNDS,
    );

  test('deletes the merged, landed, unprotected head branch and reports the evidence', async () => {
    const gitea = mergedRepo();
    const report = await run(gitea);
    assert.equal(report.action, 'deleted');
    assert.deepEqual(gitea.writes, ['delete acme/app feature/x']);
    assert.ok(report.checks.every((c) => c.passed));
    assert.deepEqual(report.evidence, {
      pr_number: 7,
      pr_state: 'merged',
      head_ref: 'feature/x',
      head_sha: H2,
      target_branch: 'main',
      target_sha: M5,
      compare: `${H2}...${M5}`,
      landed_via: M5,
      branch: 'feature/x',
      branch_sha: H2,
    });
    assert.ok(
      gitea.reads.some((r) => r.path === `${R}/compare/${H2}...${M5}`),
      'compares the branch tip with the freshly fetched target SHA',
    );
  });

  test('a merged pull request whose head branch was force-pushed to an orphan commit is refused: nothing is deleted', async () => {
    // Gitea reports the live tip as head.sha of the merged PR; compare answers 0 commits for unrelated histories.
    const gitea = mergedRepo({
      [`${R}/pulls/7`]: ok(
        giteaPull({ head: { label: 'feature/x', ref: 'feature/x', sha: O1, repo: { full_name: 'acme/app' } } }),
      ),
      [`${R}/branches/feature/x`]: ok({ name: 'feature/x', commit: { id: O1 }, protected: false }),
      [`${R}/compare/${O1}...${M5}`]: ok({ total_commits: 0, commits: [] }),
    });
    const report = await run(gitea);
    assert.equal(report.action, 'refused');
    assert.deepEqual(
      report.checks.filter((c) => !c.passed).map((c) => c.code),
      ['head_not_landed'],
    );
    assert.deepEqual(gitea.writes, []);
  });

  const refusals: Array<[string, () => FakeGitea, CleanupRequest, string[]]> = [
    [
      'an unmerged pull request',
      () => mergedRepo({ [`${R}/pulls/7`]: ok(giteaPull({ merged: false })) }),
      request,
      ['pr_not_merged'],
    ],
    [
      'a head that has not landed',
      () => mergedRepo({ [`${R}/compare/${H2}...${M5}`]: compareBody([[M5, [M4]]]) }),
      request,
      ['head_not_landed'],
    ],
    [
      'protections that answer 500',
      () => mergedRepo({ [`${R}/branch_protections`]: { status: 500, data: null } }),
      request,
      ['fact_unavailable'],
    ],
    [
      'an open pull request list that does not answer',
      () => mergedRepo({ [`${R}/pulls`]: 'throw' }),
      request,
      ['fact_unavailable'],
    ],
    [
      'a target branch that is gone',
      () => mergedRepo({ [`${R}/branches/main`]: { status: 404, data: null } }),
      request,
      ['fact_unavailable'],
    ],
    [
      'another open pull request on the branch',
      () => mergedRepo({ [`${R}/pulls`]: pages([openPullItem(9, 'feature/x')]) }),
      request,
      ['branch_in_use'],
    ],
    [
      'an open pull request based on the branch',
      () => mergedRepo({ [`${R}/pulls`]: pages([openPullItem(9, 'feature/y', 'feature/x')]) }),
      request,
      ['branch_in_use'],
    ],
  ];
  for (const [name, gitea, r, codes] of refusals) {
    test(`refuses ${name} and deletes nothing`, async () => {
      const fake = gitea();
      const report = await run(fake, r);
      assert.equal(report.action, 'refused');
      assert.deepEqual(
        report.checks.filter((c) => !c.passed).map((c) => c.code),
        codes,
      );
      assert.deepEqual(fake.writes, []);
    });
  }

  test('a delete Gitea refuses is reported as failed', async () => {
    const gitea = mergedRepo();
    gitea.writeStatus = { delete: 403 };
    const report = await run(gitea);
    assert.equal(report.action, 'failed');
    assert.match(report.failure ?? '', /HTTP 403/);
  });
});

describe('the write follows the proof: a move between the proof and the write refuses it', () => {
  test('cleanup reads the branch and the pull request again and refuses when the branch moved', async () => {
    let reads = 0;
    const gitea = mergedRepo({
      // The second read of the branch (right before the delete) finds a new tip.
      [`${R}/branches/feature/x`]: () =>
        ok({ name: 'feature/x', commit: { id: ++reads === 1 ? H2 : H1 }, protected: false }),
    });
    const request: CleanupRequest = {
      owner: 'acme',
      repo: 'app',
      prNumber: 7,
      branch: 'feature/x',
    };
    const patterns: BranchPatterns = { protected_branches: ['main'], preserved_refs: [] };
    const report = await cleanupMergedPrBranch(
      { reader: gitea, writer: gitea },
      request,
      { judge: (facts) => judgeCleanup(request, facts, patterns), unmoved: judgeUnmoved },
      BOUNDS,
    );
    assert.equal(report.action, 'refused');
    assert.deepEqual(
      report.checks.filter((c) => !c.passed).map((c) => c.code),
      ['branch_moved'],
    );
    assert.match(report.checks.find((c) => c.code === 'branch_moved')?.fact ?? '', /read again right before the write/);
    assert.deepEqual(gitea.writes, []);
  });

  test('reconcile reads the pull request again and refuses when its head moved', async () => {
    let reads = 0;
    const gitea = mergedRepo({
      [`${R}/pulls/7`]: () =>
        ok(
          giteaPull({ state: 'open', merged: false, ...(++reads > 1 ? { head: { ref: 'feature/x', sha: H1 } } : {}) }),
        ),
    });
    const report = await reconcileAlreadyLandedPr(
      { reader: gitea, writer: gitea },
      { owner: 'acme', repo: 'app', index: 7 },
      { judge: judgeReconcileLanded, unmoved: judgeUnmoved },
    );
    assert.equal(report.action, 'refused');
    assert.deepEqual(
      report.checks.filter((c) => !c.passed).map((c) => c.code),
      ['head_moved'],
    );
    assert.deepEqual(gitea.writes, []);
  });
});

describe('reconcile_already_landed_pr', () => {
  const ref = { owner: 'acme', repo: 'app', index: 7 };
  const openRepo = (overrides: Record<string, Answer> = {}) =>
    mergedRepo({ [`${R}/pulls/7`]: ok(giteaPull({ state: 'open', merged: false })), ...overrides });
  const run = (gitea: FakeGitea) =>
    reconcileAlreadyLandedPr({ reader: gitea, writer: gitea }, ref, {
      judge: judgeReconcileLanded,
      unmoved: judgeUnmoved,
    });

  test('closes a landed open pull request after commenting the evidence', async () => {
    const gitea = openRepo();
    const report = await run(gitea);
    assert.equal(report.action, 'closed');
    assert.equal(gitea.writes.length, 2);
    assert.match(gitea.writes[0] ?? '', /^comment acme\/app #7 /);
    for (const evidence of [
      `\`${H2}\``,
      `\`main\` at \`${M5}\``,
      `\`${H2}...${M5}\`: the head is a parent of \`${M5}\``,
    ]) {
      assert.ok(gitea.writes[0]?.includes(evidence), evidence);
    }
    assert.equal(gitea.writes[1], 'close acme/app #7');
  });

  const refusals: Array<[string, Record<string, Answer>, string[]]> = [
    [
      'a head that has not landed',
      {
        [`${R}/compare/${H2}...${M5}`]: compareBody([
          [M5, [M4]],
          [M4, [H1]],
        ]),
      },
      ['head_not_landed'],
    ],
    [
      'a head with no history in common with the target (0 commits listed)',
      { [`${R}/compare/${H2}...${M5}`]: ok({ total_commits: 0, commits: [] }) },
      ['head_not_landed'],
    ],
    ['a merged pull request', { [`${R}/pulls/7`]: ok(giteaPull()) }, ['pr_not_open']],
    ['a pull request that answers 500', { [`${R}/pulls/7`]: { status: 500, data: null } }, ['fact_unavailable']],
    [
      'a compare that answers 404',
      { [`${R}/compare/${H2}...${M5}`]: { status: 404, data: null } },
      ['fact_unavailable'],
    ],
  ];
  for (const [name, overrides, codes] of refusals) {
    test(`refuses ${name} and writes nothing`, async () => {
      const gitea = openRepo(overrides);
      const report = await run(gitea);
      assert.equal(report.action, 'refused');
      assert.deepEqual(
        report.checks.filter((c) => !c.passed).map((c) => c.code),
        codes,
      );
      assert.deepEqual(gitea.writes, []);
    });
  }

  test('when the evidence comment fails, the pull request is not closed', async () => {
    const gitea = openRepo();
    gitea.writeStatus = { comment: 500 };
    const report = await run(gitea);
    assert.equal(report.action, 'failed');
    assert.equal(gitea.writes.length, 1);
  });
});
