// Organisations and their teams as the integrity labels read them: an organisation's profile, its
// teams (who may list which: organization.ApplyTeamListFilter), a team member, and a user's standing
// in an organisation (GetUserOrgsPermissions, from the highest access mode of their teams there).
import { requireSignedIn } from '../auth.js';
import { ok, type RequestContext, type Route } from '../context.js';
import { ApiError, notFound } from '../api-errors.js';
import { teamIdOf, type Account, type SandboxState, type Team } from '../model.js';
import { paginate } from '../list-paging.js';
import { presentOrganization, presentTeam, presentUser } from '../present.js';

const sameLogin = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

function orgParam(ctx: RequestContext): Account {
  const org = ctx.state.account(ctx.params.org ?? '');
  if (!org || !org.isOrg) throw notFound();
  return org;
}

interface TeamEntry {
  org: Account;
  team: Team;
  index: number;
}

function teamsOf(state: SandboxState, org: Account): TeamEntry[] {
  return (state.teams.get(org.login.toLowerCase()) ?? []).map((team, index) => ({ org, team, index }));
}

const isMemberOf = (state: SandboxState, org: Account, login: string): boolean =>
  teamsOf(state, org).some(({ team }) => team.members.some((m) => sameLogin(m, login)));

const isOwnerOf = (state: SandboxState, org: Account, login: string): boolean =>
  teamsOf(state, org).some(({ team }) => team.permission === 'owner' && team.members.some((m) => sameLogin(m, login)));

/**
 * organization.ApplyTeamListFilter: site admins and the organisation's owners see every team; anyone
 * else sees the teams they are in, plus limited and public teams when they are a member of the
 * organisation, plus public teams when they are merely signed in.
 */
function visibleTo(state: SandboxState, entry: TeamEntry, viewer: Account): boolean {
  if (viewer.isAdmin || isOwnerOf(state, entry.org, viewer.login)) return true;
  if (entry.team.members.some((m) => sameLogin(m, viewer.login))) return true;
  const visibility = entry.team.visibility ?? 'private';
  if (visibility === 'public') return true;
  return visibility === 'limited' && isMemberOf(state, entry.org, viewer.login);
}

/** The team a `/teams/{id}` path names, when the caller may see it (GetTeam answers 404 otherwise). */
function teamParam(ctx: RequestContext): TeamEntry {
  const viewer = requireSignedIn(ctx.caller);
  const id = Number(ctx.params.id);
  for (const account of ctx.state.accounts.values()) {
    if (!account.isOrg) continue;
    const entry = teamsOf(ctx.state, account).find((candidate) => teamIdOf(account, candidate.index) === id);
    if (entry) {
      if (!visibleTo(ctx.state, entry, viewer)) throw notFound();
      return entry;
    }
  }
  throw notFound();
}

/** GetOrgUserMaxAuthorizeLevel: the highest access mode of the user's teams in the organisation. */
function maxAuthorizeLevel(state: SandboxState, org: Account, login: string): number {
  const rank = { read: 1, write: 2, admin: 3, owner: 4 } as const;
  let best = 0;
  for (const { team } of teamsOf(state, org))
    if (team.members.some((m) => sameLogin(m, login))) best = Math.max(best, rank[team.permission]);
  return best;
}

export const orgRoutes: Route[] = [
  // org.Get (routers/api/v1/org/org.go): the e-mail is left out for anonymous callers.
  {
    method: 'GET',
    path: '/orgs/{org}',
    operationId: 'orgGet',
    handler: (ctx) => ok(presentOrganization(ctx.state, orgParam(ctx), ctx.caller.doer)),
  },
  // org.ListTeams: the organisation's teams the caller may list, without their organisation (convert.ToTeams(teams, false)).
  {
    method: 'GET',
    path: '/orgs/{org}/teams',
    operationId: 'orgListTeams',
    handler: (ctx) => {
      const viewer = requireSignedIn(ctx.caller);
      const org = orgParam(ctx);
      const teams = teamsOf(ctx.state, org).filter((entry) => visibleTo(ctx.state, entry, viewer));
      return paginate(ctx, teams, (page) =>
        page.map(({ team, index }) => presentTeam(ctx.state, org, team, index, viewer, false)),
      );
    },
  },
  // org.SearchTeam: `q` matches the name, and the description unless include_desc=false; {ok, data}.
  {
    method: 'GET',
    path: '/orgs/{org}/teams/search',
    operationId: 'teamSearch',
    handler: (ctx) => {
      const viewer = requireSignedIn(ctx.caller);
      const org = orgParam(ctx);
      const keyword = (ctx.query.get('q') ?? '').trim().toLowerCase();
      const includeDesc = ctx.query.get('include_desc') !== 'false';
      const teams = teamsOf(ctx.state, org).filter(
        (entry) =>
          visibleTo(ctx.state, entry, viewer) &&
          (keyword === '' ||
            entry.team.name.toLowerCase().includes(keyword) ||
            (includeDesc && (entry.team.description ?? '').toLowerCase().includes(keyword))),
      );
      return paginate(ctx, teams, (page) => ({
        ok: true,
        data: page.map(({ team, index }) => presentTeam(ctx.state, org, team, index, viewer, false)),
      }));
    },
  },
  // org.GetTeam: the team with its organisation.
  {
    method: 'GET',
    path: '/teams/{id}',
    operationId: 'orgGetTeam',
    handler: (ctx) => {
      const { org, team, index } = teamParam(ctx);
      return ok(presentTeam(ctx.state, org, team, index, ctx.caller.doer, true));
    },
  },
  // org.GetTeamMember: the user when a member of the team (organization.IsUserInTeams), else 404.
  {
    method: 'GET',
    path: '/teams/{id}/members/{username}',
    operationId: 'orgListTeamMember',
    handler: (ctx) => {
      const { team } = teamParam(ctx);
      const user = ctx.state.account(ctx.params.username ?? '');
      if (!user || user.isOrg || !team.members.some((m) => sameLogin(m, user.login))) throw notFound();
      return ok(presentUser(ctx.state, user, ctx.caller.doer));
    },
  },
  // org.GetUserOrgsPermissions: told to anyone signed in who can see the organisation.
  {
    method: 'GET',
    path: '/users/{username}/orgs/{org}/permissions',
    operationId: 'orgGetUserPermissions',
    handler: (ctx) => {
      requireSignedIn(ctx.caller);
      const user = ctx.state.account(ctx.params.username ?? '');
      if (!user) throw notFound('GetUserByName');
      const org = ctx.state.account(ctx.params.org ?? '');
      if (!org) throw notFound('GetUserByName');
      if (!org.isOrg) throw new ApiError(404, 'not an organization');
      const level = maxAuthorizeLevel(ctx.state, org, user.login);
      return ok({
        is_owner: level > 3,
        is_admin: level > 2,
        can_write: level > 1,
        can_read: level > 0,
        can_create_repository: level > 3,
      });
    },
  },
];
