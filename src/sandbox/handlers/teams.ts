// GET /user/teams (userListTeams): the teams of every organization the signed-in user is a member
// of, each with its organization, as Gitea's ListUserTeams answers (routers/api/v1/user/teams.go).
import { requireSignedIn } from '../auth.js';
import type { Route } from '../context.js';
import { paginate } from '../pagination.js';

const UNITS = [
  'repo.code',
  'repo.issues',
  'repo.pulls',
  'repo.releases',
  'repo.wiki',
  'repo.ext_wiki',
  'repo.ext_issues',
  'repo.projects',
  'repo.packages',
  'repo.actions',
];

export const teamRoutes: Route[] = [
  {
    method: 'GET',
    path: '/user/teams',
    operationId: 'userListTeams',
    handler: (ctx) => {
      const doer = requireSignedIn(ctx.caller);
      const login = doer.login.toLowerCase();
      const teams = [...ctx.state.teams.entries()].flatMap(([orgKey, list]) =>
        list
          .map((team, index) => ({ orgKey, team, index }))
          .filter(({ team }) => team.members.some((m) => m.toLowerCase() === login)),
      );
      return paginate(ctx, teams, (page) =>
        page.map(({ orgKey, team, index }) => {
          const org = ctx.state.account(orgKey);
          const access = team.permission === 'owner' ? 'admin' : team.permission;
          return {
            id: (org?.id ?? 0) * 1000 + index + 1,
            name: team.name,
            description: '',
            organization: org && {
              id: org.id,
              name: org.login,
              username: org.login,
              full_name: org.fullName,
              email: '',
              avatar_url: `${ctx.state.baseUrl}/avatars/${org.id}`,
              description: '',
              website: '',
              location: '',
              visibility: 'public',
              repo_admin_change_team_access: false,
            },
            includes_all_repositories: true,
            permission: team.permission,
            units: UNITS,
            units_map: Object.fromEntries(UNITS.map((u) => [u, access])),
            can_create_org_repo: team.permission === 'owner',
          };
        }),
      );
    },
  },
];
