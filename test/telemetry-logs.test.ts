// Logs that tell the story: a refused call logs one pino JSON line whose call_id is the audit events'
// call_id, with the operation, decision and reason; an allowed call is logged at debug only. Names and
// codes, never argument values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { startSandbox } from '../src/sandbox/index.js';
import { handleToolCall } from '../src/server/call/pipeline.js';
import { loadNamespace } from '../src/server/namespace.js';
import { readSettings } from '../src/server/settings.js';
import { namespaceEnv, tempDir } from './support/namespace.js';

test('a refused call logs one line carrying the audit call_id; an allowed one only at debug', async () => {
  const dir = tempDir('warden-logs-');
  const sandbox = await startSandbox();
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  try {
    const env = namespaceEnv(sandbox, 'gitea-merger', { auditLog: join(dir.path, 'audit.jsonl') });
    const namespace = await loadNamespace(readSettings({}, env), env, pino({ level: 'info' }, sink));
    await namespace.session.identity.settled();
    const secret = 'a value that must not be logged';
    const where = { owner: 'acme', repo: 'widgets' };
    await handleToolCall(namespace, 'gitea_repos_get', where);
    await handleToolCall(namespace, 'gitea_api_request', {
      method: 'POST',
      path: '/repos/acme/widgets/pulls/1/reviews',
      body: { event: 'APPROVED', body: secret },
    });
    await namespace.session.audit.close();
    const calls = lines.filter((line) => typeof line.msg === 'string' && (line.msg as string).startsWith('tool call'));
    assert.equal(calls.length, 1, 'one line: the refusal (the allowed read is logged at debug)');
    const [line] = calls;
    assert.equal(line?.msg, 'tool call refused');
    assert.deepEqual(
      {
        tool: line?.tool,
        operation: line?.operation,
        decision: line?.decision,
        reason: line?.reason,
        status: line?.status,
      },
      {
        tool: 'gitea_api_request',
        operation: 'gitea.pr.approve',
        decision: 'deny',
        reason: 'forbidden',
        status: 'denied',
      },
    );
    const events = readFileSync(join(dir.path, 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as { tool: string; phase: string; call_id: string });
    const audited = events.find((e) => e.tool === 'gitea_api_request' && e.phase === 'result');
    assert.equal(line?.call_id, audited?.call_id, 'from the log line to the audit line');
    assert.ok(!JSON.stringify(lines).includes(secret));
  } finally {
    await sandbox.close();
    dir.dispose();
  }
});
