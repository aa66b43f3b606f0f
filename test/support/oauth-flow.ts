// Per-user OAuth in tests: a sandbox with this server's OAuth2 application, `serve` in AUTH_MODE=oauth,
// and the whole sign-in through the official SDK's OAuth client (@modelcontextprotocol/client v2:
// auth() over an OAuthClientProvider, the transport's finishAuth, which checks RFC 9207's iss) with
// a scripted browser (src/sandbox/scripted-browser.ts) walking consent and Gitea's pages.
import { auth, Client, StreamableHTTPClientTransport, type OAuthClientProvider } from '@modelcontextprotocol/client';
import { AgentClientProvider, browserSignIn, type SignIn } from '../../src/cli/demo-oauth-flow.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { ScriptedBrowser } from '../../src/sandbox/scripted-browser.js';
import { namespaceEnv, spawnHttpNamespace, SERVE_ARGS, type HttpNamespace } from './namespace.js';

export const OAUTH_PROFILE = 'profiles/examples/gitea-author-oauth.yaml';
export const ENCRYPTION_KEY = 'test-encryption-key-0123456789abcdef0123456789';

/** Registers gitea-warden as an OAuth2 application in the sandbox (as an operator would, through the API). */
export async function registerWardenApp(
  sandbox: Sandbox,
): Promise<{ clientId: string; clientSecret: string; setRedirect(uri: string): void }> {
  const response = await fetch(`${sandbox.url}/api/v1/user/applications/oauth2`, {
    method: 'POST',
    headers: { authorization: `token ${sandbox.users.admin?.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'gitea-warden',
      redirect_uris: ['http://127.0.0.1/placeholder'],
      confidential_client: true,
    }),
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

/** `serve` in AUTH_MODE=oauth against the sandbox, the app's callback registered in Gitea. `port` pins the port (a restart at the same URL). */
export async function spawnOAuthServe(
  sandbox: Sandbox,
  app: Awaited<ReturnType<typeof registerWardenApp>>,
  options: { auditLog: string; store: string; profile?: string; extra?: Record<string, string>; port?: number },
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
  const args = options.port === undefined ? SERVE_ARGS : [...SERVE_ARGS, '--port', String(options.port)];
  const served = await spawnHttpNamespace(env, args);
  const base = new URL(served.url).origin;
  app.setRedirect(`${base}/oauth/callback`);
  return { ...served, base };
}

/**
 * The MCP client's side: the demo's in-memory provider (a public client on a loopback redirect), plus
 * what the tests check: the state it sent, and a client identified by its metadata document.
 */
export class TestClientProvider extends AgentClientProvider {
  lastState: string | undefined;

  constructor(
    redirectUrl = 'http://127.0.0.1:9/callback',
    name = 'warden-e2e-agent',
    /** A client identified by its metadata document (https): the SDK sends this URL as client_id. */
    readonly clientMetadataUrl?: string,
  ) {
    super(redirectUrl, name);
  }

  state() {
    this.lastState = crypto.randomUUID();
    return this.lastState;
  }
}

/** The client's callback: state compared, then the SDK's finishAuth, which checks iss and exchanges the code. */
export async function finishSignIn(mcpUrl: string, provider: TestClientProvider, location: string): Promise<void> {
  const params = new URL(location).searchParams;
  if (params.get('state') !== provider.lastState) throw new Error('state mismatch at the callback');
  await new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }).finishAuth(params);
}

/** The whole sign-in through the SDK: discovery, registration or metadata document, browser, iss-checked code exchange. */
export async function signInWithSdk(
  mcpUrl: string,
  serveBase: string,
  sandbox: Sandbox,
  login: string,
  provider = new TestClientProvider(),
  scope?: string,
): Promise<{ provider: TestClientProvider; signIn: SignIn }> {
  const first = await auth(provider, { serverUrl: mcpUrl, ...(scope ? { scope } : {}) });
  if (first !== 'REDIRECT' || !provider.authorizationUrl) throw new Error(`auth() did not ask for a browser: ${first}`);
  const signIn = await browserSignIn(
    new ScriptedBrowser(),
    provider.authorizationUrl,
    serveBase,
    login,
    sandbox.users[login]?.password ?? '',
    provider.redirectUrl,
  );
  const location = signIn.final.location;
  if (location && new URL(location).searchParams.has('code')) await finishSignIn(mcpUrl, provider, location);
  return { provider, signIn };
}

/** An MCP client of the v2 SDK on the namespace, signed in through `provider`. */
export async function connectAs(
  mcpUrl: string,
  provider: OAuthClientProvider,
  era: 'legacy' | 'modern' = 'legacy',
): Promise<Client> {
  const client = new Client(
    { name: 'warden-oauth-test', version: '0.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
  return client;
}

/** An MCP client of the v2 SDK sending a fixed bearer token. */
export async function connectWithToken(mcpUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: 'warden-oauth-test', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** One raw tools/list with a bearer token: the HTTP status and challenge, as a client sees them first. */
export async function mcpStatus(
  mcpUrl: string,
  accessToken: string,
  message: Record<string, unknown> = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
): Promise<{ status: number; wwwAuthenticate: string | null; body: string }> {
  const response = await fetch(mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(message),
  });
  return {
    status: response.status,
    wwwAuthenticate: response.headers.get('www-authenticate'),
    body: await response.text(),
  };
}

/** A form POST to /token. */
export async function tokenRequest(
  base: string,
  fields: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${base}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export { browserSignIn, ScriptedBrowser };
export { fieldOf } from '../../src/sandbox/scripted-browser.js';
