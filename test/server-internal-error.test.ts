// An exception nobody expected ends as one generic error result and an audited internal_error, never
// as the exception's text (it may quote arguments or Gitea's answer) and never as a dropped call.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Namespace } from '../src/server/session.js';
import { payloadOf, tempDir } from './support/namespace.js';
import { connectInProcess, type InProcessConnection } from './support/in-process.js';

const DETAIL = 'stack detail quoting an argument value 7f3a';
const dir = tempDir('warden-internal-');
const auditLog = join(dir.path, 'audit.jsonl');
let namespace: Namespace;
let client: InProcessConnection['client'];
let connection: InProcessConnection;

before(async () => {
  const env = { GITEA_URL: 'http://127.0.0.1:9', GITEA_MCP_PROFILE: 'gitea-reviewer', AUDIT_LOG: auditLog };
  connection = await connectInProcess(env);
  ({ namespace, client } = connection);
  const whoami = namespace.session.registry.get('gitea_whoami');
  assert.equal(whoami?.kind, 'builtin');
  // This process only: the built-in tool fails the way a bug would.
  if (whoami?.kind === 'builtin') whoami.tool.handler = () => Promise.reject(new Error(DETAIL));
});

after(async () => {
  await connection.close();
  dir.dispose();
});

test('an unexpected exception is a generic internal_error result, audited, without its message', async () => {
  const result = await client.callTool({ name: 'gitea_whoami', arguments: {} });
  assert.equal(result.isError, true);
  const payload = payloadOf(result);
  assert.equal(payload.error.kind, 'internal_error');
  assert.equal(JSON.stringify(result).includes(DETAIL), false);
  const events = readFileSync(auditLog, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { phase: string; tool: string; reason: string | null; status: string });
  assert.deepEqual(
    events.map((e) => [e.phase, e.tool, e.reason, e.status]),
    [
      ['write_ahead', 'gitea_whoami', null, 'pending'],
      ['result', 'gitea_whoami', 'internal_error', 'error'],
    ],
  );
  assert.equal(readFileSync(auditLog, 'utf8').includes(DETAIL), false);
});
