// Per-user OAuth in tests: a sandbox with this server's OAuth2 application, `serve` in AUTH_MODE=oauth,
// and the whole sign-in through the official SDK's auth() with the demo's client provider and
// scripted browser (src/cli/demo-oauth-flow.ts, src/sandbox/scripted-browser.ts).
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { AgentClientProvider, browserSignIn, type SignIn } from '../../src/cli/demo-oauth-flow.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { ScriptedBrowser } from '../../src/sandbox/scripted-browser.js';
import { namespaceEnv, spawnHttpNamespace, type HttpNamespace } from './namespace.js';

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

/** The whole sign-in through the SDK's auth(): discovery, registration, browser, code exchange. */
export async function signInWithSdk(
  mcpUrl: string,
  serveBase: string,
  sandbox: Sandbox,
  login: string,
  provider = new TestClientProvider(),
): Promise<{ provider: TestClientProvider; signIn: SignIn }> {
  const first = await auth(provider, { serverUrl: mcpUrl });
  if (first !== 'REDIRECT' || !provider.authorizationUrl) throw new Error(`auth() did not ask for a browser: ${first}`);
  const signIn = await browserSignIn(
    new ScriptedBrowser(),
    provider.authorizationUrl,
    serveBase,
    login,
    sandbox.users[login]?.password ?? '',
    provider.redirectUrl,
  );
  const code = signIn.final.location ? new URL(signIn.final.location).searchParams.get('code') : null;
  if (code) await auth(provider, { serverUrl: mcpUrl, authorizationCode: code });
  return { provider, signIn };
}

/** The tests' MCP client: the demo's provider under the name the consent page shows in the tests. */
export class TestClientProvider extends AgentClientProvider {
  constructor(redirectUrl = 'http://127.0.0.1:9/callback', name = 'warden-e2e-agent') {
    super(redirectUrl, name);
  }
}

export { browserSignIn, ScriptedBrowser };
export { fieldOf } from '../../src/sandbox/scripted-browser.js';
