// Finding the things a path names (repository, issue, pull request) with Gitea's visibility rules.
import { accessLevel, repoFor, requireSignedIn } from '../auth.js';
import type { RequestContext } from '../context.js';
import { notFound, RepoRedirect } from '../api-errors.js';
import type { AccessLevel, Issue, PullState, Repo } from '../model.js';

export type PullIssue = Issue & { pull: PullState };

/** The path's repository at `wanted` level; above read the caller must be signed in first (Gitea's reqToken, 401). */
export function pathRepo(ctx: RequestContext, wanted: AccessLevel = 'read'): Repo {
  const owner = ctx.params.owner ?? '';
  const name = ctx.params.repo ?? '';
  if (!ctx.state.repo(owner, name)) redirectIfRenamed(ctx, owner, name);
  if (wanted !== 'read') requireSignedIn(ctx.caller);
  return repoFor(ctx.state, ctx.caller, owner, name, wanted);
}

/**
 * routers/api/v1.repoAssignment: a name no repository has now, but a renamed one had
 * (repo_model.LookupRedirect), answers 307 to the same path and query under the new name, for
 * every method, before any permission check (context.RedirectToRepo).
 */
function redirectIfRenamed(ctx: RequestContext, owner: string, name: string): void {
  const id = ctx.state.repoRedirects.get(`${owner}/${name}`.toLowerCase());
  const repo = id === undefined ? undefined : ctx.state.repoById(id);
  if (!repo) return;
  const from = `${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
  const path = ctx.pathname.replace(from, `${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.name)}`);
  const query = ctx.query.toString();
  throw new RepoRedirect(query === '' ? path : `${path}?${query}`);
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

const PULL_HEAD = /^refs\/pull\/(\d+)\/head$/;

/**
 * A ref resolved to a commit sha as git rev-parse does for Gitea's GetCommit: a branch, a tag,
 * refs/heads/..., refs/tags/..., refs/pull/N/head (the head a pull request of this repository last
 * had, kept in this repository for forks too), or a full commit sha this repository has.
 */
export function resolveRef(repo: Repo, ref: string): string | undefined {
  const pullHead = PULL_HEAD.exec(ref);
  if (pullHead) return repo.issues.find((i) => i.number === Number(pullHead[1]))?.pull?.headSha;
  const short = ref.replace(/^refs\/(?:heads|tags)\//, '');
  return (
    repo.branches.get(ref) ??
    repo.tags.get(ref) ??
    (ref.startsWith('refs/heads/') ? repo.branches.get(short) : undefined) ??
    (ref.startsWith('refs/tags/') ? repo.tags.get(short) : undefined) ??
    (repo.commits.has(ref) ? ref : undefined)
  );
}

/**
 * The head side of a compare or a new pull request, as routers/api/v1/repo.parseCompareInfo reads
 * `[owner:]ref`: no owner is this repository; an owner is that owner's fork of this repository
 * (GetForkedRepo), or this repository's parent when that owner owns it; anything else is 404. The
 * caller must be able to read the head repository too. `owner/name:ref` names the repository itself.
 */
export function compareHead(ctx: RequestContext, base: Repo, head: string): { repo: Repo; ref: string } {
  const parts = head.split(':');
  if (parts.length === 1) return { repo: base, ref: head };
  if (parts.length !== 2) throw notFound();
  const [who = '', ref = ''] = parts;
  const { state } = ctx;
  let repo: Repo | undefined;
  if (who.includes('/')) {
    const [owner = '', name = ''] = who.split('/');
    repo = state.repo(owner, name);
    if (repo && repo !== base && repo.parentId !== base.id && base.parentId !== repo.id) repo = undefined;
  } else {
    const owner = state.account(who);
    if (!owner) throw notFound('GetUserByName');
    const sameOwner = owner.login.toLowerCase() === base.owner.toLowerCase();
    const parent = base.parentId === null ? undefined : state.repoById(base.parentId);
    const fork = state.repos.find((r) => r.parentId === base.id && r.owner.toLowerCase() === owner.login.toLowerCase());
    repo = sameOwner
      ? base
      : (fork ?? (parent && parent.owner.toLowerCase() === owner.login.toLowerCase() ? parent : undefined));
  }
  if (!repo || accessLevel(state, repo, ctx.caller.doer) === 'none') throw notFound('GetBaseRepo');
  return { repo, ref };
}
