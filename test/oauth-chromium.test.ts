// The consent page and Gitea's (the sandbox's) sign-in and grant pages in a real headless Chromium
// (Debian's chromium, driven by playwright-core): a person reads the consent page, approves, signs
// in at Gitea, grants, and the MCP client's loopback redirect receives the code; the SDK client then
// calls as that person. The consent page refuses to be framed. Without a browser (test/support/browser.ts)
// each test is skipped and says so (.ci/run installs it).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { CHROMIUM, noBrowser } from './support/browser.js';
import { payloadOf, tempDir } from './support/namespace.js';
import { registerWardenApp, spawnOAuthServe, TestClientProvider, type OAuthServe } from './support/oauth-flow.js';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The MCP client's loopback redirect target: records the query of each visit to /callback. */
function startRedirectCatcher(): Promise<{ url: string; received: URLSearchParams[]; server: Server }> {
  const received: URLSearchParams[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/callback') received.push(url.searchParams); // not /favicon.ico
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>Signed in</title><p id="done">You can close this window.</p>');
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, received, server }),
    ),
  );
}

describe('consent and Gitea sign-in in headless Chromium', () => {
  let sandbox: Sandbox;
  let dir: ReturnType<typeof tempDir>;
  let serve: OAuthServe;
  let catcher: Awaited<ReturnType<typeof startRedirectCatcher>>;
  let browser: BrowserContext;

  before(async () => {
    if (noBrowser) return;
    sandbox = await startSandbox();
    dir = tempDir('warden-chromium-');
    const app = await registerWardenApp(sandbox);
    serve = await spawnOAuthServe(sandbox, app, {
      auditLog: join(dir.path, 'audit.jsonl'),
      store: join(dir.path, 'tokens.sqlite'),
    });
    catcher = await startRedirectCatcher();
    browser = await chromium.launchPersistentContext(join(dir.path, 'chromium-profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
    });
  });

  after(async () => {
    await browser?.close();
    catcher?.server.close();
    await serve?.close();
    await sandbox?.close();
    dir?.dispose();
  });

  test('a person approves, signs in at Gitea, grants; the agent then acts as them', { skip: noBrowser }, async () => {
    const provider = new TestClientProvider(catcher.url, 'Chromium test agent');
    assert.equal(await auth(provider, { serverUrl: serve.url }), 'REDIRECT');
    const page = await browser.newPage();
    await page.goto(String(provider.authorizationUrl));
    // The consent page: client, redirect URI, namespace, what the profile allows.
    assert.equal(await page.textContent('#client-name'), 'Chromium test agent');
    assert.equal(await page.textContent('#redirect-uri'), catcher.url);
    assert.equal(await page.textContent('#namespace'), 'gitea-author-oauth');
    assert.match((await page.textContent('#summary')) ?? '', /author role .* never allowed gitea\.pr\.approve/);
    await Promise.all([page.waitForURL(/\/user\/login/), page.click('#approve')]);
    // Gitea's sign-in form, then its grant page.
    await page.fill('#user_name', 'alice');
    await page.fill('#password', sandbox.users.alice?.password ?? '');
    await Promise.all([page.waitForURL(/\/login\/oauth\/authorize/), page.click('#sign-in')]);
    assert.match((await page.textContent('h1')) ?? '', /Authorize "gitea-warden"/);
    await Promise.all([page.waitForURL((url) => url.href.startsWith(catcher.url)), page.click('#authorize')]);
    assert.equal(await page.textContent('#done'), 'You can close this window.');
    const code = catcher.received.at(-1)?.get('code');
    assert.ok(code, `the client received an authorization code: ${catcher.received.at(-1)?.toString()}`);
    assert.equal(await auth(provider, { serverUrl: serve.url, authorizationCode: code }), 'AUTHORIZED');
    const client = new Client({ name: 'warden-chromium-test', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(serve.url), { authProvider: provider }));
    assert.equal(payloadOf(await client.callTool({ name: 'gitea_whoami', arguments: {} })).login, 'alice');
    await client.close();
    await page.close();
  });

  test('the consent page cannot be framed by another page', { skip: noBrowser }, async () => {
    const provider = new TestClientProvider(catcher.url, 'Framing test');
    await auth(provider, { serverUrl: serve.url });
    const page = await browser.newPage();
    // The attacker's page lives on another origin (the redirect catcher's), framing the consent flow.
    await page.goto(catcher.url);
    // The main document's load event waits for its frame, whatever the frame ends as.
    await page.setContent(`<iframe id="f" src="${String(provider.authorizationUrl)}"></iframe>`, { waitUntil: 'load' });
    const frame = page.frames().find((f) => f !== page.mainFrame());
    assert.ok(frame, 'the frame exists');
    const approve = await frame?.$('#approve').catch(() => null);
    assert.equal(approve ?? null, null, 'the consent form must not render inside a frame');
    await page.close();
  });
});
