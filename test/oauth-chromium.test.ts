// The consent page and Gitea's (the sandbox's) sign-in and grant pages in a real headless Chromium
// (Debian's chromium, driven by playwright-core): a person reads the consent page (who asks and how
// sure that is; in plain words what the agent may and may never do, where, for how long, how to end
// it), approves, signs in at Gitea, grants, and the MCP client's loopback redirect receives the code
// and iss; the SDK client (v2) checks iss, exchanges the code, then calls as that person. The consent
// page refuses to be framed. The screenshot in docs/oauth.md is this test's: UPDATE_SCREENSHOTS=1
// writes it to docs/images/oauth-consent.png. Without a browser (test/support/browser.ts) each browser
// test is skipped and says so (.ci/run installs it).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { auth } from '@modelcontextprotocol/client';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { CHROMIUM, noBrowser } from './support/browser.js';
import { payloadOf, repoRoot, tempDir } from './support/namespace.js';
import {
  connectAs,
  finishSignIn,
  registerWardenApp,
  spawnOAuthServe,
  TestClientProvider,
  type OAuthServe,
} from './support/oauth-flow.js';

const SCREENSHOT = join(repoRoot, 'docs', 'images', 'oauth-consent.png');

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

/** The MCP client's loopback redirect target: records each visit to /callback. */
function startRedirectCatcher(): Promise<{ url: string; received: URL[]; server: Server }> {
  const received: URL[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/callback') received.push(url); // not /favicon.ico
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
    // The consent page: client and how sure its name is, redirect URI, namespace, and in plain words
    // what the agent may and may never do, its path limits, how long the grant lasts and how to end it.
    assert.equal(await page.textContent('#client-name'), 'Chromium test agent');
    assert.match((await page.textContent('#client-source')) ?? '', /registered itself, unverified/);
    assert.equal(await page.textContent('#redirect-uri'), catcher.url);
    assert.equal(await page.textContent('#namespace'), 'gitea-author-oauth');
    const may = await page.locator('#may li').allTextContents();
    assert.ok(may.includes('Open a pull request') && may.includes('Create a branch'), may.join(' | '));
    assert.ok(!may.some((line) => /Approve|Merge a pull request/.test(line)), may.join(' | '));
    const never = await page.locator('#may-never li').allTextContents();
    assert.ok(never.includes('Approve a pull request'), never.join(' | '));
    assert.ok(
      never.some((line) => line.startsWith('Merge a pull request (now')),
      never.join(' | '),
    );
    assert.match((await page.textContent('#paths')) ?? '', /never writes \.gitea\/workflows\/\*\*/);
    assert.match((await page.textContent('#scopes')) ?? '', /read:user.*write:issue/);
    const duration = (await page.textContent('#duration')) ?? '';
    assert.match(duration, /lasts 30 days/);
    assert.match(duration, /Settings → Applications → Authorized OAuth2 Applications/);
    assert.equal(await page.isVisible('#approve'), true);
    await page.setViewportSize({ width: 900, height: 1200 });
    const shot = await page.screenshot({ path: join(dir.path, 'consent.png'), fullPage: true });
    assert.equal(shot.subarray(1, 4).toString('latin1'), 'PNG');
    if (process.env.UPDATE_SCREENSHOTS === '1') copyFileSync(join(dir.path, 'consent.png'), SCREENSHOT);
    await Promise.all([page.waitForURL(/\/user\/login/), page.click('#approve')]);
    // Gitea's sign-in form, then its grant page.
    await page.fill('#user_name', 'alice');
    await page.fill('#password', sandbox.users.alice?.password ?? '');
    await Promise.all([page.waitForURL(/\/login\/oauth\/authorize/), page.click('#sign-in')]);
    assert.match((await page.textContent('h1')) ?? '', /Authorize "gitea-warden"/);
    await Promise.all([page.waitForURL((url) => url.href.startsWith(catcher.url)), page.click('#authorize')]);
    assert.equal(await page.textContent('#done'), 'You can close this window.');
    const back = catcher.received.at(-1);
    assert.ok(back?.searchParams.get('code'), `the client received an authorization code: ${back?.search}`);
    assert.equal(back?.searchParams.get('iss'), `${serve.base}/`);
    await finishSignIn(serve.url, provider, back.toString());
    const client = await connectAs(serve.url, provider);
    assert.equal(payloadOf(await client.callTool({ name: 'gitea_whoami', arguments: {} })).login, 'alice');
    await client.close();
    await page.close();
  });

  test('the screenshot in the docs is one this test took', () => {
    assert.equal(readFileSync(SCREENSHOT).subarray(1, 4).toString('latin1'), 'PNG');
    assert.match(readFileSync(join(repoRoot, 'docs', 'oauth.md'), 'utf8'), /\(images\/oauth-consent\.png\)/);
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
