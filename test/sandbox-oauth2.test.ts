// The sandbox's Gitea OAuth2 provider answers as Gitea's routers/web/auth/oauth2_provider.go does:
// sign-in first, unknown clients and unregistered redirect URIs on an error page, PKCE (S256 or
// plain; none only for confidential clients), one-time codes, refresh, userinfo, discovery, and
// access tokens that act as the user on the API until the grant is gone.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { registerOAuth2App } from '../src/sandbox/handlers/users.js';
import { fieldOf, ScriptedBrowser } from '../src/sandbox/scripted-browser.js';

const REDIRECT = 'http://127.0.0.1:9/cb';

describe('sandbox Gitea OAuth2 provider', () => {
  let sandbox: Sandbox;
  let app: ReturnType<typeof registerOAuth2App>;
  let publicApp: ReturnType<typeof registerOAuth2App>;

  before(async () => {
    sandbox = await startSandbox();
    app = registerOAuth2App(sandbox.state, 'admin', {
      name: 'confidential',
      redirectUris: [REDIRECT],
      confidential: true,
      skipSecondaryAuthorization: false,
    });
    publicApp = registerOAuth2App(sandbox.state, 'admin', {
      name: 'public',
      redirectUris: [REDIRECT],
      confidential: false,
      skipSecondaryAuthorization: false,
    });
  });
  after(() => sandbox.close());

  const authorizeUrl = (clientId: string, extra: Record<string, string>) =>
    `${sandbox.url}/login/oauth/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: REDIRECT, response_type: 'code', state: 's1', ...extra })}`;

  async function signedIn(login = 'alice'): Promise<ScriptedBrowser> {
    const browser = new ScriptedBrowser();
    const form = await browser.request(`${sandbox.url}/user/login`);
    const done = await browser.request(`${sandbox.url}/user/login`, {
      form: {
        _csrf: fieldOf(form.body, '_csrf') ?? '',
        user_name: login,
        password: sandbox.users[login]?.password ?? '',
        redirect_to: '/',
      },
    });
    assert.equal(done.status, 303);
    return browser;
  }

  async function codeFor(browser: ScriptedBrowser, url: string): Promise<string> {
    const page = await browser.request(url);
    const answer = page.location
      ? page
      : await browser.request(`${sandbox.url}/login/oauth/grant`, {
          form: {
            _csrf: fieldOf(page.body, '_csrf') ?? '',
            client_id: fieldOf(page.body, 'client_id') ?? '',
            state: fieldOf(page.body, 'state') ?? '',
            scope: '',
            redirect_uri: REDIRECT,
            granted: 'true',
          },
        });
    return new URL(answer.location ?? '').searchParams.get('code') ?? '';
  }

  const token = async (fields: Record<string, string>) => {
    const response = await fetch(`${sandbox.url}/login/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  test('not signed in: authorize sends the browser to the sign-in form; a wrong password stays there', async () => {
    const browser = new ScriptedBrowser();
    const answer = await browser.request(authorizeUrl(app.clientId, {}));
    assert.equal(answer.status, 303);
    assert.match(answer.location ?? '', /\/user\/login\?redirect_to=%2Flogin%2Foauth%2Fauthorize/);
    const form = await browser.request(answer.location ?? '');
    const wrong = await browser.request(`${sandbox.url}/user/login`, {
      form: { _csrf: fieldOf(form.body, '_csrf') ?? '', user_name: 'alice', password: 'wrong', redirect_to: '/' },
    });
    assert.equal(wrong.status, 200);
    assert.match(wrong.body, /Username or password is incorrect/);
  });

  test("unknown client and unregistered redirect URI end on Gitea's error page, never at the redirect URI", async () => {
    const browser = await signedIn();
    const unknown = await browser.request(authorizeUrl('nope', {}));
    assert.equal(unknown.status, 400);
    assert.match(unknown.body, /unauthorized_client/);
    const elsewhere = await browser.request(authorizeUrl(app.clientId, { redirect_uri: 'http://127.0.0.1:9/other' }));
    assert.equal(elsewhere.status, 400);
    assert.equal(elsewhere.location, null);
  });

  test('PKCE: none refused for a public client, S256 and plain verified at the token endpoint', async () => {
    const browser = await signedIn();
    const none = await browser.request(authorizeUrl(publicApp.clientId, {}));
    assert.equal(new URL(none.location ?? '').searchParams.get('error'), 'invalid_request');
    const verifier = 'v'.repeat(50);
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const code = await codeFor(
      browser,
      authorizeUrl(app.clientId, { code_challenge: challenge, code_challenge_method: 'S256' }),
    );
    const wrong = await token({
      grant_type: 'authorization_code',
      code,
      code_verifier: 'x'.repeat(50),
      client_id: app.clientId,
      client_secret: app.clientSecret,
      redirect_uri: REDIRECT,
    });
    assert.equal(wrong.body.error, 'unauthorized_client');
    const plainCode = await codeFor(
      browser,
      authorizeUrl(app.clientId, { code_challenge: verifier, code_challenge_method: 'plain' }),
    );
    const plain = await token({
      grant_type: 'authorization_code',
      code: plainCode,
      code_verifier: verifier,
      client_id: app.clientId,
      client_secret: app.clientSecret,
      redirect_uri: REDIRECT,
    });
    assert.equal(plain.status, 200);
  });

  test('a code works once; the access token acts as the user on the API and at userinfo; refresh; a deleted grant ends both', async () => {
    const browser = await signedIn('bob');
    const verifier = 'w'.repeat(60);
    const code = await codeFor(
      browser,
      authorizeUrl(app.clientId, {
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      }),
    );
    const fields = {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: app.clientId,
      client_secret: app.clientSecret,
      redirect_uri: REDIRECT,
    };
    const first = await token(fields);
    assert.equal(first.status, 200);
    assert.equal(first.body.token_type, 'bearer');
    assert.equal(first.body.expires_in, 3600);
    assert.equal((await token(fields)).body.error, 'unauthorized_client');
    const api = await fetch(`${sandbox.url}/api/v1/user`, {
      headers: { authorization: `Bearer ${first.body.access_token}` },
    });
    assert.equal(((await api.json()) as { login: string }).login, 'bob');
    const info = await fetch(`${sandbox.url}/login/oauth/userinfo`, {
      headers: { authorization: `Bearer ${first.body.access_token}` },
    });
    const claims = (await info.json()) as { preferred_username: string; groups: string[] };
    assert.equal(claims.preferred_username, 'bob');
    assert.deepEqual(claims.groups, ['acme', 'acme:developers']);
    const refreshed = await token({
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token,
      client_id: app.clientId,
      client_secret: app.clientSecret,
    });
    assert.equal(refreshed.status, 200);
    const wrongSecret = await token({
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token,
      client_id: app.clientId,
      client_secret: 'nope',
    });
    assert.equal(wrongSecret.body.error, 'invalid_client');
    // The person revokes the application in Gitea: its grant goes, and with it every token.
    sandbox.state.oauth2Grants.splice(0, sandbox.state.oauth2Grants.length);
    const after = await fetch(`${sandbox.url}/api/v1/user`, {
      headers: { authorization: `Bearer ${refreshed.body.access_token}` },
    });
    assert.equal(after.status, 401);
    assert.equal(
      (
        await token({
          grant_type: 'refresh_token',
          refresh_token: refreshed.body.refresh_token,
          client_id: app.clientId,
          client_secret: app.clientSecret,
        })
      ).body.error,
      'invalid_grant',
    );
  });

  test('openid-configuration names the endpoints Gitea serves', async () => {
    const config = (await (await fetch(`${sandbox.url}/.well-known/openid-configuration`)).json()) as Record<
      string,
      any
    >;
    assert.equal(config.token_endpoint, `${sandbox.url}/login/oauth/access_token`);
    assert.deepEqual(config.code_challenge_methods_supported, ['plain', 'S256']);
  });
});
