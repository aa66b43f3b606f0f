// History: commit list of a ref, one commit, and compare `base...head` (the commits head has that
// base lacks, each with the files it changed; none means head is already contained in base, or that
// the two share no history).
import { ok, type RequestContext, type Route } from '../context.js';
import { ApiError, notFound } from '../api-errors.js';
import { ancestors, commitsBetween, type Commit, type Repo } from '../model.js';
import { paginate } from '../list-paging.js';
import { presentCommit } from '../present.js';
import { compareHead, pathRepo, resolveRef } from './lookup.js';

function history(repo: Repo, head: string): Commit[] {
  return [...ancestors(repo, head)]
    .map((sha) => repo.commits.get(sha) as Commit)
    .sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
}

function listCommits(ctx: RequestContext) {
  const repo = pathRepo(ctx);
  if (repo.branches.size === 0) throw new ApiError(409, 'Git Repository is empty.');
  const sha = resolveRef(repo, ctx.query.get('sha') || repo.defaultBranch);
  if (sha === undefined) throw notFound();
  const path = ctx.query.get('path');
  const commits = history(repo, sha).filter((c) => {
    if (!path) return true;
    const parent = repo.commits.get(c.parents[0] ?? '');
    return c.tree[path] !== parent?.tree[path];
  });
  return paginate(ctx, commits, (page) => page.map((c) => presentCommit(ctx.state, repo, c, ctx.caller.doer)));
}

/**
 * routers/api/v1/repo.CompareDiff: `base...head` (or `..`, or just `head` against the default branch);
 * head may be `owner:ref` of a fork (parseCompareInfo). The commits are git.GetCompareInfo's, newest
 * first, each as convert.ToCommit with its files (per-commit file lists, on by default).
 */
function compare(ctx: RequestContext) {
  const repo = pathRepo(ctx);
  const spec = ctx.params.basehead ?? '';
  const separator = spec.includes('...') ? '...' : spec.includes('..') ? '..' : null;
  const [baseRef = '', headSpec = ''] = separator ? spec.split(separator, 2) : [repo.defaultBranch, spec];
  const head = compareHead(ctx, repo, headSpec);
  const base = resolveRef(repo, baseRef);
  const headSha = resolveRef(head.repo, head.ref);
  if (base === undefined || headSha === undefined) throw notFound();
  const both: Repo = { ...repo, commits: new Map([...repo.commits, ...head.repo.commits]) };
  const commits = commitsBetween(both, base, headSha);
  return ok({
    total_commits: commits.length,
    commits: commits.map((c) => presentCommit(ctx.state, both, c, ctx.caller.doer)),
  });
}

export const commitRoutes: Route[] = [
  { method: 'GET', path: '/repos/{owner}/{repo}/commits', operationId: 'repoGetAllCommits', handler: listCommits },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/git/commits/{sha}',
    operationId: 'repoGetSingleCommit',
    handler: (ctx) => {
      const repo = pathRepo(ctx);
      const sha = resolveRef(repo, ctx.params.sha ?? '');
      if (sha === undefined) throw notFound();
      return ok(presentCommit(ctx.state, repo, repo.commits.get(sha) as Commit, ctx.caller.doer));
    },
  },
  { method: 'GET', path: '/repos/{owner}/{repo}/compare/{basehead}', operationId: 'repoCompareDiff', handler: compare },
];
