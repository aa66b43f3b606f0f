// Gitea's OAuth2 provider, as its web routes answer (routers/web/auth/oauth2_provider.go and
// auth.go): /user/login (sign-in form, SignIn/SignInPost), /login/oauth/authorize (AuthorizeOAuth:
// unknown client and unregistered redirect URI end on an error page, PKCE S256 or plain, none only
// for confidential clients, then the grant page), /login/oauth/grant (GrantApplicationOAuth: the
// session must match, 303 to the redirect URI with code and state), /login/oauth/access_token
// (AccessTokenOAuth: client by form or Basic, handleAuthorizationCode with PKCE and one-time codes,
// handleRefreshToken with the grant counter), /login/oauth/userinfo (InfoOAuth) and
// /.well-known/openid-configuration (OIDCWellKnown). Tokens are opaque here, JWTs in Gitea.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OAuth2App, OAuth2Grant, SandboxState, WebSession } from './model.js';
import { liveAccessGrant } from './oauth2-tokens.js';

const SESSION_COOKIE = 'i_like_gitea';
const CODE_SECONDS = 600;

export const OAUTH_WEB_PATHS = new Set([
  '/user/login',
  '/login/oauth/authorize',
  '/login/oauth/grant',
  '/login/oauth/access_token',
  '/login/oauth/userinfo',
  '/.well-known/openid-configuration',
]);

interface WebAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Serves one web request; resolves with the status and the signed-in user, for the request log. */
export async function serveOAuthWeb(
  state: SandboxState,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<{ status: number; login: string | null }> {
  const form = await readForm(req);
  const session = sessionOf(state, req);
  const answer = route(state, req.method ?? 'GET', url, form, session, req.headers.authorization);
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
  return { status: answer.status, login: session.value.user };
}

function route(
  state: SandboxState,
  method: string,
  url: URL,
  form: URLSearchParams,
  session: Session,
  authorization: string | undefined,
): WebAnswer {
  const query = url.searchParams;
  switch (`${method} ${url.pathname}`) {
    case 'GET /.well-known/openid-configuration':
      return json(200, openidConfiguration(state));
    case 'GET /user/login':
      return html(200, signInPage(query.get('redirect_to') ?? '/', session, null), session);
    case 'POST /user/login':
      return signIn(state, form, session);
    case 'GET /login/oauth/authorize':
    case 'POST /login/oauth/authorize':
      return authorize(state, method === 'POST' ? form : query, url, session);
    case 'POST /login/oauth/grant':
      return grant(state, form, session);
    case 'POST /login/oauth/access_token':
      return accessToken(state, form, authorization);
    case 'GET /login/oauth/userinfo':
    case 'POST /login/oauth/userinfo':
      return userInfo(state, authorization);
    default:
      return { status: 405, headers: { 'Content-Type': 'text/plain' }, body: 'Method Not Allowed' };
  }
}

// --- sign-in (SignInPost) ---

function signIn(state: SandboxState, form: URLSearchParams, session: Session): WebAnswer {
  const redirectTo = form.get('redirect_to') ?? '/';
  if (!csrfMatches(session, form.get('_csrf'))) return html(400, 'Invalid CSRF token.', session);
  const account = state.account(form.get('user_name') ?? '');
  if (!account || account.isOrg || account.password !== (form.get('password') ?? '')) {
    return html(200, signInPage(redirectTo, session, 'Username or password is incorrect.'), session);
  }
  // A new session id on sign-in (Gitea regenerates it), so a planted cookie signs nobody in.
  const next = newSession(state, account.login);
  // Gitea redirects only to local paths (RedirectToCurrentSite).
  return redirect(303, redirectTo.startsWith('/') && !redirectTo.startsWith('//') ? redirectTo : '/', next);
}

// --- AuthorizeOAuth ---

function authorize(state: SandboxState, params: URLSearchParams, url: URL, session: Session): WebAnswer {
  if (session.value.user === null)
    return redirect(303, `/user/login?redirect_to=${encodeURIComponent(url.pathname + url.search)}`, session);
  const clientId = params.get('client_id') ?? '';
  const redirectUri = params.get('redirect_uri') ?? '';
  const stateParam = params.get('state') ?? '';
  const app = state.oauth2Apps.find((a) => a.clientId === clientId);
  if (!app) return grantError(session, 'unauthorized_client', 'Client ID not registered');
  if (!app.redirectUris.includes(redirectUri))
    return grantError(session, 'invalid_request', 'Unregistered Redirect URI');
  if (params.get('response_type') !== 'code')
    return authorizeError(
      redirectUri,
      'unsupported_response_type',
      'Only code response type is supported.',
      stateParam,
    );
  const method = params.get('code_challenge_method') ?? '';
  if (method === '' && !app.confidential)
    return authorizeError(redirectUri, 'invalid_request', 'PKCE is required for public clients', stateParam);
  if (method !== '' && method !== 'S256' && method !== 'plain')
    return authorizeError(redirectUri, 'invalid_request', 'unsupported code challenge method', stateParam);
  const scope = params.get('scope') ?? '';
  session.value.authorize = {
    clientId,
    redirectUri,
    state: stateParam,
    scope,
    codeChallenge: params.get('code_challenge') ?? '',
    codeChallengeMethod: method,
  };
  const existing = state.oauth2Grants.find((g) => g.appId === app.id && g.user === session.value.user);
  // Confidential or trusted clients with a grant skip the page (RFC 6749 10.2 keeps it for untrusted public ones).
  if ((app.confidential || app.skipSecondaryAuthorization) && existing) {
    existing.scope = scope;
    return redirect(303, codeRedirect(state, existing, session.value.authorize), session);
  }
  return html(200, grantPage(app, session, scope), session);
}

// --- GrantApplicationOAuth ---

function grant(state: SandboxState, form: URLSearchParams, session: Session): WebAnswer {
  const parked = session.value.authorize;
  if (session.value.user === null || !csrfMatches(session, form.get('_csrf'))) return html(400, 'Bad Request', session);
  if (
    !parked ||
    parked.clientId !== form.get('client_id') ||
    parked.state !== (form.get('state') ?? '') ||
    parked.redirectUri !== form.get('redirect_uri')
  ) {
    return html(400, 'Bad Request', session);
  }
  if (form.get('granted') !== 'true')
    return authorizeError(parked.redirectUri, 'access_denied', 'the request is denied', parked.state);
  const app = state.oauth2Apps.find((a) => a.clientId === parked.clientId);
  if (!app) return html(500, 'Internal Server Error', session);
  let existing = state.oauth2Grants.find((g) => g.appId === app.id && g.user === session.value.user);
  if (!existing) {
    existing = {
      id: state.nextId('oauth2_grant'),
      appId: app.id,
      user: session.value.user,
      scope: parked.scope,
      counter: 1,
    };
    state.oauth2Grants.push(existing);
  } else existing.scope = parked.scope;
  return redirect(303, codeRedirect(state, existing, parked), session);
}

function codeRedirect(state: SandboxState, grant: OAuth2Grant, parked: NonNullable<WebSession['authorize']>): string {
  const code = randomBytes(24).toString('base64url');
  state.oauth2Codes.set(code, {
    grantId: grant.id,
    redirectUri: parked.redirectUri,
    codeChallenge: parked.codeChallenge,
    codeChallengeMethod: parked.codeChallengeMethod,
    expiresAt: Date.now() + CODE_SECONDS * 1000,
  });
  const target = new URL(parked.redirectUri);
  target.searchParams.set('code', code);
  target.searchParams.set('state', parked.state);
  return target.toString();
}

// --- AccessTokenOAuth ---

function accessToken(state: SandboxState, form: URLSearchParams, authorization: string | undefined): WebAnswer {
  let clientId = form.get('client_id') ?? '';
  let clientSecret = form.get('client_secret') ?? '';
  if ((clientId === '' || clientSecret === '') && authorization) {
    const basic = /^Basic\s+(\S+)$/i.exec(authorization)?.[1];
    if (!basic) return tokenError('invalid_request', 'cannot parse basic auth header');
    const [id = '', secret = ''] = Buffer.from(basic, 'base64').toString('utf8').split(':', 2);
    if (clientId !== '' && clientId !== id)
      return tokenError('invalid_request', 'client_id in request body inconsistent with Authorization header');
    clientId = id;
    clientSecret = clientSecret || secret;
  }
  const app = state.oauth2Apps.find((a) => a.clientId === clientId);
  if (!app) return tokenError('invalid_client', `cannot load client with client id: '${clientId}'`);
  if (app.confidential && !secretMatches(app, clientSecret)) {
    return tokenError(
      form.get('grant_type') === 'refresh_token' ? 'invalid_client' : 'unauthorized_client',
      clientSecret === '' ? 'invalid empty client secret' : 'invalid client secret',
    );
  }
  switch (form.get('grant_type')) {
    case 'authorization_code':
      return authorizationCode(state, app, form);
    case 'refresh_token':
      return refreshToken(state, app, form);
    default:
      return tokenError('unsupported_grant_type', 'Only refresh_token or authorization_code grant type is supported');
  }
}

function authorizationCode(state: SandboxState, app: OAuth2App, form: URLSearchParams): WebAnswer {
  const redirectUri = form.get('redirect_uri') ?? '';
  if (redirectUri !== '' && !app.redirectUris.includes(redirectUri))
    return tokenError('unauthorized_client', 'unexpected redirect URI');
  const key = form.get('code') ?? '';
  const code = state.oauth2Codes.get(key);
  if (!code) return tokenError('unauthorized_client', 'client is not authorized');
  if (code.expiresAt < Date.now()) {
    state.oauth2Codes.delete(key);
    return tokenError('invalid_grant', 'authorization code expired');
  }
  if (!validateCodeChallenge(code.codeChallengeMethod, code.codeChallenge, form.get('code_verifier') ?? ''))
    return tokenError('unauthorized_client', 'failed PKCE code challenge');
  if (code.redirectUri !== '' && redirectUri !== code.redirectUri)
    return tokenError('invalid_grant', 'redirect_uri differs from the original authorization request');
  const grant = state.oauth2Grants.find((g) => g.id === code.grantId);
  if (!grant || grant.appId !== app.id) return tokenError('invalid_grant', 'invalid grant');
  state.oauth2Codes.delete(key);
  return json(200, newAccessTokenResponse(state, grant));
}

function refreshToken(state: SandboxState, app: OAuth2App, form: URLSearchParams): WebAnswer {
  const token = state.oauth2Tokens.get(form.get('refresh_token') ?? '');
  if (!token || token.kind !== 'refresh' || token.expiresAt < Date.now())
    return tokenError('unauthorized_client', 'unable to parse refresh token');
  const grant = state.oauth2Grants.find((g) => g.id === token.grantId);
  if (!grant) return tokenError('invalid_grant', 'grant does not exist');
  if (grant.appId !== app.id) return tokenError('invalid_grant', 'refresh token belongs to a different client');
  if (state.oauth2Settings.invalidateRefreshTokens && grant.counter !== token.counter)
    return tokenError('unauthorized_client', 'token was already used');
  return json(200, newAccessTokenResponse(state, grant));
}

/** NewAccessTokenResponse: with InvalidateRefreshTokens the grant counter moves, so older refresh tokens stop working. */
function newAccessTokenResponse(state: SandboxState, grant: OAuth2Grant): Record<string, unknown> {
  if (state.oauth2Settings.invalidateRefreshTokens) grant.counter += 1;
  const settings = state.oauth2Settings;
  const access = `gta_${randomBytes(24).toString('base64url')}`;
  const refresh = `gtr_${randomBytes(24).toString('base64url')}`;
  state.oauth2Tokens.set(access, {
    grantId: grant.id,
    kind: 'access',
    counter: grant.counter,
    expiresAt: Date.now() + settings.accessTokenSeconds * 1000,
  });
  state.oauth2Tokens.set(refresh, {
    grantId: grant.id,
    kind: 'refresh',
    counter: grant.counter,
    expiresAt: Date.now() + settings.refreshTokenHours * 3600 * 1000,
  });
  return {
    access_token: access,
    token_type: 'bearer',
    expires_in: settings.accessTokenSeconds,
    refresh_token: refresh,
  };
}

function validateCodeChallenge(method: string, challenge: string, verifier: string): boolean {
  if (method === 'S256') return createHash('sha256').update(verifier).digest('base64url') === challenge;
  if (method === 'plain') return verifier === challenge;
  return true; // no PKCE: confidential clients only (checked at authorize)
}

function secretMatches(app: OAuth2App, secret: string): boolean {
  const a = Buffer.from(app.clientSecret);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

// --- InfoOAuth and OIDCWellKnown ---

function userInfo(state: SandboxState, authorization: string | undefined): WebAnswer {
  const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1] ?? '';
  const grant = liveAccessGrant(state, token);
  const account = grant ? state.account(grant.user) : undefined;
  if (!account)
    return {
      status: 401,
      headers: { 'Content-Type': 'text/plain', 'WWW-Authenticate': 'Bearer realm="Gitea OAuth2"' },
      body: 'no valid authorization',
    };
  const groups: string[] = [];
  for (const [org, teams] of state.teams) {
    const mine = teams.filter((t) => t.members.some((m) => m.toLowerCase() === account.login.toLowerCase()));
    if (mine.length > 0) groups.push(org, ...mine.map((t) => `${org}:${t.name.toLowerCase()}`));
  }
  return json(200, {
    sub: String(account.id),
    name: account.fullName || account.login,
    preferred_username: account.login,
    email: account.email,
    picture: `${state.baseUrl}/avatars/${account.id}`,
    groups,
  });
}

function openidConfiguration(state: SandboxState): Record<string, unknown> {
  const base = state.baseUrl;
  return {
    issuer: `${base}/`,
    authorization_endpoint: `${base}/login/oauth/authorize`,
    token_endpoint: `${base}/login/oauth/access_token`,
    jwks_uri: `${base}/login/oauth/keys`,
    userinfo_endpoint: `${base}/login/oauth/userinfo`,
    introspection_endpoint: `${base}/login/oauth/introspect`,
    response_types_supported: ['code', 'id_token'],
    id_token_signing_alg_values_supported: ['RS256'],
    subject_types_supported: ['public'],
    scopes_supported: ['openid', 'profile', 'email', 'groups'],
    claims_supported: [
      'aud',
      'exp',
      'iat',
      'iss',
      'sub',
      'name',
      'preferred_username',
      'profile',
      'picture',
      'website',
      'locale',
      'updated_at',
      'nonce',
      'groups',
    ],
    code_challenge_methods_supported: ['plain', 'S256'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
  };
}

// --- sessions, pages, answers ---

interface Session {
  id: string;
  value: WebSession;
  /** True when the browser has no session cookie yet. */
  fresh: boolean;
}

function sessionOf(state: SandboxState, req: IncomingMessage): Session {
  const id = /(?:^|;\s*)i_like_gitea=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
  const value = id === undefined ? undefined : state.webSessions.get(id);
  if (id !== undefined && value) return { id, value, fresh: false };
  return newSession(state, null);
}

function newSession(state: SandboxState, user: string | null): Session {
  const id = randomBytes(16).toString('hex');
  const value: WebSession = { user, csrf: randomBytes(16).toString('base64url') };
  state.webSessions.set(id, value);
  return { id, value, fresh: true };
}

function csrfMatches(session: Session, sent: string | null): boolean {
  return !session.fresh && sent !== null && sent === session.value.csrf;
}

function cookieHeader(session: Session): Record<string, string> {
  return session.fresh ? { 'Set-Cookie': `${SESSION_COOKIE}=${session.id}; Path=/; HttpOnly; SameSite=Lax` } : {};
}

const escape = (v: string) =>
  v.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

function signInPage(redirectTo: string, session: Session, error: string | null): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Sign In - Gitea (sandbox)</title></head><body>
<h1>Sign In</h1>${error ? `<p class="flash-error" id="error">${escape(error)}</p>` : ''}
<form method="post" action="/user/login">
<input type="hidden" name="_csrf" value="${escape(session.value.csrf)}">
<input type="hidden" name="redirect_to" value="${escape(redirectTo)}">
<label>Username or Email Address <input id="user_name" name="user_name" autofocus required></label>
<label>Password <input id="password" name="password" type="password" required></label>
<button id="sign-in" type="submit">Sign In</button>
</form></body></html>`;
}

function grantPage(app: OAuth2App, session: Session, scope: string): string {
  const parked = session.value.authorize;
  const field = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escape(value)}">`;
  return `<!doctype html><html><head><meta charset="utf-8"><title>Authorize Application - Gitea (sandbox)</title></head><body>
<h1>Authorize "${escape(app.name)}" to access your account?</h1>
<p>Signed in as ${escape(session.value.user ?? '')}. You will be redirected to ${escape(parked?.redirectUri ?? '')} if you authorize this application.</p>
<form method="post" action="/login/oauth/grant">
${field('_csrf', session.value.csrf)}${field('client_id', app.clientId)}${field('state', parked?.state ?? '')}
${field('scope', scope)}${field('redirect_uri', parked?.redirectUri ?? '')}
<button id="authorize" type="submit" name="granted" value="true">Authorize Application</button>
<button id="cancel" type="submit" name="granted" value="false">Cancel</button>
</form></body></html>`;
}

function grantError(session: Session, code: string, description: string): WebAnswer {
  return html(
    400,
    `<!doctype html><html><body><h1>Authorization failed</h1><p id="error">${escape(code)}: ${escape(description)}</p></body></html>`,
    session,
  );
}

/** handleAuthorizeError with a redirect URI: 303 with error, error_description and state. */
function authorizeError(redirectUri: string, code: string, description: string, state: string): WebAnswer {
  const target = new URL(redirectUri);
  target.searchParams.set('error', code);
  target.searchParams.set('error_description', description);
  target.searchParams.set('state', state);
  return { status: 303, headers: { Location: target.toString() }, body: '' };
}

function tokenError(code: string, description: string): WebAnswer {
  return json(400, { error: code, error_description: description });
}

function json(status: number, body: unknown): WebAnswer {
  return {
    status,
    headers: { 'Content-Type': 'application/json;charset=utf-8', 'Cache-Control': 'no-store' },
    body: JSON.stringify(body),
  };
}

function html(status: number, body: string, session: Session): WebAnswer {
  return {
    status,
    headers: { 'Content-Type': 'text/html;charset=utf-8', 'X-Frame-Options': 'SAMEORIGIN', ...cookieHeader(session) },
    body,
  };
}

function redirect(status: number, location: string, session: Session): WebAnswer {
  return { status, headers: { Location: location, ...cookieHeader(session) }, body: '' };
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  if (req.method !== 'POST') {
    req.resume();
    return new URLSearchParams();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024) break;
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if ((req.headers['content-type'] ?? '').includes('application/json')) {
    try {
      const data = JSON.parse(text) as Record<string, unknown>;
      return new URLSearchParams(Object.entries(data).map(([k, v]): [string, string] => [k, String(v)]));
    } catch {
      return new URLSearchParams();
    }
  }
  return new URLSearchParams(text);
}
