// Branches (list, get, create, delete) and branch protections (list, get; repository admins only).
import { bodyObject, noContent, ok, stringField, type RequestContext, type Route } from '../context.js';
import { ApiError, forbidden, notFound } from '../errors.js';
import type { Repo, SandboxState } from '../model.js';
import { paginate } from '../pagination.js';
import { presentBranch, presentProtection, protectionFor, protectionNamed } from '../present.js';
import { pathRepo, resolveRef } from './lookup.js';

function createBranch(ctx: RequestContext) {
  const repo = pathRepo(ctx, 'write');
  const body = bodyObject(ctx);
  const name = stringField(body, 'new_branch_name') ?? '';
  if (name === '') throw new ApiError(422, '[NewBranchName]: Required');
  const from = stringField(body, 'old_ref_name') || stringField(body, 'old_branch_name') || repo.defaultBranch;
  const sha = resolveRef(repo, from);
  if (sha === undefined) throw notFound('The old branch does not exist');
  if (repo.branches.has(name)) throw new ApiError(409, 'The branch already exists.');
  ctx.state.moveBranch(repo, name, sha);
  return ok(presentBranch(ctx.state, repo, name, ctx.caller.doer), 201);
}

function deleteBranch(ctx: RequestContext) {
  const repo = pathRepo(ctx, 'write');
  const name = ctx.params.branch ?? '';
  if (!repo.branches.has(name)) throw notFound("Branch doesn't exist.");
  if (name === repo.defaultBranch) throw forbidden('can not delete default branch');
  if (protectionFor(repo, name)) throw forbidden('branch protected');
  deleteBranchClosingPulls(ctx.state, repo, name);
  return noContent();
}

/**
 * Deletes a branch and, as services/pull.CloseBranchPulls does, closes the unmerged open pull
 * requests whose head (GetUnmergedPullRequestsByHeadInfo) or base (...ByBaseInfo) it was.
 */
export function deleteBranchClosingPulls(state: SandboxState, repo: Repo, name: string): void {
  repo.branches.delete(name);
  repo.updated = state.timestamp();
  for (const issue of repo.issues) {
    const pull = issue.pull;
    if (!pull || pull.merged || issue.state !== 'open' || (pull.head !== name && pull.base !== name)) continue;
    const at = state.timestamp();
    Object.assign(issue, { state: 'closed', closedAt: at, updated: at });
  }
}

export const branchRoutes: Route[] = [
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/branches',
    operationId: 'repoListBranches',
    handler: (ctx) => {
      const repo = pathRepo(ctx);
      const names = [...repo.branches.keys()].sort();
      return paginate(ctx, names, (page) => page.map((n) => presentBranch(ctx.state, repo, n, ctx.caller.doer)));
    },
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/branches/{branch}',
    operationId: 'repoGetBranch',
    handler: (ctx) => {
      const repo = pathRepo(ctx);
      const name = ctx.params.branch ?? '';
      if (!repo.branches.has(name)) throw notFound('Branch not found');
      return ok(presentBranch(ctx.state, repo, name, ctx.caller.doer));
    },
  },
  { method: 'POST', path: '/repos/{owner}/{repo}/branches', operationId: 'repoCreateBranch', handler: createBranch },
  {
    method: 'DELETE',
    path: '/repos/{owner}/{repo}/branches/{branch}',
    operationId: 'repoDeleteBranch',
    handler: deleteBranch,
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/branch_protections',
    operationId: 'repoListBranchProtection',
    handler: (ctx) => {
      return ok(pathRepo(ctx, 'admin').protections.map(presentProtection));
    },
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/branch_protections/{name}',
    operationId: 'repoGetBranchProtection',
    handler: (ctx) => {
      const protection = protectionNamed(pathRepo(ctx, 'admin'), ctx.params.name ?? '');
      if (!protection) throw notFound();
      return ok(presentProtection(protection));
    },
  },
];
