// A merge needs more than permission: the merger is not the author, the PR is open, the head is the
// one the caller reviewed, and someone independent approved that very head.
import { isOpen, sameLogin, type PullFacts, type ReviewFact } from './facts.js';
import type { MergeSettings } from './settings.js';
import { notAuthor } from './self-review-guard.js';
import { check, CheckList, type Fact, type GuardCheck, type GuardVerdict } from './verdict.js';

export interface MergeFacts {
  identity: Fact<string>;
  pull: Fact<PullFacts>;
  reviews: Fact<ReviewFact[]>;
  /** body.head_commit_id as passed by the caller; null when not passed. */
  expectedHeadSha: string | null;
}

export function judgeMerge(facts: MergeFacts, settings: MergeSettings): GuardVerdict {
  const list = new CheckList()
    .need({ identity: facts.identity, pull: facts.pull }, ({ identity, pull }) => notAuthor('self_merge', identity, pull, 'merge'))
    .need({ pull: facts.pull }, ({ pull }) =>
      check('pr_not_open', isOpen(pull), `Pull request #${pull.number} is ${pull.merged ? 'merged' : pull.state}.`),
    );
  if (settings.require_head_sha) {
    list.need({ pull: facts.pull }, ({ pull }) => headShaCheck(facts.expectedHeadSha, pull));
  }
  if (settings.require_independent_approval) {
    list.need({ identity: facts.identity, pull: facts.pull, reviews: facts.reviews }, ({ identity, pull, reviews }) =>
      approvalCheck(identity, pull, reviews),
    );
  }
  return list.verdict('merge');
}

function headShaCheck(expected: string | null, pull: PullFacts): GuardCheck {
  if (!expected) return check('head_sha_missing', false, 'The merge did not name the head SHA it expects (body.head_commit_id).');
  return expected.toLowerCase() === pull.headSha.toLowerCase()
    ? check('head_sha_mismatch', true, `The expected head ${expected} is the current head.`)
    : check('head_sha_mismatch', false, `The expected head ${expected} is not the current head ${pull.headSha}.`);
}

function approvalCheck(merger: string, pull: PullFacts, reviews: ReviewFact[]): GuardCheck {
  const independent = reviews.filter(
    (r) => r.state === 'APPROVED' && !r.dismissed && r.reviewer !== null && !sameLogin(r.reviewer, pull.author) && !sameLogin(r.reviewer, merger),
  );
  if (independent.length === 0) {
    return check('no_independent_approval', false, `No approval of pull request #${pull.number} from anyone but the author and the merger.`);
  }
  const current = independent.filter((r) => !r.stale && r.commitId?.toLowerCase() === pull.headSha.toLowerCase());
  const who = [...new Set(current.map((r) => r.reviewer))].join(', ');
  return current.length > 0
    ? check('approval_stale', true, `Approved on the current head ${pull.headSha} by ${who}.`)
    : check('approval_stale', false, `Every independent approval is stale or on an older head than ${pull.headSha}.`);
}
