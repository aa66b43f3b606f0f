// Merging a pull request the way `git merge --no-ff` records it: a commit on the base whose parents
// are the old base head and the pull request head, so the head becomes an ancestor of the base.
import { mergeBase, type Issue, type PullState, type Repo, type SandboxState, type Tree } from './model.js';

/** Three-way merge of snapshots: start from ours, apply what theirs changed since the merge base. */
export function mergeTrees(base: Tree, ours: Tree, theirs: Tree): Tree {
  const merged: Tree = { ...ours };
  for (const path of new Set([...Object.keys(base), ...Object.keys(theirs)])) {
    const before = base[path];
    const after = theirs[path];
    if (before === after) continue;
    if (after === undefined) delete merged[path];
    else merged[path] = after;
  }
  return merged;
}

export interface MergeRequest {
  doer: string;
  message: string;
  deleteBranch: boolean;
}

/** Records the merge commit, marks the pull request merged and closed, optionally deletes its head branch. */
export function mergePull(
  state: SandboxState,
  repo: Repo,
  issue: Issue & { pull: PullState },
  request: MergeRequest,
): string {
  const pull = issue.pull;
  const baseHead = repo.branches.get(pull.base);
  if (baseHead === undefined) throw new Error(`base branch ${pull.base} is missing`);
  const trees = (sha: string | null): Tree => (sha ? (repo.commits.get(sha)?.tree ?? {}) : {});
  const account = state.account(request.doer);
  const date = state.timestamp();
  const commit = state.addCommit(repo, {
    parents: [baseHead, pull.headSha],
    message: request.message,
    author: { name: account?.fullName || request.doer, email: account?.email ?? '', login: request.doer },
    date,
    tree: mergeTrees(trees(mergeBase(repo, baseHead, pull.headSha)), trees(baseHead), trees(pull.headSha)),
  });
  pull.mergeBase = mergeBase(repo, baseHead, pull.headSha) ?? baseHead;
  state.moveBranch(repo, pull.base, commit.sha);
  pull.merged = true;
  pull.mergedAt = date;
  pull.mergedBy = request.doer;
  pull.mergeCommitSha = commit.sha;
  issue.state = 'closed';
  issue.closedAt = date;
  issue.updated = date;
  if (request.deleteBranch) repo.branches.delete(pull.head);
  return commit.sha;
}
