// Per-user OAuth in tests: a sandbox with this server's OAuth2 application, `serve` in AUTH_MODE=oauth,
// the official SDK's OAuth client (an OAuthClientProvider for auth()), and a scripted browser (cookie
// jar, manual redirects) that walks consent, Gitea's sign-in and grant pages and the callback.
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { namespaceEnv, spawnHttpNamespace, type HttpNamespace } from './namespace.js';

export const OAUTH_PROFILE = 'profiles/examples/gitea-author-oauth.yaml';
export const ENCRYPTION_KEY = 'test-encryption-key-0123456789abcdef0123456789';

/** Registers gitea-warden as an OAuth2 application in the sandbox (as an operator would, through the API). */
export async function registerWardenApp(sandbox: Sandbox): Promise<{ clientId: string; clientSecret: string; setRedirect(uri: string): void }> {
  const response = await fetch(`${sandbox.url}/api/v1/user/applications/oauth2`, {
    method: 'POST',
    headers: { authorization: `token ${sandbox.users.admin?.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'gitea-warden', redirect_uris: ['http://127.0.0.1/placeholder'], confidential_client: true }),
  });
  const app = (await response.json()) as { id: number; client_id: string; client_secret: string };
  return {
    clientId: app.client_id,
    clientSecret: app.client_secret,
    // serve's port is known only once it listens; the operator would register that URL.
    setRedirect: (uri) => {
      const stored = sandbox.state.oauth2Apps.find((a) => a.id === app.id);
      if (stored) stored.redirectUris = [uri];
    },
  };
}

export interface OAuthServe extends HttpNamespace {
  base: string;
}

/** `serve` in AUTH_MODE=oauth against the sandbox, the app's callback registered in Gitea. */
export async function spawnOAuthServe(
  sandbox: Sandbox,
  app: Awaited<ReturnType<typeof registerWardenApp>>,
  options: { auditLog: string; store: string; profile?: string; extra?: Record<string, string> },
): Promise<OAuthServe> {
  const env = namespaceEnv(sandbox, 'gitea-author', {
    auditLog: options.auditLog,
    extra: {
      GITEA_MCP_PROFILE: options.profile ?? OAUTH_PROFILE,
      AUTH_MODE: 'oauth',
      OAUTH_CLIENT_ID: app.clientId,
      OAUTH_CLIENT_SECRET: app.clientSecret,
      TOKEN_ENCRYPTION_KEY: ENCRYPTION_KEY,
      OAUTH_STORE: options.store,
      ...options.extra,
    },
  });
  const served = await spawnHttpNamespace(env);
  const base = new URL(served.url).origin;
  app.setRedirect(`${base}/oauth/callback`);
  return { ...served, base };
}

/** The MCP client's side: an in-memory OAuthClientProvider, a public client on a loopback redirect. */
export class TestClientProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;

  constructor(readonly redirectUrl = 'http://127.0.0.1:9/callback', readonly name = 'warden-e2e-agent') {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

export interface BrowserResponse {
  status: number;
  location: string | null;
  body: string;
  url: string;
}

/** A scripted browser: one cookie jar (cookies are per host, any port, as browsers keep them), no automatic redirects. */
export class ScriptedBrowser {
  readonly cookies = new Map<string, string>();

  async request(url: string, init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<BrowserResponse> {
    const headers: Record<string, string> = { ...init.headers };
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(url, {
      method: init.method ?? (init.form ? 'POST' : 'GET'),
      headers,
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
      redirect: 'manual',
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq > 0) this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    const location = response.headers.get('location');
    return { status: response.status, location: location === null ? null : new URL(location, url).toString(), body: await response.text(), url };
  }

  /** Follows redirects until a page answers or the location starts with one of `stopAt` (e.g. the client's redirect URI). */
  async follow(url: string, ...stopAt: string[]): Promise<BrowserResponse> {
    let response = await this.request(url);
    for (let hops = 0; response.location !== null && hops < 10; hops++) {
      const location = response.location;
      if (stopAt.some((prefix) => location.startsWith(prefix))) return response;
      response = await this.request(response.location);
    }
    return response;
  }
}

/** A hidden field's value in a page, or undefined. */
export function fieldOf(html: string, name: string): string | undefined {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  return match?.[1]?.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');
}

export interface SignIn {
  /** The consent page the browser saw (HTML). */
  consentPage: string;
  /** The browser's last answer: the redirect to the client (with code or error), or a page. */
  final: BrowserResponse;
}

/**
 * Walks the browser part: consent (approve), Gitea's sign-in as `login`, Gitea's grant page, the
 * callback. Stops at the client's redirect URI.
 */
export async function browserSignIn(browser: ScriptedBrowser, authorizationUrl: URL, serveBase: string, login: string, password: string, redirectUrl: string): Promise<SignIn> {
  const consent = await browser.follow(authorizationUrl.toString(), redirectUrl);
  if (consent.status !== 200) return { consentPage: consent.body, final: consent };
  const decided = await browser.request(`${serveBase}/oauth/consent`, {
    form: { request: fieldOf(consent.body, 'request') ?? '', csrf: fieldOf(consent.body, 'csrf') ?? '', decision: 'approve' },
    headers: { origin: serveBase },
  });
  if (decided.location === null) return { consentPage: consent.body, final: decided };
  // Gitea: not signed in, so the sign-in form first.
  const signInForm = await browser.follow(decided.location, redirectUrl);
  const signedIn = await browser.request(new URL('/user/login', signInForm.url).toString(), {
    form: { _csrf: fieldOf(signInForm.body, '_csrf') ?? '', redirect_to: fieldOf(signInForm.body, 'redirect_to') ?? '/', user_name: login, password },
  });
  const grantPage = await browser.follow(signedIn.location ?? '', redirectUrl);
  // Gitea skips its grant page for a confidential application the person granted before.
  if (grantPage.location !== null) return { consentPage: consent.body, final: grantPage };
  const granted = await browser.request(new URL('/login/oauth/grant', grantPage.url).toString(), {
    form: {
      _csrf: fieldOf(grantPage.body, '_csrf') ?? '',
      client_id: fieldOf(grantPage.body, 'client_id') ?? '',
      state: fieldOf(grantPage.body, 'state') ?? '',
      scope: fieldOf(grantPage.body, 'scope') ?? '',
      redirect_uri: fieldOf(grantPage.body, 'redirect_uri') ?? '',
      granted: 'true',
    },
  });
  const final = await browser.follow(granted.location ?? '', redirectUrl);
  return { consentPage: consent.body, final };
}

/** The whole sign-in through the SDK's auth(): discovery, registration, browser, code exchange. */
export async function signInWithSdk(mcpUrl: string, serveBase: string, sandbox: Sandbox, login: string, provider = new TestClientProvider()): Promise<{ provider: TestClientProvider; signIn: SignIn }> {
  const first = await auth(provider, { serverUrl: mcpUrl });
  if (first !== 'REDIRECT' || !provider.authorizationUrl) throw new Error(`auth() did not ask for a browser: ${first}`);
  const signIn = await browserSignIn(new ScriptedBrowser(), provider.authorizationUrl, serveBase, login, sandbox.users[login]?.password ?? '', provider.redirectUrl);
  const code = signIn.final.location ? new URL(signIn.final.location).searchParams.get('code') : null;
  if (code) await auth(provider, { serverUrl: mcpUrl, authorizationCode: code });
  return { provider, signIn };
}
