// Where a role acts on its own pull requests only (policies/roles.yaml own_pull_requests: the author
// retitles and closes its own, never someone else's), the poster is read live from the pull request
// (user.login) and compared with the session's verified login. Gitea itself lets any writer edit or
// close any pull request (EditPullRequest: the poster or CanWrite(pull requests)).
import { sameLogin, type PullFacts } from './guard-facts.js';
import { check, CheckList, type Fact, type GuardVerdict } from './verdict.js';

export interface OwnershipFacts {
  /** The verified login of the session. */
  identity: Fact<string>;
  pull: Fact<PullFacts>;
}

export function judgeOwnership(facts: OwnershipFacts): GuardVerdict {
  return new CheckList()
    .need({ identity: facts.identity, pull: facts.pull }, ({ identity, pull }) => {
      if (pull.author === null)
        return check('pr_author_unknown', false, `Gitea did not report the poster of pull request #${pull.number}.`);
      return sameLogin(identity, pull.author)
        ? check('own_pull_request', true, `${identity} opened pull request #${pull.number}.`)
        : check(
            'own_pull_request',
            false,
            `pull request #${pull.number} was opened by ${pull.author} (live: user.login), ` +
              `not by ${identity}; this role edits and closes its own pull requests only.`,
          );
    })
    .verdict('ownership');
}
