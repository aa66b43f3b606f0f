// The pure guard judges, over every combination of their conditions, plus missing facts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeSelfReview } from '../src/policy/guards/self-review-guard.js';
import { judgeMerge, type MergeFacts } from '../src/policy/guards/merge-guard.js';
import { judgeCleanup, type CleanupFacts, type CleanupRequest } from '../src/policy/guards/cleanup-branch-guard.js';
import { judgeReconcileLanded, type ReconcileFacts } from '../src/policy/guards/reconcile-landed-guard.js';
import { callGuardsFor, judgeCall } from '../src/policy/guards/call-guards.js';
import {
  mergeSettingsFor,
  type BranchPatterns,
  type GuardsConfig,
  type MergeSettings,
} from '../src/policy/guards/guard-settings.js';
import { applyGuardVerdict, combineVerdicts, type Fact, type GuardVerdict } from '../src/policy/guards/verdict.js';
import type {
  LandingFacts,
  OpenPull,
  PullFacts,
  RepositoryFacts,
  ReviewFact,
  TimelineEntry,
} from '../src/policy/guards/guard-facts.js';
import type { Decision } from '../src/policy/decision.js';
import { loadPolicySet } from '../src/policy-files/policy-set.js';

const ok = <T>(value: T): Fact<T> => ({ ok: true, value });
const gone = <T>(detail: string): Fact<T> => ({ ok: false, detail });
const failedCodes = (v: GuardVerdict): string[] => v.checks.filter((c) => !c.passed).map((c) => c.code);

function pull(overrides: Partial<PullFacts> = {}): PullFacts {
  return {
    number: 7,
    author: 'alice',
    state: 'open',
    merged: false,
    headSha: 'h2',
    headRef: 'feature/x',
    headBranchExists: true,
    headRepo: 'acme/app',
    baseRef: 'main',
    baseRepo: 'acme/app',
    ...overrides,
  };
}

let reviewIds = 0;
function review(reviewer: string, overrides: Partial<ReviewFact> = {}): ReviewFact {
  return {
    id: ++reviewIds,
    reviewer,
    state: 'APPROVED',
    commitId: 'h2',
    stale: false,
    dismissed: false,
    official: true,
    ...overrides,
  };
}

const repository = (defaultDelete: boolean): RepositoryFacts => ({
  fullName: 'acme/app',
  defaultDeleteBranchAfterMerge: defaultDelete,
  parent: null,
});

/** Every combination of the given options, as objects. */
function combinations<T extends Record<string, readonly unknown[]>>(
  options: T,
): Array<{ [K in keyof T]: T[K][number] }> {
  return Object.entries(options).reduce<Array<Record<string, unknown>>>(
    (acc, [key, values]) => acc.flatMap((combo) => values.map((value) => ({ ...combo, [key]: value }))),
    [{}],
  ) as Array<{ [K in keyof T]: T[K][number] }>;
}

const STRICT: MergeSettings = { require_head_sha: true, require_independent_approval: true };

/** A timeline where h2 was pushed first and every review came after it. */
const timelineOf = (reviews: ReviewFact[]): TimelineEntry[] => [
  { kind: 'push', head: 'h2' },
  ...reviews.map((r) => ({ kind: 'review' as const, reviewId: r.id })),
];

/** Merge facts that pass: bob merges alice's open PR at h2, carol approved h2, the merge keeps the branch. */
function mergeFacts(overrides: Partial<MergeFacts> = {}): MergeFacts {
  const given = {
    identity: ok('bob'),
    pull: ok(pull()),
    reviews: ok([review('carol')]),
    repository: ok(repository(false)),
    expectedHeadSha: 'h2',
    deleteBranch: null,
    ...overrides,
  };
  return { timeline: given.reviews.ok ? ok(timelineOf(given.reviews.value)) : gone('not read'), ...given };
}

describe('self-review guard', () => {
  for (const self of [false, true]) {
    test(`reviewer ${self ? 'is' : 'is not'} the author`, () => {
      const verdict = judgeSelfReview({ identity: ok(self ? 'Alice' : 'carol'), pull: ok(pull()) });
      assert.deepEqual(failedCodes(verdict), self ? ['self_review'] : []);
    });
  }
  const missing: Array<[string, Parameters<typeof judgeSelfReview>[0], string[], RegExp]> = [
    [
      'pull request unreadable',
      { identity: ok('carol'), pull: gone('Pull request #7 could not be read (HTTP 500).') },
      ['fact_unavailable'],
      /HTTP 500/,
    ],
    [
      'author not reported',
      { identity: ok('carol'), pull: ok(pull({ author: null })) },
      ['pr_author_unknown'],
      /author/,
    ],
    [
      'identity unverified',
      { identity: gone('identity not verified'), pull: ok(pull()) },
      ['fact_unavailable'],
      /identity/,
    ],
  ];
  for (const [name, facts, codes, detail] of missing) {
    test(`denies when ${name}`, () => {
      const verdict = judgeSelfReview(facts);
      assert.deepEqual(failedCodes(verdict), codes);
      assert.match(verdict.checks.find((c) => !c.passed)?.detail ?? '', detail);
    });
  }
});

describe('merge guard: every combination of its conditions', () => {
  const merger = 'bob';
  const approvals = (author: string): Record<string, ReviewFact[]> => ({
    ok: [review(author), review('carol')],
    // A reviewer who requested changes and then approved counts with the approval, their latest verdict
    // (SubmitReview cleared official on the request for changes; CreateReview dismissed it).
    reapproved: [review('carol', { state: 'REQUEST_CHANGES', official: false, dismissed: true }), review('carol')],
    // The author's and the merger's own approvals and a comment do not count.
    none: [review(author), review(merger), review('erin', { state: 'COMMENT' })],
    // A read-only outsider's approval: Gitea records it, not official (IsOfficialReviewer).
    unofficial: [review('frank', { official: false })],
    // Withdrawn: carol's later REQUEST_CHANGES is her verdict now, even where the old flags were left as they were.
    withdrawn: [review('carol'), review('carol', { state: 'REQUEST_CHANGES' })],
    dismissed: [review('carol', { dismissed: true })],
    stale: [review('carol', { commitId: 'h1', stale: true })],
    // Gitea keeps this approval (not stale: the diff did not change); the guard binds approvals to the exact head.
    other_commit: [review('carol', { commitId: 'h1', stale: false })],
  });
  const changes: Record<string, ReviewFact[]> = {
    none: [],
    official: [review('dan', { state: 'REQUEST_CHANGES' })],
    official_stale: [review('dan', { state: 'REQUEST_CHANGES', stale: true, commitId: 'h1' })],
    unofficial: [review('grace', { state: 'REQUEST_CHANGES', official: false })],
    dismissed: [review('dan', { state: 'REQUEST_CHANGES', dismissed: true })],
  };
  const deletes: Record<string, { deleteBranch: boolean | null; repository: RepositoryFacts; headRepo: string }> = {
    explicit_keep: { deleteBranch: false, repository: repository(true), headRepo: 'acme/app' },
    default_keeps: { deleteBranch: null, repository: repository(false), headRepo: 'acme/app' },
    default_deletes: { deleteBranch: null, repository: repository(true), headRepo: 'acme/app' },
    // ShouldDeleteBranchAfterMerge never applies the default to a head in another repository.
    default_fork: { deleteBranch: null, repository: repository(true), headRepo: 'fork/app' },
  };
  const table = combinations({
    self: [false, true],
    open: [true, false],
    head: ['ok', 'missing', 'mismatch'],
    approval: Object.keys(approvals('alice')),
    changes: Object.keys(changes),
    delete: Object.keys(deletes),
  } as const);

  test(`all ${table.length} combinations list exactly the failing conditions, in order`, () => {
    for (const row of table) {
      const author = row.self ? 'bob' : 'alice';
      const d = deletes[row.delete] as (typeof deletes)[string];
      const verdict = judgeMerge(
        mergeFacts({
          identity: ok(merger),
          pull: ok(pull({ author, state: row.open ? 'open' : 'closed', headRepo: d.headRepo })),
          reviews: ok([...(approvals(author)[row.approval] ?? []), ...(changes[row.changes] ?? [])]),
          repository: ok(d.repository),
          expectedHeadSha: { ok: 'h2', missing: null, mismatch: 'h1' }[row.head],
          deleteBranch: d.deleteBranch,
        }),
        STRICT,
      );
      const approvalFails: Record<string, string[]> = {
        ok: [],
        reapproved: [],
        none: ['no_independent_approval'],
        unofficial: ['no_independent_approval'],
        withdrawn: ['no_independent_approval'],
        dismissed: ['no_independent_approval'],
        stale: ['approval_stale'],
        other_commit: ['approval_stale'],
      };
      const blocked = row.changes === 'official' || row.changes === 'official_stale' || row.approval === 'withdrawn';
      const expected = [
        ...(row.self ? ['self_merge'] : []),
        ...(row.open ? [] : ['pr_not_open']),
        ...{ ok: [], missing: ['head_sha_missing'], mismatch: ['head_sha_mismatch'] }[row.head],
        ...(approvalFails[row.approval] ?? []),
        ...(blocked ? ['changes_requested'] : []),
        ...(row.delete === 'default_deletes' ? ['branch_deleted_by_default'] : []),
      ];
      assert.deepEqual(failedCodes(verdict), expected, JSON.stringify(row));
    }
  });

  test('a pending review submitted as REQUEST_CHANGES after an approval blocks though its id is older', () => {
    // SubmitReview of a pending review keeps its id, clears official on the reviewer's other reviews and sets it on this one.
    const reviews = [
      review('carol', { id: 101, state: 'REQUEST_CHANGES' }),
      review('carol', { id: 102, official: false }),
    ];
    assert.deepEqual(failedCodes(judgeMerge(mergeFacts({ reviews: ok(reviews) }), STRICT)), [
      'no_independent_approval',
      'changes_requested',
    ]);
  });

  test('every failed condition on a live fact names the endpoint it read', () => {
    const verdict = judgeMerge(
      mergeFacts({
        reviews: ok([review('frank', { official: false }), review('dan', { state: 'REQUEST_CHANGES' })]),
        repository: ok(repository(true)),
        expectedHeadSha: 'h1',
      }),
      STRICT,
    );
    const failed = verdict.checks.filter((c) => !c.passed);
    assert.deepEqual(
      failed.map((c) => c.code),
      ['head_sha_mismatch', 'no_independent_approval', 'changes_requested', 'branch_deleted_by_default'],
    );
    for (const c of failed) assert.match(c.fact ?? '', /^GET \/repos\/\{owner\}\/\{repo\}/, c.code);
    assert.match(failed[1]?.fact ?? '', /reviews.*official/);
    assert.match(failed[1]?.detail ?? '', /not official.*frank/);
    assert.match(failed[3]?.fact ?? '', /default_delete_branch_after_merge/);
  });

  const missing: Array<[string, Partial<MergeFacts>, string[], RegExp[], RegExp[]]> = [
    [
      'identity unverified',
      { identity: gone('identity not verified') },
      ['fact_unavailable'],
      [/identity/],
      [/^GET \/user/],
    ],
    [
      'pull request unreadable',
      { pull: gone('pull request: HTTP 404') },
      ['fact_unavailable'],
      [/404/],
      [/pulls\/\{index\}:/],
    ],
    [
      'reviews unreadable',
      { reviews: gone('reviews: more than 20 pages') },
      ['fact_unavailable'],
      [/pages/],
      [/reviews/],
    ],
    [
      'repository unreadable',
      { repository: gone('repository: HTTP 500') },
      ['fact_unavailable'],
      [/repository/],
      [/default_delete_branch_after_merge/],
    ],
    ['author not reported', { pull: ok(pull({ author: null })) }, ['pr_author_unknown'], [/author/], [/pulls/]],
    [
      'everything missing',
      {
        identity: gone('identity not verified'),
        pull: gone('pull request: HTTP 500'),
        reviews: gone('reviews: HTTP 500'),
      },
      ['fact_unavailable', 'fact_unavailable'],
      [/identity/, /pull request/],
      [/user/, /pulls/],
    ],
  ];
  for (const [name, overrides, codes, details, facts] of missing) {
    test(`denies when ${name}, naming the fact`, () => {
      const verdict = judgeMerge(mergeFacts(overrides), STRICT);
      assert.deepEqual(failedCodes(verdict), codes);
      const failed = verdict.checks.filter((c) => !c.passed);
      details.forEach((pattern, i) => assert.match(failed[i]?.detail ?? '', pattern));
      facts.forEach((pattern, i) => assert.match(failed[i]?.fact ?? '', pattern));
    });
  }

  describe('an approval counts only for the content it saw (the timeline)', () => {
    const approval = () => review('carol');
    const push = (head: string): TimelineEntry => ({ kind: 'push', head });
    const reviewed = (r: ReviewFact): TimelineEntry => ({ kind: 'review', reviewId: r.id });
    const retarget: TimelineEntry = { kind: 'retarget', from: 'dev', to: 'main' };
    const cases: Array<[string, (r: ReviewFact) => TimelineEntry[], string[]]> = [
      ['given on h2 while h2 was the head', (r) => [push('h1'), push('h2'), reviewed(r)], []],
      ['given after a retarget (a re-approval)', (r) => [push('h2'), retarget, reviewed(r)], []],
      ['retargeted after it', (r) => [push('h2'), reviewed(r), retarget], ['approval_base_changed']],
      [
        'naming h2 while h1 was the head, h2 pushed after',
        (r) => [push('h1'), reviewed(r), push('h2')],
        ['approval_unseen_head'],
      ],
      ['pushed away and back after it', (r) => [push('h2'), reviewed(r), push('h3'), push('h2')], ['approval_stale']],
      ['missing from the timeline', () => [push('h2')], ['approval_unseen_head']],
      ['before any recorded push', (r) => [reviewed(r), push('h2')], ['approval_unseen_head']],
    ];
    for (const [name, entries, codes] of cases) {
      test(`an approval ${name}: ${codes.join(', ') || 'counts'}`, () => {
        const r = approval();
        const verdict = judgeMerge(mergeFacts({ reviews: ok([r]), timeline: ok(entries(r)) }), STRICT);
        assert.deepEqual(failedCodes(verdict), codes);
        for (const c of verdict.checks.filter((check) => !check.passed))
          assert.match(c.fact ?? '', /timeline/, `${c.code} names the timeline`);
      });
    }

    test('one approval that saw the head is enough, whatever happened to another', () => {
      const [fresh, old] = [review('carol'), review('dave')];
      const entries = [push('h2'), reviewed(old), retarget, reviewed(fresh)];
      assert.deepEqual(
        failedCodes(judgeMerge(mergeFacts({ reviews: ok([old, fresh]), timeline: ok(entries) }), STRICT)),
        [],
      );
    });

    const unusable: Array<[string, Fact<TimelineEntry[]>, RegExp]> = [
      ['unreadable', gone('timeline: HTTP 500'), /HTTP 500/],
      ['ending on another head (a push not recorded yet)', ok([push('h1')]), /does not end on its live head h2/],
      ['recording no push at all', ok([]), /last push recorded: none/],
      ['ending on another base', ok([push('h2'), { kind: 'retarget', from: 'main', to: 'dev' }]), /live base main/],
    ];
    for (const [name, timeline, detail] of unusable) {
      test(`a timeline ${name} is a missing fact`, () => {
        const verdict = judgeMerge(mergeFacts({ timeline }), STRICT);
        assert.deepEqual(failedCodes(verdict), ['fact_unavailable']);
        assert.match(verdict.checks.find((c) => !c.passed)?.detail ?? '', detail);
        assert.match(verdict.checks.find((c) => !c.passed)?.fact ?? '', /timeline/);
      });
    }
  });

  test('a repository unread does not matter when the merge names delete_branch_after_merge', () => {
    assert.deepEqual(
      failedCodes(judgeMerge(mergeFacts({ repository: gone('not read'), deleteBranch: false }), STRICT)),
      [],
    );
  });

  test('a profile may turn off the head SHA and approval requirements, never self-merge', () => {
    const config: GuardsConfig = {
      merge: STRICT,
      call_guards: { self_review: ['gitea.pr.approve'], merge: ['gitea.pr.merge'] },
      cleanup: { preserved_refs: [] },
      guarded_only: {},
      verdict_head: {},
      sudo: { mutations_allowed: [] },
      facts: { page_size: 50, max_pages: 2 },
      profiles: { solo: { merge: { require_head_sha: false, require_independent_approval: false } } },
    };
    const relaxed = mergeSettingsFor(config, 'solo');
    assert.deepEqual(mergeSettingsFor(config, 'gitea-merger'), STRICT);
    const facts = mergeFacts({ reviews: ok([]), expectedHeadSha: 'stale-sha' });
    assert.deepEqual(failedCodes(judgeMerge(facts, relaxed)), []);
    assert.deepEqual(failedCodes(judgeMerge({ ...facts, pull: ok(pull({ author: 'bob' })) }, relaxed)), ['self_merge']);
  });
});

describe('call guards: which guard runs for which operation (policies/guards.yaml call_guards)', () => {
  const { callGuards } = loadPolicySet();
  const table: Array<[string[], string[]]> = [
    [['gitea.pr.approve'], ['self_review']],
    [['gitea.pr.request_changes'], ['self_review']],
    [['gitea.pr.merge'], ['merge']],
    [['gitea.pr.force_merge'], ['merge']],
    [['gitea.pr.mark_manually_merged'], ['merge']],
    [['gitea.pr.cancel_auto_merge'], []],
    [['gitea.pr.review'], []],
    [['gitea.read'], []],
  ];
  for (const [operations, guards] of table) {
    test(`${operations.join(',')} -> ${guards.join(',') || 'none'}`, () =>
      assert.deepEqual(callGuardsFor(operations, callGuards), guards));
  }

  test('a merge whose reviews were not gathered is denied', () => {
    const verdict = judgeCall(
      ['merge'],
      { identity: ok('bob'), pull: ok(pull()), expectedHeadSha: 'h2', deleteBranch: false },
      STRICT,
    );
    assert.deepEqual(failedCodes(verdict), ['fact_unavailable']);
  });
});

/** The compare tip...m5 of a history where `tip` landed: m5 (a merge) has it as a parent. */
const landedVia = (tip: string): LandingFacts => ({
  commit: tip,
  target: 'm5',
  commits: [
    { sha: 'm5', parents: ['m4', tip] },
    { sha: 'm4', parents: ['m3'] },
  ],
});
const openPull = (overrides: Partial<OpenPull>): OpenPull => ({
  number: 8,
  repo: 'acme/app',
  headRef: 'feature/y',
  headRepo: 'acme/app',
  baseRef: 'main',
  ...overrides,
});

describe('landing proof: ancestry, never "0 commits ahead"', () => {
  const target = { name: 'main', sha: 'm5', protected: true };
  const table: Array<[string, string, LandingFacts, boolean]> = [
    ['the commit is a parent of a commit the target contains', 'h2', landedVia('h2'), true],
    ['the commit is the target tip itself', 'm5', { commit: 'm5', target: 'm5', commits: [] }, true],
    [
      'the histories are unrelated: Gitea lists no commits (total_commits 0)',
      'o1',
      { commit: 'o1', target: 'm5', commits: [] },
      false,
    ],
    [
      'the commits listed never name the commit as a parent',
      'h3',
      { commit: 'h3', target: 'm5', commits: [{ sha: 'm5', parents: ['m4'] }] },
      false,
    ],
    ['the evidence is of another commit', 'h2', landedVia('h1'), false],
    ['the evidence is against another target tip', 'h2', { ...landedVia('h2'), target: 'm4' }, false],
  ];
  for (const [name, commit, landing, landed] of table) {
    test(`${landed ? 'landed' : 'not landed'} when ${name}`, () => {
      const verdict = judgeReconcileLanded({
        pull: ok(pull({ headSha: commit })),
        target: ok(target),
        landing: ok(landing),
      });
      assert.deepEqual(failedCodes(verdict), landed ? [] : ['head_not_landed']);
      assert.match(verdict.checks[1]?.fact ?? '', /compare/);
    });
  }
});

describe('cleanup guard: every combination of its conditions', () => {
  const request: CleanupRequest = {
    owner: 'acme',
    repo: 'app',
    prNumber: 7,
    branch: 'feature/x',
  };
  const patterns: BranchPatterns = {
    protected_branches: ['main', 'master', 'dev'],
    preserved_refs: ['preserve/**', 'evidence/**', 'backup/**', 'release/**'],
  };
  const goodFacts = (): CleanupFacts => ({
    pull: ok(pull({ state: 'closed', merged: true })),
    target: ok({ name: 'main', sha: 'm5', protected: true }),
    branch: ok({ name: 'feature/x', sha: 'h2', protected: false }),
    landing: ok(landedVia('h2')),
    protections: ok(['main', 'release/*']),
    // Not users of feature/x: another head, a fork's feature/x, a PR in the parent based on its own feature/x.
    openPulls: ok([
      openPull({}),
      openPull({ number: 9, headRef: 'feature/x', headRepo: 'fork/app' }),
      openPull({ number: 3, repo: 'upstream/app', headRef: 'feature/z', headRepo: 'acme/app', baseRef: 'feature/x' }),
    ]),
  });
  const conditions = [
    'branch_not_pr_head',
    'head_repo_mismatch',
    'pr_not_merged',
    'head_not_landed',
    'branch_protected',
    'branch_protected_by_policy',
    'branch_preserved',
    'branch_in_use',
  ] as const;
  type Condition = (typeof conditions)[number];
  function scenario(failing: ReadonlySet<Condition>): {
    request: CleanupRequest;
    facts: CleanupFacts;
    patterns: BranchPatterns;
  } {
    const facts = goodFacts();
    const p = pull({
      state: 'closed',
      merged: !failing.has('pr_not_merged'),
      headRef: failing.has('branch_not_pr_head') ? 'feature/other' : 'feature/x',
      headRepo: failing.has('head_repo_mismatch') ? 'someone/app' : 'acme/app',
    });
    facts.pull = ok(p);
    // Force-pushed after the merge to an orphan: the tip the deletion would lose shares no history with main.
    const tip = failing.has('head_not_landed') ? 'o1' : 'h2';
    facts.branch = ok({ name: 'feature/x', sha: tip, protected: failing.has('branch_protected') });
    facts.landing = ok(failing.has('head_not_landed') ? { commit: 'o1', target: 'm5', commits: [] } : landedVia('h2'));
    if (failing.has('branch_in_use'))
      facts.openPulls = ok([openPull({ number: 10, headRef: 'feature/y', baseRef: 'feature/x' })]);
    return {
      request,
      facts,
      patterns: {
        protected_branches: [
          ...patterns.protected_branches,
          ...(failing.has('branch_protected_by_policy') ? ['feature/*'] : []),
        ],
        preserved_refs: [...patterns.preserved_refs, ...(failing.has('branch_preserved') ? ['feature/**'] : [])],
      },
    };
  }

  test(`all ${1 << conditions.length} combinations list exactly the failing conditions, in order`, () => {
    for (let mask = 0; mask < 1 << conditions.length; mask++) {
      const failing = new Set(conditions.filter((_, i) => mask & (1 << i)));
      const { request: r, facts, patterns: p } = scenario(failing);
      const verdict = judgeCleanup(r, facts, p);
      assert.deepEqual(
        failedCodes(verdict),
        conditions.filter((c) => failing.has(c)),
        `failing: ${[...failing].join(',') || 'none'}`,
      );
      assert.equal(verdict.checks.length, conditions.length);
    }
  });

  test('a Gitea protection rule matching the branch protects it even without the flag (glob, any case)', () => {
    const facts = { ...goodFacts(), protections: ok(['FEATURE/*']) };
    assert.deepEqual(failedCodes(judgeCleanup(request, facts, patterns)), ['branch_protected']);
  });

  test('with the rule list hidden (non-admin), the branch flag alone decides', () => {
    const hidden = { ...goodFacts(), protections: ok(null) };
    assert.deepEqual(failedCodes(judgeCleanup(request, hidden, patterns)), []);
    const flagged = { ...hidden, branch: ok({ name: 'feature/x', sha: 'h2', protected: true }) };
    assert.deepEqual(failedCodes(judgeCleanup(request, flagged, patterns)), ['branch_protected']);
  });

  // CloseBranchPulls: every open pull request it would close keeps the branch.
  const users: Array<[string, OpenPull]> = [
    ['another open pull request with the branch as head', openPull({ number: 10, headRef: 'feature/x' })],
    [
      'an open pull request stacked on the branch (its base)',
      openPull({ number: 11, headRef: 'feature/y', baseRef: 'feature/x' }),
    ],
    [
      'a pull request of this branch into the parent repository',
      openPull({ number: 4, repo: 'upstream/app', headRef: 'feature/x', headRepo: 'acme/app' }),
    ],
    [
      'an open pull request whose head repository is unknown',
      openPull({ number: 12, headRef: 'feature/x', headRepo: null }),
    ],
  ];
  for (const [name, user] of users) {
    test(`${name} counts as using the branch`, () => {
      const verdict = judgeCleanup(request, { ...goodFacts(), openPulls: ok([user]) }, patterns);
      assert.deepEqual(failedCodes(verdict), ['branch_in_use']);
      assert.match(verdict.checks.find((c) => !c.passed)?.fact ?? '', /state=open/);
    });
  }

  test('the tip of the branch is what must have landed, whatever head.sha the pull request reports', () => {
    const facts = {
      ...goodFacts(),
      pull: ok(pull({ state: 'closed', merged: true, headSha: 'h2' })),
      branch: ok({ name: 'feature/x', sha: 'h3', protected: false }),
    };
    assert.deepEqual(failedCodes(judgeCleanup(request, facts, patterns)), ['head_not_landed']);
  });

  test('the default patterns keep main, dev, release and evidence branches', () => {
    for (const name of ['main', 'dev', 'master', 'release/1.2', 'evidence/run-4', 'preserve/x/y', 'backup/old']) {
      const facts: CleanupFacts = {
        ...goodFacts(),
        pull: ok(pull({ state: 'closed', merged: true, headRef: name })),
        branch: ok({ name, sha: 'h2', protected: false }),
      };
      const codes = failedCodes(judgeCleanup({ ...request, branch: name }, facts, patterns));
      assert.ok(codes.includes('branch_protected_by_policy') || codes.includes('branch_preserved'), name);
    }
  });

  const rest = ['branch_protected_by_policy', 'branch_preserved'];
  const missingTable: Array<[keyof CleanupFacts, string[]]> = [
    ['pull', ['fact_unavailable', 'branch_protected', ...rest, 'branch_in_use']],
    [
      'target',
      [
        'branch_not_pr_head',
        'head_repo_mismatch',
        'pr_not_merged',
        'fact_unavailable',
        'branch_protected',
        ...rest,
        'branch_in_use',
      ],
    ],
    [
      'landing',
      [
        'branch_not_pr_head',
        'head_repo_mismatch',
        'pr_not_merged',
        'fact_unavailable',
        'branch_protected',
        ...rest,
        'branch_in_use',
      ],
    ],
    [
      'branch',
      ['branch_not_pr_head', 'head_repo_mismatch', 'pr_not_merged', 'fact_unavailable', ...rest, 'branch_in_use'],
    ],
    [
      'protections',
      [
        'branch_not_pr_head',
        'head_repo_mismatch',
        'pr_not_merged',
        'head_not_landed',
        'fact_unavailable',
        ...rest,
        'branch_in_use',
      ],
    ],
    [
      'openPulls',
      [
        'branch_not_pr_head',
        'head_repo_mismatch',
        'pr_not_merged',
        'head_not_landed',
        'branch_protected',
        ...rest,
        'fact_unavailable',
      ],
    ],
  ];
  for (const [fact, order] of missingTable) {
    test(`missing ${fact}: denied, reported in place naming the fact, the rest still judged`, () => {
      const facts = { ...goodFacts(), [fact]: gone(`${fact} could not be read (HTTP 500).`) };
      const verdict = judgeCleanup(request, facts, patterns);
      assert.deepEqual(
        verdict.checks.map((c) => c.code),
        order,
      );
      assert.deepEqual(failedCodes(verdict), ['fact_unavailable']);
      const failed = verdict.checks.find((c) => !c.passed);
      assert.match(failed?.detail ?? '', new RegExp(fact));
      assert.match(failed?.fact ?? '', /^GET /);
    });
  }

  test('with everything missing, every failure is listed', () => {
    const facts: CleanupFacts = {
      pull: gone('pull: HTTP 500'),
      target: gone('target: not read'),
      branch: gone('branch: HTTP 404'),
      landing: gone('landing: not read'),
      protections: gone('protections: HTTP 500'),
      openPulls: gone('open pulls: HTTP 500'),
    };
    const verdict = judgeCleanup(request, facts, patterns);
    assert.deepEqual(failedCodes(verdict), ['fact_unavailable', 'fact_unavailable', 'fact_unavailable']);
    const details = verdict.checks.filter((c) => !c.passed).map((c) => c.detail);
    [/^pull/, /^branch/, /^open pulls/].forEach((pattern, i) => assert.match(details[i] ?? '', pattern));
  });
});

describe('reconcile-landed guard', () => {
  const landed = (proven: boolean): Omit<ReconcileFacts, 'pull'> => ({
    target: ok({ name: 'main', sha: 'm5', protected: true }),
    landing: ok(proven ? landedVia('h2') : { commit: 'h2', target: 'm5', commits: [] }),
  });
  const table = combinations({ state: ['open', 'closed', 'merged'], landed: [true, false] } as const);
  for (const row of table) {
    test(JSON.stringify(row), () => {
      const p = pull({ state: row.state === 'open' ? 'open' : 'closed', merged: row.state === 'merged' });
      const verdict = judgeReconcileLanded({ pull: ok(p), ...landed(row.landed) });
      assert.deepEqual(failedCodes(verdict), [
        ...(row.state === 'open' ? [] : ['pr_not_open']),
        ...(row.landed ? [] : ['head_not_landed']),
      ]);
    });
  }
  const missing: Array<[string, ReconcileFacts, string[]]> = [
    ['pull request unreadable', { pull: gone('pull: HTTP 500'), ...landed(true) }, ['fact_unavailable']],
    [
      'target unreadable',
      { pull: ok(pull()), target: gone('target: HTTP 404'), landing: gone('not compared') },
      ['fact_unavailable'],
    ],
    [
      'compare unreadable',
      { pull: ok(pull()), ...landed(true), landing: gone('compare: HTTP 500') },
      ['fact_unavailable'],
    ],
    ['target read is not the base', { pull: ok(pull({ baseRef: 'dev' })), ...landed(true) }, ['head_not_landed']],
  ];
  for (const [name, facts, codes] of missing) {
    test(`denies when ${name}`, () => assert.deepEqual(failedCodes(judgeReconcileLanded(facts)), codes));
  }
});

describe('applyGuardVerdict', () => {
  const allowed: Decision = {
    effect: 'allow',
    operation: 'gitea.pr.merge',
    operations: ['gitea.pr.merge'],
    reason: 'allowed',
    determining: { file: 'profiles/gitea-merger.yaml', line: 9, rule: 'allowed_operations: gitea.pr.merge' },
    failed: [],
  };

  test('a passing verdict leaves the allowed decision as it is', () => {
    const verdict = judgeMerge(mergeFacts(), STRICT);
    assert.deepEqual(applyGuardVerdict(allowed, verdict), allowed);
  });

  test('a failing verdict denies, listing every failed condition with self-review and self-merge first', () => {
    const merge = judgeMerge(
      mergeFacts({
        identity: ok('alice'),
        pull: ok(pull({ state: 'closed' })),
        reviews: ok([]),
        expectedHeadSha: null,
      }),
      STRICT,
    );
    const selfReview = judgeSelfReview({ identity: ok('alice'), pull: ok(pull()) });
    const decision = applyGuardVerdict(allowed, combineVerdicts([merge, selfReview]));
    assert.equal(decision.effect, 'deny');
    assert.equal(decision.reason, 'self_review');
    assert.deepEqual(
      decision.failed.map((f) => f.code),
      ['self_review', 'self_merge', 'pr_not_open', 'head_sha_missing', 'no_independent_approval'],
    );
    // Each condition judged on a live fact names it; head_sha_missing is about the request.
    assert.deepEqual(
      decision.failed.map((f) => f.fact !== undefined),
      [true, true, true, false, true],
    );
    assert.equal(decision.operation, 'gitea.pr.merge');
    assert.match(decision.determining.rule, /^guard merge\+self_review: self_review$/);
    assert.match(decision.hint ?? '', /gitea-merger/);
  });

  test('a decision already denied stays exactly as the lists decided', () => {
    const denied: Decision = { ...allowed, effect: 'deny', reason: 'forbidden', hint: 'not yours' };
    const verdict = judgeSelfReview({ identity: ok('alice'), pull: ok(pull()) });
    assert.deepEqual(applyGuardVerdict(denied, verdict), denied);
  });
});
