// Four eyes in a real browser (Debian's chromium through playwright-core): a merge whose profile wants
// a second person's approval asks for it by URL; the second person opens the confirmation page this
// server serves, signs in with Gitea (the sandbox's OAuth2 provider), sees the same question and
// approves or rejects; the pending call resumes only after that. The namespace's own login and anyone
// the profile does not name cannot approve. Without /usr/bin/chromium the test is skipped and says so.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import express from 'express';
import { chromium, type Browser, type Page } from 'playwright-core';
import { stringify } from 'yaml';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { answerToolCall, type ToolCallAnswer } from '../src/server/call/pipeline.js';
import { ANSWER_KEY, FIRST_ROUND, type CallRound } from '../src/server/confirm/round.js';
import type { Namespace } from '../src/server/session.js';
import { approvalRoutes } from '../src/transports/approval-routes.js';
import { namespaceEnv, payloadOf, runServe, spawnHttpNamespace, tempDir } from './support/namespace.js';
import { openNamespace } from './support/in-process.js';
import { askingRound, answering } from './support/rounds.js';
import { registerWardenApp } from './support/oauth-flow.js';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'];
const noBrowser = existsSync(CHROMIUM)
  ? false
  : `no browser at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium) to run this test`;
const where = { owner: 'acme', repo: 'widgets' };
const URL_ROUND: CallRound = askingRound(true);

describe('four eyes: a second person approves in the browser', { skip: noBrowser }, () => {
  const dir = tempDir('warden-four-eyes-');
  let sandbox: Sandbox;
  let merger: Namespace;
  let reviewer: Namespace;
  let page: Server;
  let base = '';
  let browser: Browser;

  before(async () => {
    sandbox = await startSandbox();
    const app = await registerWardenApp(sandbox);
    const profile = join(dir.path, 'merger-four-eyes.yaml');
    writeFileSync(
      profile,
      stringify({
        profile_name: 'merger-four-eyes',
        role: 'merger',
        authenticated_username: 'carol',
        token_source_name: 'GITEA_MERGER_TOKEN',
        allowed_operations: ['gitea.read', 'gitea.pr.merge'],
        confirmations: { approver: 'four_eyes', approvers: ['erin', 'carol'] },
      }),
    );
    const env = (name: string, n: number, extra: Record<string, string> = {}) =>
      namespaceEnv(sandbox, name, {
        auditLog: join(dir.path, `${n}.jsonl`),
        extra: { OAUTH_STORE: join(dir.path, 'state.sqlite'), MCP_TRANSPORT: 'http', ...extra },
      });
    [merger, reviewer] = await Promise.all([
      openNamespace(
        env('gitea-merger', 1, {
          GITEA_MCP_PROFILE: profile,
          OAUTH_CLIENT_ID: app.clientId,
          OAUTH_CLIENT_SECRET: app.clientSecret,
        }),
      ),
      openNamespace(env('gitea-reviewer', 2)),
    ]);
    // The HTTP side of `serve` for the confirmation page, as the transport mounts it.
    const routes = express();
    page = createServer(routes);
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
    const service = merger.session.confirm.approvalService(
      { giteaUrl: sandbox.url, clientId: app.clientId, clientSecret: app.clientSecret, timeoutMs: 10_000 },
      base,
    );
    routes.use(approvalRoutes(service, base));
    app.setRedirect(`${base}/confirm/callback`);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => page?.close(resolve));
    for (const namespace of [merger, reviewer]) {
      await namespace?.session.audit.close();
      await namespace?.session.confirm.close();
    }
    await sandbox?.close();
    dir.dispose();
  });

  /** The pull request the second test opens (feature/login into dev). */
  let second = 0;
  const merges = () =>
    sandbox.requests.filter((r) => r.method === 'POST' && /\/pulls\/\d+\/merge$/.test(r.path)).length;

  async function mergeArgs(index: number) {
    const pull = payloadOf((await answerToolCall(merger, 'gitea_pulls_get', { ...where, index }, FIRST_ROUND)).result);
    return { ...where, index, body: { do: 'merge', head_commit_id: pull.data.head.sha as string } };
  }

  async function approvedPull(index: number) {
    const args = await mergeArgs(index);
    const review = await answerToolCall(
      reviewer,
      'gitea_pulls_create_review',
      { ...where, index, body: { event: 'APPROVED', commit_id: args.body.head_commit_id } },
      FIRST_ROUND,
    );
    assert.equal(payloadOf(review.result).error, undefined);
    return args;
  }

  /** A person in a browser of their own: opens the link, signs in with Gitea as `login`. */
  async function signInAt(url: string, login: string): Promise<Page> {
    const context = await browser.newContext();
    const tab = await context.newPage();
    await tab.goto(url);
    assert.match((await tab.textContent('h1')) ?? '', /asks for an approval/);
    assert.equal(await tab.$('#facts'), null, 'nothing about the action before sign-in');
    await Promise.all([tab.waitForURL(/\/user\/login/), tab.click('#sign-in')]);
    await tab.fill('#user_name', login);
    await tab.fill('#password', sandbox.users[login]?.password ?? '');
    await Promise.all([tab.waitForURL(/\/login\/oauth\/authorize|\/confirm\//), tab.click('#sign-in')]);
    if (tab.url().includes('/login/oauth/authorize'))
      await Promise.all([tab.waitForURL(/\/confirm\//), tab.click('#authorize')]);
    return tab;
  }

  const stateId = (answer: ToolCallAnswer): string => {
    const opened = merger.session.confirm.states.open(answer.ask?.state);
    assert.ok(opened.ok);
    return opened.state.id;
  };

  const retry = (first: ToolCallAnswer, response: unknown): CallRound => answering(first, response, URL_ROUND);

  test('erin approves in her browser; only then does the merge reach Gitea', async () => {
    const args = await approvedPull(1);
    const before = merges();
    const first = await answerToolCall(merger, 'gitea_pulls_merge', args, URL_ROUND);
    const request = first.ask?.requests[ANSWER_KEY];
    assert.equal(request?.mode, 'url');
    const url = request?.mode === 'url' ? request.url : '';
    assert.ok(url.startsWith(`${base}/confirm/`), url);
    assert.match(request?.message ?? '', /second person/);
    // The client opened the link, but nobody decided yet: asked again, the same page.
    const early = await answerToolCall(merger, 'gitea_pulls_merge', args, retry(first, { action: 'accept' }));
    assert.equal(early.ask?.requests[ANSWER_KEY]?.mode, 'url');
    assert.equal(merges(), before);

    const tab = await signInAt(url, 'erin');
    assert.equal(await tab.textContent('#approver'), 'erin');
    assert.match(
      (await tab.textContent('#title')) ?? '',
      /^Merge pull request #1 "Add login form" into main of acme\/widgets\?/,
    );
    const facts = (await tab.$$eval('#facts li', (items) => items.map((item) => item.textContent))).join('\n');
    assert.match(facts, new RegExp(`Head commit: ${args.body.head_commit_id}`));
    assert.match(facts, /Repository: acme\/widgets \(id \d+\)/);
    assert.match(facts, /Acts as: carol/);
    await Promise.all([tab.waitForLoadState(), tab.click('#approve')]);
    assert.equal(await tab.textContent('#title'), 'Approved');
    await tab.context().close();

    const resumed = await answerToolCall(merger, 'gitea_pulls_merge', args, retry(early, { action: 'accept' }));
    assert.equal(resumed.ask, undefined);
    assert.equal(payloadOf(resumed.result).error, undefined, JSON.stringify(resumed.result.structuredContent));
    assert.equal(merges(), before + 1);
    // The approval answered one call: presented again, it merges nothing (the merged pull request's guard, or the spend, refuses).
    const replayed = await answerToolCall(merger, 'gitea_pulls_merge', args, retry(early, { action: 'accept' }));
    assert.ok(payloadOf(replayed.result).error?.kind);
    assert.equal(merges(), before + 1);
    assert.equal(await merger.session.confirm.store().then((s) => s.isSpent(stateId(early))), true);
  });

  test("the namespace's own login (carol) and a person the profile does not name (dave) cannot approve", async () => {
    const created = await fetch(`${sandbox.url}/api/v1/repos/acme/widgets/pulls`, {
      method: 'POST',
      headers: { authorization: `token ${sandbox.users.alice?.token ?? ''}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Four eyes', head: 'feature/login', base: 'dev' }),
    });
    assert.equal(created.status, 201);
    second = ((await created.json()) as { number: number }).number;
    const merge = await approvedPull(second);
    const first = await answerToolCall(merger, 'gitea_pulls_merge', merge, URL_ROUND);
    const url = first.ask?.requests[ANSWER_KEY]?.mode === 'url' ? first.ask.requests[ANSWER_KEY].url : '';
    for (const [login, why] of [
      ['carol', /four eyes/],
      ['dave', /not among the approvers/],
    ] as const) {
      const tab = await signInAt(url, login);
      assert.equal(await tab.textContent('#title'), 'Not an approver');
      assert.match((await tab.textContent('#message')) ?? '', why);
      await tab.context().close();
    }
    const still = await answerToolCall(merger, 'gitea_pulls_merge', merge, retry(first, { action: 'accept' }));
    assert.ok(still.ask, 'still waiting for a second person');

    // erin rejects: the call is refused, and nothing reached Gitea.
    const before = merges();
    const tab = await signInAt(url, 'erin');
    await Promise.all([tab.waitForLoadState(), tab.click('#reject')]);
    assert.equal(await tab.textContent('#title'), 'Rejected');
    await tab.reload();
    assert.equal(await tab.textContent('#title'), 'Already rejected');
    await tab.context().close();
    const rejected = await answerToolCall(merger, 'gitea_pulls_merge', merge, retry(still, { action: 'accept' }));
    assert.equal(payloadOf(rejected.result).error?.kind, 'confirmation_rejected');
    assert.match(payloadOf(rejected.result).error?.message ?? '', /erin rejected/);
    assert.equal(merges(), before);
  });

  test('the page refuses to be framed, and a cross-site form post decides nothing', async () => {
    const first = await answerToolCall(merger, 'gitea_pulls_merge', await mergeArgs(second), URL_ROUND);
    const request = first.ask?.requests[ANSWER_KEY];
    const url = request?.mode === 'url' ? request.url : '';
    assert.ok(url.startsWith(base));
    const context = await browser.newContext();
    const tab = await context.newPage();
    await tab.goto(sandbox.url + '/user/login');
    await tab.setContent(`<iframe id="f" src="${url}"></iframe>`, { waitUntil: 'load' });
    const frame = tab.frames().find((f) => f !== tab.mainFrame());
    assert.equal(
      (await frame?.$('#sign-in').catch(() => null)) ?? null,
      null,
      'the page does not render inside a frame',
    );
    await context.close();
    const id = url.slice(url.lastIndexOf('/') + 1);
    const forged = await fetch(`${base}/confirm/${id}/decide`, {
      method: 'POST',
      headers: { origin: 'http://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'csrf=x&decision=approve',
      redirect: 'manual',
    });
    assert.equal(forged.status, 403);
  });
});

describe('a profile that wants a signed-in or second person needs the page', () => {
  test('over stdio, or without the Gitea OAuth application, the namespace does not start, and says why', async () => {
    const dir = tempDir('warden-four-eyes-start-');
    const sandbox = await startSandbox();
    try {
      const profile = join(dir.path, 'p.yaml');
      writeFileSync(
        profile,
        stringify({
          profile_name: 'p',
          role: 'merger',
          authenticated_username: 'carol',
          token_source_name: 'GITEA_MERGER_TOKEN',
          allowed_operations: ['gitea.read', 'gitea.pr.merge'],
          confirmations: { approver: 'signed_in' },
        }),
      );
      const env = (extra: Record<string, string>) =>
        namespaceEnv(sandbox, 'gitea-merger', {
          auditLog: join(dir.path, 'audit.jsonl'),
          extra: { GITEA_MCP_PROFILE: profile, OAUTH_STORE: join(dir.path, 'state.sqlite'), ...extra },
        });
      await assert.rejects(openNamespace(env({})), /approver signed_in needs MCP_TRANSPORT=http/);
      await assert.rejects(openNamespace(env({ MCP_TRANSPORT: 'http' })), /OAUTH_CLIENT_ID and OAUTH_CLIENT_SECRET/);
      const stdio = await runServe(env({}));
      assert.equal(stdio.code, 2);
      assert.match(stdio.stderr, /approver signed_in needs MCP_TRANSPORT=http/);
      // Over HTTP with the application, `serve` mounts the page beside the MCP path.
      const served = await spawnHttpNamespace(env({ OAUTH_CLIENT_ID: 'app-id', OAUTH_CLIENT_SECRET: 'app-secret' }));
      try {
        const page = await fetch(`${new URL(served.url).origin}/confirm/no-such-approval`);
        assert.equal(page.status, 404);
        assert.equal(page.headers.get('x-frame-options'), 'DENY');
        assert.match(await page.text(), /Unknown approval/);
      } finally {
        await served.close();
      }
    } finally {
      await sandbox.close();
      dir.dispose();
    }
  });
});
