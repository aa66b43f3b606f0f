// Per-user OAuth and the token's scopes: a grant carries the Gitea scopes the person consented to, and
// the namespace lists only what they reach. A call of an allowed operation the grant lacks a scope
// for gets HTTP 403 with a WWW-Authenticate insufficient_scope challenge naming it; the official SDK
// client (v2) then asks the person again for the wider grant, and the call goes through. A scope the
// operator does not let a grant carry is refused in the call's result instead: no consent could add it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { UnauthorizedError } from '@modelcontextprotocol/client';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { payloadOf, tempDir } from './support/namespace.js';
import {
  browserSignIn,
  connectAs,
  finishSignIn,
  mcpStatus,
  registerWardenApp,
  ScriptedBrowser,
  signInWithSdk,
  spawnOAuthServe,
  TestClientProvider,
  type OAuthServe,
} from './support/oauth-flow.js';

const READ_ONLY_ISSUES = 'read:user read:notification read:organization read:package read:issue write:repository';

describe('a grant without write:issue', () => {
  let sandbox: Sandbox;
  let dir: ReturnType<typeof tempDir>;
  let serve: OAuthServe;
  let app: Awaited<ReturnType<typeof registerWardenApp>>;
  let issue: number;
  const comment = { owner: 'acme', repo: 'widgets', body: { body: 'from the agent, after step-up' } };

  before(async () => {
    sandbox = await startSandbox();
    dir = tempDir('warden-step-up-');
    app = await registerWardenApp(sandbox);
    serve = await spawnOAuthServe(sandbox, app, {
      auditLog: join(dir.path, 'audit.jsonl'),
      store: join(dir.path, 'tokens.sqlite'),
    });
    const issues = await fetch(`${sandbox.url}/api/v1/repos/acme/widgets/issues?type=issues&state=all`, {
      headers: { authorization: `token ${sandbox.users.admin?.token}` },
    });
    issue = ((await issues.json()) as Array<{ number: number }>)[0]?.number ?? 0;
  });

  after(async () => {
    await serve?.close();
    await sandbox?.close();
    dir?.dispose();
  });

  test('is not listed issue writes, gets the step-up challenge, and the SDK client steps up', async () => {
    const { provider } = await signInWithSdk(serve.url, serve.base, sandbox, 'alice', undefined, READ_ONLY_ISSUES);
    assert.ok(!provider.saved?.scope?.split(' ').includes('write:issue'), provider.saved?.scope);
    // Gitea's token carries exactly the grant's scopes.
    const giteaGrant = sandbox.state.oauth2Grants.find((g) => g.user === 'alice');
    assert.ok(giteaGrant && !giteaGrant.scope.includes('write:issue'), giteaGrant?.scope);

    const client = await connectAs(serve.url, provider);
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(!names.includes('gitea_comments_create') && names.includes('gitea_comments_list'), names.join(' '));
    await client.close();

    // The challenge as a client sees it on the wire.
    const raw = await mcpStatus(serve.url, provider.saved?.access_token ?? '', {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'gitea_comments_create', arguments: { ...comment, index: issue } },
    });
    assert.equal(raw.status, 403);
    assert.match(raw.wwwAuthenticate ?? '', /^Bearer error="insufficient_scope", scope="[^"]*\bwrite:issue\b[^"]*"/);
    assert.match(
      raw.wwwAuthenticate ?? '',
      /resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
    assert.match(raw.wwwAuthenticate ?? '', /needs the Gitea scope write:issue/);
    const before = sandbox.requests.filter((r) => r.method === 'POST' && r.path.includes('/comments')).length;

    // The SDK client: the call meets the challenge and sends the person to consent to the union of scopes.
    const stepping = await connectAs(serve.url, provider);
    provider.authorizationUrl = undefined;
    await assert.rejects(
      stepping.callTool({ name: 'gitea_comments_create', arguments: { ...comment, index: issue } }),
      (error: unknown) => error instanceof UnauthorizedError || /Unauthorized/.test(String(error)),
    );
    await stepping.close().catch(() => undefined);
    const asked = provider.authorizationUrl as URL | undefined;
    assert.ok(asked, 'the SDK sent the person to authorize again');
    const scopes = asked.searchParams.get('scope')?.split(' ') ?? [];
    assert.ok(scopes.includes('write:issue') && scopes.includes('read:issue'), scopes.join(' '));
    const signIn = await browserSignIn(
      new ScriptedBrowser(),
      asked,
      serve.base,
      'alice',
      sandbox.users.alice?.password ?? '',
      provider.redirectUrl,
    );
    assert.match(signIn.consentPage, /<code>write:issue<\/code>/);
    await finishSignIn(serve.url, provider, signIn.final.location ?? '');
    assert.ok(provider.saved?.scope?.split(' ').includes('write:issue'), provider.saved?.scope);
    assert.equal(
      sandbox.requests.filter((r) => r.method === 'POST' && r.path.includes('/comments')).length,
      before,
      'nothing was written before the wider consent',
    );

    const after = await connectAs(serve.url, provider);
    const written = await after.callTool({ name: 'gitea_comments_create', arguments: { ...comment, index: issue } });
    assert.equal(written.isError, false, JSON.stringify(written.structuredContent));
    assert.equal(payloadOf(written).data.user.login, 'alice');
    await after.close();
  });

  test("a scope the operator's OAUTH_GITEA_SCOPES leaves out: no challenge, the call's result names it", async () => {
    const narrow = await spawnOAuthServe(sandbox, app, {
      auditLog: join(dir.path, 'audit-narrow.jsonl'),
      store: join(dir.path, 'tokens-narrow.sqlite'),
      extra: { OAUTH_GITEA_SCOPES: READ_ONLY_ISSUES },
    });
    try {
      const meta = (await (await fetch(`${narrow.base}/.well-known/oauth-authorization-server`)).json()) as {
        scopes_supported: string[];
      };
      assert.ok(!meta.scopes_supported.includes('write:issue'), meta.scopes_supported.join(' '));
      const { provider } = await signInWithSdk(narrow.url, narrow.base, sandbox, 'alice');
      const raw = await mcpStatus(narrow.url, provider.saved?.access_token ?? '', {
        jsonrpc: '2.0',
        id: 8,
        method: 'tools/call',
        params: { name: 'gitea_comments_create', arguments: { ...comment, index: issue } },
      });
      assert.equal(raw.status, 200);
      const result = (JSON.parse(raw.body) as { result: { structuredContent: { error: Record<string, unknown> } } })
        .result.structuredContent.error;
      assert.equal(result.kind, 'token_scope_missing');
      assert.deepEqual(result.missing_scopes, ['write:issue']);
    } finally {
      await narrow.close();
      app.setRedirect(`${serve.base}/oauth/callback`);
    }
  });
});
