// Repositories: get, search, the per-user and per-organization lists, and creation.
import { accessLevel, memberLevel, requireSignedIn } from '../auth.js';
import { bodyObject, ok, stringField, type RequestContext, type Route } from '../context.js';
import { ApiError, forbidden, notFound, unprocessable } from '../errors.js';
import type { Account, Repo } from '../model.js';
import { paginate } from '../pagination.js';
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
  // routers/api/v1/repo.ListForks: the sandbox models no forks, so the list is always empty.
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/forks',
    operationId: 'listForks',
    handler: (ctx) => (pathRepo(ctx), listOf(ctx, [])),
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
