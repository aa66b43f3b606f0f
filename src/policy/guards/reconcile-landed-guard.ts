// Closing an open pull request as "already landed" is allowed only when its head is proven to be an
// ancestor of its target branch as fetched just now (landed-check.ts).
import { isOpen, type BranchFacts, type LandingFacts, type PullFacts } from './guard-facts.js';
import { landedCheck } from './landed-check.js';
import { check, CheckList, type Fact, type GuardVerdict } from './verdict.js';

export interface ReconcileFacts {
  pull: Fact<PullFacts>;
  target: Fact<BranchFacts>;
  /** Compare of the PR head SHA...target SHA. */
  landing: Fact<LandingFacts>;
}

export function judgeReconcileLanded(facts: ReconcileFacts): GuardVerdict {
  return new CheckList()
    .need({ pull: facts.pull }, ({ pull }) =>
      check(
        'pr_not_open',
        isOpen(pull),
        `Pull request #${pull.number} is ${pull.merged ? 'merged' : pull.state}.`,
        'pull',
      ),
    )
    .need({ pull: facts.pull, target: facts.target, landing: facts.landing }, ({ pull, target, landing }) =>
      pull.baseRef === target.name
        ? landedCheck(pull.headSha, `Head of pull request #${pull.number}`, target, landing)
        : check(
            'head_not_landed',
            false,
            `The target branch read (${target.name}) is not the pull request's base ${pull.baseRef}.`,
            'target',
          ),
    )
    .verdict('reconcile_landed');
}
