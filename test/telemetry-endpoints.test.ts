// What a platform team scrapes and probes on the HTTP service: GET /metrics in Prometheus text after
// a known sequence of calls (counts by operation, decision and reason; Gitea latency; audit; budget
// refusals), behind the MCP bearer unless METRICS_AUTH=none; GET /ready apart from GET /health,
// turning 503 within seconds once the database or Gitea stops.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { packageRoot } from '../src/shared/paths.js';
import {
  connectHttp,
  namespaceEnv,
  payloadOf,
  spawnHttpNamespace,
  tempDir,
  type Connected,
  type HttpNamespace,
} from './support/namespace.js';
import { startPostgres, type TestPostgres } from './support/postgres.js';

const BEARER = 'metrics-test-bearer-0123456789abcdef';
const WHERE = { owner: 'acme', repo: 'widgets' };

/** The merger profile with a comment budget of 2 an hour. */
function writeProfile(dir: string): string {
  const text = readFileSync(join(packageRoot, 'profiles', 'gitea-merger.yaml'), 'utf8').replace(
    /budgets:[\s\S]*$/,
    'budgets:\n  - { operations: [gitea.issue.comment], max: 2, per: 1h }\n',
  );
  const file = join(dir, 'gitea-merger.yaml');
  writeFileSync(file, text);
  return file;
}

async function get(base: string, path: string, bearer?: string) {
  const response = await fetch(new URL(path, base), bearer ? { headers: { authorization: `Bearer ${bearer}` } } : {});
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

/** The value of one sample line `name{labels} value`, labels in any order; 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => have[key] === value)) return Number(match[3]);
  }
  return 0;
}

async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('/metrics and /ready of the HTTP service', () => {
  let sandbox: Sandbox;
  let pg: TestPostgres;
  let server: HttpNamespace;
  let client: Connected;
  let dir: ReturnType<typeof tempDir>;
  let base: string;

  before(async () => {
    dir = tempDir('warden-metrics-');
    sandbox = await startSandbox();
    pg = await startPostgres();
    const store = await pg.createDatabase('warden_state');
    const env = namespaceEnv(sandbox, 'gitea-merger', {
      auditLog: join(dir.path, 'audit.jsonl'),
      extra: {
        GITEA_MCP_PROFILE: writeProfile(dir.path),
        MCP_BEARER_TOKEN: BEARER,
        OAUTH_STORE: store,
        // Replicas on a shared store seal confirmations with one key (src/server/confirm/runtime.ts).
        CONFIRMATION_KEY: 'c'.repeat(40),
      },
    });
    server = await spawnHttpNamespace(env);
    base = new URL(server.url).origin;
    client = await connectHttp(server.url, BEARER);
  });

  after(async () => {
    await client?.close();
    await server?.close();
    await pg?.stop();
    // The readiness test stops the sandbox itself.
    await sandbox?.close().catch(() => undefined);
    dir?.dispose();
  });

  test('the counts after a known sequence: allowed, refused by policy, refused by a budget', async () => {
    const call = async (name: string, args: Record<string, unknown>) =>
      payloadOf(await client.client.callTool({ name, arguments: args }));
    for (let i = 0; i < 3; i++)
      await call('gitea_comments_create', { ...WHERE, index: 3, body: { body: `note ${i}` } });
    const approve = await call('gitea_api_request', {
      method: 'POST',
      path: '/repos/acme/widgets/pulls/1/reviews',
      body: { event: 'APPROVED' },
    });
    assert.equal(approve.error?.reason, 'forbidden');

    assert.equal((await get(base, '/metrics')).status, 401, 'behind the bearer');
    assert.equal((await get(base, '/metrics', 'wrong-bearer-0123456789')).status, 401);
    const metrics = await get(base, '/metrics', BEARER);
    assert.equal(metrics.status, 200);
    assert.equal(metrics.type, 'text/plain; version=0.0.4; charset=utf-8');
    const text = metrics.text;
    const calls = (operation: string, decision: string, reason: string) =>
      sample(text, 'gitea_warden_calls_total', { namespace: 'gitea-merger', operation, decision, reason });
    assert.equal(calls('gitea.issue.comment', 'allow', 'allowed'), 2);
    assert.equal(calls('gitea.issue.comment', 'deny', 'budget_exceeded'), 1);
    assert.equal(calls('gitea.pr.approve', 'deny', 'forbidden'), 1);
    assert.equal(
      sample(text, 'gitea_warden_budget_refusals_total', {
        namespace: 'gitea-merger',
        operation: 'gitea.issue.comment',
        reason: 'budget_exceeded',
      }),
      1,
    );
    const duration = (tool: string, errorType: string) =>
      sample(text, 'mcp_server_operation_duration_seconds_count', {
        mcp_method_name: 'tools/call',
        gen_ai_tool_name: tool,
        error_type: errorType,
      });
    assert.equal(duration('gitea_comments_create', ''), 2);
    assert.equal(duration('gitea_comments_create', 'tool_error'), 1);
    assert.equal(duration('gitea_api_request', 'tool_error'), 1);
    // Two comments reached Gitea; the one past the budget did not.
    assert.equal(
      sample(text, 'http_client_request_duration_seconds_count', {
        http_request_method: 'POST',
        http_response_status_code: '201',
      }),
      2,
    );
    // Every call writes two audit events, each durable before its call goes on.
    assert.ok(sample(text, 'gitea_warden_audit_append_duration_seconds_count', { sink: 'file' }) >= 8);
    assert.ok(sample(text, 'gitea_warden_audit_fsync_duration_seconds_count', {}) >= 1);
    for (const secret of [BEARER, sandbox.users.carol?.token ?? 'no-token', 'note 0'])
      assert.ok(!text.includes(secret), 'no value of a call or a token in the metrics');
  });

  test('/ready turns 503 within seconds when the database stops, then when Gitea stops; /health stays 200', async () => {
    const ready = await until(
      () => get(base, '/ready'),
      (r) => r.status === 200,
      15_000,
    );
    assert.equal(ready.status, 200, ready.text);
    assert.deepEqual(JSON.parse(ready.text).checks, { gitea: 'ok', audit: 'ok', budget_store: 'ok' });

    await pg.stop();
    const started = Date.now();
    const dbDown = await until(
      () => get(base, '/ready'),
      (r) => r.status === 503,
      12_000,
    );
    assert.equal(dbDown.status, 503, 'a stopped database shows within 12 s');
    assert.ok(Date.now() - started < 12_000);
    assert.equal(JSON.parse(dbDown.text).checks.budget_store, 'failing');
    assert.equal(JSON.parse(dbDown.text).checks.gitea, 'ok');

    await sandbox.close();
    const giteaDown = await until(
      () => get(base, '/ready'),
      (r) => JSON.parse(r.text).checks.gitea === 'failing',
      12_000,
    );
    assert.equal(JSON.parse(giteaDown.text).checks.gitea, 'failing', 'a stopped Gitea shows within 12 s');
    assert.equal((await get(base, '/health')).status, 200, 'alive all the same');
    assert.doesNotMatch(giteaDown.text, /127\.0\.0\.1|postgres:|token/i, 'no URL or error text');
  });
});

describe('METRICS_AUTH=none opens /metrics to a scraper', () => {
  test('no bearer needed, the MCP path still asks for it', async () => {
    const dir = tempDir('warden-metrics-open-');
    const sandbox = await startSandbox();
    try {
      const server = await spawnHttpNamespace(
        namespaceEnv(sandbox, 'gitea-merger', {
          auditLog: join(dir.path, 'audit.jsonl'),
          extra: { MCP_BEARER_TOKEN: BEARER, METRICS_AUTH: 'none' },
        }),
      );
      try {
        const base = new URL(server.url).origin;
        assert.equal((await get(base, '/metrics')).status, 200);
        const mcp = await fetch(server.url, {
          method: 'POST',
          body: '{}',
          headers: { 'content-type': 'application/json' },
        });
        assert.equal(mcp.status, 401);
      } finally {
        await server.close();
      }
    } finally {
      await sandbox.close();
      dir.dispose();
    }
  });
});
