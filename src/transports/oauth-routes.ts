// Per-user OAuth on the HTTP transport, our own endpoints over src/auth/ (no SDK): the metadata
// (RFC 8414 with RFC 9207's iss flag and client metadata documents; RFC 9728 at the root and per MCP
// path), /authorize, /token, /register (RFC 7591, deprecated, still working), /revoke (RFC 7009), the
// consent page and Gitea's callback; and for the MCP path, the bearer check (RFC 6750: 401 with
// resource_metadata) and the step-up challenge (403 insufficient_scope naming the missing scope).
// The logic lives in src/auth/oauth-service.ts.
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { ServerResponse } from 'node:http';
import { renderConsent, renderNotice } from '../auth/consent-page.js';
import { AuthFailure, statusOf } from '../auth/auth-failure.js';
import {
  authorizationServerMetadata,
  protectedResourceMetadata,
  protectedResourceMetadataUrl,
  type ServerUrls,
} from '../auth/metadata.js';
import type { BrowserOutcome, ClientCredentials, OAuthService } from '../auth/oauth-service.js';
import type { RateLimit } from './rate-limit.js';

/** Who a verified OAuth token acts as; what the server needs to run a call as that person. */
export interface OAuthCaller {
  login: string;
  giteaToken: string;
  /** The Gitea token scopes of the grant (the person's Gitea token carries the same). */
  scopes: string[];
}

export interface OAuthRoutes {
  router: Router;
  /** Authenticates a request to the MCP path: the caller, or null once it has answered 401 (or 503) itself. */
  authenticate(req: Request, res: ServerResponse): Promise<OAuthCaller | null>;
  /**
   * A tools/call whose operation the profile offers but whose Gitea scope the grant lacks, where a
   * new consent can add it: answers 403 insufficient_scope naming the scope and returns true.
   */
  challenge(res: ServerResponse, caller: OAuthCaller, message: unknown): boolean;
}

export interface OAuthRouteOptions {
  /** Public base URL, no trailing slash. */
  base: string;
  resourceName: string;
  /** The namespace's limiter: the OAuth endpoints take from a bucket per address too. */
  limiter: RateLimit;
  /**
   * For a JSON-RPC message calling an operation the profile offers: the scopes of `offered` a grant
   * holding `held` must add to make it (src/server/token-scope-filter.ts); null when none or none can help.
   */
  stepUpScopes?: (held: readonly string[], offered: readonly string[], message: unknown) => string[] | null;
}

/** The OAuth routes of one namespace. */
export function oauthRoutes(service: OAuthService, options: OAuthRouteOptions): OAuthRoutes {
  const urls: ServerUrls = { base: options.base, issuer: service.issuer, resource: service.resource };
  const resourceMetadata = protectedResourceMetadataUrl(service.resource);
  const issuer = new URL(options.base);
  const secure = issuer.protocol === 'https:';
  const router = express.Router();
  const limited: RequestHandler = async (req, res, next) => {
    const decision = await options.limiter.take(`${req.socket.remoteAddress ?? 'unknown'}|oauth`);
    if (decision.allowed) return next();
    res.set('Retry-After', String(decision.retryAfterSeconds));
    sendOAuthError(res, new AuthFailure('temporarily_unavailable', decision.message ?? 'too many requests'), 429);
  };
  const form = express.urlencoded({ extended: false, limit: '8kb' });

  router.get('/.well-known/oauth-authorization-server', (_req, res) =>
    sendMetadata(res, authorizationServerMetadata(urls, service.scopes)),
  );
  // RFC 9728 per MCP path, and at the root for clients that look there first.
  const prm = protectedResourceMetadata(urls, service.scopes, options.resourceName);
  const prmPath = new URL(resourceMetadata).pathname;
  for (const path of new Set([prmPath, '/.well-known/oauth-protected-resource']))
    router.get(path, (_req, res) => sendMetadata(res, prm));

  router.all('/authorize', limited, form, async (req, res) => {
    if (req.method !== 'GET' && req.method !== 'POST') return void res.set('Allow', 'GET, POST').status(405).end();
    const source = (req.method === 'POST' ? req.body : req.query) as Record<string, unknown>;
    sendBrowser(res, await service.authorize(texts(source)), secure);
  });
  router.post('/token', limited, form, async (req, res) => {
    const body = texts(req.body as Record<string, unknown>);
    try {
      const tokens = await service.token(credentialsOf(req, body), body);
      res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).status(200).json(tokens);
    } catch (error) {
      sendOAuthError(res, error);
    }
  });
  router.post('/revoke', limited, form, async (req, res) => {
    const body = texts(req.body as Record<string, unknown>);
    try {
      await service.revoke(credentialsOf(req, body), body.token);
      res.set('Cache-Control', 'no-store').status(200).json({});
    } catch (error) {
      sendOAuthError(res, error);
    }
  });
  router.post('/register', limited, express.json({ limit: '16kb' }), async (req, res) => {
    try {
      const registered = await service.registerClient(req.body);
      res.set('Cache-Control', 'no-store').status(201).json(registered);
    } catch (error) {
      sendOAuthError(res, error);
    }
  });
  router.get('/oauth/consent', async (req, res) => {
    const id = typeof req.query.request === 'string' ? req.query.request : '';
    sendBrowser(res, await service.consent(id), secure);
  });
  router.post('/oauth/consent', form, async (req, res) => {
    const body = texts(req.body as Record<string, unknown>);
    const decision = { request: body.request, csrf: body.csrf, decision: body.decision };
    sendBrowser(res, await service.decide(decision, cookiesOf(req), sameOrigin(req, issuer.origin)), secure);
  });
  router.get('/oauth/callback', async (req, res) => {
    const query = texts(req.query as Record<string, unknown>);
    sendBrowser(
      res,
      await service.callback({ code: query.code, state: query.state, error: query.error }, cookiesOf(req)),
      secure,
    );
  });

  const bearerChallenge = (failure: AuthFailure | null): string =>
    [
      'Bearer',
      [
        ...(failure ? [`error="${failure.code}"`, `error_description="${quoted(failure.message)}"`] : []),
        `resource_metadata="${resourceMetadata}"`,
      ].join(', '),
    ].join(' ');

  return {
    router,
    async authenticate(req, res) {
      const token = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '')?.[1];
      if (token === undefined) {
        sendJsonError(
          res,
          401,
          { error: 'invalid_token', error_description: 'Missing bearer token' },
          bearerChallenge(null),
        );
        return null;
      }
      try {
        const caller = await service.verify(token);
        return { login: caller.login, giteaToken: caller.giteaToken, scopes: caller.scopes };
      } catch (error) {
        const failure =
          error instanceof AuthFailure ? error : new AuthFailure('server_error', 'the token could not be checked');
        const status = statusOf(failure.code);
        const headers: Record<string, string> = status === 503 ? { 'Retry-After': '5' } : {};
        const body = { error: failure.code, error_description: failure.message };
        sendJsonError(res, status, body, bearerChallenge(failure), headers);
        return null;
      }
    },
    challenge(res, caller, message) {
      // Only what a new consent can grant is asked for; the rest is refused in the call's result.
      const missing = options.stepUpScopes?.(caller.scopes, service.scopes, message);
      if (!missing || missing.length === 0) return false;
      const scope = [...new Set([...caller.scopes, ...missing])].join(' ');
      const description = `this call needs the Gitea scope ${missing.join(', ')}, which this sign-in was not given`;
      const header =
        `Bearer error="insufficient_scope", scope="${scope}", ` +
        `resource_metadata="${resourceMetadata}", error_description="${quoted(description)}"`;
      sendJsonError(res, 403, { error: 'insufficient_scope', error_description: description, scope }, header);
      return true;
    },
  };
}

/** Every string field of a form or query, once (a repeated parameter is refused by leaving it out). */
function texts(source: Record<string, unknown> | undefined): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(source ?? {})) if (typeof value === 'string') out[name] = value;
  return out;
}

/** RFC 6749 2.3.1: HTTP Basic (form-encoded id and secret), else client_id and client_secret in the form. */
function credentialsOf(req: Request, body: Record<string, string | undefined>): ClientCredentials {
  const basic = /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(req.headers.authorization ?? '')?.[1];
  if (basic) {
    const decoded = Buffer.from(basic, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0)
      return {
        clientId: safeDecode(decoded.slice(0, colon)),
        secret: safeDecode(decoded.slice(colon + 1)),
      };
  }
  return { clientId: body.client_id, secret: body.client_secret };
}

function safeDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

function quoted(text: string): string {
  return text.replace(/["\\]/g, "'").replace(/[\r\n]/g, ' ');
}

function sendMetadata(res: Response, body: Record<string, unknown>): void {
  res.set('Cache-Control', 'public, max-age=300').status(200).json(body);
}

function sendOAuthError(res: Response, error: unknown, status?: number): void {
  const failure = error instanceof AuthFailure ? error : new AuthFailure('server_error', 'the request failed');
  if (failure.code === 'invalid_client') res.set('WWW-Authenticate', 'Basic realm="gitea-warden"');
  res
    .set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' })
    .status(status ?? statusOf(failure.code))
    .json({ error: failure.code, error_description: failure.message });
}

function sendJsonError(
  res: ServerResponse,
  status: number,
  body: Record<string, string>,
  challenge: string,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    ...headers,
    'WWW-Authenticate': challenge,
  });
  res.end(text);
}

/** The consent POST must come from this server's own page: Origin, else Sec-Fetch-Site, must say so. */
function sameOrigin(req: Request, origin: string): boolean {
  const sent = req.headers.origin;
  if (sent !== undefined) return sent === origin;
  return req.headers['sec-fetch-site'] === 'same-origin';
}

function cookiesOf(req: Request): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) cookies[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return cookies;
}

function sendBrowser(res: Response, outcome: BrowserOutcome, secure: boolean): void {
  res.set({
    'Cache-Control': 'no-store',
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
    // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with the form.
    'Referrer-Policy': 'same-origin',
    'X-Content-Type-Options': 'nosniff',
  });
  if (outcome.kind === 'redirect') {
    res.redirect(302, outcome.location);
    return;
  }
  if (outcome.kind === 'consent') {
    // Lax: Gitea's redirect back is a top-level GET from another site and must carry it.
    const flags = `Path=/oauth; HttpOnly; SameSite=Lax; Max-Age=900${secure ? '; Secure' : ''}`;
    res.set('Set-Cookie', `${outcome.cookie.name}=${outcome.cookie.value}; ${flags}`);
    res.status(200).type('html').send(renderConsent(outcome.view));
    return;
  }
  res.status(outcome.notice.status).type('html').send(renderNotice(outcome.notice));
}
