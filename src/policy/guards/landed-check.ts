// "The PR head has landed": its head commit is an ancestor of the target branch as fetched just now,
// proved by a compare of target SHA...head SHA that shows no commit ahead.
import type { BranchFacts, CompareFacts, PullFacts } from './facts.js';
import { check, type GuardCheck } from './verdict.js';

export function landedCheck(pull: PullFacts, target: BranchFacts, compare: CompareFacts): GuardCheck {
  const about = `${pull.headSha} on ${target.name} at ${target.sha}`;
  if (compare.base !== target.sha || compare.head !== pull.headSha || target.name !== pull.baseRef) {
    return check('head_not_landed', false, `The compare evidence does not match ${about}; refusing to judge from it.`);
  }
  return compare.aheadBy === 0
    ? check('head_not_landed', true, `Head ${about}: 0 commits ahead, it has landed.`)
    : check('head_not_landed', false, `Head ${about}: ${compare.aheadBy} commit(s) not on the target branch.`);
}
