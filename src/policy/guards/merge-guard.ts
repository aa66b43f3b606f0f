// A merge needs more than permission: the merger is not the author, the PR is open, the head is the
// one the caller reviewed, an official reviewer other than the author and the merger approved that
// very head as their latest verdict, no official reviewer's latest verdict requests changes, and the
// merge deletes no branch by the repository's default (only the guarded cleanup deletes branches).
// An approval counts only for the content it saw: the timeline must show that its commit was the
// head when it was submitted (a review's commit_id is the caller's word) and that nothing was pushed
// and no base was changed after it (Gitea keeps reviews across a retarget).
import {
  isOpen,
  sameLogin,
  sameRepo,
  type PullFacts,
  type RepositoryFacts,
  type ReviewFact,
  type TimelineEntry,
} from './guard-facts.js';
import type { MergeSettings } from './guard-settings.js';
import { notAuthor } from './self-review-guard.js';
import { check, CheckList, type Fact, type GuardCheck, type GuardVerdict } from './verdict.js';
import type { ReasonCode } from '../reasons.js';

export interface MergeFacts {
  identity: Fact<string>;
  pull: Fact<PullFacts>;
  reviews: Fact<ReviewFact[]>;
  /** The pull request's timeline: pushes, changes of base and reviews, in order. */
  timeline: Fact<TimelineEntry[]>;
  /** Read only when the merge names no delete_branch_after_merge; otherwise unused. */
  repository: Fact<RepositoryFacts>;
  /** body.head_commit_id as passed by the caller; null when not passed. */
  expectedHeadSha: string | null;
  /** body.delete_branch_after_merge as passed; null when absent (Gitea then applies the repository default). */
  deleteBranch: boolean | null;
}

export function judgeMerge(facts: MergeFacts, settings: MergeSettings): GuardVerdict {
  const list = new CheckList()
    .need({ identity: facts.identity, pull: facts.pull }, ({ identity, pull }) =>
      notAuthor('self_merge', identity, pull, 'merge'),
    )
    .need({ pull: facts.pull }, ({ pull }) =>
      check(
        'pr_not_open',
        isOpen(pull),
        `Pull request #${pull.number} is ${pull.merged ? 'merged' : pull.state}.`,
        'pull',
      ),
    );
  if (settings.require_head_sha) {
    list.need({ pull: facts.pull }, ({ pull }) => headShaCheck(facts.expectedHeadSha, pull));
  }
  if (settings.require_independent_approval) {
    const timeline = historyOf(facts.timeline, facts.pull);
    list.need(
      { identity: facts.identity, pull: facts.pull, reviews: facts.reviews, timeline },
      ({ identity, pull, reviews, timeline: history }) => approvalChecks(identity, pull, reviews, history),
    );
  }
  if (facts.deleteBranch === null) {
    list.need({ pull: facts.pull, repository: facts.repository }, ({ pull, repository }) =>
      deleteDefaultCheck(pull, repository),
    );
  }
  return list.verdict('merge');
}

function headShaCheck(expected: string | null, pull: PullFacts): GuardCheck {
  if (!expected)
    return check('head_sha_missing', false, 'The merge did not name the head SHA it expects (body.head_commit_id).');
  return expected.toLowerCase() === pull.headSha.toLowerCase()
    ? check('head_sha_mismatch', true, `The expected head ${expected} is the current head.`, 'pull')
    : check(
        'head_sha_mismatch',
        false,
        `The expected head ${expected} is not the current head ${pull.headSha}.`,
        'pull',
      );
}

/** Each reviewer's latest APPROVED or REQUEST_CHANGES review, as SubmitReview leaves only that one official. */
export function latestVerdicts(reviews: readonly ReviewFact[]): ReviewFact[] {
  const latest = new Map<string, ReviewFact>();
  for (const review of [...reviews].sort((a, b) => a.id - b.id)) {
    if (review.reviewer === null || (review.state !== 'APPROVED' && review.state !== 'REQUEST_CHANGES')) continue;
    latest.set(review.reviewer.toLowerCase(), review);
  }
  return [...latest.values()];
}

/** What the timeline says about each review: the head when it was submitted, and what happened after it. */
export interface History {
  reviews: ReadonlyMap<number, { headThen: string | null; pushedAfter: boolean; retargetedAfter: string | null }>;
}

/**
 * The timeline as a record the guard can trust, or a missing fact: its last push must have left the
 * live head, and its last change of base the live base; otherwise Gitea has not recorded a push yet
 * or the timeline was not read to its end, and nothing it says is judged.
 */
export function historyOf(timeline: Fact<TimelineEntry[]>, pull: Fact<PullFacts>): Fact<History> {
  if (!timeline.ok || !pull.ok) return timeline.ok ? { ok: false, detail: 'The pull request is unknown.' } : timeline;
  const { headSha, baseRef } = pull.value;
  let head: string | null = null;
  let base: string | null = null;
  const reviews = new Map<number, { headThen: string | null; pushedAfter: boolean; retargetedAfter: string | null }>();
  for (const entry of timeline.value) {
    if (entry.kind === 'push') {
      head = entry.head;
      for (const review of reviews.values()) review.pushedAfter = true;
    } else if (entry.kind === 'retarget') {
      base = entry.to;
      for (const review of reviews.values()) review.retargetedAfter ??= `${entry.from} to ${entry.to}`;
    } else reviews.set(entry.reviewId, { headThen: head, pushedAfter: false, retargetedAfter: null });
  }
  if (head === null || head.toLowerCase() !== headSha.toLowerCase())
    return {
      ok: false,
      detail: `The timeline of pull request #${pull.value.number} does not end on its live head ${headSha} (last push recorded: ${head ?? 'none'}).`,
    };
  if (base !== null && base !== baseRef)
    return {
      ok: false,
      detail: `The timeline of pull request #${pull.value.number} does not end on its live base ${baseRef} (last change of base: ${base}).`,
    };
  return { ok: true, value: { reviews } };
}

/** Why the timeline does not let an approval count, or null when it does. */
function historyProblem(review: ReviewFact, history: History): { code: ReasonCode; why: string } | null {
  const seen = history.reviews.get(review.id);
  if (!seen) return { code: 'approval_unseen_head', why: 'no review entry in the timeline' };
  if (seen.headThen === null || seen.headThen.toLowerCase() !== review.commitId?.toLowerCase())
    return {
      code: 'approval_unseen_head',
      why: `it names ${review.commitId ?? 'no commit'} but the head was ${seen.headThen ?? 'unknown'} when it was submitted`,
    };
  if (seen.pushedAfter) return { code: 'approval_stale', why: 'commits were pushed after it' };
  if (seen.retargetedAfter)
    return { code: 'approval_base_changed', why: `the base changed after it (${seen.retargetedAfter})` };
  return null;
}

function approvalChecks(merger: string, pull: PullFacts, reviews: ReviewFact[], history: History): GuardCheck[] {
  const verdicts = latestVerdicts(reviews);
  // Any official, undismissed request for changes blocks, as MergeBlockedByRejectedReview counts them: a
  // pending review submitted late keeps its older id, but SubmitReview made it the reviewer's official one.
  const blocking = reviews.filter((r) => r.state === 'REQUEST_CHANGES' && r.official && !r.dismissed);
  const changes =
    blocking.length > 0
      ? check(
          'changes_requested',
          false,
          `Official reviewer(s) ${names(blocking)} request changes on pull request #${pull.number}.`,
          'reviews',
        )
      : check('changes_requested', true, `No official reviewer's latest review requests changes.`, 'reviews');
  const independent = verdicts.filter(
    (r) =>
      r.state === 'APPROVED' &&
      r.official &&
      !r.dismissed &&
      !sameLogin(r.reviewer, pull.author) &&
      !sameLogin(r.reviewer, merger),
  );
  if (independent.length === 0) {
    const detail =
      `No official reviewer but the author and the merger has approval as their latest, undismissed review of pull request #${pull.number}` +
      `${unofficialNote(verdicts, pull, merger)}.`;
    return [check('no_independent_approval', false, detail, 'reviews'), changes];
  }
  // Bound to the exact head: Gitea's content-based stale would keep an approval across a rebase or base merge; the product does not.
  const current = independent.filter((r) => !r.stale && r.commitId?.toLowerCase() === pull.headSha.toLowerCase());
  if (current.length === 0)
    return [
      check(
        'approval_stale',
        false,
        `Every independent approval (${names(independent)}) is stale or on another commit than the head ${pull.headSha}.`,
        ['reviews', 'pull'],
      ),
      changes,
    ];
  const problems = current.map((review) => ({ review, problem: historyProblem(review, history) }));
  const counted = problems.filter((p) => p.problem === null).map((p) => p.review);
  if (counted.length > 0)
    return [
      check(
        'approval_stale',
        true,
        `Approved on the current head ${pull.headSha} by ${names(counted)}, who saw it as the head, with nothing pushed or retargeted since.`,
        ['reviews', 'pull', 'timeline'],
      ),
      changes,
    ];
  const failing = new Map<ReasonCode, string[]>();
  for (const { review, problem } of problems) {
    if (!problem) continue;
    failing.set(problem.code, [
      ...(failing.get(problem.code) ?? []),
      `${review.reviewer} (review ${review.id}: ${problem.why})`,
    ]);
  }
  const failed = [...failing].map(([code, why]) =>
    check(code, false, `The approval of ${pull.headSha} does not count: ${why.join('; ')}.`, ['reviews', 'timeline']),
  );
  return [...failed, changes];
}

function unofficialNote(verdicts: ReviewFact[], pull: PullFacts, merger: string): string {
  const others = verdicts.filter(
    (r) => r.state === 'APPROVED' && !sameLogin(r.reviewer, pull.author) && !sameLogin(r.reviewer, merger),
  );
  const unofficial = others.filter((r) => !r.official);
  const dismissed = others.filter((r) => r.official && r.dismissed);
  return [
    unofficial.length > 0 ? ` (not official, the reviewer lacks write access: ${names(unofficial)})` : '',
    dismissed.length > 0 ? ` (dismissed: ${names(dismissed)})` : '',
  ].join('');
}

function names(reviews: ReviewFact[]): string {
  return [...new Set(reviews.map((r) => r.reviewer))].join(', ');
}

/** ShouldDeleteBranchAfterMerge: no user option -> the repository default, for a head in the same repository. */
function deleteDefaultCheck(pull: PullFacts, repository: RepositoryFacts): GuardCheck {
  const sameRepository = pull.headRepo === null || sameRepo(pull.headRepo, repository.fullName);
  const deletes = repository.defaultDeleteBranchAfterMerge && sameRepository;
  return deletes
    ? check(
        'branch_deleted_by_default',
        false,
        `The merge names no delete_branch_after_merge and ${repository.fullName} defaults to deleting the head branch, so Gitea would delete ${pull.headRef}.`,
        ['repository', 'pull'],
      )
    : check(
        'branch_deleted_by_default',
        true,
        `Gitea keeps the head branch ${pull.headRef} (${sameRepository ? 'the repository default keeps it' : 'it lives in another repository'}).`,
        ['repository', 'pull'],
      );
}
