// The facts the guards judge, as gathered live from Gitea by src/gitea/facts.ts. Plain data, already
// checked for shape: a value here was present in Gitea's answer.

export interface PullFacts {
  number: number;
  /** user.login; null when Gitea did not report it (a guard that needs it fails closed). */
  author: string | null;
  state: string;
  merged: boolean;
  headSha: string;
  headRef: string;
  /** head.repo.full_name; null when the head repository is gone or not reported. */
  headRepo: string | null;
  baseRef: string;
}

export interface ReviewFact {
  reviewer: string | null;
  /** APPROVED, REQUEST_CHANGES, COMMENT, PENDING, REQUEST_REVIEW. */
  state: string;
  commitId: string | null;
  stale: boolean;
  dismissed: boolean;
}

export interface BranchFacts {
  name: string;
  /** The branch's current tip. */
  sha: string;
  /** Gitea's own `protected` flag for the branch. */
  protected: boolean;
}

export interface CompareFacts {
  base: string;
  head: string;
  /** Commits reachable from head but not from base: 0 means head is an ancestor of base. */
  aheadBy: number;
}

/** An open pull request's head, to know whether a branch is still in use. */
export interface OpenPullHead {
  number: number;
  headRef: string;
  headRepo: string | null;
}

/** Gitea logins are case-insensitive. */
export function sameLogin(a: string | null, b: string | null): boolean {
  return a !== null && b !== null && a.toLowerCase() === b.toLowerCase();
}

export function isOpen(pull: PullFacts): boolean {
  return pull.state === 'open' && !pull.merged;
}
