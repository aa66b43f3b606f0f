// Packages of an owner: GET /packages/{owner} (Gitea routers/api/v1/packages/package.go ListPackages:
// every version of the owner's packages, Link and X-Total-Count headers) and GET
// /packages/{owner}/{type}/{name}/{version} (GetPackage). Each is converted by services/convert
// ToPackage: `repository` is the linked repository when the caller may access it, else null.
import { accessLevel } from '../auth.js';
import { ok, type RequestContext, type Route } from '../context.js';
import { notFound } from '../api-errors.js';
import type { Account, PackageVersion } from '../model.js';
import { paginate } from '../list-paging.js';
import { presentRepo, presentUser } from '../present.js';

function presentPackage(ctx: RequestContext, pkg: PackageVersion, owner: Account): Record<string, unknown> {
  const { state } = ctx;
  const viewer = ctx.caller.doer;
  const repo = pkg.repoId === null ? undefined : state.repos.find((r) => r.id === pkg.repoId);
  const creator = state.account(pkg.creator);
  return {
    id: pkg.id,
    owner: presentUser(state, owner, viewer),
    repository: repo && accessLevel(state, repo, viewer) !== 'none' ? presentRepo(state, repo, viewer) : null,
    creator: creator ? presentUser(state, creator, viewer) : null,
    type: pkg.type,
    name: pkg.name,
    version: pkg.version,
    created_at: pkg.created,
    html_url: `${state.baseUrl}/${owner.login}/-/packages/${pkg.type}/${pkg.name}/${pkg.version}`,
  };
}

function ownerParam(ctx: RequestContext): Account {
  const owner = ctx.state.account(ctx.params.owner ?? '');
  if (!owner) throw notFound();
  return owner;
}

function ownedBy(ctx: RequestContext, owner: Account): PackageVersion[] {
  return ctx.state.packages.filter((p) => p.owner.toLowerCase() === owner.login.toLowerCase());
}

export const packageRoutes: Route[] = [
  {
    method: 'GET',
    path: '/packages/{owner}',
    operationId: 'listPackages',
    handler: (ctx) => {
      const owner = ownerParam(ctx);
      const type = ctx.query.get('type') ?? '';
      const q = (ctx.query.get('q') ?? '').toLowerCase();
      const found = ownedBy(ctx, owner).filter(
        (p) => (type === '' || p.type === type) && p.name.toLowerCase().includes(q),
      );
      return paginate(ctx, found, (page) => page.map((p) => presentPackage(ctx, p, owner)));
    },
  },
  {
    method: 'GET',
    path: '/packages/{owner}/{type}/{name}/{version}',
    operationId: 'getPackage',
    handler: (ctx) => {
      const owner = ownerParam(ctx);
      const { type, name, version } = ctx.params;
      const pkg = ownedBy(ctx, owner).find((p) => p.type === type && p.name === name && p.version === version);
      if (!pkg) throw notFound();
      return ok(presentPackage(ctx, pkg, owner));
    },
  },
];
