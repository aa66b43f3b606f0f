// How Gitea records a submitted review verdict: who counts as official, what an earlier verdict of
// the same reviewer becomes, and whether the review is stale from the start. Shared by the review
// routes and the seed.
import { accessLevel, atLeast } from './auth.js';
import { pullDiffKey, type Repo, type Review, type ReviewState, type SandboxState } from './model.js';
import type { PullIssue } from './handlers/lookup.js';

/**
 * models/issues.IsOfficialReviewer: with no protection rule for the base branch, write access to
 * the code; with one, its approvals whitelist, which the sandbox's rules leave off (write access again).
 */
export function isOfficialReviewer(state: SandboxState, repo: Repo, login: string): boolean {
  return atLeast(accessLevel(state, repo, state.account(login) ?? null), 'write');
}

/**
 * models/issues.SubmitReview (and CreateReview): an APPROVED or REQUEST_CHANGES verdict clears
 * `official` on every earlier review of that reviewer and takes IsOfficialReviewer itself; a new
 * (not pending-turned-submitted) verdict also dismisses the reviewer's earlier verdicts. Stale is
 * services/pull.SubmitReview's: a commit other than the head, when the diff changed since it.
 */
export function recordVerdict(
  state: SandboxState,
  repo: Repo,
  pull: PullIssue,
  review: Review,
  fromPending: boolean,
): void {
  const verdict = review.state === 'APPROVED' || review.state === 'REQUEST_CHANGES';
  const earlier = pull.pull.reviews.filter((r) => r !== review && r.user === review.user);
  if (verdict) {
    for (const r of earlier) r.official = false;
    if (!fromPending) for (const r of earlier) if (isVerdict(r.state)) r.dismissed = true;
  }
  review.official = verdict && isOfficialReviewer(state, repo, review.user);
  review.stale = verdict && review.commitId !== pull.pull.headSha && contentChangedSince(repo, pull, review.commitId);
}

function isVerdict(state: ReviewState): boolean {
  return state === 'APPROVED' || state === 'REQUEST_CHANGES';
}

/** services/pull.checkIfPRContentChanged between a reviewed commit and the current head. */
function contentChangedSince(repo: Repo, pull: PullIssue, commit: string): boolean {
  if (!repo.commits.has(commit)) return true;
  const base = repo.branches.get(pull.pull.base) ?? pull.pull.mergeBase;
  return pullDiffKey(repo, base, commit) !== pullDiffKey(repo, base, pull.pull.headSha);
}
