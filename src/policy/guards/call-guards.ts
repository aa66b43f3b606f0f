// Which live-fact guards a call needs, from its canonical operations and policies/guards.yaml
// call_guards, and the verdict over the facts gathered for them. The server gathers the facts
// (src/gitea/facts.ts) between the two.
import { judgeMerge } from './merge-guard.js';
import type { PullFacts, RepositoryFacts, ReviewFact, TimelineEntry } from './guard-facts.js';
import { judgeOwnership } from './ownership-guard.js';
import { judgeSelfReview } from './self-review-guard.js';
import type { MergeSettings } from './guard-settings.js';
import { combineVerdicts, type Fact, type GuardSource, type GuardVerdict } from './verdict.js';

/** ownership comes from the role (policies/roles.yaml own_pull_requests), the others from call_guards. */
export type CallGuard = 'self_review' | 'merge' | 'ownership';

/** The order guards run and report in. */
const CALL_GUARDS: readonly CallGuard[] = ['self_review', 'merge'];

/** policies/guards.yaml call_guards: each guard's operations, with the line each is written on. */
export interface CallGuardTable {
  file: string;
  entries: ReadonlyArray<{ guard: CallGuard; operation: string; line: number | null }>;
}

export interface CallFacts {
  identity: Fact<string>;
  pull: Fact<PullFacts>;
  /** Gathered only when the merge guard runs. */
  reviews?: Fact<ReviewFact[]>;
  /** Gathered only when the merge guard runs. */
  timeline?: Fact<TimelineEntry[]>;
  /** Gathered only when the merge guard runs and the call names no delete_branch_after_merge. */
  repository?: Fact<RepositoryFacts>;
  expectedHeadSha: string | null;
  /** body.delete_branch_after_merge as passed; null when absent. */
  deleteBranch: boolean | null;
}

export function callGuardsFor(operations: readonly string[], table: CallGuardTable): CallGuard[] {
  return CALL_GUARDS.filter((guard) =>
    table.entries.some((entry) => entry.guard === guard && operations.includes(entry.operation)),
  );
}

/** Where the call_guards entry that made `guard` judge these operations is written, for a denial. */
export function callGuardEntry(table: CallGuardTable, guard: CallGuard, operations: readonly string[]): GuardSource {
  const entry = table.entries.find((e) => e.guard === guard && operations.includes(e.operation));
  return { file: table.file, line: entry?.line ?? null };
}

export function judgeCall(guards: readonly CallGuard[], facts: CallFacts, merge: MergeSettings): GuardVerdict {
  const notGathered = (what: string) => ({ ok: false as const, detail: `${what} were not gathered.` });
  const reviews = facts.reviews ?? notGathered('The reviews of the pull request');
  const timeline = facts.timeline ?? notGathered('The timeline of the pull request');
  const repository = facts.repository ?? notGathered('The repository settings');
  return combineVerdicts(
    guards.map((guard) =>
      guard === 'self_review'
        ? judgeSelfReview(facts)
        : guard === 'ownership'
          ? judgeOwnership(facts)
          : judgeMerge({ ...facts, reviews, timeline, repository }, merge),
    ),
  );
}
