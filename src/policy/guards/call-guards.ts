// Which live-fact guards a call needs, from its canonical operations, and the verdict over the facts
// gathered for them. The server gathers the facts (src/gitea/facts.ts) between the two.
import { judgeMerge, MERGE_OPERATIONS } from './merge-guard.js';
import type { PullFacts, ReviewFact } from './facts.js';
import { judgeSelfReview, SELF_REVIEW_OPERATIONS } from './self-review-guard.js';
import type { MergeSettings } from './settings.js';
import { combineVerdicts, type Fact, type GuardVerdict } from './verdict.js';

export type CallGuard = 'self_review' | 'merge';

export interface CallFacts {
  identity: Fact<string>;
  pull: Fact<PullFacts>;
  /** Gathered only when the merge guard runs. */
  reviews?: Fact<ReviewFact[]>;
  expectedHeadSha: string | null;
}

export function callGuardsFor(operations: readonly string[]): CallGuard[] {
  const guards: CallGuard[] = [];
  if (operations.some((op) => SELF_REVIEW_OPERATIONS.includes(op))) guards.push('self_review');
  if (operations.some((op) => MERGE_OPERATIONS.includes(op))) guards.push('merge');
  return guards;
}

export function judgeCall(guards: readonly CallGuard[], facts: CallFacts, merge: MergeSettings): GuardVerdict {
  const reviews = facts.reviews ?? { ok: false, detail: 'The reviews of the pull request were not gathered.' };
  return combineVerdicts(
    guards.map((guard) =>
      guard === 'self_review' ? judgeSelfReview(facts) : judgeMerge({ ...facts, reviews }, merge),
    ),
  );
}
