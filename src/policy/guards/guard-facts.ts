// The facts the guards judge, as gathered live from Gitea by src/gitea/facts.ts. Plain data, already
// checked for shape: a value here was present in Gitea's answer. docs/gitea-semantics.md says what
// Gitea 1.27 means by each one.

export interface PullFacts {
  number: number;
  /** user.login; null when Gitea did not report it (a guard that needs it fails closed). */
  author: string | null;
  state: string;
  merged: boolean;
  /**
   * head.sha: the live tip of the head branch while it exists, for a merged pull request too
   * (convert.ToAPIPullRequest), refs/pull/N/head once it is deleted. Never "the head that was merged".
   */
  headSha: string;
  /** The head branch name: head.ref, or head.label once head.ref reads refs/pull/N/head. */
  headRef: string;
  /** False when Gitea reports head.ref as refs/pull/N/head: the head branch is gone. */
  headBranchExists: boolean;
  /** head.repo.full_name; null when the head repository is gone or not reported. */
  headRepo: string | null;
  baseRef: string;
  /** base.repo.full_name; null when not reported. */
  baseRepo: string | null;
}

export interface ReviewFact {
  /** Review id: Gitea numbers reviews in submission order, so the highest id is a reviewer's latest. */
  id: number;
  reviewer: string | null;
  /** APPROVED, REQUEST_CHANGES, COMMENT, PENDING, REQUEST_REVIEW. */
  state: string;
  /** Whatever the reviewer sent (CreatePullReview defaults only an empty one to the head): not proof it was the head. */
  commitId: string | null;
  /** Gitea's content-based flag: the pull request's diff changed since this review's commit. */
  stale: boolean;
  dismissed: boolean;
  /** Set by SubmitReview from IsOfficialReviewer, and cleared on the reviewer's earlier reviews. */
  official: boolean;
}

export interface BranchFacts {
  name: string;
  /** The branch's current tip. */
  sha: string;
  /** Gitea's own `protected` flag for the branch. */
  protected: boolean;
}

/** The repository settings a guard reads (GET /repos/{owner}/{repo}). */
export interface RepositoryFacts {
  fullName: string;
  /** What Gitea does when a merge names no delete_branch_after_merge (ShouldDeleteBranchAfterMerge). */
  defaultDeleteBranchAfterMerge: boolean;
  /** parent.full_name of a fork; null otherwise. */
  parent: string | null;
}

/**
 * The ancestry evidence for "commit has landed on target": Gitea's compare commit...target, which
 * lists the commits reachable from target and not from commit, each with its parents. It lists
 * nothing when the two share no history, so an empty list proves nothing by itself.
 */
export interface LandingFacts {
  /** The commit whose landing is proved. */
  commit: string;
  /** The target branch tip it is proved against. */
  target: string;
  /** The listed commits with their parents, newest first as Gitea lists them. */
  commits: Array<{ sha: string; parents: string[] }>;
}

/** An open pull request, from any repository of the fork network the API shows. */
export interface OpenPull {
  number: number;
  /** The repository the pull request lives in (its base repository). */
  repo: string;
  /** The head branch name (head.label, or head.ref while it is not refs/pull/N/head). */
  headRef: string;
  headRepo: string | null;
  baseRef: string;
}

/**
 * The entries of a pull request's timeline the merge guard reads, in Gitea's order (created, id):
 * every push (the head it left: the last of a pull_push's commit_ids, services/pull.CreatePushPullComment,
 * and the first one NewPullRequest records), every change of base (change_target_branch) and every
 * submitted review (its review_id). Other entries are left out.
 */
export type TimelineEntry =
  | { kind: 'push'; head: string }
  | { kind: 'retarget'; from: string; to: string }
  | { kind: 'review'; reviewId: number };

/** Gitea logins are case-insensitive. */
export function sameLogin(a: string | null, b: string | null): boolean {
  return a !== null && b !== null && a.toLowerCase() === b.toLowerCase();
}

/** Repository full names are case-insensitive in Gitea. */
export function sameRepo(a: string | null, b: string | null): boolean {
  return a !== null && b !== null && a.toLowerCase() === b.toLowerCase();
}

export function isOpen(pull: PullFacts): boolean {
  return pull.state === 'open' && !pull.merged;
}

/** Each live fact a guard reads, named as the endpoint and fields it comes from (a denial names the one it failed on). */
export const FACT_SOURCES = {
  identity: 'GET /user: login (the session identity; the sudo user when the call names one)',
  pull: 'GET /repos/{owner}/{repo}/pulls/{index}: user.login, state, merged, head.ref/label/sha/repo, base.ref/repo',
  reviews:
    'GET /repos/{owner}/{repo}/pulls/{index}/reviews, every page by X-Total-Count: user.login, state, official, stale, dismissed, commit_id',
  timeline:
    'GET /repos/{owner}/{repo}/issues/{index}/timeline, every page: type, body (pull_push commit_ids), old_ref/new_ref, review_id, in order',
  repository: 'GET /repos/{owner}/{repo}: default_delete_branch_after_merge, parent',
  target: 'GET /repos/{owner}/{repo}/branches/{base}: commit.id',
  branch: 'GET /repos/{owner}/{repo}/branches/{branch}: commit.id, protected',
  recheck:
    'GET /repos/{owner}/{repo}/branches/{branch} and /pulls/{index}, read again right before the write: commit.id, head.sha',
  landing: 'GET /repos/{owner}/{repo}/compare/{commit}...{target}: commits[].sha, commits[].parents[].sha',
  protections: 'GET /repos/{owner}/{repo}/branch_protections: rule_name',
  openPulls:
    'GET /repos/{owner}/{repo}/pulls?state=open of the repository, its parent and its forks: head.label/ref/repo, base.ref',
} as const;

export type FactName = keyof typeof FACT_SOURCES;
