// GET /user/teams (userListTeams): the teams of every organization the signed-in user is a member
// of, each with its organization, as Gitea's ListUserTeams answers (routers/api/v1/user/teams.go).
import { requireSignedIn } from '../auth.js';
import type { Route } from '../context.js';
import { paginate } from '../list-paging.js';
import { presentTeam } from '../present.js';

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
        page.flatMap(({ orgKey, team, index }) => {
          const org = ctx.state.account(orgKey);
          return org ? [presentTeam(ctx.state, org, team, index, doer, true)] : [];
        }),
      );
    },
  },
];
