// Nobody approves or requests changes on their own pull request, whatever the profile allows.
// The author is read live from the pull request; the identity is the session's verified login.
// A verdict names the head it judged: one that names another commit than the live head is refused
// (Gitea stores a review's commit_id as sent, and un-stales it once that commit is pushed).
import { sameLogin, type PullFacts } from './guard-facts.js';
import { check, CheckList, type Fact, type GuardCheck, type GuardVerdict } from './verdict.js';

export interface SelfReviewFacts {
  /** The verified login of the session (GET /user, or the sudo user). */
  identity: Fact<string>;
  pull: Fact<PullFacts>;
  /** The commit the verdict names (body.commit_id); null when it names none (the server then sets the live head). */
  expectedHeadSha?: string | null;
}

export function judgeSelfReview(facts: SelfReviewFacts): GuardVerdict {
  const named = facts.expectedHeadSha ?? null;
  const list = new CheckList().need({ identity: facts.identity, pull: facts.pull }, ({ identity, pull }) =>
    notAuthor('self_review', identity, pull, 'review'),
  );
  if (named !== null)
    list.need({ pull: facts.pull }, ({ pull }) =>
      named.toLowerCase() === pull.headSha.toLowerCase()
        ? check('review_head_mismatch', true, `The verdict names the live head ${pull.headSha}.`, 'pull')
        : check(
            'review_head_mismatch',
            false,
            `The verdict names ${named}, not the live head ${pull.headSha} of pull request #${pull.number}.`,
            'pull',
          ),
    );
  return list.verdict('self_review');
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
