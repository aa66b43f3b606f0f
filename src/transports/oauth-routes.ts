// Per-user OAuth on the HTTP transport, built from the SDK's own pieces: mcpAuthRouter serves the
// metadata (RFC 8414, RFC 9728), registration (RFC 7591), /authorize (S256 PKCE only, exact or
// loopback redirect URIs), /token and /revoke over our OAuthServerProvider; requireBearerAuth checks
// the MCP path with the namespace's resource. Added here: the root protected-resource metadata, the
// consent page and Gitea's callback. The logic lives in src/auth/oauth-service.ts.
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import {
  AccessDeniedError,
  InvalidClientError,
  InvalidGrantError,
  InvalidRequestError,
  InvalidTargetError,
  InvalidTokenError,
  ServerError,
  type OAuthError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type {
  OAuthClientInformationFull,
  OAuthTokenRevocationRequest,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { renderConsent, renderNotice } from '../auth/consent-page.js';
import { AuthFailure, type AuthErrorCode } from '../auth/errors.js';
import type { BrowserOutcome, ClientInfo, OAuthService } from '../auth/oauth-service.js';

/** Who a verified OAuth token acts as; what the server needs to run a call as that person. */
export interface OAuthCaller {
  login: string;
  giteaToken: string;
}

const errorClasses: Record<AuthErrorCode, new (message: string) => OAuthError> = {
  invalid_request: InvalidRequestError,
  invalid_client: InvalidClientError,
  invalid_grant: InvalidGrantError,
  invalid_target: InvalidTargetError,
  invalid_token: InvalidTokenError,
  access_denied: AccessDeniedError,
  server_error: ServerError,
};

/** AuthFailure to the SDK error its handlers turn into the right OAuth answer. */
async function asOAuth<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AuthFailure) throw new errorClasses[error.code](error.message);
    throw error;
  }
}

/** The SDK's OAuthServerProvider over the OAuth service. */
export class ServiceProvider implements OAuthServerProvider {
  readonly clientsStore: OAuthRegisteredClientsStore;

  constructor(private readonly service: OAuthService) {
    this.clientsStore = {
      getClient: async (clientId) => (await service.getClient(clientId)) as OAuthClientInformationFull | undefined,
      registerClient: async (client) =>
        (await service.registerClient(client as ClientInfo)) as OAuthClientInformationFull,
    };
  }

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    const consentUrl = await asOAuth(() =>
      this.service.park(client as ClientInfo, {
        redirectUri: params.redirectUri,
        codeChallenge: params.codeChallenge,
        scopes: params.scopes ?? [],
        ...(params.state !== undefined ? { state: params.state } : {}),
        ...(params.resource ? { resource: params.resource.href } : {}),
      }),
    );
    res.redirect(302, consentUrl);
  }

  challengeForAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<string> {
    return asOAuth(() => this.service.challengeFor(client.client_id, code));
  }

  exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    code: string,
    _verifier?: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    return asOAuth(() => this.service.exchangeCode(client.client_id, code, redirectUri, resource?.href));
  }

  exchangeRefreshToken(
    client: OAuthClientInformationFull,
    refreshToken: string,
    _scopes?: string[],
    resource?: URL,
  ): Promise<OAuthTokens> {
    return asOAuth(() => this.service.exchangeRefresh(client.client_id, refreshToken, resource?.href));
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const caller = await asOAuth(() => this.service.verify(token));
    const extra: Record<string, unknown> = {
      caller: { login: caller.login, giteaToken: caller.giteaToken } satisfies OAuthCaller,
    };
    return {
      token,
      clientId: caller.clientId,
      scopes: caller.scopes,
      expiresAt: caller.expiresAt,
      resource: new URL(caller.resource),
      extra,
    };
  }

  revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    return asOAuth(() => this.service.revoke(client.client_id, request.token));
  }
}

export interface OAuthRoutes {
  router: Router;
  /** requireBearerAuth for the MCP path: 401 with resource_metadata, token bound to this namespace. */
  bearer: RequestHandler;
}

/** The OAuth routes of one namespace whose public base URL is `base` (e.g. https://warden.example). */
export function oauthRoutes(service: OAuthService, base: string, resourceName: string): OAuthRoutes {
  const provider = new ServiceProvider(service);
  const resource = new URL(service.resource);
  const issuer = new URL(base);
  const router = express.Router();
  router.use(mcpAuthRouter({ provider, issuerUrl: issuer, resourceServerUrl: resource, resourceName }));
  // RFC 9728 at the root as well as per MCP path, for clients that look there first.
  router.use(
    '/.well-known/oauth-protected-resource',
    metadataHandler({ resource: resource.href, authorization_servers: [issuer.href], resource_name: resourceName }),
  );
  const secure = issuer.protocol === 'https:';
  router.get('/oauth/consent', async (req, res) => {
    const id = typeof req.query.request === 'string' ? req.query.request : '';
    sendBrowser(res, await service.consent(id), secure);
  });
  router.post('/oauth/consent', express.urlencoded({ extended: false, limit: '8kb' }), async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const form = { request: text(body.request), csrf: text(body.csrf), decision: text(body.decision) };
    sendBrowser(res, await service.decide(form, cookiesOf(req), sameOrigin(req, issuer.origin)), secure);
  });
  router.get('/oauth/callback', async (req, res) => {
    const query = { code: text(req.query.code), state: text(req.query.state), error: text(req.query.error) };
    sendBrowser(res, await service.callback(query, cookiesOf(req)), secure);
  });
  const bearer = requireBearerAuth({
    verifier: provider,
    expectedResource: resource,
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(resource),
  });
  return { router, bearer };
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
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
