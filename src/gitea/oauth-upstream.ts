// gitea-warden as a confidential OAuth2 client of Gitea: the authorize URL the browser is sent to,
// the code exchange and the refresh at /login/oauth/access_token (Gitea's AccessTokenOAuth), and
// what a fresh token says about its user (GET /user, GET /user/teams). Nothing here is logged;
// failures carry Gitea's error code, never a token.
import { GiteaHttpClient } from './http.js';

export interface UpstreamApp {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  timeoutMs: number;
}

export interface UpstreamTokens {
  accessToken: string;
  refreshToken: string;
  /** ms since the epoch. */
  expiresAt: number;
}

/** Gitea answered the token request with an OAuth error (e.g. invalid_grant), or not at all. */
export class UpstreamRefused extends Error {
  override name = 'UpstreamRefused';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export class GiteaOAuthClient {
  constructor(private readonly app: UpstreamApp) {}

  private get base(): string {
    return this.app.baseUrl.replace(/\/+$/, '');
  }

  /** Gitea's AuthorizeOAuth: response_type=code with PKCE S256 and our own state. */
  authorizeUrl(params: { redirectUri: string; state: string; codeChallenge: string; scope: string }): string {
    const url = new URL(`${this.base}/login/oauth/authorize`);
    url.search = new URLSearchParams({
      client_id: this.app.clientId,
      redirect_uri: params.redirectUri,
      response_type: 'code',
      state: params.state,
      code_challenge: params.codeChallenge,
      code_challenge_method: 'S256',
      ...(params.scope ? { scope: params.scope } : {}),
    }).toString();
    return url.toString();
  }

  exchangeCode(code: string, codeVerifier: string, redirectUri: string, now: number): Promise<UpstreamTokens> {
    return this.tokenRequest(
      { grant_type: 'authorization_code', code, code_verifier: codeVerifier, redirect_uri: redirectUri },
      now,
    );
  }

  refresh(refreshToken: string, now: number): Promise<UpstreamTokens> {
    return this.tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshToken }, now);
  }

  /** The login a Gitea token belongs to, read from Gitea; never from the client. */
  async login(accessToken: string): Promise<string> {
    const answer = await this.api(accessToken).get('/user');
    const login = (answer.data as { login?: unknown } | null)?.login;
    if (answer.status !== 200 || typeof login !== 'string' || login === '')
      throw new UpstreamRefused('user_unreadable', `GET /user answered HTTP ${answer.status}`);
    return login;
  }

  /** The user's teams as `org/team`, lower-case, read live (every page of GET /user/teams). */
  async teams(accessToken: string): Promise<string[]> {
    const client = this.api(accessToken);
    const teams: string[] = [];
    for (let page = 1; page <= 50; page++) {
      const answer = await client.get('/user/teams', { page, limit: 50 });
      if (answer.status !== 200 || !Array.isArray(answer.data))
        throw new UpstreamRefused('teams_unreadable', `GET /user/teams answered HTTP ${answer.status}`);
      for (const team of answer.data as Array<{
        name?: unknown;
        organization?: { username?: unknown; name?: unknown } | null;
      }>) {
        const org = team.organization?.username ?? team.organization?.name;
        if (typeof org === 'string' && typeof team.name === 'string') teams.push(`${org}/${team.name}`.toLowerCase());
      }
      if (answer.data.length < 50) break;
    }
    return teams;
  }

  private api(token: string): GiteaHttpClient {
    return new GiteaHttpClient({ baseUrl: this.app.baseUrl, token }, { timeoutMs: this.app.timeoutMs });
  }

  private async tokenRequest(fields: Record<string, string>, now: number): Promise<UpstreamTokens> {
    let response: Response;
    try {
      response = await fetch(`${this.base}/login/oauth/access_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({
          ...fields,
          client_id: this.app.clientId,
          client_secret: this.app.clientSecret,
        }).toString(),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.app.timeoutMs),
      });
    } catch (error) {
      throw new UpstreamRefused(
        'unreachable',
        `Gitea's token endpoint did not answer (${error instanceof Error ? error.name : 'error'})`,
      );
    }
    const body = (await response.json().catch(() => null)) as Record<string, unknown> | null;
    if (
      response.status !== 200 ||
      body === null ||
      typeof body.access_token !== 'string' ||
      typeof body.refresh_token !== 'string'
    ) {
      const code = typeof body?.error === 'string' ? body.error : `http_${response.status}`;
      throw new UpstreamRefused(code, `Gitea refused the token request (${code})`);
    }
    const expiresIn = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 3600;
    return { accessToken: body.access_token, refreshToken: body.refresh_token, expiresAt: now + expiresIn * 1000 };
  }
}
