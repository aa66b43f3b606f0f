// End to end over streamable HTTP: bearer auth, Host check, rate limit, the non-loopback refusal,
// and a tool call through the SDK client.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  connectHttp,
  namespaceEnv,
  payloadOf,
  runServe,
  spawnHttpNamespace,
  tempDir,
  toolNames,
  type HttpNamespace,
} from './support/namespace.js';
import { startContractSandbox, type ContractSandbox } from './support/spec-contract.js';

const BEARER = 'test-bearer-token-0123456789abcdef';
let sandbox: ContractSandbox;
let server: HttpNamespace;
const dir = tempDir('warden-e2e-http-');

before(async () => {
  sandbox = await startContractSandbox();
  const env = namespaceEnv(sandbox, 'gitea-reviewer', {
    auditLog: join(dir.path, 'audit.jsonl'),
    extra: { MCP_BEARER_TOKEN: BEARER, RATE_LIMIT_PER_MINUTE: '20' },
  });
  server = await spawnHttpNamespace(env);
});

after(async () => {
  await server?.close();
  await sandbox.close();
  dir.dispose();
});

/** A raw POST with full control of the headers (fetch cannot set Host). */
function post(url: string, headers: Record<string, string>): Promise<number> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test('the SDK client with the bearer token lists and calls tools', async () => {
  const { client, close } = await connectHttp(server.url, BEARER);
  try {
    const names = await toolNames(client);
    assert.ok(names.includes('gitea_pulls_create_review'));
    assert.ok(!names.includes('gitea_pulls_merge'));
    const whoami = payloadOf(await client.callTool({ name: 'gitea_whoami', arguments: {} }));
    assert.deepEqual({ login: whoami.login, profile: whoami.profile }, { login: 'bob', profile: 'gitea-reviewer' });
  } finally {
    await close();
  }
  assert.ok(!server.stderr().includes(BEARER), 'the bearer token never reaches the log');
  assert.ok(!server.stderr().includes(sandbox.users.bob?.token ?? 'none'), 'the Gitea token never reaches the log');
});

// Past the rate limit (429): the test of the namespace limited to 3. Exhausting this shared server's
// minute here would fail the tests after it whenever they run within that minute.
test('without a token: 401; with a foreign Host: 403', async () => {
  assert.equal(await post(server.url, {}), 401);
  assert.equal(await post(server.url, { authorization: `Bearer ${BEARER}`, host: 'evil.example:80' }), 403);
});

/** A raw POST of any JSON body; resolves with the status and the parsed answer. */
function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text === '' ? null : JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

test('under a limit of 3, a batch of 25 tools/call and 25 single calls make at most 3 comments reach Gitea', async () => {
  const env = namespaceEnv(sandbox, 'gitea-author', {
    auditLog: join(dir.path, 'limited.jsonl'),
    extra: { MCP_BEARER_TOKEN: BEARER, RATE_LIMIT_PER_MINUTE: '3' },
  });
  const limited = await spawnHttpNamespace(env);
  try {
    const auth = { authorization: `Bearer ${BEARER}` };
    const comment = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        name: 'gitea_comments_create',
        arguments: { owner: 'acme', repo: 'widgets', index: 3, body: { body: `batch ${id}` } },
      },
    });
    const commentsReached = () =>
      sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/issues/3/comments')).length;
    const before = commentsReached();
    const batch = await postJson(
      limited.url,
      Array.from({ length: 25 }, (_, i) => comment(i + 1)),
      auth,
    );
    assert.equal(batch.status, 400);
    assert.equal(batch.body.error.code, -32600);
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) statuses.push((await postJson(limited.url, comment(100 + i), auth)).status);
    assert.ok(statuses.includes(429), `statuses: ${statuses.join(',')}`);
    const reached = commentsReached() - before;
    assert.ok(reached <= 3, `${reached} comments reached Gitea`);
  } finally {
    await limited.close();
  }
});

test('stateless HTTP does not advertise tools.listChanged (no stream could carry it); a foreign Origin gets 403', async () => {
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
  };
  const answer = await postJson(server.url, init, { authorization: `Bearer ${BEARER}` });
  assert.equal(answer.status, 200);
  assert.deepEqual(answer.body.result.capabilities.tools, { listChanged: false });
  const foreign = await postJson(server.url, init, {
    authorization: `Bearer ${BEARER}`,
    origin: 'https://evil.example',
  });
  assert.equal(foreign.status, 403);
  assert.equal(foreign.body.jsonrpc, '2.0');
});

test('a non-loopback bind without a bearer token exits 2 before listening, and before opening anything', async () => {
  const auditLog = join(dir.path, 'refused.jsonl');
  const env = {
    ...namespaceEnv(sandbox, 'gitea-reviewer', { auditLog }),
    MCP_TRANSPORT: 'http',
    MCP_HOST: '0.0.0.0',
    MCP_PORT: '0',
  };
  const before = sandbox.requests.length;
  const { code, stderr } = await runServe(env);
  assert.equal(code, 2);
  assert.match(stderr, /MCP_BEARER_TOKEN/);
  assert.doesNotMatch(stderr, /listening/);
  assert.equal(existsSync(auditLog), false, 'the audit log was opened by a server that refused to start');
  assert.equal(sandbox.requests.length, before, 'a server that refused to start called Gitea');
});

test('MCP_BEARER_TOKEN set but empty is refused (exit 2), never read as "no authentication"', async () => {
  const env = {
    ...namespaceEnv(sandbox, 'gitea-reviewer', { auditLog: join(dir.path, 'refused.jsonl') }),
    MCP_TRANSPORT: 'http',
    MCP_PORT: '0',
    MCP_BEARER_TOKEN: '',
  };
  const { code, stderr } = await runServe(env);
  assert.equal(code, 2);
  assert.match(stderr, /MCP_BEARER_TOKEN is shorter than/);
});

test('an unknown DISABLED_TOOLS name stops start-up with exit 2', async () => {
  const env = {
    ...namespaceEnv(sandbox, 'gitea-reviewer', { auditLog: join(dir.path, 'refused.jsonl') }),
    DISABLED_TOOLS: 'gitea_no_such_tool',
  };
  const { code, stderr } = await runServe(env);
  assert.equal(code, 2);
  assert.match(stderr, /gitea_no_such_tool/);
});

test('every answer the sandbox gave in this file conforms to the pinned Gitea spec', () => {
  sandbox.assertConformed();
});
