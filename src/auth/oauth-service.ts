// The authorization server's logic, free of HTTP and of the MCP SDK: park an /authorize request,
// show consent, send the browser to Gitea, take Gitea's callback, issue our opaque tokens bound to
// one namespace (RFC 8707 resource), rotate and revoke them, and verify them per call, refreshing
// the user's Gitea token when it is about to expire. src/transports/oauth-routes.ts wires it to the SDK.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { UpstreamRefused, type GiteaOAuthClient, type UpstreamTokens } from '../gitea/oauth-upstream.js';
import type { ConsentView, Notice } from './consent-page.js';
import { AuthFailure } from './errors.js';
import { newToken, tokenHash, type Sealer } from './sealing.js';
import type { GrantRow, ParkRow, TokenStore } from './token-store.js';
import { tokenVerifications } from '../telemetry/instruments.js';

/** Who may use the namespace and what it lets an agent do (from its profile). */
export interface NamespaceAccess {
  profileName: string;
  summary: string;
  /** authenticated_users, lower-case. */
  users: readonly string[];
  /** authenticated_teams as org/team, lower-case. */
  teams: readonly string[];
}

/** A registered MCP client, as the SDK's registration handler shapes it. */
export interface ClientInfo {
  client_id: string;
  client_secret?: string;
  client_name?: string;
  redirect_uris: string[];
  [field: string]: unknown;
}

export interface OAuthServiceOptions {
  store: TokenStore;
  sealer: Sealer;
  upstream: GiteaOAuthClient;
  giteaUrl: string;
  /** This namespace's MCP endpoint: the resource every token is bound to. */
  resource: string;
  /** Where Gitea sends the browser back (…/oauth/callback). */
  callbackUrl: string;
  access: NamespaceAccess;
  /** Scopes asked of Gitea ('' asks for none beyond Gitea's default). */
  giteaScope: string;
  now?: () => number;
  accessTokenSeconds?: number;
  refreshTokenSeconds?: number;
  parkSeconds?: number;
  codeSeconds?: number;
}

/** A verified access token: who calls, with which Gitea token, for which namespace. */
export interface VerifiedCaller {
  clientId: string;
  scopes: string[];
  /** Seconds since the epoch. */
  expiresAt: number;
  resource: string;
  login: string;
  giteaToken: string;
}

export interface IssuedTokens {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope?: string;
}

/** An answer for the browser: a page, or a redirect, maybe with the consent cookie to set. */
export type BrowserOutcome =
  | { kind: 'page'; notice: Notice }
  | { kind: 'consent'; view: ConsentView; cookie: { name: string; value: string } }
  | { kind: 'redirect'; location: string };

/** Refresh Gitea's token when it has less than this left. */
const REFRESH_MARGIN_MS = 60_000;

export const consentCookieName = (parkId: string): string => `gw_consent_${parkId}`;

export class OAuthService {
  private readonly now: () => number;
  private readonly accessMs: number;
  private readonly refreshMs: number;
  private readonly parkMs: number;
  private readonly codeMs: number;
  /** Opened Gitea tokens by grant, valid while the grant's version is unchanged. */
  private readonly opened = new Map<string, { version: number; token: string }>();

  constructor(private readonly options: OAuthServiceOptions) {
    this.now = options.now ?? Date.now;
    this.accessMs = (options.accessTokenSeconds ?? 3600) * 1000;
    this.refreshMs = (options.refreshTokenSeconds ?? 30 * 24 * 3600) * 1000;
    this.parkMs = (options.parkSeconds ?? 600) * 1000;
    this.codeMs = (options.codeSeconds ?? 120) * 1000;
  }

  get resource(): string {
    return this.options.resource;
  }

  // --- clients (RFC 7591) ---

  async registerClient(info: ClientInfo): Promise<ClientInfo> {
    const { client_secret: secret, ...metadata } = info;
    const sealed = secret === undefined ? null : this.options.sealer.seal(secret, `client:${info.client_id}`);
    await this.options.store.putClient({ clientId: info.client_id, metadata, secretSealed: sealed });
    return info;
  }

  async getClient(clientId: string): Promise<ClientInfo | undefined> {
    const row = await this.options.store.getClient(clientId);
    if (!row) return undefined;
    const info = { ...row.metadata, client_id: row.clientId } as ClientInfo;
    if (row.secretSealed !== null)
      info.client_secret = this.options.sealer.open(row.secretSealed, `client:${row.clientId}`);
    return info;
  }

  // --- /authorize, consent, Gitea, callback ---

  /** Parks a validated /authorize request (the SDK checked client, redirect URI and S256); returns the consent page URL. */
  async park(
    client: ClientInfo,
    params: { redirectUri: string; codeChallenge: string; state?: string; scopes: string[]; resource?: string },
  ): Promise<string> {
    if (params.resource !== undefined && !sameResource(params.resource, this.resource)) {
      throw new AuthFailure('invalid_target', `this server issues tokens for ${this.resource} only`);
    }
    const id = randomUUID();
    await this.options.store.putPark({
      id,
      clientId: client.client_id,
      redirectUri: params.redirectUri,
      codeChallenge: params.codeChallenge,
      clientState: params.state ?? null,
      scopes: params.scopes,
      resource: this.resource,
      browserHash: null,
      upstreamStateHash: null,
      upstreamVerifierSealed: null,
      status: 'parked',
      expiresAt: this.now() + this.parkMs,
    });
    return `/oauth/consent?request=${encodeURIComponent(id)}`;
  }

  /** GET /oauth/consent: the page, with a fresh CSRF token that is also the browser's cookie. */
  async consent(parkId: string): Promise<BrowserOutcome> {
    const park = await this.options.store.getPark(parkId);
    if (!park || park.status !== 'parked' || park.expiresAt < this.now()) return expiredPage();
    const client = await this.getClient(park.clientId);
    if (!client) return expiredPage();
    const csrf = randomBytes(32).toString('base64url');
    await this.options.store.bindParkToBrowser(park.id, tokenHash(csrf));
    const view: ConsentView = {
      parkId: park.id,
      csrf,
      clientName: client.client_name ?? client.client_id,
      redirectUri: park.redirectUri,
      namespace: this.options.access.profileName,
      resource: park.resource,
      summary: this.options.access.summary,
      giteaUrl: this.options.giteaUrl,
    };
    return { kind: 'consent', view, cookie: { name: consentCookieName(park.id), value: csrf } };
  }

  /**
   * POST /oauth/consent. `sameOrigin` is the HTTP layer's Origin check; the form's CSRF token must
   * equal the cookie set with the page, and both must be the token the page was shown with.
   */
  async decide(
    form: { request?: string; csrf?: string; decision?: string },
    cookies: Record<string, string>,
    sameOrigin: boolean,
  ): Promise<BrowserOutcome> {
    if (!sameOrigin)
      return page(
        403,
        'Request refused',
        "The consent form was not sent from this server's own page (cross-origin POST). Nothing was allowed.",
      );
    const park = form.request ? await this.options.store.getPark(form.request) : undefined;
    if (!park || park.status !== 'parked' || park.expiresAt < this.now()) return expiredPage();
    const cookie = cookies[consentCookieName(park.id)];
    if (
      !form.csrf ||
      !cookie ||
      form.csrf !== cookie ||
      park.browserHash === null ||
      tokenHash(cookie) !== park.browserHash
    ) {
      return page(
        403,
        'Request refused',
        'The consent form came without its security token (CSRF), or from another browser. Reload the sign-in from your application.',
      );
    }
    if (form.decision !== 'approve') {
      await this.options.store.closePark(park.id);
      return { kind: 'redirect', location: clientError(park, 'access_denied', 'the user denied the request') };
    }
    const state = randomBytes(32).toString('base64url');
    const verifier = randomBytes(48).toString('base64url');
    const approved = await this.options.store.approvePark(
      park.id,
      tokenHash(state),
      this.options.sealer.seal(verifier, `park:${park.id}`),
    );
    if (!approved) return expiredPage();
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    return {
      kind: 'redirect',
      location: this.options.upstream.authorizeUrl({
        redirectUri: this.options.callbackUrl,
        state,
        codeChallenge: challenge,
        scope: this.options.giteaScope,
      }),
    };
  }

  /** GET /oauth/callback from Gitea, in the browser that gave consent. */
  async callback(
    query: { code?: string; state?: string; error?: string },
    cookies: Record<string, string>,
  ): Promise<BrowserOutcome> {
    if (!query.state)
      return page(
        400,
        'Sign-in failed',
        "Gitea's answer carries no state; start the sign-in again from your application.",
      );
    const park = await this.options.store.takeParkByUpstreamState(tokenHash(query.state));
    if (!park)
      return page(
        400,
        'Sign-in failed',
        'This sign-in answer is unknown, already used, or forged (state does not match a pending sign-in). Start again from your application.',
      );
    const cookie = cookies[consentCookieName(park.id)];
    if (!cookie || park.browserHash === null || tokenHash(cookie) !== park.browserHash) {
      return page(
        403,
        'Sign-in refused',
        "Gitea's answer arrived in another browser than the one that gave consent.",
        clientLink(park, 'access_denied', 'sign-in finished in another browser'),
      );
    }
    if (park.expiresAt < this.now())
      return page(
        400,
        'Sign-in expired',
        'The sign-in took too long; start again from your application.',
        clientLink(park, 'access_denied', 'sign-in expired'),
      );
    if (query.error || !query.code) {
      return page(
        403,
        'Sign-in denied',
        'Gitea did not grant access (you denied it there, or Gitea refused).',
        clientLink(park, 'access_denied', 'Gitea did not grant access'),
      );
    }
    const verifier = this.options.sealer.open(park.upstreamVerifierSealed ?? '', `park:${park.id}`);
    let tokens: UpstreamTokens;
    let login: string;
    try {
      tokens = await this.options.upstream.exchangeCode(query.code, verifier, this.options.callbackUrl, this.now());
      login = await this.options.upstream.login(tokens.accessToken);
    } catch (error) {
      const why = error instanceof UpstreamRefused ? error.code : 'error';
      return page(
        502,
        'Sign-in failed',
        `Gitea did not complete the sign-in (${why}).`,
        clientLink(park, 'server_error', `Gitea did not complete the sign-in (${why})`),
      );
    }
    if (!(await this.mayUse(login, tokens.accessToken))) {
      // No grant, no code: the Gitea tokens just obtained are dropped, never stored.
      return page(
        403,
        'Not allowed',
        `${login} is not among the people the profile ${this.options.access.profileName} names (authenticated_users / authenticated_teams), so no token was issued.`,
        clientLink(park, 'access_denied', `${login} may not use this namespace`),
      );
    }
    const grantId = randomUUID();
    await this.options.store.putGrant({
      id: grantId,
      login,
      clientId: park.clientId,
      resource: park.resource,
      scopes: park.scopes,
      giteaAccessSealed: this.options.sealer.seal(tokens.accessToken, `${grantId}:gitea_access`),
      giteaRefreshSealed: this.options.sealer.seal(tokens.refreshToken, `${grantId}:gitea_refresh`),
      giteaExpiresAt: tokens.expiresAt,
      version: 1,
      revoked: false,
    });
    const code = newToken('gwc');
    await this.options.store.putCode({
      codeHash: tokenHash(code),
      grantId,
      clientId: park.clientId,
      redirectUri: park.redirectUri,
      codeChallenge: park.codeChallenge,
      resource: park.resource,
      used: false,
      expiresAt: this.now() + this.codeMs,
    });
    const location = new URL(park.redirectUri);
    location.searchParams.set('code', code);
    if (park.clientState !== null) location.searchParams.set('state', park.clientState);
    return { kind: 'redirect', location: location.toString() };
  }

  private async mayUse(login: string, giteaToken: string): Promise<boolean> {
    const { users, teams } = this.options.access;
    if (users.includes(login.toLowerCase())) return true;
    if (teams.length === 0) return false;
    const memberOf = await this.options.upstream.teams(giteaToken).catch(() => [] as string[]);
    return teams.some((team) => memberOf.includes(team));
  }

  // --- /token, /revoke ---

  async challengeFor(clientId: string, code: string): Promise<string> {
    const row = await this.options.store.getCode(tokenHash(code));
    // A code used twice: whoever holds it may be an attacker, so its tokens end too (RFC 6749 4.1.2).
    if (row?.used) await this.options.store.revokeGrant(row.grantId);
    if (!row || row.clientId !== clientId || row.used || row.expiresAt < this.now())
      throw new AuthFailure('invalid_grant', 'the authorization code is unknown, used or expired');
    return row.codeChallenge;
  }

  async exchangeCode(
    clientId: string,
    code: string,
    redirectUri: string | undefined,
    resource: string | undefined,
  ): Promise<IssuedTokens> {
    const hash = tokenHash(code);
    const row = await this.options.store.takeCode(hash);
    if (!row) {
      // Used by a concurrent exchange between the challenge check and now: the same rule.
      const used = await this.options.store.getCode(hash);
      if (used) await this.options.store.revokeGrant(used.grantId);
      throw new AuthFailure('invalid_grant', 'the authorization code is unknown or was used already');
    }
    if (row.clientId !== clientId)
      throw new AuthFailure('invalid_grant', 'the authorization code was issued to another client');
    if (row.expiresAt < this.now()) throw new AuthFailure('invalid_grant', 'the authorization code expired');
    if (redirectUri !== undefined && redirectUri !== row.redirectUri)
      throw new AuthFailure('invalid_grant', 'redirect_uri differs from the authorization request');
    if (resource !== undefined && !sameResource(resource, row.resource))
      throw new AuthFailure('invalid_target', `the code was issued for ${row.resource}`);
    const grant = await this.options.store.getGrant(row.grantId);
    if (!grant || grant.revoked) throw new AuthFailure('invalid_grant', 'the sign-in was revoked');
    return this.issue(grant);
  }

  async exchangeRefresh(clientId: string, refreshToken: string, resource: string | undefined): Promise<IssuedTokens> {
    const hash = tokenHash(refreshToken);
    const row = await this.options.store.getToken(hash);
    if (!row || row.kind !== 'refresh' || row.clientId !== clientId)
      throw new AuthFailure('invalid_grant', 'unknown refresh token');
    if (row.revoked) throw new AuthFailure('invalid_grant', 'the refresh token was revoked');
    if (row.rotated) {
      // A rotated refresh token presented again was copied: end the whole sign-in (OAuth 2.1 4.3.1).
      await this.options.store.revokeGrant(row.grantId);
      throw new AuthFailure('invalid_grant', 'the refresh token was used already; the sign-in is revoked');
    }
    if (row.expiresAt < this.now()) throw new AuthFailure('invalid_grant', 'the refresh token expired');
    const grant = await this.options.store.getGrant(row.grantId);
    if (!grant || grant.revoked) throw new AuthFailure('invalid_grant', 'the sign-in was revoked');
    if (resource !== undefined && !sameResource(resource, grant.resource))
      throw new AuthFailure('invalid_target', `the refresh token was issued for ${grant.resource}`);
    if (!(await this.options.store.rotateRefreshToken(hash)))
      throw new AuthFailure('invalid_grant', 'the refresh token was used already');
    return this.issue(grant);
  }

  /** RFC 7009: revoking either token of a sign-in ends the sign-in; unknown tokens are ignored. */
  async revoke(clientId: string, token: string): Promise<void> {
    const row = await this.options.store.getToken(tokenHash(token));
    if (!row || row.clientId !== clientId) return;
    await this.options.store.revokeGrant(row.grantId);
    this.opened.delete(row.grantId);
  }

  private async issue(grant: GrantRow): Promise<IssuedTokens> {
    const access = newToken('gwa');
    const refresh = newToken('gwr');
    const now = this.now();
    const base = { grantId: grant.id, clientId: grant.clientId, revoked: false, rotated: false };
    await this.options.store.putToken({
      ...base,
      tokenHash: tokenHash(access),
      kind: 'access',
      expiresAt: now + this.accessMs,
    });
    await this.options.store.putToken({
      ...base,
      tokenHash: tokenHash(refresh),
      kind: 'refresh',
      expiresAt: now + this.refreshMs,
    });
    return {
      access_token: access,
      token_type: 'Bearer',
      expires_in: Math.floor(this.accessMs / 1000),
      refresh_token: refresh,
      ...(grant.scopes.length > 0 ? { scope: grant.scopes.join(' ') } : {}),
    };
  }

  // --- per call ---

  /** The caller behind an access token, with a Gitea token that is fresh; AuthFailure('invalid_token') otherwise. */
  async verify(accessToken: string): Promise<VerifiedCaller> {
    try {
      const caller = await this.verifyAccess(accessToken);
      tokenVerifications.record(1, { outcome: 'valid' });
      return caller;
    } catch (error) {
      tokenVerifications.record(1, { outcome: error instanceof AuthFailure ? 'invalid' : 'error' });
      throw error;
    }
  }

  private async verifyAccess(accessToken: string): Promise<VerifiedCaller> {
    const found = await this.options.store.accessTokenWithGrant(tokenHash(accessToken));
    const now = this.now();
    if (!found || found.token.revoked || found.grant.revoked)
      throw new AuthFailure('invalid_token', 'the access token is unknown or revoked');
    if (found.token.expiresAt < now) throw new AuthFailure('invalid_token', 'the access token expired');
    const grant =
      found.grant.giteaExpiresAt - now < REFRESH_MARGIN_MS ? await this.refreshUpstream(found.grant) : found.grant;
    return {
      clientId: found.token.clientId,
      scopes: grant.scopes,
      expiresAt: Math.floor(found.token.expiresAt / 1000),
      resource: grant.resource,
      login: grant.login,
      giteaToken: this.openAccess(grant),
    };
  }

  private openAccess(grant: GrantRow): string {
    const cached = this.opened.get(grant.id);
    if (cached && cached.version === grant.version) return cached.token;
    if (grant.giteaAccessSealed === null) throw new AuthFailure('invalid_token', 'the sign-in was revoked');
    const token = this.options.sealer.open(grant.giteaAccessSealed, `${grant.id}:gitea_access`);
    this.opened.set(grant.id, { version: grant.version, token });
    return token;
  }

  /** Gitea's token is (nearly) expired: refresh it; a refusal ends the sign-in, so the client signs in again. */
  private async refreshUpstream(grant: GrantRow): Promise<GrantRow> {
    const { store, sealer, upstream } = this.options;
    if (grant.giteaRefreshSealed === null) throw new AuthFailure('invalid_token', 'the sign-in was revoked');
    let fresh: UpstreamTokens;
    try {
      fresh = await upstream.refresh(sealer.open(grant.giteaRefreshSealed, `${grant.id}:gitea_refresh`), this.now());
    } catch (error) {
      // Another replica may have refreshed first (Gitea then refuses the old refresh token).
      const again = await store.getGrant(grant.id);
      if (
        again &&
        !again.revoked &&
        again.version !== grant.version &&
        again.giteaExpiresAt - this.now() >= REFRESH_MARGIN_MS
      )
        return again;
      if (error instanceof UpstreamRefused && error.code !== 'unreachable') await store.revokeGrant(grant.id);
      throw new AuthFailure('invalid_token', 'Gitea refused to renew the sign-in; sign in again');
    }
    const stored = await store.replaceGiteaTokens(
      grant.id,
      grant.version,
      sealer.seal(fresh.accessToken, `${grant.id}:gitea_access`),
      sealer.seal(fresh.refreshToken, `${grant.id}:gitea_refresh`),
      fresh.expiresAt,
    );
    const now = await store.getGrant(grant.id);
    if (!now || now.revoked) throw new AuthFailure('invalid_token', 'the sign-in was revoked');
    if (!stored && now.giteaExpiresAt - this.now() < REFRESH_MARGIN_MS)
      throw new AuthFailure('invalid_token', 'the Gitea token could not be renewed');
    return now;
  }
}

/** RFC 8707 resources compare as URLs without fragment and one trailing slash. */
export function sameResource(a: string, b: string): boolean {
  const norm = (value: string) => value.split('#')[0]?.replace(/\/$/, '') ?? '';
  return norm(a) === norm(b);
}

function page(status: number, title: string, message: string, link?: Notice['link']): BrowserOutcome {
  return { kind: 'page', notice: { status, title, message, ...(link ? { link } : {}) } };
}

function expiredPage(): BrowserOutcome {
  return page(
    400,
    'Sign-in request expired',
    'This sign-in request is unknown, finished or expired. Start the sign-in again from your application.',
  );
}

function clientError(park: ParkRow, error: string, description: string): string {
  const url = new URL(park.redirectUri);
  url.searchParams.set('error', error);
  url.searchParams.set('error_description', description);
  if (park.clientState !== null) url.searchParams.set('state', park.clientState);
  return url.toString();
}

function clientLink(park: ParkRow, error: string, description: string): Notice['link'] {
  return { href: clientError(park, error, description), label: 'Return to the application' };
}
