// The authorization server's logic, free of HTTP and of the MCP SDK: check an /authorize request
// (client, redirect URI, PKCE S256, resource, scopes), park it, show consent, send the browser to
// Gitea, take Gitea's callback, issue our opaque tokens bound to one namespace (RFC 8707 resource)
// and to the profile it serves, rotate and revoke them, and verify them per call: the grant's
// profile and person still hold, and the person's Gitea token is refreshed when it is about to
// expire. Every redirect back to the client carries iss (RFC 9207). HTTP: src/transports/oauth-routes.ts.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { UpstreamRefused, type GiteaOAuthClient, type UpstreamTokens } from '../gitea/oauth-upstream.js';
import type { ClientDocuments } from './client-documents.js';
import { checkMetadata, isDocumentClientId, matchRedirectUri, type ResolvedClient } from './clients.js';
import type { ConsentView, Notice } from './consent-page.js';
import { AuthFailure } from './auth-failure.js';
import { GrantAccess, type NamespaceAccess } from './grant-access.js';
import { newToken, tokenHash, type Sealer } from './sealing.js';
import type { GrantRow, ParkRow, TokenStore } from './token-store.js';
import { tokenVerifications } from '../telemetry/instruments.js';

export type { NamespaceAccess } from './grant-access.js';

export interface OAuthServiceOptions {
  store: TokenStore;
  sealer: Sealer;
  upstream: GiteaOAuthClient;
  giteaUrl: string;
  /** The issuer identifier (public base URL with its slash): every iss says it. */
  issuer: string;
  /** This namespace's MCP endpoint: the resource every token is bound to. */
  resource: string;
  /** Where Gitea sends the browser back (…/oauth/callback). */
  callbackUrl: string;
  access: NamespaceAccess;
  /** What an agent may do there, in words, for the consent page. */
  describe: ConsentView['profile'];
  /** The Gitea token scopes a grant may carry (scopes_supported); read:user always comes along. */
  scopes: readonly string[];
  documents: ClientDocuments;
  /** How old a team reading may get before a call reads it again (OAUTH_TEAMS_MAX_AGE). */
  teamsMaxAgeSeconds: number;
  now?: () => number;
  accessTokenSeconds?: number;
  refreshTokenSeconds?: number;
  parkSeconds?: number;
  codeSeconds?: number;
}

/** A verified access token: who calls, with which Gitea token and scopes, for which namespace. */
export interface VerifiedCaller {
  clientId: string;
  /** The grant's scopes: the Gitea token scopes the person consented to (the Gitea token has the same). */
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

/** The answer to /authorize: back to the client (with code or error, and iss), on to consent, or a page when the client cannot be told. */
export type AuthorizeOutcome = { kind: 'redirect'; location: string } | { kind: 'page'; notice: Notice };

/** An answer for the browser: a page, or a redirect, maybe with the consent cookie to set. */
export type BrowserOutcome =
  | { kind: 'page'; notice: Notice }
  | { kind: 'consent'; view: ConsentView; cookie: { name: string; value: string } }
  | { kind: 'redirect'; location: string };

/** Credentials a client presented at /token or /revoke (HTTP Basic, else the form). */
export interface ClientCredentials {
  clientId: string | undefined;
  secret: string | undefined;
}

/** Refresh Gitea's token when it has less than this left. */
const REFRESH_MARGIN_MS = 60_000;
const IDENTITY_SCOPE = 'read:user';
const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const PKCE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export const consentCookieName = (parkId: string): string => `gw_consent_${parkId}`;

export class OAuthService {
  private readonly now: () => number;
  private readonly accessMs: number;
  private readonly refreshMs: number;
  private readonly parkMs: number;
  private readonly codeMs: number;
  private readonly grants: GrantAccess;
  /** Opened Gitea tokens by grant, valid while the grant's version is unchanged. */
  private readonly opened = new Map<string, { version: number; token: string }>();

  constructor(private readonly options: OAuthServiceOptions) {
    this.now = options.now ?? Date.now;
    this.accessMs = (options.accessTokenSeconds ?? 3600) * 1000;
    this.refreshMs = (options.refreshTokenSeconds ?? 30 * 24 * 3600) * 1000;
    this.parkMs = (options.parkSeconds ?? 600) * 1000;
    this.codeMs = (options.codeSeconds ?? 120) * 1000;
    this.grants = new GrantAccess(
      options.access,
      (token) => options.upstream.teams(token),
      options.teamsMaxAgeSeconds * 1000,
      this.now,
    );
  }

  get resource(): string {
    return this.options.resource;
  }

  get issuer(): string {
    return this.options.issuer;
  }

  /**
   * The scopes a grant may carry, read:user first: scopes_supported of both metadata documents. Each
   * write:X comes with its read:X, so a client may ask for less than everything (and step up later).
   */
  get scopes(): string[] {
    const offered = this.options.scopes.flatMap((s) => (s.startsWith('write:') ? [`read:${s.slice(6)}`, s] : [s]));
    return [...new Set([IDENTITY_SCOPE, ...offered])];
  }

  // --- clients: registered (RFC 7591, deprecated) or identified by a metadata document ---

  /** POST /register: the checked metadata, a new client_id, and a secret unless the client is public. */
  async registerClient(body: unknown): Promise<Record<string, unknown>> {
    const checked = checkMetadata(body, 'registration');
    const clientId = randomUUID();
    const secret = checked.token_endpoint_auth_method === 'none' ? undefined : newToken('gws');
    const issuedAt = Math.floor(this.now() / 1000);
    const metadata = {
      ...(body as Record<string, unknown>),
      ...checked,
      client_id_issued_at: issuedAt,
      ...(secret ? { client_secret_expires_at: 0 } : {}),
    };
    delete (metadata as Record<string, unknown>).client_secret;
    delete (metadata as Record<string, unknown>).client_id;
    const sealed = secret === undefined ? null : this.options.sealer.seal(secret, `client:${clientId}`);
    await this.options.store.putClient({ clientId, metadata, secretSealed: sealed });
    return { client_id: clientId, ...(secret ? { client_secret: secret } : {}), ...metadata };
  }

  /** The client a client_id names: its metadata document (fetched, checked, cached) or its registration. */
  async resolveClient(clientId: string): Promise<ResolvedClient> {
    if (isDocumentClientId(clientId, this.options.documents.policy.allowLoopback))
      return this.options.documents.resolve(clientId);
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(clientId))
      throw new AuthFailure(
        'invalid_client',
        'a client_id that is a URL must be an https URL with a path, no fragment and no user info (its metadata document)',
      );
    const row = await this.options.store.getClient(clientId);
    if (!row) throw new AuthFailure('invalid_client', 'unknown client_id');
    const meta = row.metadata as { client_name?: unknown; redirect_uris?: unknown };
    return {
      clientId: row.clientId,
      name: typeof meta.client_name === 'string' ? meta.client_name : row.clientId,
      redirectUris: Array.isArray(meta.redirect_uris) ? meta.redirect_uris.map(String) : [],
      secret: row.secretSealed === null ? null : this.options.sealer.open(row.secretSealed, `client:${row.clientId}`),
      source: { kind: 'registered' },
    };
  }

  /** RFC 6749 2.3: a confidential client proves its secret; a public one (every document client) sends none. */
  async authenticateClient(credentials: ClientCredentials): Promise<ResolvedClient> {
    if (!credentials.clientId) throw new AuthFailure('invalid_client', 'client_id is missing');
    if (isDocumentClientId(credentials.clientId, this.options.documents.policy.allowLoopback)) {
      if (credentials.secret !== undefined)
        throw new AuthFailure('invalid_client', 'a client identified by a metadata document has no secret to send');
      // Public: nothing to prove here; the code or refresh token is bound to this client_id.
      const host = new URL(credentials.clientId).host;
      return {
        clientId: credentials.clientId,
        name: host,
        redirectUris: [],
        secret: null,
        source: { kind: 'document', url: credentials.clientId, host },
      };
    }
    const client = await this.resolveClient(credentials.clientId);
    if (client.secret === null) {
      if (credentials.secret !== undefined)
        throw new AuthFailure('invalid_client', 'this client registered as public and has no secret');
      return client;
    }
    if (credentials.secret === undefined || !sameText(credentials.secret, client.secret))
      throw new AuthFailure('invalid_client', 'the client secret is missing or wrong');
    return client;
  }

  // --- /authorize, consent, Gitea, callback ---

  /** GET /authorize. Until client and redirect URI are known, problems are pages; after, redirects with error and iss. */
  async authorize(query: Record<string, string | undefined>): Promise<AuthorizeOutcome> {
    if (!query.client_id) return page(400, 'Sign-in request refused', 'The request names no client_id.');
    let client: ResolvedClient;
    try {
      client = await this.resolveClient(query.client_id);
    } catch (error) {
      const why = error instanceof AuthFailure ? error.message : 'the client could not be read';
      return page(400, 'Sign-in request refused', `The application is not known here: ${why}.`);
    }
    const redirectUri = matchRedirectUri(client, query.redirect_uri);
    if (redirectUri === null)
      return page(
        400,
        'Sign-in request refused',
        query.redirect_uri === undefined
          ? 'The request names no redirect_uri, and the application has more than one.'
          : `Unregistered redirect_uri ${query.redirect_uri}: the application did not list it, so no answer is sent there.`,
      );
    const state = query.state ?? null;
    const refuse = (error: string, description: string): AuthorizeOutcome => ({
      kind: 'redirect',
      location: this.clientRedirect(redirectUri, state, { error, error_description: description }),
    });
    if (query.response_type !== 'code') return refuse('unsupported_response_type', 'response_type must be code');
    if (!query.code_challenge || !PKCE_CHALLENGE.test(query.code_challenge))
      return refuse('invalid_request', 'code_challenge is required: PKCE with S256');
    if (query.code_challenge_method !== 'S256') return refuse('invalid_request', 'code_challenge_method must be S256');
    if (query.resource !== undefined && !sameResource(query.resource, this.resource))
      return refuse('invalid_target', `this server issues tokens for ${this.resource} only`);
    const id = randomUUID();
    await this.options.store.putPark({
      id,
      clientId: client.clientId,
      redirectUri,
      codeChallenge: query.code_challenge,
      clientState: state,
      scopes: this.grantScopes(query.scope),
      resource: this.resource,
      browserHash: null,
      upstreamStateHash: null,
      upstreamVerifierSealed: null,
      status: 'parked',
      expiresAt: this.now() + this.parkMs,
      clientName: client.name,
      clientSource: client.source.kind === 'document' ? client.source.url : 'registered',
    });
    return { kind: 'redirect', location: `/oauth/consent?request=${encodeURIComponent(id)}` };
  }

  /** What the grant carries: the requested scopes this namespace offers (all it offers when none are asked), and read:user. */
  private grantScopes(requested: string | undefined): string[] {
    const offered = this.scopes;
    const asked = (requested ?? '').split(' ').filter(Boolean);
    // RFC 6749 3.3: a scope this namespace does not offer is left out, never granted.
    const kept = asked.length === 0 ? offered : offered.filter((scope) => asked.includes(scope));
    return [...new Set([IDENTITY_SCOPE, ...kept])];
  }

  /** GET /oauth/consent: the page, with a fresh CSRF token that is also the browser's cookie. */
  async consent(parkId: string): Promise<BrowserOutcome> {
    const park = await this.options.store.getPark(parkId);
    if (!park || park.status !== 'parked' || park.expiresAt < this.now()) return expiredPage();
    const csrf = randomBytes(32).toString('base64url');
    await this.options.store.bindParkToBrowser(park.id, tokenHash(csrf));
    const source = park.clientSource ?? 'registered';
    const view: ConsentView = {
      parkId: park.id,
      csrf,
      clientName: park.clientName ?? park.clientId,
      clientSource:
        source === 'registered'
          ? { kind: 'registered' }
          : { kind: 'document', url: source, host: new URL(source).host },
      redirectUri: park.redirectUri,
      namespace: this.options.access.profileName,
      resource: park.resource,
      profile: this.options.describe,
      // write:X says read:X too: the page shows the shorter list.
      scopes: park.scopes.filter((s) => !(s.startsWith('read:') && park.scopes.includes(`write:${s.slice(5)}`))),
      giteaUrl: this.options.giteaUrl,
      grantDays: Math.round(this.refreshMs / 86_400_000),
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
      return { kind: 'redirect', location: this.parkError(park, 'access_denied', 'the user denied the request') };
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
        // Gitea's token carries exactly the grant's scopes (its GrantAdditionalScopes).
        scope: park.scopes.join(' '),
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
        this.parkLink(park, 'access_denied', 'sign-in finished in another browser'),
      );
    }
    if (park.expiresAt < this.now())
      return page(
        400,
        'Sign-in expired',
        'The sign-in took too long; start again from your application.',
        this.parkLink(park, 'access_denied', 'sign-in expired'),
      );
    if (query.error || !query.code) {
      return page(
        403,
        'Sign-in denied',
        'Gitea did not grant access (you denied it there, or Gitea refused).',
        this.parkLink(park, 'access_denied', 'Gitea did not grant access'),
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
        this.parkLink(park, 'server_error', `Gitea did not complete the sign-in (${why})`),
      );
    }
    const admission = await this.grants.admit(login, tokens.accessToken);
    if (!admission.ok) {
      // No grant, no code: the Gitea tokens just obtained are dropped, never stored.
      return page(
        403,
        'Not allowed',
        `${admission.reason}, so no token was issued.`,
        this.parkLink(park, 'access_denied', `${login} may not use this namespace`),
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
      profile: this.options.access.profileName,
      teamsCheckedAt: admission.teamsCheckedAt,
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
    return { kind: 'redirect', location: this.clientRedirect(park.redirectUri, park.clientState, { code }) };
  }

  // --- /token, /revoke ---

  /** POST /token: the client authenticated, then its grant type. */
  async token(credentials: ClientCredentials, form: Record<string, string | undefined>): Promise<IssuedTokens> {
    const client = await this.authenticateClient(credentials);
    if (form.grant_type === 'authorization_code')
      return this.exchangeCode(client.clientId, form.code, form.code_verifier, form.redirect_uri, form.resource);
    if (form.grant_type === 'refresh_token')
      return this.exchangeRefresh(client.clientId, form.refresh_token, form.resource);
    throw new AuthFailure(
      form.grant_type ? 'unsupported_grant_type' : 'invalid_request',
      form.grant_type ? `grant_type ${form.grant_type} is not supported` : 'grant_type is missing',
    );
  }

  private async exchangeCode(
    clientId: string,
    code: string | undefined,
    verifier: string | undefined,
    redirectUri: string | undefined,
    resource: string | undefined,
  ): Promise<IssuedTokens> {
    if (!code) throw new AuthFailure('invalid_request', 'code is missing');
    if (!verifier || !PKCE_VERIFIER.test(verifier))
      throw new AuthFailure('invalid_request', 'code_verifier is missing or malformed (PKCE)');
    const hash = tokenHash(code);
    const seen = await this.options.store.getCode(hash);
    // A code used twice: whoever holds it may be an attacker, so its tokens end too (RFC 6749 4.1.2).
    if (seen?.used) await this.options.store.revokeGrant(seen.grantId, 'its authorization code was used twice');
    if (!seen || seen.used || seen.clientId !== clientId || seen.expiresAt < this.now())
      throw new AuthFailure(
        'invalid_grant',
        'the authorization code is unknown, used, expired or issued to another client',
      );
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    if (!sameText(challenge, seen.codeChallenge))
      throw new AuthFailure('invalid_grant', 'code_verifier does not match the code_challenge (PKCE)');
    const row = await this.options.store.takeCode(hash);
    if (!row) {
      // Used by a concurrent exchange between the read above and now: the same rule.
      await this.options.store.revokeGrant(seen.grantId, 'its authorization code was used twice');
      throw new AuthFailure('invalid_grant', 'the authorization code is unknown or was used already');
    }
    if (redirectUri !== undefined && redirectUri !== row.redirectUri)
      throw new AuthFailure('invalid_grant', 'redirect_uri differs from the authorization request');
    if (resource !== undefined && !sameResource(resource, row.resource))
      throw new AuthFailure('invalid_target', `the code was issued for ${row.resource}`);
    const grant = await this.options.store.getGrant(row.grantId);
    if (!grant || grant.revoked) throw new AuthFailure('invalid_grant', ended(grant));
    return this.issue(grant);
  }

  private async exchangeRefresh(
    clientId: string,
    refreshToken: string | undefined,
    resource: string | undefined,
  ): Promise<IssuedTokens> {
    if (!refreshToken) throw new AuthFailure('invalid_request', 'refresh_token is missing');
    const hash = tokenHash(refreshToken);
    const row = await this.options.store.getToken(hash);
    if (!row || row.kind !== 'refresh' || row.clientId !== clientId)
      throw new AuthFailure('invalid_grant', 'unknown refresh token');
    let grant = await this.options.store.getGrant(row.grantId);
    if (!grant || grant.revoked || row.revoked) throw new AuthFailure('invalid_grant', ended(grant));
    if (row.rotated) {
      // A rotated refresh token presented again was copied: end the whole sign-in (OAuth 2.1 4.3.1).
      await this.options.store.revokeGrant(row.grantId, 'a refresh token was used twice');
      throw new AuthFailure('invalid_grant', 'the refresh token was used already; the sign-in is revoked');
    }
    if (row.expiresAt < this.now()) throw new AuthFailure('invalid_grant', 'the refresh token expired');
    if (
      !sameResource(grant.resource, this.resource) ||
      (resource !== undefined && !sameResource(resource, grant.resource))
    )
      throw new AuthFailure('invalid_target', `the refresh token was issued for ${grant.resource}`);
    grant = await this.stillHolds(grant, true, 'invalid_grant');
    if (!(await this.options.store.rotateRefreshToken(hash)))
      throw new AuthFailure('invalid_grant', 'the refresh token was used already');
    return this.issue(grant);
  }

  /** RFC 7009: revoking either token of a sign-in ends the sign-in; unknown tokens are ignored. */
  async revoke(credentials: ClientCredentials, token: string | undefined): Promise<void> {
    const client = await this.authenticateClient(credentials);
    if (!token) throw new AuthFailure('invalid_request', 'token is missing');
    const row = await this.options.store.getToken(tokenHash(token));
    if (!row || row.clientId !== client.clientId) return;
    await this.options.store.revokeGrant(row.grantId, 'the application revoked it');
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

  /** The caller behind an access token, with a fresh Gitea token; AuthFailure invalid_token (or temporarily_unavailable) otherwise. */
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
    if (!found) throw new AuthFailure('invalid_token', 'the access token is unknown');
    if (found.token.revoked || found.grant.revoked) throw new AuthFailure('invalid_token', ended(found.grant));
    if (found.token.expiresAt < now) throw new AuthFailure('invalid_token', 'the access token expired');
    if (!sameResource(found.grant.resource, this.resource))
      throw new AuthFailure(
        'invalid_token',
        `the access token was not issued for this resource: it is for ${found.grant.resource}`,
      );
    let grant = await this.stillHolds(found.grant, false, 'invalid_token');
    if (grant.giteaExpiresAt - now < REFRESH_MARGIN_MS) grant = await this.refreshUpstream(grant);
    return {
      clientId: found.token.clientId,
      scopes: grant.scopes,
      expiresAt: Math.floor(found.token.expiresAt / 1000),
      resource: grant.resource,
      login: grant.login,
      giteaToken: this.openAccess(grant),
    };
  }

  /** The grant's profile and person still hold (./grant-access.ts); a person no longer named ends the grant. */
  private async stillHolds(
    grant: GrantRow,
    refresh: boolean,
    failAs: 'invalid_token' | 'invalid_grant',
  ): Promise<GrantRow> {
    let current = grant;
    const giteaToken = async () => {
      if (current.giteaExpiresAt - this.now() < REFRESH_MARGIN_MS) current = await this.refreshUpstream(current);
      return this.openAccess(current);
    };
    const verdict = await this.grants.recheck(grant, refresh, giteaToken);
    if (verdict.kind === 'unavailable') throw new AuthFailure('temporarily_unavailable', verdict.reason);
    if (verdict.kind === 'refused') {
      if (verdict.endsGrant) {
        await this.options.store.revokeGrant(grant.id, verdict.reason);
        this.opened.delete(grant.id);
      }
      throw new AuthFailure(failAs, verdict.reason);
    }
    if (verdict.teamsCheckedAt !== null && verdict.teamsCheckedAt !== current.teamsCheckedAt) {
      await this.options.store.markTeamsChecked(current.id, verdict.teamsCheckedAt);
      current = { ...current, teamsCheckedAt: verdict.teamsCheckedAt };
    }
    return current;
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
      if (error instanceof UpstreamRefused && error.code !== 'unreachable')
        await store.revokeGrant(grant.id, 'Gitea refused to renew its token (revoked there, or expired)');
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

  // --- redirects back to the client: every one carries iss (RFC 9207) ---

  private clientRedirect(redirectUri: string, state: string | null, params: Record<string, string>): string {
    const url = new URL(redirectUri);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    if (state !== null) url.searchParams.set('state', state);
    url.searchParams.set('iss', this.issuer);
    return url.toString();
  }

  private parkError(park: ParkRow, error: string, description: string): string {
    return this.clientRedirect(park.redirectUri, park.clientState, { error, error_description: description });
  }

  private parkLink(park: ParkRow, error: string, description: string): Notice['link'] {
    return { href: this.parkError(park, error, description), label: 'Return to the application' };
  }
}

/** Why a sign-in no longer works, for the refusal of its tokens. */
function ended(grant: GrantRow | undefined): string {
  return grant?.endedReason ? `the sign-in has ended: ${grant.endedReason}` : 'the sign-in was revoked';
}

/** RFC 8707 resources compare as URLs without fragment and one trailing slash. */
export function sameResource(a: string, b: string): boolean {
  const norm = (value: string) => value.split('#')[0]?.replace(/\/$/, '') ?? '';
  return norm(a) === norm(b);
}

function sameText(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y);
}

function page(
  status: number,
  title: string,
  message: string,
  link?: Notice['link'],
): AuthorizeOutcome & BrowserOutcome {
  return { kind: 'page', notice: { status, title, message, ...(link ? { link } : {}) } };
}

function expiredPage(): BrowserOutcome {
  return page(
    400,
    'Sign-in request expired',
    'This sign-in request is unknown, finished or expired. Start the sign-in again from your application.',
  );
}
