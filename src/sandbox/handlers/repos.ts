// Repositories: get, edit (rename with Gitea's redirect from the old name), search, the per-user and
// per-organization lists, creation, forks and syncing a fork with its upstream.
import { accessLevel, memberLevel, requireSignedIn } from '../auth.js';
import { bodyObject, ok, stringField, type RequestContext, type Route } from '../context.js';
import { ApiError, forbidden, notFound, unprocessable } from '../api-errors.js';
import { mergeTrees } from '../merge.js';
import { ancestors, mergeBase, type Account, type Repo } from '../model.js';
import { paginate } from '../list-paging.js';
import { presentRepo } from '../present.js';
import { pathRepo } from './lookup.js';

function visibleRepos(ctx: RequestContext, keep: (repo: Repo) => boolean): Repo[] {
  return ctx.state.repos.filter((r) => keep(r) && accessLevel(ctx.state, r, ctx.caller.doer) !== 'none');
}

function listOf(ctx: RequestContext, repos: Repo[]) {
  return paginate(ctx, repos, (page) => page.map((r) => presentRepo(ctx.state, r, ctx.caller.doer)));
}

const sameLogin = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

function search(ctx: RequestContext) {
  const q = (ctx.query.get('q') ?? '').toLowerCase();
  const uid = Number(ctx.query.get('uid') ?? 0);
  const owner = uid > 0 ? [...ctx.state.accounts.values()].find((a) => a.id === uid) : undefined;
  if (uid > 0 && !owner) throw unprocessable('user not found');
  const repos = visibleRepos(
    ctx,
    (r) => r.name.toLowerCase().includes(q) && (owner === undefined || sameLogin(r.owner, owner.login)),
  );
  return paginate(ctx, repos, (page) => ({
    ok: true,
    data: page.map((r) => presentRepo(ctx.state, r, ctx.caller.doer)),
  }));
}

function createRepo(ctx: RequestContext, owner: Account) {
  const body = bodyObject(ctx);
  const name = stringField(body, 'name') ?? '';
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw unprocessable('[Name]: Required');
  if (ctx.state.repo(owner.login, name)) throw new ApiError(409, 'The repository with the same name already exists.');
  const state = ctx.state;
  const repo = state.addRepo({
    owner: owner.login,
    name,
    private: body.private === true,
    description: stringField(body, 'description') ?? '',
    defaultBranch: stringField(body, 'default_branch') || 'main',
  });
  if (body.auto_init === true) {
    const doer = ctx.caller.doer as Account;
    const commit = state.addCommit(repo, {
      parents: [],
      message: 'Initial commit',
      author: { name: doer.fullName || doer.login, email: doer.email, login: doer.login },
      date: repo.created,
      tree: { 'README.md': `# ${name}\n` },
    });
    repo.branches.set(repo.defaultBranch, commit.sha);
  }
  return ok(presentRepo(state, repo, ctx.caller.doer), 201);
}

/**
 * routers/api/v1/repo.Edit (repository admins): the fields set change. A new `name` is
 * repo_service.ChangeRepositoryName, which leaves a redirect from the old name (repo_model.NewRedirect):
 * the API then answers any request to the old name with 307 to the new one (context.RedirectToRepo).
 */
function editRepo(ctx: RequestContext) {
  const repo = pathRepo(ctx, 'admin');
  const body = bodyObject(ctx);
  const name = stringField(body, 'name');
  if (name !== undefined && name !== repo.name) {
    if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw unprocessable('[Name]: invalid repository name');
    const taken = ctx.state.repo(repo.owner, name);
    if (taken && taken !== repo) throw unprocessable('repo name is already taken');
    ctx.state.repoRedirects.set(`${repo.owner}/${repo.name}`.toLowerCase(), repo.id);
    ctx.state.repoRedirects.delete(`${repo.owner}/${name}`.toLowerCase());
    repo.name = name;
  }
  const description = stringField(body, 'description');
  if (description !== undefined) repo.description = description;
  if (typeof body.private === 'boolean') repo.private = body.private;
  const defaultBranch = stringField(body, 'default_branch');
  if (defaultBranch !== undefined) {
    if (!repo.branches.has(defaultBranch)) throw notFound('the default branch does not exist');
    repo.defaultBranch = defaultBranch;
  }
  if (typeof body.default_delete_branch_after_merge === 'boolean')
    repo.defaultDeleteBranchAfterMerge = body.default_delete_branch_after_merge;
  if (typeof body.allow_manual_merge === 'boolean') repo.allowManualMerge = body.allow_manual_merge;
  repo.updated = ctx.state.timestamp();
  return ok(presentRepo(ctx.state, repo, ctx.caller.doer));
}

/**
 * routers/api/v1/repo.CreateFork and repo_service.ForkRepository: a copy of the repository, its
 * commits and branches, owned by `organization` (whose owners or admins may create there) or the
 * caller, named `name` or like the parent, as private as the parent; 409 when the name is taken.
 */
function createFork(ctx: RequestContext) {
  const doer = requireSignedIn(ctx.caller);
  const parent = pathRepo(ctx);
  const body = bodyObject(ctx);
  const orgName = stringField(body, 'organization');
  let owner: Account = doer;
  if (orgName) {
    const org = ctx.state.account(orgName);
    if (!org || !org.isOrg) throw unprocessable('organization does not exist');
    if (!mayCreateInOrg(ctx, org, doer)) throw forbidden('User is no admin of this organization');
    owner = org;
  }
  const name = stringField(body, 'name') || parent.name;
  if (ctx.state.repo(owner.login, name)) throw new ApiError(409, 'The repository with the same name already exists.');
  const fork = ctx.state.addRepo({
    owner: owner.login,
    name,
    private: parent.private,
    description: parent.description,
    defaultBranch: parent.defaultBranch,
    parentId: parent.id,
  });
  for (const [sha, commit] of parent.commits) fork.commits.set(sha, commit);
  for (const [branch, sha] of parent.branches) fork.branches.set(branch, sha);
  return ok(presentRepo(ctx.state, fork, doer), 202);
}

/**
 * services/repository.MergeUpstream: the parent's branch of the same name (or its default branch when
 * it has none, GetUpstreamDivergingInfo) is pushed into the fork's branch as a fast-forward, or merged
 * into it with a merge commit (pull.Update); "up-to-date" when the parent brings nothing new.
 */
function mergeUpstream(ctx: RequestContext) {
  const doer = requireSignedIn(ctx.caller);
  const fork = pathRepo(ctx, 'write');
  const parent = fork.parentId === null ? undefined : ctx.state.repoById(fork.parentId);
  if (!parent) throw new ApiError(400, 'repo is not a fork');
  const body = bodyObject(ctx);
  const branch = stringField(body, 'branch') || fork.defaultBranch;
  const tip = fork.branches.get(branch);
  if (tip === undefined) throw notFound('branch does not exist');
  const upstream = parent.branches.get(branch) ?? parent.branches.get(parent.defaultBranch);
  if (upstream === undefined) throw notFound('upstream branch does not exist');
  for (const [sha, commit] of parent.commits) if (!fork.commits.has(sha)) fork.commits.set(sha, commit);
  if (ancestors(fork, tip).has(upstream)) return ok({ merge_type: 'up-to-date' });
  if (ancestors(fork, upstream).has(tip)) {
    ctx.state.moveBranch(fork, branch, upstream, doer.login);
    return ok({ merge_type: 'fast-forward' });
  }
  if (body.ff_only === true) throw new ApiError(400, 'merge upstream is not a fast-forward');
  const tree = (sha: string | null) => (sha ? (fork.commits.get(sha)?.tree ?? {}) : {});
  const merged = ctx.state.addCommit(fork, {
    parents: [tip, upstream],
    message: 'merge upstream',
    author: { name: doer.fullName || doer.login, email: doer.email, login: doer.login },
    date: ctx.state.timestamp(),
    tree: mergeTrees(tree(mergeBase(fork, tip, upstream)), tree(tip), tree(upstream)),
  });
  ctx.state.moveBranch(fork, branch, merged.sha, doer.login);
  return ok({ merge_type: 'merge' });
}

function mayCreateInOrg(ctx: RequestContext, org: Account, doer: Account): boolean {
  if (doer.isAdmin) return true;
  const teams = ctx.state.teams.get(org.login.toLowerCase()) ?? [];
  return teams.some(
    (t) => (t.permission === 'owner' || t.permission === 'admin') && t.members.some((m) => sameLogin(m, doer.login)),
  );
}

function accountParam(ctx: RequestContext, key: string, org: boolean): Account {
  const account = ctx.state.account(ctx.params[key] ?? '');
  if (!account || account.isOrg !== org) throw notFound();
  return account;
}

export const repoRoutes: Route[] = [
  { method: 'GET', path: '/repos/search', operationId: 'repoSearch', handler: search },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}',
    operationId: 'repoGet',
    handler: (ctx) => ok(presentRepo(ctx.state, pathRepo(ctx), ctx.caller.doer)),
  },
  {
    method: 'PATCH',
    path: '/repos/{owner}/{repo}',
    operationId: 'repoEdit',
    handler: editRepo,
  },
  // routers/api/v1/repo.ListForks: the forks the caller can see.
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/forks',
    operationId: 'listForks',
    handler: (ctx) => {
      const repo = pathRepo(ctx);
      return listOf(
        ctx,
        visibleRepos(ctx, (r) => r.parentId === repo.id),
      );
    },
  },
  { method: 'POST', path: '/repos/{owner}/{repo}/forks', operationId: 'createFork', handler: createFork },
  {
    method: 'POST',
    path: '/repos/{owner}/{repo}/merge-upstream',
    operationId: 'repoMergeUpstream',
    handler: mergeUpstream,
  },
  {
    method: 'GET',
    path: '/user/repos',
    operationId: 'userCurrentListRepos',
    handler: (ctx) => {
      const doer = requireSignedIn(ctx.caller);
      return listOf(
        ctx,
        visibleRepos(ctx, (r) => memberLevel(ctx.state, r, doer) !== 'none'),
      );
    },
  },
  {
    method: 'GET',
    path: '/users/{username}/repos',
    operationId: 'userListRepos',
    handler: (ctx) => {
      const user = accountParam(ctx, 'username', false);
      return listOf(
        ctx,
        visibleRepos(ctx, (r) => sameLogin(r.owner, user.login)),
      );
    },
  },
  {
    method: 'GET',
    path: '/orgs/{org}/repos',
    operationId: 'orgListRepos',
    handler: (ctx) => {
      const org = accountParam(ctx, 'org', true);
      return listOf(
        ctx,
        visibleRepos(ctx, (r) => sameLogin(r.owner, org.login)),
      );
    },
  },
  {
    method: 'POST',
    path: '/user/repos',
    operationId: 'createCurrentUserRepo',
    handler: (ctx) => createRepo(ctx, requireSignedIn(ctx.caller)),
  },
  {
    method: 'POST',
    path: '/orgs/{org}/repos',
    operationId: 'createOrgRepo',
    handler: (ctx) => {
      const doer = requireSignedIn(ctx.caller);
      const org = accountParam(ctx, 'org', true);
      if (!mayCreateInOrg(ctx, org, doer))
        throw forbidden('Given user is not allowed to create repository in organization.');
      return createRepo(ctx, org);
    },
  },
];
