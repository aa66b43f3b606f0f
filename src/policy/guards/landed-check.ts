// "This commit has landed on the target branch": proven only by ancestry. Gitea's compare
// commit...target lists the commits reachable from the target and not from the commit, and lists
// nothing when the two share no history (git.GetCompareInfo without a merge base), so "0 commits
// ahead" is no proof. The proof is positive: the commit is the target's tip, or it is a parent of a
// commit the compare lists, which the target reaches. A squash or rebase merge copies the commits,
// so their branches are never proven landed (docs/gitea-semantics.md).
import type { BranchFacts, LandingFacts } from './guard-facts.js';
import { check, type GuardCheck } from './verdict.js';

export function landedCheck(commit: string, what: string, target: BranchFacts, landing: LandingFacts): GuardCheck {
  const about = `${what} ${commit} on ${target.name} at ${target.sha}`;
  const facts = ['target', 'landing'] as const;
  if (
    landing.commit.toLowerCase() !== commit.toLowerCase() ||
    landing.target.toLowerCase() !== target.sha.toLowerCase()
  ) {
    return check('head_not_landed', false, `The compare evidence does not match ${about}; refusing to judge from it.`, [
      ...facts,
    ]);
  }
  if (commit.toLowerCase() === target.sha.toLowerCase()) {
    return check('head_not_landed', true, `${capitalized(about)}: it is the target's tip.`, [...facts]);
  }
  const child = landing.commits.find((c) => c.parents.some((p) => p.toLowerCase() === commit.toLowerCase()));
  return child
    ? check(
        'head_not_landed',
        true,
        `${capitalized(about)}: it is a parent of ${child.sha}, which ${target.name} contains.`,
        [...facts],
      )
    : check(
        'head_not_landed',
        false,
        `${capitalized(about)}: not proven on the target branch (no commit ${target.name} contains has it as a parent` +
          `${landing.commits.length === 0 ? '; Gitea lists no commits, as it does for unrelated histories' : ''}).`,
        [...facts],
      );
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
