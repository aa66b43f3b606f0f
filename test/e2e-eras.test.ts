// One script of calls, every client era, both transports: a v2 client pinned to 2026-07-28, a v2
// client in its default 2025 mode and a v1 client (@modelcontextprotocol/sdk, 2025-11-25), each over
// stdio and streamable HTTP, against real `gitea-warden serve` processes and the sandbox. The
// decisions, refusals and audit events must be the same whichever era the client speaks; the one
// documented difference is that a 2025 client over stateless HTTP has no channel for a question,
// so what needs a person is refused there (confirmation_unavailable) instead of asked.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2Stdio } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { builtinTools } from '../src/server/builtin/builtin-tools.js';
import { TOOL_LIST_TTL_MS } from '../src/server/mcp-server.js';
import type { Namespace } from '../src/server/session.js';
import { openNamespace } from './support/in-process.js';
import { callConfirmed } from './support/rounds.js';
import { namespaceEnv, SERVE_ARGS, spawnHttpNamespace, tempDir, type HttpNamespace } from './support/namespace.js';

type Era = 'modern' | 'legacy' | 'v1';
type Wire = 'stdio' | 'http';

/** What one client did: the calls' outcomes, comparable across clients. */
interface Run {
  era: Era;
  wire: Wire;
  negotiated: string | undefined;
  tools: string[];
  /** Outcome per step: the error kind of a refusal, 'ok', or the protocol error's code. */
  outcomes: Record<string, string>;
  /** What the person was asked, in order. */
  asked: string[];
  merges: number;
  /** Merges that reached Gitea before the last, confirmed one. */
  mergedBeforeYes: number;
  /** The head commit of #1 at the last merge. */
  head: string;
  cacheHints: { ttlMs?: unknown; cacheScope?: unknown } | null;
  /** The audit log's result events: tool, operation, decision, reason, status. */
  audit: string[];
}

type CallResult = { structuredContent?: unknown; isError?: boolean };

interface Driver {
  list(): Promise<{ tools: Array<{ name: string }>; ttlMs?: unknown; cacheScope?: unknown }>;
  call(name: string, args: Record<string, unknown>): Promise<CallResult>;
  era(): string | undefined;
  close(): Promise<void>;
}

const where = { owner: 'acme', repo: 'widgets' };
const dir = tempDir('warden-eras-');
const started: Array<{ close(): Promise<void> }> = [];
const runs: Run[] = [];

/**
 * The person at the client: no to the first question; to the second, yes, but only after alice has
 * pushed to the pull request's head while the question was open (`beforeSecond`); yes to the rest.
 */
interface Person {
  asked: string[];
  beforeSecond: () => Promise<void>;
  /** The client fails to show the question (it answers the server's request with an error). */
  fails?: boolean;
}

function person({ asked, beforeSecond, fails }: Person) {
  return async (message: string) => {
    asked.push(message);
    if (fails) throw new Error('this client cannot show the question now');
    if (asked.length === 2) await beforeSecond();
    return asked.length > 1;
  };
}

function answer(yes: boolean, fields: string[]) {
  return yes
    ? { action: 'accept' as const, content: Object.fromEntries(fields.map((f) => [f, true])) }
    : { action: 'decline' as const };
}

async function connect(era: Era, wire: Wire, env: Record<string, string>, who: Person): Promise<Driver> {
  const says = person(who);
  let http: HttpNamespace | null = null;
  if (wire === 'http') {
    http = await spawnHttpNamespace(env);
    started.push(http);
  }
  const url = http ? new URL(http.url) : null;
  const stdio = { command: process.execPath, args: SERVE_ARGS, env, stderr: 'pipe' as const };
  if (era === 'v1') {
    const client = new V1Client({ name: 'eras-v1', version: '0' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async (request) =>
      answer(
        await says(request.params.message),
        Object.keys((request.params as { requestedSchema?: { properties: object } }).requestedSchema?.properties ?? {}),
      ),
    );
    await client.connect(url ? new V1Http(url) : new V1Stdio(stdio), { timeout: 300_000 });
    return {
      list: () => client.listTools(),
      call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallResult,
      era: () => undefined,
      close: () => client.close(),
    };
  }
  const client = new V2Client(
    { name: `eras-${era}`, version: '0' },
    {
      capabilities: { elicitation: { form: {} } },
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  client.setRequestHandler('elicitation/create', async (request) =>
    answer(
      await says(request.params.message),
      'requestedSchema' in request.params ? Object.keys(request.params.requestedSchema.properties) : [],
    ),
  );
  await client.connect(url ? new V2Http(url) : new V2Stdio(stdio), { timeout: 300_000 });
  return {
    list: () => client.listTools(),
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallResult,
    era: () => client.getProtocolEra(),
    close: () => client.close(),
  };
}

async function pullHead(reviewer: Namespace): Promise<string> {
  const pull = (await callConfirmed(reviewer, 'gitea_pulls_get', { ...where, index: 1 })).structuredContent as {
    data: { head: { sha: string } };
  };
  return pull.data.head.sha;
}

/** Runs the script for one client: its own sandbox, pull request #1 (alice's) approved by bob. */
async function drive(era: Era, wire: Wire): Promise<Run> {
  const sandbox: Sandbox = await startSandbox();
  started.push(sandbox);
  const auditLog = join(dir.path, `${era}-${wire}.jsonl`);
  const reviewer = await openNamespace(
    namespaceEnv(sandbox, 'gitea-reviewer', { auditLog: join(dir.path, `${era}-${wire}-bob.jsonl`) }),
  );
  const heads: Record<number, string> = {};
  for (const index of [1]) {
    const pull = (await callConfirmed(reviewer, 'gitea_pulls_get', { ...where, index })).structuredContent as {
      data: { head: { sha: string } };
    };
    heads[index] = pull.data.head.sha;
    const review = await callConfirmed(reviewer, 'gitea_pulls_create_review', {
      ...where,
      index,
      body: { event: 'APPROVED', body: 'looks right', commit_id: heads[index] },
    });
    assert.equal(review.isError, false, `bob approves #${index}`);
  }
  const asked: string[] = [];
  // alice pushes to the head branch (straight to the sandbox, as her own git client would).
  const beforeSecond = async () => {
    const pushed = await fetch(`${sandbox.url}/api/v1/repos/acme/widgets/contents/src/late.js`, {
      method: 'POST',
      headers: { Authorization: `token ${sandbox.users.alice?.token ?? ''}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        branch: 'feature/login',
        message: 'A push while the person reads the question',
        content: Buffer.from('late\n').toString('base64'),
      }),
    });
    assert.equal(pushed.status, 201, 'alice pushes');
  };
  const client = await connect(era, wire, namespaceEnv(sandbox, 'gitea-merger', { auditLog }), { asked, beforeSecond });
  try {
    const listed = await client.list();
    const outcomes: Record<string, string> = {};
    const step = async (label: string, name: string, args: Record<string, unknown>) => {
      try {
        const result = await client.call(name, args);
        const payload = result.structuredContent as { error?: { kind: string } } | undefined;
        outcomes[label] = result.isError ? (payload?.error?.kind ?? 'tool_error') : 'ok';
      } catch (error) {
        outcomes[label] = `protocol_error ${(error as { code?: number }).code ?? '?'}`;
      }
    };
    await step('whoami', 'gitea_whoami', {});
    await step('read', 'gitea_repos_get', where);
    await step('forbidden', 'gitea_api_request', { method: 'DELETE', path: '/repos/acme/widgets' });
    await step('unknown tool', 'gitea_no_such_tool', {});
    const merge = (head: string) => ({ ...where, index: 1, body: { do: 'merge', head_commit_id: head } });
    const merged = () =>
      sandbox.requests.filter((r) => r.method === 'POST' && /\/pulls\/\d+\/merge$/.test(r.path)).length;
    await step('merge (no)', 'gitea_pulls_merge', merge(heads[1] ?? ''));
    await step('merge (pushed while asked)', 'gitea_pulls_merge', merge(heads[1] ?? ''));
    const mergedBeforeYes = merged();
    // Where the person was asked, the head moved: bob approves what is there now, and the merge names it.
    const head = await pullHead(reviewer);
    if (head !== heads[1]) {
      const again = await callConfirmed(reviewer, 'gitea_pulls_create_review', {
        ...where,
        index: 1,
        body: { event: 'APPROVED', body: 'still right', commit_id: head },
      });
      assert.equal(again.isError, false, 'bob approves the new head');
    }
    await step('merge (yes)', 'gitea_pulls_merge', merge(head));
    const merges = merged();
    const negotiated = client.era();
    await client.close();
    // The result events, in order (the write-ahead ones carry no decision yet).
    const audit = readFileSync(auditLog, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((event) => event.phase === 'result')
      .map((event) => [event.tool, event.operation, event.decision, event.reason, event.status].join(' '));
    await reviewer.session.audit.close();
    await reviewer.session.confirm.close();
    return {
      era,
      wire,
      negotiated,
      tools: listed.tools.map((tool) => tool.name),
      outcomes,
      asked,
      merges,
      mergedBeforeYes,
      head,
      cacheHints: listed.ttlMs === undefined ? null : { ttlMs: listed.ttlMs, cacheScope: listed.cacheScope },
      audit,
    };
  } catch (error) {
    await client.close();
    throw error;
  }
}

before(async () => {
  // Two at a time: each run starts a namespace process (and the pinned stdio client a probe besides).
  const plan: Array<[Era, Wire]> = [
    ['modern', 'stdio'],
    ['modern', 'http'],
    ['legacy', 'stdio'],
    ['legacy', 'http'],
    ['v1', 'stdio'],
    ['v1', 'http'],
  ];
  for (let i = 0; i < plan.length; i += 2)
    runs.push(...(await Promise.all(plan.slice(i, i + 2).map(([era, wire]) => drive(era, wire)))));
});

after(async () => {
  await Promise.all(started.map((s) => s.close()));
  dir.dispose();
});

const heads1 = (r: Run) => r.head.slice(0, 7);
const run = (era: Era, wire: Wire) => runs.find((r) => r.era === era && r.wire === wire) as Run;
/** Where the person can be asked: every stdio connection, and 2026-07-28 over HTTP (input_required). */
const canAsk = (r: Run) => r.wire === 'stdio' || r.era === 'modern';

describe('both protocol eras, stdio and streamable HTTP, from one set of handlers', () => {
  test('each client landed on the era it asked for', () => {
    for (const wire of ['stdio', 'http'] as const) {
      assert.equal(run('modern', wire).negotiated, 'modern', `pinned v2 client over ${wire}`);
      assert.equal(run('legacy', wire).negotiated, 'legacy', `default v2 client over ${wire}`);
    }
  });

  test('the same tools, in the same order, for every client; 2026-07-28 lists carry cache hints', () => {
    const reference = run('modern', 'stdio').tools;
    assert.ok(reference.includes('gitea_pulls_merge') && reference.includes('gitea_whoami'));
    for (const r of runs) assert.deepEqual(r.tools, reference, `${r.era} over ${r.wire}`);
    // The documented order: the built-in tools in their fixed order, then Gitea's operations by name.
    const builtins = builtinTools().map((tool) => tool.name);
    const firstGenerated = reference.findIndex((name) => !builtins.includes(name));
    const listedBuiltins = reference.slice(0, firstGenerated);
    assert.deepEqual(
      listedBuiltins,
      builtins.filter((name) => listedBuiltins.includes(name)),
    );
    const generated = reference.slice(firstGenerated);
    assert.ok(generated.length > 10 && generated.every((name) => !builtins.includes(name)));
    assert.deepEqual(generated, [...generated].sort());
    for (const r of runs.filter((r) => r.era === 'modern'))
      assert.deepEqual(r.cacheHints, { ttlMs: TOOL_LIST_TTL_MS, cacheScope: 'private' }, `${r.wire}`);
  });

  test('the same decisions and refusals for every client', () => {
    for (const r of runs) {
      const label = `${r.era} over ${r.wire}`;
      assert.equal(r.outcomes.whoami, 'ok', label);
      assert.equal(r.outcomes.read, 'ok', label);
      assert.equal(r.outcomes.forbidden, 'policy_denied', label);
      assert.equal(r.outcomes['unknown tool'], 'protocol_error -32602', label);
      if (canAsk(r)) {
        assert.equal(r.outcomes['merge (no)'], 'confirmation_declined', `${label}: the person said no`);
        // The yes came after a push: the retry read the new head, and the merge naming the old one is refused.
        assert.notEqual(r.outcomes['merge (pushed while asked)'], 'ok', `${label}: a push voids the answer`);
        assert.ok(
          r.audit.includes('gitea_pulls_merge gitea.pr.merge deny head_sha_mismatch denied'),
          `${label}: the retry read the new head`,
        );
        assert.equal(r.mergedBeforeYes, 0, `${label}: nothing reached Gitea before the last yes`);
        assert.equal(r.outcomes['merge (yes)'], 'ok', `${label}: the person said yes`);
        assert.equal(r.merges, 1, `${label}: only the confirmed merge reached Gitea`);
        assert.equal(r.asked.length, 3, `${label}: one question per call`);
        // The question shows what will happen: the operation, the repository, the pull request and its head.
        for (const shown of ['acme/widgets', '#1', heads1(r)])
          assert.ok(r.asked[2]?.includes(shown), `${label}: ${shown}`);
      } else {
        for (const step of ['merge (no)', 'merge (pushed while asked)', 'merge (yes)'])
          assert.equal(r.outcomes[step], 'confirmation_unavailable', `${label}: ${step}`);
        assert.equal(r.merges, 0, `${label}: nothing reached Gitea`);
        assert.deepEqual(r.asked, [], label);
      }
    }
  });

  test('the same audit events for every client that could be asked, and for every 2025 HTTP client', () => {
    const askable = runs.filter(canAsk);
    for (const r of askable) assert.deepEqual(r.audit, askable[0]?.audit, `${r.era} over ${r.wire}`);
    assert.deepEqual(run('v1', 'http').audit, run('legacy', 'http').audit);
    assert.ok(askable[0]?.audit.some((line) => line.startsWith('gitea_pulls_merge gitea.pr.merge allow')));
  });
});

describe('a 2025 stdio client that fails to show the question', () => {
  test('the call ends in a listed, audited refusal, and nothing reaches Gitea', async () => {
    const sandbox = await startSandbox();
    started.push(sandbox);
    const reviewer = await openNamespace(
      namespaceEnv(sandbox, 'gitea-reviewer', { auditLog: join(dir.path, 'failing-bob.jsonl') }),
    );
    const head = await pullHead(reviewer);
    await callConfirmed(reviewer, 'gitea_pulls_create_review', {
      ...where,
      index: 1,
      body: { event: 'APPROVED', body: 'looks right', commit_id: head },
    });
    await reviewer.session.audit.close();
    await reviewer.session.confirm.close();
    const auditLog = join(dir.path, 'failing.jsonl');
    const asked: string[] = [];
    const client = await connect('legacy', 'stdio', namespaceEnv(sandbox, 'gitea-merger', { auditLog }), {
      asked,
      beforeSecond: () => Promise.resolve(),
      fails: true,
    });
    const result = await client.call('gitea_pulls_merge', {
      ...where,
      index: 1,
      body: { do: 'merge', head_commit_id: head },
    });
    await client.close();
    assert.equal(asked.length, 1, 'the server asked once');
    assert.equal(result.isError, true);
    assert.equal((result.structuredContent as { error: { kind: string } }).error.kind, 'confirmation_declined');
    assert.equal(sandbox.requests.filter((r) => r.method === 'POST' && /\/pulls\/1\/merge$/.test(r.path)).length, 0);
    const reasons = readFileSync(auditLog, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((event) => event.phase === 'result' && event.tool === 'gitea_pulls_merge')
      .map((event) => event.reason);
    assert.deepEqual(reasons, ['confirmation_asked', 'confirmation_declined']);
  });
});
