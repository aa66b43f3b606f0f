// Permission lookups as Gitea answers them: a user's access to a repository, told only to site
// admins, repository admins and the user themself.
import { accessLevel, memberLevel, requireSignedIn } from '../auth.js';
import { noContent, ok, type RequestContext, type Route } from '../context.js';
import { forbidden, notFound, unprocessable } from '../api-errors.js';
import type { Account, Repo, SandboxState } from '../model.js';
import { presentUser } from '../present.js';
import { pathRepo } from './lookup.js';

/** access_model.GetUserRepoPermission: site admins get admin, owners (and org owners) owner. */
function permissionOf(state: SandboxState, repo: Repo, user: Account): 'none' | 'read' | 'write' | 'admin' | 'owner' {
  if (user.isAdmin) return 'admin';
  if (user.login.toLowerCase() === repo.owner.toLowerCase()) return 'owner';
  const teams = state.teams.get(repo.owner.toLowerCase()) ?? [];
  const ownerTeam = teams.some(
    (t) => t.permission === 'owner' && t.members.some((m) => m.toLowerCase() === user.login.toLowerCase()),
  );
  return ownerTeam ? 'owner' : accessLevel(state, repo, user);
}

/** GetRepoPermissions (routers/api/v1/repo/collaborators.go), answered with ToUserAndPermission. */
function getRepoPermissions(ctx: RequestContext) {
  const doer = requireSignedIn(ctx.caller);
  const repo = pathRepo(ctx);
  const name = ctx.params.collaborator ?? '';
  const repoAdmin = memberLevel(ctx.state, repo, doer) === 'admin';
  if (!doer.isAdmin && doer.login.toLowerCase() !== name.toLowerCase() && !repoAdmin) {
    throw forbidden(
      'Only admins can query all permissions, repo admins can query all repo permissions, collaborators can query only their own',
    );
  }
  const user = ctx.state.account(name);
  if (!user || user.isOrg) throw notFound('user does not exist');
  const permission = permissionOf(ctx.state, repo, user);
  return ok({ permission, role_name: permission, user: presentUser(ctx.state, user, doer) });
}

/**
 * IsMember (routers/api/v1/org/member.go): for a caller who is a member (or a site admin), 204 for a
 * member and 404 for anyone else; a caller outside the organization is sent to public membership (303).
 */
function isMember(ctx: RequestContext) {
  const doer = requireSignedIn(ctx.caller);
  const org = ctx.state.account(ctx.params.org ?? '');
  if (!org || !org.isOrg) throw notFound();
  const user = ctx.state.account(ctx.params.username ?? '');
  if (!user) throw notFound('user does not exist');
  const teams = ctx.state.teams.get(org.login.toLowerCase()) ?? [];
  const memberOf = (login: string) => teams.some((t) => t.members.some((m) => m.toLowerCase() === login.toLowerCase()));
  if (!doer.isAdmin && !memberOf(doer.login)) {
    const location = `${ctx.state.baseUrl}/api/v1/orgs/${org.login}/public_members/${user.login}`;
    return { status: 303, headers: { location } };
  }
  if (!memberOf(user.login)) throw notFound();
  return noContent();
}

/**
 * IsCollaborator (routers/api/v1/repo/collaborators.go), behind reqAnyRepoReader: 204 when the user is
 * an explicit collaborator of the repository (repo_model.IsCollaborator: not its owner, not a team
 * member), 404 when not, 422 when no such user exists.
 */
function isCollaborator(ctx: RequestContext) {
  requireSignedIn(ctx.caller);
  const repo = pathRepo(ctx);
  const user = ctx.state.account(ctx.params.collaborator ?? '');
  if (!user) throw unprocessable(`user does not exist [uid: 0, name: ${ctx.params.collaborator ?? ''}]`);
  const collaborator = [...repo.collaborators.keys()].some((login) => login.toLowerCase() === user.login.toLowerCase());
  if (!collaborator) throw notFound();
  return noContent();
}

export const collaboratorRoutes: Route[] = [
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/collaborators/{collaborator}/permission',
    operationId: 'repoGetRepoPermissions',
    handler: getRepoPermissions,
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/collaborators/{collaborator}',
    operationId: 'repoCheckCollaborator',
    handler: isCollaborator,
  },
  { method: 'GET', path: '/orgs/{org}/members/{username}', operationId: 'orgIsMember', handler: isMember },
];
