// The write follows the proof immediately: a guarded action reads the branch tip and the pull request
// head again right before it deletes or closes, and refuses when either moved since the facts it was
// judged on were read. Gitea offers no compare-and-delete, so the window that remains is the time
// between that read and the write (docs/gitea-semantics.md).
import type { BranchFacts, PullFacts } from './guard-facts.js';
import { check, type Fact, type GuardCheck, type GuardVerdict } from './verdict.js';

export interface UnmovedFacts {
  /** The branch the proof was about: the tip it judged, and the branch read again right before the write. */
  branch?: { name: string; judged: string | null; now: Fact<BranchFacts> };
  /** The pull request the proof was about: the head it judged, and the pull request read again. */
  head: { number: number; judged: string | null; now: Fact<PullFacts> };
}

export function judgeUnmoved(facts: UnmovedFacts): GuardVerdict {
  const { branch, head } = facts;
  return {
    guard: 'unmoved',
    checks: [
      ...(branch ? [unmoved('branch_moved', `Branch ${branch.name}`, branch.judged, branch.now, (b) => b.sha)] : []),
      unmoved('head_moved', `The head of pull request #${head.number}`, head.judged, head.now, (p) => p.headSha),
    ],
  };
}

function unmoved<T>(
  code: 'branch_moved' | 'head_moved',
  what: string,
  judged: string | null,
  now: Fact<T>,
  sha: (value: T) => string,
): GuardCheck {
  if (!now.ok)
    return check(code, false, `${what} could not be read again right before the write: ${now.detail}`, 'recheck');
  const current = sha(now.value);
  return judged !== null && current.toLowerCase() === judged.toLowerCase()
    ? check(code, true, `${what} is still ${current}, read again right before the write.`, 'recheck')
    : check(code, false, `${what} moved from ${judged ?? 'unknown'} to ${current} after it was judged.`, 'recheck');
}
