// Deleting a branch is allowed only for the head branch of a merged pull request whose tip is proven
// to have landed on the target branch, that nothing protects or preserves, and that no open pull
// request uses as head or base (Gitea's CloseBranchPulls closes those when the branch goes). Every
// condition is judged; a missing fact fails closed. A person confirms the deletion afterwards, in the
// server's confirm stage (policies/confirmations.yaml), not through a phrase the model types here.
import micromatch from 'micromatch';
import { sameRepo, type BranchFacts, type LandingFacts, type OpenPull, type PullFacts } from './guard-facts.js';
import { landedCheck } from './landed-check.js';
import type { ReasonCode } from '../reasons.js';
import type { BranchPatterns } from './guard-settings.js';
import { check, CheckList, type Fact, type GuardCheck, type GuardVerdict } from './verdict.js';

export interface CleanupRequest {
  owner: string;
  repo: string;
  prNumber: number;
  branch: string;
}

export interface CleanupFacts {
  pull: Fact<PullFacts>;
  /** The PR's target branch, fetched fresh. */
  target: Fact<BranchFacts>;
  /** The branch to delete. */
  branch: Fact<BranchFacts>;
  /** Compare of the branch tip...target SHA: the ancestry evidence. */
  landing: Fact<LandingFacts>;
  /** Names/patterns of Gitea's branch protection rules; null when Gitea shows them to admins only. */
  protections: Fact<string[] | null>;
  /** Open pull requests of this repository, its parent and its forks. */
  openPulls: Fact<OpenPull[]>;
}

export function judgeCleanup(request: CleanupRequest, facts: CleanupFacts, patterns: BranchPatterns): GuardVerdict {
  const { branch: name } = request;
  const fullName = `${request.owner}/${request.repo}`;
  return (
    new CheckList()
      .need({ pull: facts.pull }, ({ pull }) => [
        check(
          'branch_not_pr_head',
          pull.headRef === name,
          `Pull request #${pull.number} has head branch ${pull.headRef}; asked to delete ${name}.`,
          'pull',
        ),
        sameRepo(pull.headRepo, fullName)
          ? check('head_repo_mismatch', true, `The head branch lives in ${fullName}.`, 'pull')
          : check(
              'head_repo_mismatch',
              false,
              `The head branch lives in ${pull.headRepo ?? 'an unknown repository'}, not ${fullName}.`,
              'pull',
            ),
        check(
          'pr_not_merged',
          pull.merged,
          `Pull request #${pull.number} is ${pull.merged ? 'merged' : `${pull.state} and not merged`}.`,
          'pull',
        ),
      ])
      // The branch's own tip is what the deletion would lose: it, not the PR's head.sha, must have landed.
      .need(
        { pull: facts.pull, target: facts.target, branch: facts.branch, landing: facts.landing },
        ({ pull, target, branch, landing }) =>
          pull.baseRef === target.name
            ? landedCheck(branch.sha, `Branch ${name} tip`, target, landing)
            : check(
                'head_not_landed',
                false,
                `The target branch read (${target.name}) is not the pull request's base ${pull.baseRef}.`,
                'target',
              ),
      )
      .need({ branch: facts.branch, protections: facts.protections }, ({ branch, protections }) =>
        giteaProtection(branch, protections),
      )
      .add(
        patternCheck(
          'branch_protected_by_policy',
          name,
          patterns.protected_branches,
          'protected_branches',
          'policies/targets.yaml',
        ),
      )
      .add(
        patternCheck(
          'branch_preserved',
          name,
          patterns.preserved_refs,
          'cleanup.preserved_refs',
          'policies/guards.yaml',
        ),
      )
      .need({ openPulls: facts.openPulls }, ({ openPulls }) => inUseCheck(name, fullName, openPulls))
      .verdict('cleanup_branch')
  );
}

// Gitea sets the branch's flag from its own rule matching; the rule list, when visible, is matched too.
function giteaProtection(branch: BranchFacts, rules: string[] | null): GuardCheck {
  const matching = (rules ?? []).filter((rule) => micromatch.isMatch(branch.name, rule, { nocase: true }));
  if (branch.protected || matching.length > 0) {
    const by = matching.length > 0 ? `rule(s) ${matching.join(', ')}` : 'its protected flag';
    return check('branch_protected', false, `Gitea protects branch ${branch.name} (${by}).`, ['branch', 'protections']);
  }
  const judgedBy =
    rules === null
      ? 'its protected flag (the rule list is visible to repository admins only)'
      : 'its protected flag and the protection rules';
  return check('branch_protected', true, `Gitea does not protect branch ${branch.name}, judged by ${judgedBy}.`, [
    'branch',
    'protections',
  ]);
}

function patternCheck(code: ReasonCode, name: string, patterns: string[], setting: string, file: string): GuardCheck {
  const matching = patterns.filter((pattern) => micromatch.isMatch(name, pattern));
  return matching.length > 0
    ? check(code, false, `Branch ${name} matches ${setting} ${matching.join(', ')} in ${file}.`)
    : check(code, true, `Branch ${name} matches no ${setting} pattern.`);
}

/**
 * CloseBranchPulls closes the unmerged pull requests whose head is the branch of this repository (in
 * any base repository) and those whose base is the branch. A head in an unknown repository might be
 * this one: counted as in use.
 */
function inUseCheck(name: string, fullName: string, openPulls: OpenPull[]): GuardCheck {
  const users = openPulls.flatMap((p) => {
    const label = sameRepo(p.repo, fullName) ? `#${p.number}` : `${p.repo}#${p.number}`;
    const asHead = p.headRef === name && (p.headRepo === null || sameRepo(p.headRepo, fullName));
    const asBase = p.baseRef === name && sameRepo(p.repo, fullName);
    return [...(asHead ? [`${label} (head)`] : []), ...(asBase ? [`${label} (base)`] : [])];
  });
  return users.length > 0
    ? check(
        'branch_in_use',
        false,
        `Open pull request(s) ${users.join(', ')} use ${name}; Gitea would close them with the branch.`,
        'openPulls',
      )
    : check('branch_in_use', true, `No open pull request uses ${name} as head or base.`, 'openPulls');
}
