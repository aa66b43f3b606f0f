// Branches (list, get, create, point at a commit, rename, delete) and branch protections (list, get;
// repository admins only).
import { accessLevel, atLeast, requireSignedIn } from '../auth.js';
import { bodyObject, noContent, ok, stringField, type RequestContext, type Route } from '../context.js';
import { ApiError, conflict, forbidden, notFound, unprocessable } from '../api-errors.js';
import { ancestors, type Repo, type SandboxState } from '../model.js';
import { paginate } from '../list-paging.js';
import { presentBranch, presentProtection, protectionFor, protectionNamed } from '../present.js';
import { pathRepo, resolveRef } from './lookup.js';

/**
 * routers/api/v1/repo.CreateBranch: from old_ref_name (any ref GetCommit resolves: a branch, a tag, a
 * commit, refs/pull/N/head of a fork's pull request), else old_branch_name, else the default branch;
 * repo_service.CreateNewBranchFromCommit pushes it, so the pre-receive hook's protection applies.
 */
function createBranch(ctx: RequestContext) {
  const repo = pathRepo(ctx, 'write');
  const body = bodyObject(ctx);
  const name = stringField(body, 'new_branch_name') ?? '';
  if (name === '') throw new ApiError(422, '[NewBranchName]: Required');
  const from = stringField(body, 'old_ref_name') || stringField(body, 'old_branch_name') || repo.defaultBranch;
  const sha = resolveRef(repo, from);
  if (sha === undefined) throw notFound('The old branch does not exist');
  if (repo.tags.has(name)) throw conflict('The branch with the same tag already exists.');
  if (repo.branches.has(name)) throw new ApiError(409, 'The branch already exists.');
  refusePush(repo, name);
  ctx.state.moveBranch(repo, name, sha, ctx.caller.doer?.login);
  return ok(presentBranch(ctx.state, repo, name, ctx.caller.doer), 201);
}

/** The pre-receive hook (routers/private/hook_pre_receive.go): a protected branch takes pushes only when its rule enables them. */
function refusePush(repo: Repo, branch: string): void {
  const protection = protectionFor(repo, branch);
  if (protection && !protection.enablePush) throw forbidden(`branch ${branch} is protected from pushes`);
}

/**
 * PUT /branches/{branch} (new in 1.27): point the branch at new_commit_id, any ref the repository
 * resolves; old_commit_id, when given, must be the current tip (409), and a move that is not a
 * fast-forward needs force (409). It is a push: the protection of the branch applies, and the pull
 * requests following the branch move with it.
 */
function updateBranch(ctx: RequestContext) {
  const doer = requireSignedIn(ctx.caller);
  const repo = pathRepo(ctx, 'write');
  const name = ctx.params.branch ?? '';
  const tip = repo.branches.get(name);
  if (tip === undefined) throw notFound("Branch doesn't exist.");
  const body = bodyObject(ctx);
  const target = stringField(body, 'new_commit_id') ?? '';
  if (target === '') throw unprocessable('[NewCommitID]: Required');
  const sha = resolveRef(repo, target);
  if (sha === undefined) throw notFound('the new commit does not exist');
  const expected = stringField(body, 'old_commit_id');
  if (expected && expected !== tip) throw conflict('the branch has moved: old_commit_id is not its tip');
  if (!ancestors(repo, sha).has(tip) && body.force !== true) throw conflict('not a fast-forward; pass force');
  refusePush(repo, name);
  ctx.state.moveBranch(repo, name, sha, doer.login);
  return noContent();
}

/**
 * PATCH /branches/{branch}: services/repository.RenameBranch and models/git.RenameBranch. The new name
 * must be free (422); only repository admins rename the default branch. Gitea judges protection by
 * the old name alone: a rule named exactly like it moves to the new name, a glob rule that matches it
 * refuses (ErrBranchIsProtected); the new name is not checked, and no hook runs (no push happens).
 * The default branch and the base of open pull requests follow the rename.
 */
function renameBranch(ctx: RequestContext) {
  const doer = requireSignedIn(ctx.caller);
  const repo = pathRepo(ctx, 'write');
  const from = ctx.params.branch ?? '';
  const to = stringField(bodyObject(ctx), 'name') ?? '';
  if (to === '') throw unprocessable('[Name]: Required');
  if (from === to || repo.branches.has(to))
    throw unprocessable('Cannot rename a branch using the same name or rename to a branch that already exists.');
  const sha = repo.branches.get(from);
  if (sha === undefined) throw notFound("Branch doesn't exist.");
  if (from === repo.defaultBranch && !atLeast(accessLevel(ctx.state, repo, doer), 'admin'))
    throw forbidden('only repository administrators can rename the default branch');
  const exact = repo.protections.find((p) => p.ruleName === from);
  if (exact) exact.ruleName = to;
  else if (protectionFor(repo, from)) throw forbidden('branch is protected by a glob protection rule');
  repo.branches.delete(from);
  repo.branches.set(to, sha);
  if (repo.defaultBranch === from) repo.defaultBranch = to;
  for (const issue of repo.issues)
    if (issue.pull && !issue.pull.merged && issue.pull.base === from) issue.pull.base = to;
  repo.updated = ctx.state.timestamp();
  return noContent();
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
    method: 'PUT',
    path: '/repos/{owner}/{repo}/branches/{branch}',
    operationId: 'repoUpdateBranch',
    handler: updateBranch,
  },
  {
    method: 'PATCH',
    path: '/repos/{owner}/{repo}/branches/{branch}',
    operationId: 'repoRenameBranch',
    handler: renameBranch,
  },
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
