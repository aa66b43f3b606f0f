// The pure guard judges, over every combination of their conditions, plus missing facts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeSelfReview } from '../src/policy/guards/self-review-guard.js';
import { judgeMerge } from '../src/policy/guards/merge-guard.js';
import { cleanupConfirmation, judgeCleanup, type CleanupFacts, type CleanupRequest } from '../src/policy/guards/cleanup-branch-guard.js';
import { judgeReconcileLanded, type ReconcileFacts } from '../src/policy/guards/reconcile-landed-guard.js';
import { callGuardsFor, judgeCall } from '../src/policy/guards/call-guards.js';
import { mergeSettingsFor, type BranchPatterns, type GuardsConfig, type MergeSettings } from '../src/policy/guards/settings.js';
import { applyGuardVerdict, combineVerdicts, type Fact, type GuardVerdict } from '../src/policy/guards/verdict.js';
import type { PullFacts, ReviewFact } from '../src/policy/guards/facts.js';
import type { Decision } from '../src/policy/decision.js';
import { loadPolicySet } from '../src/policy-files/policy-set.js';

const ok = <T>(value: T): Fact<T> => ({ ok: true, value });
const gone = <T>(detail: string): Fact<T> => ({ ok: false, detail });
const failedCodes = (v: GuardVerdict): string[] => v.checks.filter((c) => !c.passed).map((c) => c.code);

function pull(overrides: Partial<PullFacts> = {}): PullFacts {
  return { number: 7, author: 'alice', state: 'open', merged: false, headSha: 'h2', headRef: 'feature/x', headRepo: 'acme/app', baseRef: 'main', ...overrides };
}

function review(reviewer: string, overrides: Partial<ReviewFact> = {}): ReviewFact {
  return { reviewer, state: 'APPROVED', commitId: 'h2', stale: false, dismissed: false, ...overrides };
}

/** Every combination of the given options, as objects. */
function combinations<T extends Record<string, readonly unknown[]>>(options: T): Array<{ [K in keyof T]: T[K][number] }> {
  return Object.entries(options).reduce<Array<Record<string, unknown>>>(
    (acc, [key, values]) => acc.flatMap((combo) => values.map((value) => ({ ...combo, [key]: value }))),
    [{}],
  ) as Array<{ [K in keyof T]: T[K][number] }>;
}

const STRICT: MergeSettings = { require_head_sha: true, require_independent_approval: true };

describe('self-review guard', () => {
  for (const self of [false, true]) {
    test(`reviewer ${self ? 'is' : 'is not'} the author`, () => {
      const verdict = judgeSelfReview({ identity: ok(self ? 'Alice' : 'carol'), pull: ok(pull()) });
      assert.deepEqual(failedCodes(verdict), self ? ['self_review'] : []);
    });
  }
  const missing: Array<[string, Parameters<typeof judgeSelfReview>[0], string[], RegExp]> = [
    ['pull request unreadable', { identity: ok('carol'), pull: gone('Pull request #7 could not be read (HTTP 500).') }, ['fact_unavailable'], /HTTP 500/],
    ['author not reported', { identity: ok('carol'), pull: ok(pull({ author: null })) }, ['pr_author_unknown'], /author/],
    ['identity unverified', { identity: gone('identity not verified'), pull: ok(pull()) }, ['fact_unavailable'], /identity/],
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
  const table = combinations({ self: [false, true], open: [true, false], head: ['ok', 'missing', 'mismatch'], approval: ['ok', 'none', 'stale'] } as const);
  for (const row of table) {
    test(JSON.stringify(row), () => {
      const merger = 'bob';
      const author = row.self ? 'bob' : 'alice';
      const reviews = {
        ok: [review(author), review('carol')],
        // The author's and the merger's own approvals, a request for changes and a dismissed approval do not count.
        none: [review(author), review(merger), review('dan', { state: 'REQUEST_CHANGES' }), review('erin', { dismissed: true })],
        stale: [review('carol', { commitId: 'h1', stale: true }), review('dan', { commitId: 'h1' }), review('erin', { stale: true })],
      }[row.approval];
      const verdict = judgeMerge(
        {
          identity: ok(merger),
          pull: ok(pull({ author, state: row.open ? 'open' : 'closed' })),
          reviews: ok(reviews),
          expectedHeadSha: { ok: 'h2', missing: null, mismatch: 'h1' }[row.head],
        },
        STRICT,
      );
      const expected = [
        ...(row.self ? ['self_merge'] : []),
        ...(row.open ? [] : ['pr_not_open']),
        ...({ ok: [], missing: ['head_sha_missing'], mismatch: ['head_sha_mismatch'] }[row.head]),
        ...({ ok: [], none: ['no_independent_approval'], stale: ['approval_stale'] }[row.approval]),
      ];
      assert.deepEqual(failedCodes(verdict), expected);
    });
  }

  const base = { identity: ok('bob'), pull: ok(pull()), reviews: ok([review('carol')]), expectedHeadSha: 'h2' };
  const missing: Array<[string, Partial<typeof base> & { expectedHeadSha?: string | null }, string[], RegExp[]]> = [
    ['identity unverified', { identity: gone('identity not verified') }, ['fact_unavailable'], [/identity/]],
    ['pull request unreadable', { pull: gone('pull request: HTTP 404') }, ['fact_unavailable'], [/404/]],
    ['reviews unreadable', { reviews: gone('reviews: more than 20 pages') }, ['fact_unavailable'], [/pages/]],
    ['author not reported', { pull: ok(pull({ author: null })) }, ['pr_author_unknown'], [/author/]],
    ['everything missing', { identity: gone('identity not verified'), pull: gone('pull request: HTTP 500'), reviews: gone('reviews: HTTP 500') }, ['fact_unavailable', 'fact_unavailable'], [/identity/, /pull request/]],
  ];
  for (const [name, overrides, codes, details] of missing) {
    test(`denies when ${name}`, () => {
      const verdict = judgeMerge({ ...base, ...overrides }, STRICT);
      assert.deepEqual(failedCodes(verdict), codes);
      const failed = verdict.checks.filter((c) => !c.passed);
      details.forEach((pattern, i) => assert.match(failed[i]?.detail ?? '', pattern));
    });
  }

  test('a profile may turn off the head SHA and approval requirements, never self-merge', () => {
    const config: GuardsConfig = {
      merge: STRICT,
      call_guards: { self_review: ['gitea.pr.approve'], merge: ['gitea.pr.merge'] },
      cleanup: { preserved_refs: [] },
      guarded_only: {},
      facts: { page_size: 50, max_pages: 2 },
      profiles: { solo: { merge: { require_head_sha: false, require_independent_approval: false } } },
    };
    const relaxed = mergeSettingsFor(config, 'solo');
    assert.deepEqual(mergeSettingsFor(config, 'gitea-merger'), STRICT);
    const facts = { identity: ok('bob'), pull: ok(pull()), reviews: ok([]), expectedHeadSha: 'stale-sha' };
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
    [['gitea.pr.cancel_auto_merge'], []],
    [['gitea.pr.review'], []],
    [['gitea.read'], []],
  ];
  for (const [operations, guards] of table) {
    test(`${operations.join(',')} -> ${guards.join(',') || 'none'}`, () => assert.deepEqual(callGuardsFor(operations, callGuards), guards));
  }

  test('a merge whose reviews were not gathered is denied', () => {
    const verdict = judgeCall(['merge'], { identity: ok('bob'), pull: ok(pull()), expectedHeadSha: 'h2' }, STRICT);
    assert.deepEqual(failedCodes(verdict), ['fact_unavailable']);
  });
});

describe('cleanup guard: every combination of its conditions', () => {
  const request: CleanupRequest = { owner: 'acme', repo: 'app', prNumber: 7, branch: 'feature/x', confirmation: cleanupConfirmation(7, 'feature/x') };
  const patterns: BranchPatterns = { protected_branches: ['main', 'master', 'dev'], preserved_refs: ['preserve/**', 'evidence/**', 'backup/**', 'release/**'] };
  const goodFacts = (): CleanupFacts => ({
    pull: ok(pull({ state: 'closed', merged: true })),
    target: ok({ name: 'main', sha: 'm5', protected: true }),
    compare: ok({ base: 'm5', head: 'h2', aheadBy: 0 }),
    branch: ok({ name: 'feature/x', sha: 'h2', protected: false }),
    protections: ok(['main', 'release/*']),
    openPulls: ok([{ number: 8, headRef: 'feature/y', headRepo: 'acme/app' }, { number: 9, headRef: 'feature/x', headRepo: 'fork/app' }]),
  });
  const conditions = [
    'confirmation_mismatch',
    'branch_not_pr_head',
    'head_repo_mismatch',
    'pr_not_merged',
    'head_not_landed',
    'branch_tip_moved',
    'branch_protected',
    'branch_protected_by_policy',
    'branch_preserved',
    'branch_in_use',
  ] as const;
  type Condition = (typeof conditions)[number];
  function scenario(failing: ReadonlySet<Condition>): { request: CleanupRequest; facts: CleanupFacts; patterns: BranchPatterns } {
    const facts = goodFacts();
    const p = pull({
      state: 'closed',
      merged: !failing.has('pr_not_merged'),
      headRef: failing.has('branch_not_pr_head') ? 'feature/other' : 'feature/x',
      headRepo: failing.has('head_repo_mismatch') ? 'someone/app' : 'acme/app',
    });
    facts.pull = ok(p);
    if (failing.has('head_not_landed')) facts.compare = ok({ base: 'm5', head: 'h2', aheadBy: 2 });
    facts.branch = ok({ name: 'feature/x', sha: failing.has('branch_tip_moved') ? 'h3' : 'h2', protected: failing.has('branch_protected') });
    if (failing.has('branch_in_use')) facts.openPulls = ok([{ number: 10, headRef: 'feature/x', headRepo: 'acme/app' }]);
    return {
      request: failing.has('confirmation_mismatch') ? { ...request, confirmation: 'cleanup merged pr 7 branch feature/x' } : request,
      facts,
      patterns: {
        protected_branches: [...patterns.protected_branches, ...(failing.has('branch_protected_by_policy') ? ['feature/*'] : [])],
        preserved_refs: [...patterns.preserved_refs, ...(failing.has('branch_preserved') ? ['feature/**'] : [])],
      },
    };
  }

  test('all 1024 combinations list exactly the failing conditions, in order', () => {
    for (let mask = 0; mask < 1 << conditions.length; mask++) {
      const failing = new Set(conditions.filter((_, i) => mask & (1 << i)));
      const { request: r, facts, patterns: p } = scenario(failing);
      const verdict = judgeCleanup(r, facts, p);
      assert.deepEqual(failedCodes(verdict), conditions.filter((c) => failing.has(c)), `failing: ${[...failing].join(',') || 'none'}`);
      assert.equal(verdict.checks.length, conditions.length);
    }
  });

  test('a Gitea protection rule matching the branch protects it even without the flag', () => {
    const facts = { ...goodFacts(), protections: ok(['feature/*']) };
    assert.deepEqual(failedCodes(judgeCleanup(request, facts, patterns)), ['branch_protected']);
  });

  test('with the rule list hidden (non-admin), the branch flag alone decides', () => {
    const hidden = { ...goodFacts(), protections: ok(null) };
    assert.deepEqual(failedCodes(judgeCleanup(request, hidden, patterns)), []);
    const flagged = { ...hidden, branch: ok({ name: 'feature/x', sha: 'h2', protected: true }) };
    assert.deepEqual(failedCodes(judgeCleanup(request, flagged, patterns)), ['branch_protected']);
  });

  test('an open pull request whose head repository is unknown counts as using the branch', () => {
    const facts = { ...goodFacts(), openPulls: ok([{ number: 11, headRef: 'feature/x', headRepo: null }]) };
    assert.deepEqual(failedCodes(judgeCleanup(request, facts, patterns)), ['branch_in_use']);
  });

  test('the default patterns keep main, dev, release and evidence branches', () => {
    for (const name of ['main', 'dev', 'master', 'release/1.2', 'evidence/run-4', 'preserve/x/y', 'backup/old']) {
      const facts: CleanupFacts = {
        ...goodFacts(),
        pull: ok(pull({ state: 'closed', merged: true, headRef: name })),
        branch: ok({ name, sha: 'h2', protected: false }),
      };
      const codes = failedCodes(judgeCleanup({ ...request, branch: name, confirmation: cleanupConfirmation(7, name) }, facts, patterns));
      assert.ok(codes.includes('branch_protected_by_policy') || codes.includes('branch_preserved'), name);
    }
  });

  const missingTable: Array<[keyof CleanupFacts, string[]]> = [
    ['pull', ['confirmation_mismatch', 'fact_unavailable', 'branch_protected', 'branch_protected_by_policy', 'branch_preserved', 'branch_in_use']],
    ['target', ['confirmation_mismatch', 'branch_not_pr_head', 'head_repo_mismatch', 'pr_not_merged', 'fact_unavailable', 'branch_tip_moved', 'branch_protected', 'branch_protected_by_policy', 'branch_preserved', 'branch_in_use']],
    ['compare', ['confirmation_mismatch', 'branch_not_pr_head', 'head_repo_mismatch', 'pr_not_merged', 'fact_unavailable', 'branch_tip_moved', 'branch_protected', 'branch_protected_by_policy', 'branch_preserved', 'branch_in_use']],
    ['branch', ['confirmation_mismatch', 'branch_not_pr_head', 'head_repo_mismatch', 'pr_not_merged', 'head_not_landed', 'fact_unavailable', 'branch_protected_by_policy', 'branch_preserved', 'branch_in_use']],
    ['protections', ['confirmation_mismatch', 'branch_not_pr_head', 'head_repo_mismatch', 'pr_not_merged', 'head_not_landed', 'branch_tip_moved', 'fact_unavailable', 'branch_protected_by_policy', 'branch_preserved', 'branch_in_use']],
    ['openPulls', ['confirmation_mismatch', 'branch_not_pr_head', 'head_repo_mismatch', 'pr_not_merged', 'head_not_landed', 'branch_tip_moved', 'branch_protected', 'branch_protected_by_policy', 'branch_preserved', 'fact_unavailable']],
  ];
  for (const [fact, order] of missingTable) {
    test(`missing ${fact}: denied, reported in place, the rest still judged`, () => {
      const facts = { ...goodFacts(), [fact]: gone(`${fact} could not be read (HTTP 500).`) };
      const verdict = judgeCleanup(request, facts, patterns);
      assert.deepEqual(verdict.checks.map((c) => c.code), order);
      assert.deepEqual(failedCodes(verdict), ['fact_unavailable']);
      assert.match(verdict.checks.find((c) => !c.passed)?.detail ?? '', new RegExp(fact));
    });
  }

  test('with everything missing and a wrong confirmation, every failure is listed', () => {
    const facts: CleanupFacts = {
      pull: gone('pull: HTTP 500'),
      target: gone('target: not read'),
      compare: gone('compare: not read'),
      branch: gone('branch: HTTP 404'),
      protections: gone('protections: HTTP 500'),
      openPulls: gone('open pulls: HTTP 500'),
    };
    const verdict = judgeCleanup({ ...request, confirmation: '' }, facts, patterns);
    assert.deepEqual(failedCodes(verdict), ['confirmation_mismatch', 'fact_unavailable', 'fact_unavailable', 'fact_unavailable']);
    const details = verdict.checks.filter((c) => !c.passed).map((c) => c.detail);
    [/exactly "CLEANUP MERGED PR 7 BRANCH feature\/x"/, /^pull/, /^branch/, /^open pulls/].forEach((pattern, i) => assert.match(details[i] ?? '', pattern));
  });
});

describe('reconcile-landed guard', () => {
  const landed = (aheadBy: number): Omit<ReconcileFacts, 'pull'> => ({
    target: ok({ name: 'main', sha: 'm5', protected: true }),
    compare: ok({ base: 'm5', head: 'h2', aheadBy }),
  });
  const table = combinations({ state: ['open', 'closed', 'merged'], landed: [true, false] } as const);
  for (const row of table) {
    test(JSON.stringify(row), () => {
      const p = pull({ state: row.state === 'open' ? 'open' : 'closed', merged: row.state === 'merged' });
      const verdict = judgeReconcileLanded({ pull: ok(p), ...landed(row.landed ? 0 : 3) });
      assert.deepEqual(failedCodes(verdict), [...(row.state === 'open' ? [] : ['pr_not_open']), ...(row.landed ? [] : ['head_not_landed'])]);
    });
  }
  const missing: Array<[string, ReconcileFacts, string[]]> = [
    ['pull request unreadable', { pull: gone('pull: HTTP 500'), ...landed(0) }, ['fact_unavailable']],
    ['target unreadable', { pull: ok(pull()), target: gone('target: HTTP 404'), compare: gone('not compared') }, ['fact_unavailable']],
    ['compare unreadable', { pull: ok(pull()), ...landed(0), compare: gone('compare: HTTP 500') }, ['fact_unavailable']],
    ['compare of another commit', { pull: ok(pull()), ...landed(0), compare: ok({ base: 'm4', head: 'h2', aheadBy: 0 }) }, ['head_not_landed']],
  ];
  for (const [name, facts, codes] of missing) {
    test(`denies when ${name}`, () => assert.deepEqual(failedCodes(judgeReconcileLanded(facts)), codes));
  }
});

describe('applyGuardVerdict', () => {
  const allowed: Decision = {
    decision: 'allow',
    operation: 'gitea.pr.merge',
    operations: ['gitea.pr.merge'],
    reason: 'allowed',
    determining: { file: 'profiles/gitea-merger.yaml', line: 9, rule: 'allowed_operations: gitea.pr.merge' },
    failed: [],
  };

  test('a passing verdict leaves the allowed decision as it is', () => {
    const verdict = judgeMerge({ identity: ok('bob'), pull: ok(pull()), reviews: ok([review('carol')]), expectedHeadSha: 'h2' }, STRICT);
    assert.deepEqual(applyGuardVerdict(allowed, verdict), allowed);
  });

  test('a failing verdict denies, listing every failed condition with self-review and self-merge first', () => {
    const merge = judgeMerge({ identity: ok('alice'), pull: ok(pull({ state: 'closed' })), reviews: ok([]), expectedHeadSha: null }, STRICT);
    const selfReview = judgeSelfReview({ identity: ok('alice'), pull: ok(pull()) });
    const decision = applyGuardVerdict(allowed, combineVerdicts([merge, selfReview]));
    assert.equal(decision.decision, 'deny');
    assert.equal(decision.reason, 'self_review');
    assert.deepEqual(decision.failed.map((f) => f.code), ['self_review', 'self_merge', 'pr_not_open', 'head_sha_missing', 'no_independent_approval']);
    assert.equal(decision.operation, 'gitea.pr.merge');
    assert.match(decision.determining.rule, /^guard merge\+self_review: self_review$/);
    assert.match(decision.hint ?? '', /gitea-merger/);
  });

  test('a decision already denied stays exactly as the lists decided', () => {
    const denied: Decision = { ...allowed, decision: 'deny', reason: 'forbidden', hint: 'not yours' };
    const verdict = judgeSelfReview({ identity: ok('alice'), pull: ok(pull()) });
    assert.deepEqual(applyGuardVerdict(denied, verdict), denied);
  });
});
