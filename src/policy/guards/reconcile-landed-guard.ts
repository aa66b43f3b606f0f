// Closing an open pull request as "already landed" is allowed only when its head is proven to be an
// ancestor of its target branch as fetched just now.
import { isOpen, type BranchFacts, type CompareFacts, type PullFacts } from './facts.js';
import { landedCheck } from './landed-check.js';
import { check, CheckList, type Fact, type GuardVerdict } from './verdict.js';

export interface ReconcileFacts {
  pull: Fact<PullFacts>;
  target: Fact<BranchFacts>;
  compare: Fact<CompareFacts>;
}

export function judgeReconcileLanded(facts: ReconcileFacts): GuardVerdict {
  return new CheckList()
    .need({ pull: facts.pull }, ({ pull }) =>
      check('pr_not_open', isOpen(pull), `Pull request #${pull.number} is ${pull.merged ? 'merged' : pull.state}.`),
    )
    .need({ pull: facts.pull, target: facts.target, compare: facts.compare }, ({ pull, target, compare }) => landedCheck(pull, target, compare))
    .verdict('reconcile_landed');
}
