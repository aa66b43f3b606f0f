// Finding the things a path names (repository, issue, pull request) with Gitea's visibility rules.
import { repoFor, requireSignedIn } from '../auth.js';
import type { RequestContext } from '../context.js';
import { notFound } from '../errors.js';
import type { AccessLevel, Issue, PullState, Repo } from '../model.js';

export type PullIssue = Issue & { pull: PullState };

/** The path's repository at `wanted` level; above read the caller must be signed in first (Gitea's reqToken, 401). */
export function pathRepo(ctx: RequestContext, wanted: AccessLevel = 'read'): Repo {
  if (wanted !== 'read') requireSignedIn(ctx.caller);
  return repoFor(ctx.state, ctx.caller, ctx.params.owner ?? '', ctx.params.repo ?? '', wanted);
}

function indexParam(ctx: RequestContext): number {
  const index = Number(ctx.params.index);
  if (!Number.isInteger(index) || index < 1) throw notFound();
  return index;
}

export function pathIssue(ctx: RequestContext, repo: Repo): Issue {
  const number = indexParam(ctx);
  const issue = repo.issues.find((i) => i.number === number);
  if (!issue) throw notFound();
  return issue;
}

export function pathPull(ctx: RequestContext, repo: Repo): PullIssue {
  const issue = pathIssue(ctx, repo);
  if (!issue.pull) throw notFound();
  return issue as PullIssue;
}

/** A branch name or a full commit sha, resolved to a commit sha. */
export function resolveRef(repo: Repo, ref: string): string | undefined {
  return repo.branches.get(ref) ?? (repo.commits.has(ref) ? ref : undefined);
}
