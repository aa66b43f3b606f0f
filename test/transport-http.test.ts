import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { createServer as createNetServer, connect } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  DEFAULT_MAX_BODY_BYTES,
  startHttpTransport,
  type HttpTransportHandle,
  type HttpTransportOptions,
} from '../src/transports/streamable-http.js';
import { createLogger } from '../src/shared/logger.js';
import { StartupError } from '../src/shared/startup-error.js';
import { createEchoServer } from './fixtures/echo-server.js';

const TOKEN = 'test-token-0123456789abcdef';
const logger = createLogger('silent');

function options(overrides: Partial<HttpTransportOptions> = {}): HttpTransportOptions {
  return {
    host: '127.0.0.1',
    port: 0,
    path: '/mcp',
    bearerToken: TOKEN,
    publicBaseUrl: 'https://mcp.example.com',
    allowedHosts: ['extra.example.org:8443'],
    rateLimitPerMinute: 1000,
    maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
    info: { name: 'gitea-warden', version: '0.1.0', profile: 'reviewer' },
    ...overrides,
  };
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request through node:http, which (unlike fetch) lets the test set the Host header. */
function raw(
  url: string,
  init: {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    chunked?: boolean;
  } = {},
): Promise<RawResponse> {
  const target = new URL(init.path ?? '', url);
  return new Promise((resolve, reject) => {
    const req = request(target, { method: init.method ?? 'GET', headers: init.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    if (init.body !== undefined) {
      if (init.chunked) req.setHeader('Transfer-Encoding', 'chunked');
      else req.setHeader('Content-Length', Buffer.byteLength(init.body));
    }
    req.end(init.body);
  });
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});
const mcpHeaders = (token: string | null = TOKEN): Record<string, string> => ({
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  ...(token === null ? {} : { Authorization: `Bearer ${token}` }),
});

async function connectClient(url: string, token: string | null): Promise<Client> {
  const client = new Client({ name: 'transport-test', version: '0.0.0' });
  const headers: Record<string, string> = token === null ? {} : { Authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

describe('streamable HTTP transport', () => {
  let server: HttpTransportHandle;
  before(async () => {
    server = await startHttpTransport(options(), createEchoServer, logger);
  });
  after(async () => {
    await server.close();
  });

  test('lists and calls tools through the SDK client with the right token', async () => {
    const client = await connectClient(server.url, TOKEN);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['echo'],
      );
      const result = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
      assert.deepEqual(result.content, [{ type: 'text', text: 'echo: hello' }]);
    } finally {
      await client.close();
    }
  });

  for (const [name, token] of [
    ['no token', null],
    ['a wrong token', 'wrong-token-0123456789abcdef'],
  ] as const) {
    test(`the SDK client with ${name} cannot connect`, async () => {
      await assert.rejects(connectClient(server.url, token));
    });

    test(`a request with ${name} gets 401 and WWW-Authenticate: Bearer`, async () => {
      const response = await raw(server.url, { method: 'POST', headers: mcpHeaders(token), body: initialize });
      assert.equal(response.status, 401);
      assert.match(String(response.headers['www-authenticate']), /^Bearer/);
      assert.doesNotMatch(response.body, new RegExp(TOKEN));
    });
  }

  const hosts: { host: string; status: number }[] = [
    { host: 'evil.example.com', status: 403 },
    { host: 'evil.example.com:80', status: 403 },
    { host: '127.0.0.1.evil.example.com', status: 403 },
    { host: 'localhost:5555', status: 200 },
    { host: '127.0.0.1', status: 200 },
    { host: '[::1]:8080', status: 200 },
    { host: 'mcp.example.com', status: 200 },
    { host: 'MCP.example.com:443', status: 200 },
    { host: 'extra.example.org:8443', status: 200 },
    { host: 'extra.example.org:9999', status: 403 },
  ];
  for (const { host, status } of hosts) {
    test(`Host ${host} -> ${status}`, async () => {
      const response = await raw(server.url, { path: '/health', headers: { Host: host } });
      assert.equal(response.status, status);
    });
  }

  test('a wrong Host is refused on the MCP path even with the right token', async () => {
    const response = await raw(server.url, {
      method: 'POST',
      headers: { ...mcpHeaders(), Host: 'evil.example.com' },
      body: initialize,
    });
    assert.equal(response.status, 403);
  });

  test('the 403 for a foreign Host is JSON-RPC shaped like the 401, 405 and 429 answers', async () => {
    const response = await raw(server.url, { path: '/health', headers: { Host: 'evil.example.com' } });
    const body = JSON.parse(response.body);
    assert.equal(body.jsonrpc, '2.0');
    assert.equal(body.error.code, -32000);
    assert.match(body.error.message, /Host header not allowed/);
  });

  // Absent Origin: a command-line client. Present: it must name a host this server answers to.
  const origins: { origin: string | undefined; status: number }[] = [
    { origin: undefined, status: 200 },
    { origin: 'http://localhost:6274', status: 200 },
    { origin: 'http://127.0.0.1:3000', status: 200 },
    { origin: 'https://mcp.example.com', status: 200 },
    { origin: 'https://extra.example.org:8443', status: 200 },
    { origin: 'https://evil.example.com', status: 403 },
    { origin: 'http://localhost.evil.example.com', status: 403 },
    { origin: 'https://extra.example.org:9999', status: 403 },
    { origin: 'null', status: 403 },
    { origin: 'file://', status: 403 },
  ];
  for (const { origin, status } of origins) {
    test(`Origin ${origin ?? '(absent)'} on the MCP path -> ${status}`, async () => {
      const headers = { ...mcpHeaders(), ...(origin === undefined ? {} : { Origin: origin }) };
      const response = await raw(server.url, { method: 'POST', headers, body: initialize });
      assert.equal(response.status, status);
      if (status === 403) assert.match(JSON.parse(response.body).error.message, /Origin not allowed/);
    });
  }

  test('a 2026-07-28 request is served; Mcp-Method or Mcp-Name that disagree with its body are refused (-32020)', async () => {
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: {
        name: 'echo',
        arguments: { text: 'modern' },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    });
    const send = (method: string, name: string) =>
      raw(server.url, {
        method: 'POST',
        headers: { ...mcpHeaders(), 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': method, 'Mcp-Name': name },
        body: call,
      });
    const served = await send('tools/call', 'echo');
    assert.equal(served.status, 200, served.body);
    assert.deepEqual(JSON.parse(served.body).result.content, [{ type: 'text', text: 'echo: modern' }]);
    for (const [method, name] of [
      ['tools/list', 'echo'],
      ['tools/call', 'not-echo'],
    ] as const) {
      const refused = await send(method, name);
      assert.equal(refused.status, 400, `${method} ${name}: ${refused.body}`);
      assert.equal(JSON.parse(refused.body).error.code, -32020, `${method} ${name}`);
    }
  });

  test('a JSON-RPC batch is refused as an invalid request, none of its messages run', async () => {
    const batch = JSON.stringify([JSON.parse(initialize), { jsonrpc: '2.0', id: 2, method: 'tools/list' }]);
    const response = await raw(server.url, { method: 'POST', headers: mcpHeaders(), body: batch });
    assert.equal(response.status, 400);
    const body = JSON.parse(response.body);
    assert.equal(body.error.code, -32600);
    assert.match(body.error.message, /batches are not accepted/);
  });

  test('GET /health answers ok and GET / describes the server without secrets, no auth needed', async () => {
    const health = await raw(server.url, { path: '/health' });
    assert.equal(health.status, 200);
    assert.deepEqual(JSON.parse(health.body), { status: 'ok' });
    const root = await raw(server.url, { path: '/' });
    assert.equal(root.status, 200);
    assert.deepEqual(JSON.parse(root.body), {
      name: 'gitea-warden',
      version: '0.1.0',
      profile: 'reviewer',
      mcpPath: '/mcp',
    });
    assert.doesNotMatch(root.body, new RegExp(TOKEN));
  });

  const oversized = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'ping',
    params: { pad: 'x'.repeat(DEFAULT_MAX_BODY_BYTES) },
  });
  for (const chunked of [false, true]) {
    test(`an oversized body gets 413 (${chunked ? 'chunked' : 'with Content-Length'})`, async () => {
      const response = await raw(server.url, { method: 'POST', headers: mcpHeaders(), body: oversized, chunked });
      assert.equal(response.status, 413);
      assert.equal(JSON.parse(response.body).jsonrpc, '2.0');
    });
  }

  test('a body that is not JSON gets a JSON-RPC parse error without a stack trace', async () => {
    const response = await raw(server.url, { method: 'POST', headers: mcpHeaders(), body: '{"jsonrpc": ' });
    assert.equal(response.status, 400);
    assert.deepEqual(JSON.parse(response.body), {
      jsonrpc: '2.0',
      error: { code: -32700, message: 'Parse error: the body is not valid JSON' },
      id: null,
    });
  });

  test('GET on the MCP path is 405 (stateless: no standalone stream); unknown paths are 404', async () => {
    const get = await raw(server.url, { headers: mcpHeaders() });
    assert.equal(get.status, 405);
    assert.equal(get.headers.allow, 'POST');
    assert.equal((await raw(server.url, { path: '/nope' })).status, 404);
  });
});

describe('rate limit on the MCP path', () => {
  let now = 0;
  let server: HttpTransportHandle;
  before(async () => {
    server = await startHttpTransport(options({ rateLimitPerMinute: 2, now: () => now }), createEchoServer, logger);
  });
  after(async () => {
    await server.close();
  });

  test('past the limit: 429 with Retry-After; served again once the window refills', async () => {
    const post = () => raw(server.url, { method: 'POST', headers: mcpHeaders(), body: initialize });
    assert.equal((await post()).status, 200);
    assert.equal((await post()).status, 200);
    const limited = await post();
    assert.equal(limited.status, 429);
    assert.equal(limited.headers['retry-after'], '30');
    now += 30_000;
    assert.equal((await post()).status, 200);
  });

  test('/health is not rate limited', async () => {
    for (let i = 0; i < 4; i += 1) assert.equal((await raw(server.url, { path: '/health' })).status, 200);
  });
});

describe('refusals and slow or bloated requests', () => {
  const wrong = 'presented-wrong-token-0123456789';
  let server: HttpTransportHandle;
  before(async () => {
    // A frozen clock: the unauthenticated bucket never refills, so the third refusal is a 429.
    server = await startHttpTransport(
      options({ rateLimitPerMinute: 1, now: () => 0, requestTimeoutMs: 200 }),
      createEchoServer,
      logger,
    );
  });
  after(async () => {
    await server.close();
  });

  test('401, 403 and 429 answers carry neither the configured nor the presented token', async () => {
    const refusals = [
      await raw(server.url, {
        method: 'POST',
        headers: { ...mcpHeaders(wrong), Host: 'evil.example.com' },
        body: initialize,
      }),
      await raw(server.url, { method: 'POST', headers: mcpHeaders(wrong), body: initialize }),
      await raw(server.url, { method: 'POST', headers: mcpHeaders(wrong), body: initialize }),
    ];
    assert.deepEqual(
      refusals.map((r) => r.status),
      [403, 401, 429],
    );
    for (const response of refusals) {
      const text = JSON.stringify(response.headers) + response.body;
      assert.ok(!text.includes(TOKEN) && !text.includes(wrong), `${response.status} leaks a token`);
    }
  });

  // The timeout option only stops a hang from blocking the run when the server would wait forever.
  test(
    'a body that stops arriving is cut off (408) instead of holding the connection',
    { timeout: 10_000 },
    async () => {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
        let received = '';
        socket.on('data', (chunk) => (received += chunk.toString('utf8')));
        socket.on('close', () => resolve(received));
        socket.on('error', reject);
        socket.write(
          `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc"`,
        );
      });
      assert.match(answer, /^HTTP\/1\.1 408/);
    },
  );

  test('headers beyond 16 KiB are refused with 431', async () => {
    const response = await raw(server.url, { path: '/health', headers: { 'X-Padding': 'x'.repeat(20 * 1024) } });
    assert.equal(response.status, 431);
  });
});

describe('HTTP start-up', () => {
  async function freePort(): Promise<number> {
    const probe = createNetServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    return port;
  }

  function refusesConnections(port: number): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', () => resolve(true));
    });
  }

  test('a non-loopback bind without a token fails with exit code 2 before listening', async () => {
    const port = await freePort();
    await assert.rejects(
      startHttpTransport(options({ host: '0.0.0.0', port, bearerToken: undefined }), createEchoServer, logger),
      (error: unknown) => {
        assert.ok(error instanceof StartupError);
        assert.equal(error.exitCode, 2);
        return true;
      },
    );
    assert.equal(await refusesConnections(port), true);
  });

  test('loopback without a token serves without authentication', async () => {
    const open = await startHttpTransport(options({ bearerToken: undefined }), createEchoServer, logger);
    try {
      const client = await connectClient(open.url, null);
      assert.equal((await client.listTools()).tools.length, 1);
      await client.close();
    } finally {
      await open.close();
    }
  });
});
