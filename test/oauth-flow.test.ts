// Per-user OAuth end to end: the official SDK's OAuth client (@modelcontextprotocol/client v2: auth()
// over an OAuthClientProvider, finishAuth checking iss) against `serve` in AUTH_MODE=oauth, our own
// authorization server endpoints, and the sandbox's Gitea OAuth2 provider. Registration,
// authorization, consent, Gitea sign-in, callback, token, tools/call as the person, refresh and
// revocation; then every refusal the issue names.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openSqlite } from '../src/auth/sqlite-driver.js';
import { auth, IssuerMismatchError } from '@modelcontextprotocol/client';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { payloadOf, tempDir } from './support/namespace.js';
import {
  browserSignIn,
  connectAs,
  connectWithToken,
  fieldOf,
  finishSignIn,
  mcpStatus,
  registerWardenApp,
  ScriptedBrowser,
  signInWithSdk,
  spawnOAuthServe,
  TestClientProvider,
  tokenRequest,
  type OAuthServe,
} from './support/oauth-flow.js';

describe('per-user OAuth with the SDK client, serve and the sandbox', () => {
  let sandbox: Sandbox;
  let dir: ReturnType<typeof tempDir>;
  let serve: OAuthServe;
  let other: OAuthServe;
  let app: Awaited<ReturnType<typeof registerWardenApp>>;
  const storeFile = () => join(dir.path, 'state', 'oauth-tokens.sqlite');

  before(async () => {
    sandbox = await startSandbox();
    dir = tempDir('warden-oauth-');
    app = await registerWardenApp(sandbox);
    serve = await spawnOAuthServe(sandbox, app, { auditLog: join(dir.path, 'audit.jsonl'), store: storeFile() });
    // A second namespace sharing the same store, at another URL: a different resource.
    other = await spawnOAuthServe(sandbox, app, { auditLog: join(dir.path, 'audit-other.jsonl'), store: storeFile() });
    app.setRedirect(`${serve.base}/oauth/callback`);
  });

  after(async () => {
    await serve?.close();
    await other?.close();
    await sandbox?.close();
    dir?.dispose();
  });

  test('discovery: 401 with resource_metadata, protected resource and authorization server metadata', async () => {
    const unauthenticated = await fetch(serve.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(unauthenticated.status, 401);
    assert.match(
      unauthenticated.headers.get('www-authenticate') ?? '',
      /^Bearer .*resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const prm = (await (await fetch(`${serve.base}${path}`)).json()) as Record<string, unknown>;
      assert.equal(prm.resource, serve.url, path);
      assert.deepEqual(prm.authorization_servers, [`${serve.base}/`]);
    }
    const asMeta = (await (await fetch(`${serve.base}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    assert.deepEqual(asMeta.code_challenge_methods_supported, ['S256']);
    assert.equal(asMeta.registration_endpoint, `${serve.base}/register`);
    assert.equal(asMeta.revocation_endpoint, `${serve.base}/revoke`);
    assert.equal(asMeta.issuer, `${serve.base}/`);
    assert.equal(asMeta.authorization_response_iss_parameter_supported, true);
    assert.equal(asMeta.client_id_metadata_document_supported, true);
    // The scopes are the Gitea scopes the profile needs (read:user first: the identity), not the person's full access.
    assert.ok(Array.isArray(asMeta.scopes_supported) && asMeta.scopes_supported[0] === 'read:user');
    assert.ok((asMeta.scopes_supported as string[]).includes('write:issue'));
    assert.ok(!(asMeta.scopes_supported as string[]).some((s) => s === 'all' || s.endsWith(':admin')));
  });

  test('every answer to the client carries iss: success, refusal and denial; the SDK refuses another or none', async () => {
    const iss = `${serve.base}/`;
    // A denial at the consent page.
    const denying = new TestClientProvider();
    await auth(denying, { serverUrl: serve.url });
    const browser = new ScriptedBrowser();
    const consent = await browser.follow((denying.authorizationUrl as URL).toString(), denying.redirectUrl);
    const denied = await browser.request(`${serve.base}/oauth/consent`, {
      form: {
        request: fieldOf(consent.body, 'request') ?? '',
        csrf: fieldOf(consent.body, 'csrf') ?? '',
        decision: 'deny',
      },
      headers: { origin: serve.base },
    });
    const deniedBack = new URL(denied.location ?? '');
    assert.equal(deniedBack.searchParams.get('error'), 'access_denied');
    assert.equal(deniedBack.searchParams.get('iss'), iss);
    assert.equal(deniedBack.searchParams.get('state'), denying.lastState);
    // The SDK checks iss before it reads the error: a denial is reported as one.
    await assert.rejects(finishSignIn(serve.url, denying, denied.location ?? ''), /denied/);

    // A success whose iss an attacker swapped (a mix-up), or dropped: the SDK exchanges nothing.
    for (const tamper of [
      (p: URLSearchParams) => p.set('iss', 'http://evil.example/'),
      (p: URLSearchParams) => p.delete('iss'),
    ]) {
      const provider = new TestClientProvider();
      await auth(provider, { serverUrl: serve.url });
      const signIn = await browserSignIn(
        new ScriptedBrowser(),
        provider.authorizationUrl as URL,
        serve.base,
        'alice',
        sandbox.users.alice?.password ?? '',
        provider.redirectUrl,
      );
      const location = new URL(signIn.final.location ?? '');
      assert.equal(location.searchParams.get('iss'), iss);
      tamper(location.searchParams);
      await assert.rejects(finishSignIn(serve.url, provider, location.toString()), (error: unknown) => {
        assert.ok(error instanceof IssuerMismatchError, String(error));
        return true;
      });
      assert.equal(provider.saved, undefined, 'no token was obtained');
    }
  });

  test('the whole flow: sign-in as alice, tools/call as alice, refresh, revocation', async () => {
    const { provider, signIn } = await signInWithSdk(serve.url, serve.base, sandbox, 'alice');
    // The consent page named the client, its redirect URI, the namespace and what it may do.
    assert.match(signIn.consentPage, /warden-e2e-agent/);
    assert.match(signIn.consentPage, /http:\/\/127\.0\.0\.1:9\/callback/);
    assert.match(signIn.consentPage, /gitea-author-oauth/);
    assert.match(signIn.consentPage, /<ul id="may-never" class="never">.*<li>Approve a pull request<\/li>/);
    // The callback carried iss, the issuer of the metadata; finishAuth checked it.
    const back = new URL(signIn.final.location ?? '');
    assert.equal(back.searchParams.get('iss'), `${serve.base}/`);
    const tokens = provider.saved;
    assert.ok(tokens);
    // Gitea was asked for the scopes the profile needs, not the person's full access (an empty scope is `all`).
    const giteaScope = sandbox.state.oauth2Grants.find((g) => g.user === 'alice')?.scope.split(' ') ?? [];
    assert.ok(giteaScope.includes('read:user') && giteaScope.includes('write:repository'), giteaScope.join(' '));
    assert.ok(!giteaScope.some((s) => s === 'all' || s.endsWith(':admin') || s === 'write:user'), giteaScope.join(' '));
    assert.deepEqual(tokens.scope?.split(' ').sort(), [...giteaScope].sort(), 'the grant carries the same scopes');
    assert.ok(
      tokens.access_token.startsWith('gwa_') && tokens.refresh_token?.startsWith('gwr_'),
      'opaque tokens issued',
    );

    const client = await connectAs(serve.url, provider);
    const whoami = payloadOf(await client.callTool({ name: 'gitea_whoami', arguments: {} }));
    assert.equal(whoami.login, 'alice');
    assert.equal(whoami.signed_in_via, 'oauth');
    assert.equal(whoami.verified, true);
    // A write runs at Gitea as alice, with alice's OAuth token.
    const before = sandbox.requests.length;
    const created = await client.callTool({
      name: 'gitea_branches_create',
      arguments: {
        owner: 'acme',
        repo: 'widgets',
        body: { new_branch_name: 'feature/oauth', old_branch_name: 'main' },
      },
    });
    assert.equal(created.isError, false, JSON.stringify(created.structuredContent));
    const writes = sandbox.requests.slice(before).filter((r) => r.method === 'POST' && r.path.endsWith('/branches'));
    assert.deepEqual(
      writes.map((r) => r.login),
      ['alice'],
    );
    await client.close();
    // A 2026-07-28 client reaches the factory through the SDK's entry: it too acts as alice, never as the namespace.
    const modern = await connectAs(serve.url, provider, 'modern');
    assert.equal(modern.getProtocolEra(), 'modern');
    const modernWhoami = payloadOf(await modern.callTool({ name: 'gitea_whoami', arguments: {} }));
    assert.equal(modernWhoami.login, 'alice');
    assert.equal(modernWhoami.signed_in_via, 'oauth');
    const beforeModern = sandbox.requests.length;
    const modernWrite = await modern.callTool({
      name: 'gitea_branches_create',
      arguments: {
        owner: 'acme',
        repo: 'widgets',
        body: { new_branch_name: 'feature/oauth-modern', old_branch_name: 'main' },
      },
    });
    assert.equal(modernWrite.isError, false, JSON.stringify(modernWrite.structuredContent));
    assert.deepEqual(
      sandbox.requests
        .slice(beforeModern)
        .filter((r) => r.method === 'POST' && r.path.endsWith('/branches'))
        .map((r) => r.login),
      ['alice'],
    );
    await modern.close();
    // The audit names the person.
    const audit = readFileSync(join(dir.path, 'audit.jsonl'), 'utf8');
    assert.match(audit, /"login":"alice"/);

    // Refresh rotates: the new pair works, the old refresh token no longer does.
    const oldRefresh = tokens.refresh_token ?? '';
    assert.equal(await auth(provider, { serverUrl: serve.url }), 'AUTHORIZED');
    assert.notEqual(provider.saved?.access_token, tokens.access_token);
    assert.equal((await mcpStatus(serve.url, provider.saved?.access_token ?? '')).status, 200);

    // Revocation (RFC 7009) ends the sign-in: the access token gets 401, the refresh token invalid_grant.
    const clientId = provider.info?.client_id ?? '';
    const revoked = await fetch(`${serve.base}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: provider.saved?.access_token ?? '', client_id: clientId }).toString(),
    });
    assert.equal(revoked.status, 200);
    assert.equal((await mcpStatus(serve.url, provider.saved?.access_token ?? '')).status, 401);
    const refreshAfter = await tokenRequest(serve.base, {
      grant_type: 'refresh_token',
      refresh_token: provider.saved?.refresh_token ?? '',
      client_id: clientId,
    });
    assert.equal(refreshAfter.status, 400);
    assert.equal(refreshAfter.body.error, 'invalid_grant');
    const reused = await tokenRequest(serve.base, {
      grant_type: 'refresh_token',
      refresh_token: oldRefresh,
      client_id: clientId,
    });
    assert.equal(reused.body.error, 'invalid_grant');
  });

  test('a token issued for one namespace is refused by another that trusts the same store', async () => {
    const { provider } = await signInWithSdk(serve.url, serve.base, sandbox, 'alice');
    const token = provider.saved?.access_token ?? '';
    assert.equal((await mcpStatus(serve.url, token)).status, 200);
    const elsewhere = await mcpStatus(other.url, token);
    assert.equal(elsewhere.status, 401);
    assert.match(elsewhere.wwwAuthenticate ?? '', /not issued for this resource/);
  });

  test("oauth+bearer: the static bearer still serves the profile's own identity, beside per-user tokens", async () => {
    const bearer = 'static-bearer-token-0123456789abcdef';
    const both = await spawnOAuthServe(sandbox, app, {
      auditLog: join(dir.path, 'audit-both.jsonl'),
      store: storeFile(),
      extra: {
        AUTH_MODE: 'oauth+bearer',
        MCP_BEARER_TOKEN: bearer,
        GITEA_AUTHOR_TOKEN: sandbox.users.alice?.token ?? '',
      },
    });
    try {
      const client = await connectWithToken(both.url, bearer);
      const whoami = payloadOf(await client.callTool({ name: 'gitea_whoami', arguments: {} }));
      assert.equal(whoami.login, 'alice');
      assert.equal(whoami.signed_in_via, 'profile_token');
      await client.close();
      const wrong = await mcpStatus(both.url, 'not-the-bearer');
      assert.equal(wrong.status, 401);
      assert.match(wrong.wwwAuthenticate ?? '', /resource_metadata=/);
    } finally {
      await both.close();
      app.setRedirect(`${serve.base}/oauth/callback`);
    }
  });

  test('a person the profile does not name gets a refusal page and no token', async () => {
    const provider = new TestClientProvider();
    await auth(provider, { serverUrl: serve.url });
    const signIn = await browserSignIn(
      new ScriptedBrowser(),
      provider.authorizationUrl as URL,
      serve.base,
      'admin',
      sandbox.users.admin?.password ?? '',
      provider.redirectUrl,
    );
    assert.equal(signIn.final.status, 403);
    assert.match(signIn.final.body, /admin is not among the people the profile gitea-author-oauth names/);
    const back = new URL(fieldOf(signIn.final.body.replace(/href="/, 'name="back" value="'), 'back') ?? 'http://x/');
    assert.equal(back.searchParams.get('error'), 'access_denied');
    assert.equal(back.searchParams.get('iss'), `${serve.base}/`);
    // Through the store's own driver, which keeps its statements from Node 24's finalizer abort.
    const db = openSqlite(storeFile());
    const grants = (await db.query('SELECT login FROM oauth_grants')) as Array<{ login: string }>;
    await db.close();
    assert.ok(
      grants.every((g) => g.login !== 'admin'),
      'no grant stored for admin',
    );
  });

  test('a member of a named team may sign in (team membership read from Gitea)', async () => {
    const { provider } = await signInWithSdk(serve.url, serve.base, sandbox, 'bob');
    const client = await connectAs(serve.url, provider);
    assert.equal(payloadOf(await client.callTool({ name: 'gitea_whoami', arguments: {} })).login, 'bob');
    await client.close();
  });

  test('registration (RFC 7591, deprecated, working): metadata checked; a confidential client proves its secret', async () => {
    const register = async (body: unknown) => {
      const response = await fetch(`${serve.base}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    for (const [uri, reason] of [
      ['http://evil.example/cb', /http to a host that is not loopback/],
      ['javascript:alert(1)', /javascript: scheme/],
      ['https://app.example/cb#frag', /fragment/],
    ] as const) {
      const refused = await register({ redirect_uris: [uri], token_endpoint_auth_method: 'none' });
      assert.equal(refused.status, 400, uri);
      assert.equal(refused.body.error, 'invalid_redirect_uri');
      assert.match(String(refused.body.error_description), reason);
    }
    const unsupported = await register({
      redirect_uris: ['http://127.0.0.1:9/cb'],
      token_endpoint_auth_method: 'private_key_jwt',
    });
    assert.equal(unsupported.body.error, 'invalid_client_metadata');
    const publicClient = await register({
      redirect_uris: ['http://127.0.0.1:9/cb'],
      token_endpoint_auth_method: 'none',
    });
    assert.equal(publicClient.status, 201);
    assert.equal(publicClient.body.client_secret, undefined);
    const confidential = await register({ client_name: 'CI bot', redirect_uris: ['https://ci.example/cb'] });
    assert.equal(confidential.status, 201);
    assert.equal(confidential.body.token_endpoint_auth_method, 'client_secret_basic');
    assert.match(String(confidential.body.client_secret), /^gws_/);
    // Its token requests must carry the secret (HTTP Basic or the form); without or with another, 401.
    for (const secret of [undefined, 'not-the-secret']) {
      const answer = await tokenRequest(serve.base, {
        grant_type: 'refresh_token',
        refresh_token: 'gwr_x',
        client_id: String(confidential.body.client_id),
        ...(secret ? { client_secret: secret } : {}),
      });
      assert.equal(answer.status, 401);
      assert.equal(answer.body.error, 'invalid_client');
    }
    const basic = Buffer.from(`${String(confidential.body.client_id)}:${String(confidential.body.client_secret)}`);
    const withSecret = await fetch(`${serve.base}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${basic.toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'gwr_x' }).toString(),
    });
    assert.equal(
      ((await withSecret.json()) as { error: string }).error,
      'invalid_grant',
      'authenticated: only the token is unknown',
    );
  });

  test('refused: a redirect URI the client did not register', async () => {
    const provider = new TestClientProvider();
    await auth(provider, { serverUrl: serve.url });
    const url = new URL(provider.authorizationUrl as URL);
    url.searchParams.set('redirect_uri', 'http://127.0.0.1:9/elsewhere');
    const answer = await new ScriptedBrowser().request(url.toString());
    assert.equal(answer.status, 400);
    assert.match(answer.body, /Unregistered redirect_uri/);
  });

  test('refused: missing or plain PKCE', async () => {
    const provider = new TestClientProvider();
    await auth(provider, { serverUrl: serve.url });
    for (const change of [
      (u: URL) => u.searchParams.set('code_challenge_method', 'plain'),
      (u: URL) => {
        u.searchParams.delete('code_challenge');
        u.searchParams.delete('code_challenge_method');
      },
    ]) {
      const url = new URL(provider.authorizationUrl as URL);
      change(url);
      const answer = await new ScriptedBrowser().request(url.toString());
      assert.equal(answer.status, 302);
      const back = new URL(answer.location ?? '');
      assert.equal(back.origin + back.pathname, provider.redirectUrl);
      assert.equal(back.searchParams.get('error'), 'invalid_request');
      assert.equal(back.searchParams.get('iss'), `${serve.base}/`);
    }
  });

  test('refused: a consent POST without its CSRF token, or from another origin', async () => {
    const provider = new TestClientProvider();
    await auth(provider, { serverUrl: serve.url });
    const browser = new ScriptedBrowser();
    const consent = await browser.follow((provider.authorizationUrl as URL).toString(), provider.redirectUrl);
    assert.equal(consent.status, 200);
    const request = fieldOf(consent.body, 'request') ?? '';
    const csrf = fieldOf(consent.body, 'csrf') ?? '';
    const noCsrf = await browser.request(`${serve.base}/oauth/consent`, {
      form: { request, decision: 'approve' },
      headers: { origin: serve.base },
    });
    assert.equal(noCsrf.status, 403);
    assert.match(noCsrf.body, /without its security token/);
    const crossOrigin = await browser.request(`${serve.base}/oauth/consent`, {
      form: { request, csrf, decision: 'approve' },
      headers: { origin: 'http://evil.example' },
    });
    assert.equal(crossOrigin.status, 403);
    assert.match(crossOrigin.body, /Origin not allowed/);
    // No Origin header, but the browser says the form came from another site.
    const crossSite = await browser.request(`${serve.base}/oauth/consent`, {
      form: { request, csrf, decision: 'approve' },
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    assert.equal(crossSite.status, 403);
    assert.match(crossSite.body, /cross-origin/);
    // Another browser (no cookie) with the token copied from the page: refused too.
    const stolen = await new ScriptedBrowser().request(`${serve.base}/oauth/consent`, {
      form: { request, csrf, decision: 'approve' },
      headers: { origin: serve.base },
    });
    assert.equal(stolen.status, 403);
    // The page cannot be framed.
    const page = await browser.request(`${serve.base}/oauth/consent?request=${request}`);
    assert.equal(page.status, 200);
    const headers = await fetch(`${serve.base}/oauth/consent?request=${request}`);
    assert.equal(headers.headers.get('x-frame-options'), 'DENY');
    assert.match(headers.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  });

  test('refused: a replayed or forged state at the callback', async () => {
    const forged = await new ScriptedBrowser().request(`${serve.base}/oauth/callback?code=x&state=forged`);
    assert.equal(forged.status, 400);
    assert.match(forged.body, /unknown, already used, or forged/);
    // Replay: capture Gitea's redirect back to the callback and send it twice.
    const provider = new TestClientProvider();
    await auth(provider, { serverUrl: serve.url });
    const browser = new ScriptedBrowser();
    const consent = await browser.follow((provider.authorizationUrl as URL).toString(), provider.redirectUrl);
    const decided = await browser.request(`${serve.base}/oauth/consent`, {
      form: {
        request: fieldOf(consent.body, 'request') ?? '',
        csrf: fieldOf(consent.body, 'csrf') ?? '',
        decision: 'approve',
      },
      headers: { origin: serve.base },
    });
    const signInForm = await browser.follow(decided.location ?? '', provider.redirectUrl);
    const signedIn = await browser.request(new URL('/user/login', signInForm.url).toString(), {
      form: {
        _csrf: fieldOf(signInForm.body, '_csrf') ?? '',
        redirect_to: fieldOf(signInForm.body, 'redirect_to') ?? '/',
        user_name: 'alice',
        password: sandbox.users.alice?.password ?? '',
      },
    });
    // Alice granted the application before, so Gitea sends the browser straight back to the callback.
    const backFromGitea = await browser.follow(signedIn.location ?? '', `${serve.base}/oauth/callback`);
    const callback = backFromGitea.location ?? '';
    assert.ok(callback.startsWith(`${serve.base}/oauth/callback?`));
    const first = await browser.request(callback);
    assert.equal(first.status, 302);
    assert.ok(first.location?.startsWith(provider.redirectUrl));
    const replay = await browser.request(callback);
    assert.equal(replay.status, 400);
    assert.match(replay.body, /already used/);
  });

  test('refused: an authorization code with another redirect URI at the token endpoint, and a code used twice', async () => {
    const provider = new TestClientProvider();
    await auth(provider, { serverUrl: serve.url });
    const signIn = await browserSignIn(
      new ScriptedBrowser(),
      provider.authorizationUrl as URL,
      serve.base,
      'alice',
      sandbox.users.alice?.password ?? '',
      provider.redirectUrl,
    );
    const code = new URL(signIn.final.location ?? '').searchParams.get('code') ?? '';
    const clientId = provider.info?.client_id ?? '';
    const wrong = await tokenRequest(serve.base, {
      grant_type: 'authorization_code',
      code,
      code_verifier: provider.verifier,
      client_id: clientId,
      redirect_uri: 'http://127.0.0.1:9/other',
    });
    assert.equal(wrong.body.error, 'invalid_grant');
    const fresh = new TestClientProvider();
    await auth(fresh, { serverUrl: serve.url });
    const second = await browserSignIn(
      new ScriptedBrowser(),
      fresh.authorizationUrl as URL,
      serve.base,
      'alice',
      sandbox.users.alice?.password ?? '',
      fresh.redirectUrl,
    );
    const code2 = new URL(second.final.location ?? '').searchParams.get('code') ?? '';
    const fields = {
      grant_type: 'authorization_code',
      code: code2,
      code_verifier: fresh.verifier,
      client_id: fresh.info?.client_id ?? '',
      redirect_uri: fresh.redirectUrl,
    };
    const ok = await tokenRequest(serve.base, fields);
    assert.equal(ok.status, 200);
    const again = await tokenRequest(serve.base, fields);
    assert.equal(again.body.error, 'invalid_grant');
    // The replay ended the sign-in the first exchange started.
    assert.equal((await mcpStatus(serve.url, String(ok.body.access_token))).status, 401);
  });

  test('Gitea refusing to renew its token ends the sign-in with a 401', async () => {
    const { provider } = await signInWithSdk(serve.url, serve.base, sandbox, 'alice');
    const token = provider.saved?.access_token ?? '';
    // Renewal due: Gitea's token expires now. The first call renews it at Gitea (refresh_token grant).
    const db = openSqlite(storeFile());
    await db.query('UPDATE oauth_grants SET gitea_expires_at = 0');
    const before = sandbox.requests.length;
    assert.equal((await mcpStatus(serve.url, token)).status, 200);
    assert.ok(
      sandbox.requests.slice(before).some((r) => r.path === '/login/oauth/access_token' && r.status === 200),
      'renewed at Gitea',
    );
    // The person revokes the application in Gitea: renewal is refused, the client must sign in again.
    sandbox.state.oauth2Grants.splice(0, sandbox.state.oauth2Grants.length);
    await db.query('UPDATE oauth_grants SET gitea_expires_at = 0');
    await db.close();
    const refused = await mcpStatus(serve.url, token);
    assert.equal(refused.status, 401);
    assert.match(refused.wwwAuthenticate ?? '', /resource_metadata=/);
  });

  test('the SQLite store is mode 0600 and holds no plaintext token of either kind', async () => {
    const { provider } = await signInWithSdk(serve.url, serve.base, sandbox, 'alice');
    assert.equal(statSync(storeFile()).mode & 0o777, 0o600);
    const ours = [provider.saved?.access_token ?? '', provider.saved?.refresh_token ?? ''];
    const giteas = [...sandbox.state.oauth2Tokens.keys()];
    assert.ok(giteas.length > 0);
    const db = openSqlite(storeFile());
    const tables = ['oauth_clients', 'oauth_parks', 'oauth_grants', 'oauth_codes', 'oauth_tokens'];
    const dump = (
      await Promise.all(tables.map(async (table) => JSON.stringify(await db.query(`SELECT * FROM ${table}`))))
    ).join('\n');
    await db.close();
    const raw = readFileSync(storeFile()).toString('latin1') + readFileSyncIfAny(`${storeFile()}-wal`);
    for (const secret of [...ours, ...giteas, app.clientSecret]) {
      assert.ok(!dump.includes(secret), 'no plaintext token in the tables');
      assert.ok(!raw.includes(secret), 'no plaintext token in the file');
    }
    assert.match(dump, /"gitea_access_sealed":"v1\./);
  });
});

function readFileSyncIfAny(path: string): string {
  try {
    return readFileSync(path).toString('latin1');
  } catch {
    return '';
  }
}
