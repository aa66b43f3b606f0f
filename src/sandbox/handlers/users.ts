// Access tokens and OAuth2 applications. Tokens: only the user themself or a site admin, and only
// with BASIC authentication (Gitea answers 401 "auth method not allowed" to token auth); the token
// value (`sha1`) is shown once, on creation. OAuth2 apps: `client_secret` only on creation.
import { randomBytes, randomUUID } from 'node:crypto';
import { requireSignedIn } from '../auth.js';
import { bodyObject, noContent, ok, stringField, type RequestContext, type Route } from '../context.js';
import { ApiError, forbidden, notFound, unauthorized } from '../api-errors.js';
import type { AccessToken, Account, OAuth2App, SandboxState } from '../model.js';
import { paginate } from '../list-paging.js';

const scopeCategories = [
  'activitypub',
  'admin',
  'issue',
  'misc',
  'notification',
  'organization',
  'package',
  'repository',
  'user',
];

function validScope(scope: string): boolean {
  if (scope === 'all' || scope === 'public-only') return true;
  const [access, category = ''] = scope.split(':', 2);
  return (access === 'read' || access === 'write') && scopeCategories.includes(category);
}

/** The path's user, once the caller is that user or a site admin, authenticated by password. */
function tokenOwner(ctx: RequestContext): Account {
  const doer = requireSignedIn(ctx.caller);
  const user = ctx.state.account(ctx.params.username ?? '');
  if (!user || user.isOrg) throw notFound();
  if (doer.login !== user.login && !doer.isAdmin)
    throw forbidden('doer should be the site admin or be same as the contextUser');
  if (ctx.caller.method !== 'basic') throw unauthorized('auth method not allowed');
  return user;
}

function presentToken(token: AccessToken, withValue: boolean): Record<string, unknown> {
  return {
    id: token.id,
    name: token.name,
    ...(withValue ? { sha1: token.value } : {}),
    token_last_eight: token.value.slice(-8),
    scopes: token.scopes,
    created_at: token.created,
  };
}

function createToken(ctx: RequestContext) {
  const user = tokenOwner(ctx);
  const body = bodyObject(ctx);
  const name = stringField(body, 'name') ?? '';
  if (name.trim() === '') throw new ApiError(400, '[Name]: Required');
  if (ctx.state.tokens.some((t) => t.owner === user.login && t.name === name))
    throw new ApiError(400, 'access token name has been used already');
  const scopes = Array.isArray(body.scopes) ? body.scopes.filter((s): s is string => typeof s === 'string') : [];
  if (scopes.length === 0) throw new ApiError(400, 'access token must have a scope');
  if (!scopes.every(validScope)) throw new ApiError(400, 'invalid access token scope provided');
  const token: AccessToken = {
    id: ctx.state.nextId('token'),
    owner: user.login,
    name,
    value: randomBytes(20).toString('hex'),
    scopes,
    created: ctx.state.timestamp(),
  };
  ctx.state.tokens.push(token);
  return ok(presentToken(token, true), 201);
}

function deleteToken(ctx: RequestContext) {
  const user = tokenOwner(ctx);
  const key = ctx.params.token ?? '';
  const index = ctx.state.tokens.findIndex((t) => t.owner === user.login && (String(t.id) === key || t.name === key));
  if (index < 0) throw notFound();
  ctx.state.tokens.splice(index, 1);
  return noContent();
}

function presentApp(app: OAuth2App, withSecret: boolean): Record<string, unknown> {
  return {
    id: app.id,
    name: app.name,
    client_id: app.clientId,
    ...(withSecret ? { client_secret: app.clientSecret } : {}),
    redirect_uris: app.redirectUris,
    confidential_client: app.confidential,
    skip_secondary_authorization: app.skipSecondaryAuthorization,
    created: app.created,
  };
}

function createApp(ctx: RequestContext) {
  const doer = requireSignedIn(ctx.caller);
  const body = bodyObject(ctx);
  const name = stringField(body, 'name') ?? '';
  if (name.trim() === '') throw new ApiError(400, '[Name]: Required');
  const app = registerOAuth2App(ctx.state, doer.login, {
    name,
    redirectUris: Array.isArray(body.redirect_uris)
      ? body.redirect_uris.filter((u): u is string => typeof u === 'string')
      : [],
    confidential: body.confidential_client !== false,
    skipSecondaryAuthorization: body.skip_secondary_authorization === true,
  });
  return ok(presentApp(app, true), 201);
}

/** A new OAuth2 application of `owner` with a fresh client id and secret (the demo registers gitea-warden with it). */
export function registerOAuth2App(
  state: SandboxState,
  owner: string,
  fields: Pick<OAuth2App, 'name' | 'redirectUris' | 'confidential' | 'skipSecondaryAuthorization'>,
): OAuth2App {
  const app: OAuth2App = {
    id: state.nextId('oauth2'),
    owner,
    ...fields,
    clientId: randomUUID(),
    clientSecret: `gto_${randomBytes(24).toString('hex')}`,
    created: state.timestamp(),
  };
  state.oauth2Apps.push(app);
  return app;
}

function ownApp(ctx: RequestContext): OAuth2App {
  const doer = requireSignedIn(ctx.caller);
  const app = ctx.state.oauth2Apps.find((a) => a.owner === doer.login && a.id === Number(ctx.params.id));
  if (!app) throw notFound();
  return app;
}

export const userRoutes: Route[] = [
  {
    method: 'GET',
    path: '/users/{username}/tokens',
    operationId: 'userGetTokens',
    handler: (ctx) => {
      const user = tokenOwner(ctx);
      const tokens = ctx.state.tokens.filter((t) => t.owner === user.login);
      return paginate(ctx, tokens, (page) => page.map((t) => presentToken(t, false)));
    },
  },
  { method: 'POST', path: '/users/{username}/tokens', operationId: 'userCreateToken', handler: createToken },
  {
    method: 'DELETE',
    path: '/users/{username}/tokens/{token}',
    operationId: 'userDeleteAccessToken',
    handler: deleteToken,
  },
  {
    method: 'GET',
    path: '/user/applications/oauth2',
    operationId: 'userGetOauth2Application',
    handler: (ctx) => {
      const doer = requireSignedIn(ctx.caller);
      const apps = ctx.state.oauth2Apps.filter((a) => a.owner === doer.login);
      return paginate(ctx, apps, (page) => page.map((a) => presentApp(a, false)));
    },
  },
  { method: 'POST', path: '/user/applications/oauth2', operationId: 'userCreateOAuth2Application', handler: createApp },
  {
    method: 'GET',
    path: '/user/applications/oauth2/{id}',
    operationId: 'userGetOAuth2Application',
    handler: (ctx) => ok(presentApp(ownApp(ctx), false)),
  },
  {
    method: 'DELETE',
    path: '/user/applications/oauth2/{id}',
    operationId: 'userDeleteOAuth2Application',
    handler: (ctx) => {
      const app = ownApp(ctx);
      ctx.state.oauth2Apps.splice(ctx.state.oauth2Apps.indexOf(app), 1);
      return noContent();
    },
  },
];
