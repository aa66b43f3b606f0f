// `gitea-warden demo oauth`: the shared-service scene on the sandbox. gitea-warden is registered in
// the sandbox Gitea as an OAuth2 application; one `serve` runs the gitea-author-oauth profile with
// AUTH_MODE=oauth; alice's agent (the SDK's auth()) signs her in through the consent page and Gitea's
// sign-in, then acts as alice, within the profile; admin, whom the profile does not name, is refused
// at the consent page; a revoked sign-in stops working. Exit 0 when every step went as expected.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { packageRoot } from '../shared/paths.js';
import { isRecord } from '../gitea/errors.js';
import { startSandbox, type Sandbox } from '../sandbox/index.js';
import { registerOAuth2App } from '../sandbox/handlers/users.js';
import { ScriptedBrowser } from '../sandbox/scripted-browser.js';
import { auth, Client, StreamableHTTPClientTransport } from '../server/sdk-client.js';
import { AgentClientProvider, browserSignIn } from './demo-oauth-flow.js';
import { Printer } from './demo-report.js';
import { selfCommand } from './self-command.js';

const PROFILE = join('profiles', 'examples', 'gitea-author-oauth.yaml');

export async function runOAuthDemo(out: NodeJS.WritableStream, colour: boolean): Promise<number> {
  const printer = new Printer(out, colour);
  const problems: string[] = [];
  const check = (what: string, ok: boolean, detail: string) => {
    printer.say(`  ${ok ? '✓' : '✗'} ${what}`);
    printer.detail(detail);
    if (!ok) problems.push(`${what}: ${detail}`);
  };
  const dir = mkdtempSync(join(tmpdir(), 'warden-demo-oauth-'));
  let sandbox: Sandbox | null = null;
  let serve: { child: ChildProcess; url: string } | null = null;
  try {
    sandbox = await startSandbox();
    printer.chapter('0. A shared service: each person signs in with their own Gitea account');
    const app = registerOAuth2App(sandbox.state, 'admin', {
      name: 'gitea-warden',
      redirectUris: [],
      confidential: true,
      skipSecondaryAuthorization: false,
    });
    printer.say(
      `Sandbox Gitea at ${sandbox.url}; gitea-warden is registered there as OAuth2 application "${app.name}".`,
    );
    serve = await spawnServe(sandbox, app.clientId, app.clientSecret, dir);
    const base = new URL(serve.url).origin;
    app.redirectUris = [`${base}/oauth/callback`];
    printer.say(
      `One namespace, profile gitea-author-oauth, AUTH_MODE=oauth, at ${serve.url}. The profile names who may sign in:`,
    );
    printer.say('authenticated_users: [alice], authenticated_teams: [acme/Developers].');

    printer.chapter("1. Alice's agent signs her in");
    const alice = new AgentClientProvider('http://127.0.0.1:9/callback', "Alice's coding agent");
    const first = await auth(alice, { serverUrl: serve.url });
    check(
      'the agent, without a token, discovers the server and registers (RFC 9728, 8414, 7591)',
      first === 'REDIRECT' && alice.info !== undefined,
      `client_id ${alice.info?.client_id ?? 'none'}; the browser opens the consent page`,
    );
    const signIn = await browserSignIn(
      new ScriptedBrowser(),
      alice.authorizationUrl as URL,
      base,
      'alice',
      sandbox.users.alice?.password ?? '',
      alice.redirectUrl,
    );
    const never = /<ul id="may-never"[^>]*>(.*?)<\/ul>/.exec(signIn.consentPage)?.[1] ?? '';
    const summary = never ? `may never: ${[...never.matchAll(/<li>([^<]*)<\/li>/g)].map((m) => m[1]).join('; ')}` : '';
    check(
      'the consent page names the client, the namespace and what its profile lets an agent do',
      signIn.consentPage.includes('Alice&#39;s coding agent') && summary !== '',
      summary,
    );
    const callback = signIn.final.location ? new URL(signIn.final.location) : null;
    const code = callback?.searchParams.get('code') ?? null;
    check(
      'alice approves, signs in at Gitea and grants; the agent gets a code',
      code !== null,
      "Gitea's sign-in form and grant page, then /oauth/callback in the same browser",
    );
    // The client's callback: the SDK checks the answer's issuer (RFC 9207), then exchanges the code.
    const second =
      callback && code
        ? await new StreamableHTTPClientTransport(new URL(serve.url), { authProvider: alice })
            .finishAuth(callback.searchParams)
            .then(() => 'AUTHORIZED')
        : 'no code';
    check(
      'the agent exchanges the code (PKCE S256) for tokens bound to this namespace',
      second === 'AUTHORIZED',
      "opaque access and refresh tokens; the store keeps their hashes and alice's Gitea token encrypted",
    );

    printer.chapter('2. The agent acts as alice, within the profile');
    const client = new Client({ name: 'gitea-warden-demo-oauth', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(serve.url), { authProvider: alice }));
    const who = payload(await client.callTool({ name: 'gitea_whoami', arguments: {} }));
    check(
      'gitea_whoami names the person who signed in',
      who.login === 'alice' && who.signed_in_via === 'oauth',
      `login ${String(who.login)}, via ${String(who.signed_in_via)}`,
    );
    const before = sandbox.requests.length;
    const branch = await client.callTool({
      name: 'gitea_branches_create',
      arguments: {
        owner: 'acme',
        repo: 'widgets',
        body: { new_branch_name: 'feature/oauth-demo', old_branch_name: 'main' },
      },
    });
    const actors = sandbox.requests
      .slice(before)
      .filter((r) => r.method === 'POST')
      .map((r) => r.login);
    check(
      'creating a branch is allowed, and Gitea sees alice do it',
      branch.isError !== true && actors.includes('alice'),
      `Gitea request log: POST by ${actors.join(', ') || 'nobody'}`,
    );
    // The author profile does not even list the review tool; the raw tool reaches the same decision.
    const review = payload(
      await client.callTool({
        name: 'gitea_api_request',
        arguments: { method: 'POST', path: '/repos/acme/widgets/pulls/1/reviews', body: { event: 'APPROVED' } },
      }),
    );
    const reason = isRecord(review.error) ? String(review.error.reason) : 'allowed';
    check(
      'approving a pull request is refused by the profile, whatever alice may do in Gitea',
      reason !== 'allowed',
      `POST /repos/acme/widgets/pulls/1/reviews → denied: ${reason}`,
    );
    await client.close();

    printer.chapter('3. Who the profile does not name gets no token');
    const admin = new AgentClientProvider('http://127.0.0.1:9/callback', "Admin's agent");
    await auth(admin, { serverUrl: serve.url });
    const refused = await browserSignIn(
      new ScriptedBrowser(),
      admin.authorizationUrl as URL,
      base,
      'admin',
      sandbox.users.admin?.password ?? '',
      admin.redirectUrl,
    );
    const message = /id="message">([^<]*)</.exec(refused.final.body)?.[1] ?? '';
    check(
      'admin signs in at Gitea, and is refused at the consent page',
      refused.final.status === 403 && /not among/.test(message),
      message,
    );

    printer.chapter('4. Revocation');
    const revoked = await new ScriptedBrowser().request(`${base}/revoke`, {
      form: { token: alice.saved?.access_token ?? '', client_id: alice.info?.client_id ?? '' },
    });
    const after = await new ScriptedBrowser().request(serve.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.saved?.access_token ?? ''}`, 'content-type': 'application/json' },
    });
    check(
      'after revocation the token is refused (401) and the client must sign in again',
      revoked.status === 200 && after.status === 401,
      `POST /revoke → ${revoked.status}; next MCP request → ${after.status}`,
    );
  } catch (error) {
    problems.push(`the scene stopped early: ${error instanceof Error ? error.message : 'unexpected failure'}`);
  } finally {
    if (serve) await stop(serve.child);
    await sandbox?.close();
    rmSync(dir, { recursive: true, force: true });
  }
  printer.conclusion(problems);
  return problems.length === 0 ? 0 : 1;
}

function payload(result: unknown): Record<string, unknown> {
  const content = isRecord(result) ? result.structuredContent : undefined;
  return isRecord(content) ? content : {};
}

/** `serve` over HTTP in oauth mode on a free port; resolves with its MCP URL once it listens. */
function spawnServe(
  sandbox: Sandbox,
  clientId: string,
  clientSecret: string,
  dir: string,
): Promise<{ child: ChildProcess; url: string }> {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    GITEA_URL: sandbox.url,
    GITEA_MCP_PROFILE: PROFILE,
    MCP_TRANSPORT: 'http',
    MCP_PORT: '0',
    AUTH_MODE: 'oauth',
    OAUTH_CLIENT_ID: clientId,
    OAUTH_CLIENT_SECRET: clientSecret,
    TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    OAUTH_STORE: join(dir, 'oauth-tokens.sqlite'),
    AUDIT_LOG: join(dir, 'audit.jsonl'),
    LOG_LEVEL: 'info',
  };
  const serve = selfCommand(['serve']);
  const child = spawn(serve.command, serve.args, {
    cwd: packageRoot,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const url = /"url":"(http:[^"]+)"/.exec(stderr)?.[1];
      if (url) resolve({ child, url });
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr.slice(-500)}`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
