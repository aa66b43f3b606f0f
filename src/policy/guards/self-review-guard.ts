// Nobody approves or requests changes on their own pull request, whatever the profile allows.
// The author is read live from the pull request; the identity is the session's verified login.
import { sameLogin, type PullFacts } from './facts.js';
import { check, CheckList, type Fact, type GuardCheck, type GuardVerdict } from './verdict.js';

export interface SelfReviewFacts {
  /** The verified login of the session (GET /user, or the sudo user). */
  identity: Fact<string>;
  pull: Fact<PullFacts>;
}

export function judgeSelfReview(facts: SelfReviewFacts): GuardVerdict {
  return new CheckList()
    .need({ identity: facts.identity, pull: facts.pull }, ({ identity, pull }) =>
      notAuthor('self_review', identity, pull, 'review'),
    )
    .verdict('self_review');
}

/** Shared with the merge guard: the acting identity must not be the PR author, and the author must be known. */
export function notAuthor(
  code: 'self_review' | 'self_merge',
  identity: string,
  pull: PullFacts,
  act: string,
): GuardCheck {
  if (pull.author === null) {
    return check(
      'pr_author_unknown',
      false,
      `Gitea did not report the author of pull request #${pull.number}.`,
      'pull',
    );
  }
  return sameLogin(identity, pull.author)
    ? check(code, false, `${identity} is the author of pull request #${pull.number} and may not ${act} it.`, [
        'identity',
        'pull',
      ])
    : check(code, true, `${identity} is not the author (${pull.author}) of pull request #${pull.number}.`, [
        'identity',
        'pull',
      ]);
}
