// GET /version and GET /user.
import { requireSignedIn } from '../auth.js';
import { ok, type Route } from '../context.js';
import { presentUser } from '../present.js';

/** The Gitea release this sandbox stands in for. */
export const SANDBOX_GITEA_VERSION = '1.27.1';

export const miscRoutes: Route[] = [
  { method: 'GET', path: '/version', operationId: 'getVersion', handler: () => ok({ version: SANDBOX_GITEA_VERSION }) },
  {
    method: 'GET',
    path: '/user',
    operationId: 'userGetCurrent',
    handler: (ctx) => {
      const doer = requireSignedIn(ctx.caller);
      return ok(presentUser(ctx.state, doer, doer));
    },
  },
];
