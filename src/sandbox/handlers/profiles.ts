// People's profiles: one user (user.GetInfo) and the user search (user.Search), each user as
// convert.ToUser shows them to the caller. The profile text (full name, description, website,
// location) is the user's own, which is what integrity labels judge.
import { ok, type RequestContext, type Route } from '../context.js';
import { notFound } from '../api-errors.js';
import { paginate } from '../list-paging.js';
import { presentUser } from '../present.js';

function search(ctx: RequestContext) {
  // SearchUsers with Type individual: the keyword matches the login or the full name; uid one id.
  const keyword = (ctx.query.get('q') ?? '').trim().toLowerCase();
  const uid = Number(ctx.query.get('uid') ?? 0);
  const users = [...ctx.state.accounts.values()]
    .filter((account) => !account.isOrg)
    .filter((account) => uid <= 0 || account.id === uid)
    .filter(
      (account) =>
        keyword === '' ||
        account.login.toLowerCase().includes(keyword) ||
        account.fullName.toLowerCase().includes(keyword),
    )
    .sort((a, b) => a.id - b.id);
  return paginate(ctx, users, (page) => ({
    ok: true,
    data: page.map((account) => presentUser(ctx.state, account, ctx.caller.doer)),
  }));
}

export const profileRoutes: Route[] = [
  { method: 'GET', path: '/users/search', operationId: 'userSearch', handler: search },
  {
    method: 'GET',
    path: '/users/{username}',
    operationId: 'userGet',
    handler: (ctx) => {
      const account = ctx.state.account(ctx.params.username ?? '');
      if (!account) throw notFound('GetUserByName');
      return ok(presentUser(ctx.state, account, ctx.caller.doer));
    },
  },
];
