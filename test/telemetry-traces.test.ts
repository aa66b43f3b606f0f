// Traces as an operator's collector receives them: `serve` over HTTP with OTEL_EXPORTER_OTLP_ENDPOINT
// pointing at a small OTLP receiver on loopback. One span per tools/call after OpenTelemetry's MCP
// conventions, a child span per pipeline stage, the Gitea request as a client span whose traceparent
// reaches Gitea; a client's traceparent in params._meta continues its trace; names and codes only,
// never an argument value or a token. The span tree of the guarded merge is also the picture in
// docs/observability.md (WRITE_TRACE_SVG=docs/observability-merge-trace.svg redraws it).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { seedWithApprovedPulls } from './support/approved-pulls.js';
import {
  connectHttp,
  connectStdio,
  namespaceEnv,
  payloadOf,
  spawnHttpNamespace,
  tempDir,
  type Connected,
  type HttpNamespace,
} from './support/namespace.js';
import {
  childrenOf,
  startOtlpReceiver,
  treeLines,
  type OtlpReceiver,
  type ReceivedSpan,
} from './support/otlp-receiver.js';
import { renderTraceSvg } from './support/trace-svg.js';

const BEARER = 'trace-test-bearer-0123456789abcdef';
const WHERE = { owner: 'acme', repo: 'widgets' };
const PR = 3;
const ISSUE = 4;
const COMMENT = 'a comment body that must never reach a span';
/** The client's own trace: its id and the span the server's call span must hang under. */
const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';

const SERVER = 2;
const CLIENT = 3;

interface Forwarded {
  method: string;
  path: string;
  traceparent: string | null;
}

/** A loopback proxy in front of the sandbox that notes each request's traceparent header. */
async function recordingProxy(target: string): Promise<{ url: string; seen: Forwarded[]; close(): Promise<void> }> {
  const seen: Forwarded[] = [];
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const header = req.headers.traceparent;
    seen.push({
      method: req.method ?? '',
      path: req.url ?? '',
      traceparent: typeof header === 'string' ? header : null,
    });
    const forward = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('traces of tools/call through the HTTP service, exported to an OTLP receiver', () => {
  let sandbox: Sandbox;
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  let receiver: OtlpReceiver;
  let server: HttpNamespace;
  let client: Connected;
  let dir: ReturnType<typeof tempDir>;
  const results: Record<string, Record<string, any>> = {};

  before(async () => {
    dir = tempDir('warden-traces-');
    sandbox = await startSandbox({ seed: seedWithApprovedPulls(1) });
    proxy = await recordingProxy(sandbox.url);
    receiver = await startOtlpReceiver();
    const env = namespaceEnv(sandbox, 'gitea-merger', {
      auditLog: join(dir.path, 'audit.jsonl'),
      extra: {
        GITEA_URL: proxy.url,
        MCP_BEARER_TOKEN: BEARER,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_BSP_SCHEDULE_DELAY: '50',
        OTEL_SERVICE_NAME: 'warden-under-test',
      },
    });
    server = await spawnHttpNamespace(env);
    client = await connectHttp(server.url, BEARER);
    const call = async (name: string, args: Record<string, unknown>, meta?: Record<string, string>) =>
      payloadOf(await client.client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) }));
    await call('gitea_whoami', {});
    results.write = await call('gitea_comments_create', { ...WHERE, index: ISSUE, body: { body: COMMENT } });
    results.denial = await call(
      'gitea_api_request',
      { method: 'POST', path: `/repos/acme/widgets/pulls/${PR}/reviews`, body: { event: 'APPROVED', body: 'lgtm' } },
      { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` },
    );
    const head = (await call('gitea_pulls_get', { ...WHERE, index: PR })).data.head.sha as string;
    // The merge waits for a person's yes. Stateless HTTP on the 2025 revision has no channel to ask one,
    // so the guarded merge runs over stdio, where the test client's person is asked and says yes; its
    // spans go to the same receiver.
    const stdio = await connectStdio({ ...env, AUDIT_LOG: join(dir.path, 'merge-audit.jsonl') });
    try {
      results.merge = payloadOf(
        await stdio.client.callTool({
          name: 'gitea_pulls_merge',
          arguments: { ...WHERE, index: PR, body: { do: 'merge', head_commit_id: head } },
        }),
      );
    } finally {
      await stdio.close();
    }
    await receiver.waitFor((spans) => spans.filter((s) => s.name === 'result').length >= 5);
  });

  after(async () => {
    await client?.close();
    await server?.close();
    await receiver?.close();
    await proxy?.close();
    await sandbox?.close();
    dir?.dispose();
  });

  const callSpan = (tool: string): ReceivedSpan => {
    // The last: a confirmed call's second round, the one that reached Gitea.
    const span = receiver.spans.filter((s) => s.name === `tools/call ${tool}`).at(-1);
    assert.ok(span, `no span for ${tool}: ${receiver.spans.map((s) => s.name).join(', ')}`);
    return span;
  };
  const auditCallId = (tool: string): string => {
    const events = readFileSync(join(dir.path, 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { tool: string; phase: string; call_id: string });
    const event = events.find((e) => e.tool === tool && e.phase === 'result');
    assert.ok(event, `no audit event for ${tool}`);
    return event.call_id;
  };

  test('the calls did what the spans will tell', () => {
    assert.equal(results.write?.error, undefined, JSON.stringify(results.write));
    assert.equal(results.denial?.error?.reason, 'forbidden');
    assert.equal(results.merge?.error, undefined, JSON.stringify(results.merge));
  });

  test('an allowed write: a SERVER span after the MCP conventions, one child per stage, the Gitea request under execute', () => {
    const span = callSpan('gitea_comments_create');
    assert.equal(span.kind, SERVER);
    assert.equal(span.parentSpanId, null, 'no client trace was sent: the call starts its own');
    assert.equal(span.resource['service.name'], 'warden-under-test');
    assert.deepEqual(
      {
        method: span.attributes['mcp.method.name'],
        tool: span.attributes['gen_ai.tool.name'],
        genai: span.attributes['gen_ai.operation.name'],
        transport: span.attributes['network.transport'],
        namespace: span.attributes['gitea_warden.namespace'],
        operation: span.attributes['gitea_warden.operation'],
        decision: span.attributes['gitea_warden.decision'],
        reason: span.attributes['gitea_warden.reason'],
        status: span.attributes['gitea_warden.status'],
      },
      {
        method: 'tools/call',
        tool: 'gitea_comments_create',
        genai: 'execute_tool',
        transport: 'tcp',
        namespace: 'gitea-merger',
        operation: 'gitea.issue.comment',
        decision: 'allow',
        reason: 'allowed',
        status: 'ok',
      },
    );
    assert.equal(typeof span.attributes['jsonrpc.request.id'], 'string');
    assert.equal(
      span.attributes['gitea_warden.call_id'],
      auditCallId('gitea_comments_create'),
      'one call_id: trace and audit',
    );
    assert.equal(span.statusCode, 0);
    assert.deepEqual(
      childrenOf(receiver.spans, span).map((s) => s.name),
      [
        'write-ahead',
        'decide',
        'identity',
        'live',
        'decide',
        'guards',
        'taint',
        'confirm',
        'budget',
        'execute',
        'scope',
        'label',
        'result',
      ],
    );
    const execute = childrenOf(receiver.spans, span).find((s) => s.name === 'execute') as ReceivedSpan;
    const [gitea, redact] = childrenOf(receiver.spans, execute);
    assert.equal(gitea?.name, 'POST /repos/{owner}/{repo}/issues/{index}/comments');
    assert.equal(gitea?.kind, CLIENT);
    assert.equal(gitea?.attributes['http.request.method'], 'POST');
    assert.equal(gitea?.attributes['http.response.status_code'], 201);
    assert.equal(gitea?.attributes['server.address'], '127.0.0.1');
    assert.equal(redact?.name, 'redact');
    // The request Gitea received carries that client span as its parent.
    const sent = proxy.seen.find((r) => r.method === 'POST' && r.path.endsWith(`/issues/${ISSUE}/comments`));
    assert.equal(sent?.traceparent, `00-${gitea?.traceId}-${gitea?.spanId}-01`);
  });

  test("a denial continues the client's traceparent from params._meta and reaches no Gitea request", () => {
    const span = callSpan('gitea_api_request');
    assert.equal(span.traceId, CLIENT_TRACE);
    assert.equal(span.parentSpanId, CLIENT_SPAN);
    assert.equal(span.attributes['gitea_warden.decision'], 'deny');
    assert.equal(span.attributes['gitea_warden.reason'], 'forbidden');
    assert.equal(span.attributes['gitea_warden.operation'], 'gitea.pr.approve');
    assert.equal(span.attributes['error.type'], 'tool_error');
    assert.equal(span.statusCode, 2);
    assert.deepEqual(
      childrenOf(receiver.spans, span).map((s) => s.name),
      ['write-ahead', 'decide', 'result'],
    );
    assert.ok(!receiver.spans.some((s) => s.traceId === CLIENT_TRACE && s.kind === CLIENT), 'no Gitea request');
  });

  test('a guarded merge: live reads and the merge guard, each Gitea read a client span, then the merge', () => {
    const span = callSpan('gitea_pulls_merge');
    assert.equal(span.attributes['gitea_warden.operation'], 'gitea.pr.merge');
    assert.equal(span.attributes['gitea_warden.decision'], 'allow');
    const stages = childrenOf(receiver.spans, span);
    const names = stages.map((s) => s.name);
    assert.deepEqual(names, [
      'write-ahead',
      'decide',
      'identity',
      'live',
      'decide',
      'guards',
      'taint',
      'confirm',
      'budget',
      'execute',
      'scope',
      'label',
      'result',
    ]);
    const guards = stages.find((s) => s.name === 'guards') as ReceivedSpan;
    const reads = childrenOf(receiver.spans, guards)
      .flatMap((s) => [s, ...childrenOf(receiver.spans, s)])
      .filter((s) => s.kind === CLIENT);
    assert.ok(reads.length > 0, 'the merge guard read live facts from Gitea');
    assert.ok(reads.every((s) => s.attributes['http.request.method'] === 'GET'));
    const execute = stages.find((s) => s.name === 'execute') as ReceivedSpan;
    assert.equal(childrenOf(receiver.spans, execute)[0]?.name, 'POST /repos/{owner}/{repo}/pulls/{index}/merge');
    const lines = treeLines(receiver.spans, span);
    const svg = renderTraceSvg(receiver.spans, span);
    assert.match(svg, /^<svg /);
    assert.ok(lines.length > 12);
    if (process.env.WRITE_TRACE_SVG) writeFileSync(process.env.WRITE_TRACE_SVG, svg);
  });

  test('spans carry names and codes only: no argument value, no token', () => {
    const sent = receiver.bodies.join('\n');
    for (const secret of [COMMENT, 'lgtm', BEARER, sandbox.users.carol?.token ?? 'no-token'])
      assert.ok(!sent.includes(secret), `a span carries ${secret.slice(0, 12)}...`);
  });
});
