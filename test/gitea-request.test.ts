// How the executor builds its one HTTP request: path encoding, query, bodies, headers, and the
// failures that happen on the way (refusals before sending, redirects, timeouts, unreachable Gitea).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execute } from '../src/gitea/executor.js';
import type { ErrorPayload, SuccessPayload } from '../src/gitea/envelope.js';
import { catalogByOperationId } from '../src/catalog/load.js';
import { entry, json, startServer, TOKEN, type TestServer } from './gitea-fixtures.js';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

const context = () => ({ identity: server.identity, login: 'alice' });

const branchEntry = entry({
  path: '/repos/{owner}/{repo}/branches/{branch}',
  pathParams: ['owner', 'repo', ['branch', true]],
});
const releaseByTag = entry({ path: '/repos/{owner}/{repo}/releases/tags/{tag}', pathParams: ['owner', 'repo', 'tag'] });
const rawFile = entry({
  path: '/repos/{owner}/{repo}/raw/{filepath}',
  pathParams: ['owner', 'repo', ['filepath', true]],
});

describe('path encoding', () => {
  const cases = [
    {
      what: 'a branch with / on a wildcard route keeps the slash',
      entry: branchEntry,
      args: { owner: 'o', repo: 'r', branch: 'feature/x' },
      url: '/api/v1/repos/o/r/branches/feature/x',
    },
    {
      what: 'a tag with / on a single-segment route is escaped',
      entry: releaseByTag,
      args: { owner: 'o', repo: 'r', tag: 'rel/1.0' },
      url: '/api/v1/repos/o/r/releases/tags/rel%2F1.0',
    },
    {
      what: 'a file path with spaces and unicode is encoded per segment',
      entry: rawFile,
      args: { owner: 'o', repo: 'r', filepath: 'docs/my file ü.md' },
      url: '/api/v1/repos/o/r/raw/docs/my%20file%20%C3%BC.md',
    },
    {
      what: 'reserved characters in an owner are escaped',
      entry: branchEntry,
      args: { owner: 'a?b#c', repo: 'r', branch: 'main' },
      url: '/api/v1/repos/a%3Fb%23c/r/branches/main',
    },
    {
      what: 'numbers are accepted as path values',
      entry: entry({ path: '/repos/{owner}/{repo}/issues/{index}', pathParams: ['owner', 'repo', 'index'] }),
      args: { owner: 'o', repo: 'r', index: 7 },
      url: '/api/v1/repos/o/r/issues/7',
    },
  ];
  for (const c of cases) {
    test(c.what, async () => {
      server.handle((_req, res) => json(res, 200, { ok: true }));
      const result = await execute(c.entry, c.args, context());
      assert.equal(result.isError, false);
      assert.equal(server.requests[0]?.url, c.url);
    });
  }

  const refused = [
    {
      what: '`..` in a wildcard value',
      entry: rawFile,
      args: { owner: 'o', repo: 'r', filepath: 'docs/../../etc/passwd' },
    },
    { what: '`..` as a whole single-segment value', entry: releaseByTag, args: { owner: 'o', repo: '..', tag: 'v1' } },
    {
      what: '`..` hidden behind a slash in a single-segment value',
      entry: releaseByTag,
      args: { owner: 'o', repo: 'r', tag: 'x/..' },
    },
    {
      what: 'an empty segment in a wildcard value',
      entry: branchEntry,
      args: { owner: 'o', repo: 'r', branch: 'feature//x' },
    },
    {
      what: 'a trailing slash in a wildcard value',
      entry: branchEntry,
      args: { owner: 'o', repo: 'r', branch: 'feature/' },
    },
    { what: 'a control character', entry: branchEntry, args: { owner: 'o', repo: 'r', branch: 'main\nX-Injected: 1' } },
    { what: 'a missing path value', entry: branchEntry, args: { owner: 'o', repo: 'r' } },
  ];
  for (const c of refused) {
    test(`refuses ${c.what} before any request`, async () => {
      server.handle((_req, res) => json(res, 200, {}));
      const result = await execute(c.entry, c.args, context());
      assert.equal(result.isError, true);
      const payload = result.payload as ErrorPayload;
      assert.equal(payload.error.kind, 'bad_request');
      assert.equal(payload.error.status, null);
      assert.equal(server.requests.length, 0);
      for (const value of Object.values(c.args))
        if (String(value).length > 2) assert.equal(payload.error.message.includes(String(value)), false);
    });
  }
});

describe('path encoding with the generated catalog', () => {
  const catalog = catalogByOperationId();
  const cases = [
    {
      operationId: 'repoGetBranch',
      args: { owner: 'o', repo: 'r', branch: 'feature/x' },
      url: '/api/v1/repos/o/r/branches/feature/x',
    },
    {
      operationId: 'repoGetReleaseByTag',
      args: { owner: 'o', repo: 'r', tag: 'rel/1.0' },
      url: '/api/v1/repos/o/r/releases/tags/rel%2F1.0',
    },
    {
      operationId: 'repoGetTag',
      args: { owner: 'o', repo: 'r', tag: 'rel/1.0' },
      url: '/api/v1/repos/o/r/tags/rel/1.0',
    },
    {
      operationId: 'repoGetRawFile',
      args: { owner: 'o', repo: 'r', filepath: 'a dir/naïve 文件.txt', ref: 'main' },
      url: '/api/v1/repos/o/r/raw/a%20dir/na%C3%AFve%20%E6%96%87%E4%BB%B6.txt?ref=main',
    },
  ];
  for (const c of cases) {
    test(`${c.operationId} requests ${c.url}`, async () => {
      server.handle((_req, res) => json(res, 200, {}));
      const catalogEntry = catalog.get(c.operationId);
      assert.ok(catalogEntry, c.operationId);
      await execute(catalogEntry, c.args, context());
      assert.equal(server.requests[0]?.url, c.url);
    });
  }
});

describe('headers and query', () => {
  test('sends the token as `Authorization: token`, sudo as a header, and query params (arrays repeated)', async () => {
    server.handle((_req, res) => json(res, 200, []));
    const list = entry({ path: '/repos/issues/search', query: ['state', 'labels', 'page'] });
    await execute(list, { state: 'open', labels: ['bug', 'ui'], page: 2, sudo: 'bob' }, context());
    const request = server.requests[0]!;
    assert.equal(request.headers.authorization, `token ${TOKEN}`);
    assert.equal(request.headers.sudo, 'bob');
    assert.equal(request.url, '/api/v1/repos/issues/search?state=open&labels=bug&labels=ui&page=2');
    assert.equal(request.headers.cookie, undefined);
  });

  test('the envelope names the verified login, token mode and sudo user', async () => {
    server.handle((_req, res) => json(res, 200, { id: 1 }));
    const result = await execute(
      branchEntry,
      { owner: 'o', repo: 'r', branch: 'main' },
      { ...context(), sudo: 'carol' },
    );
    const payload = result.payload as SuccessPayload;
    assert.deepEqual(payload.identity, { login: 'alice', mode: 'token', sudo: 'carol' });
    assert.deepEqual(payload.request, { method: 'GET', path: '/repos/o/r/branches/main' });
    assert.equal(payload.status, 200);
    assert.equal(payload.pagination, null);
    assert.match(payload.untrusted_content, /untrusted/);
  });
});

describe('request bodies', () => {
  test('a JSON body is sent as application/json', async () => {
    server.handle((_req, res) => json(res, 201, { number: 1 }));
    const create = entry({
      method: 'POST',
      path: '/repos/{owner}/{repo}/issues',
      pathParams: ['owner', 'repo'],
      body: true,
    });
    await execute(create, { owner: 'o', repo: 'r', body: { title: 'Bug', labels: [1, 2] } }, context());
    const request = server.requests[0]!;
    assert.equal(request.method, 'POST');
    assert.match(String(request.headers['content-type']), /^application\/json/);
    assert.deepEqual(JSON.parse(request.body.toString()), { title: 'Bug', labels: [1, 2] });
  });

  test('a text/plain body is sent as text', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<h1>hi</h1>');
    });
    const render = entry({
      method: 'POST',
      path: '/markdown/raw',
      body: true,
      consumes: ['text/plain'],
      produces: ['text/html'],
    });
    const result = await execute(render, { body: '# hi' }, context());
    assert.equal(server.requests[0]?.body.toString(), '# hi');
    assert.match(String(server.requests[0]?.headers['content-type']), /^text\/plain/);
    assert.equal((result.payload as SuccessPayload).data, '<h1>hi</h1>');
  });

  const upload = entry({
    method: 'POST',
    path: '/repos/{owner}/{repo}/releases/{id}/assets',
    pathParams: ['owner', 'repo', 'id'],
    query: ['name'],
    file: ['attachment'],
    consumes: ['multipart/form-data'],
  });

  test('a base64 file field is uploaded as multipart/form-data', async () => {
    server.handle((_req, res) => json(res, 201, { id: 9, name: 'notes.txt' }));
    const content = 'release notes\n\u00e9';
    const result = await execute(
      upload,
      { owner: 'o', repo: 'r', id: 3, name: 'notes.txt', attachment: Buffer.from(content).toString('base64') },
      context(),
    );
    assert.equal(result.isError, false);
    const request = server.requests[0]!;
    assert.match(String(request.headers['content-type']), /^multipart\/form-data; boundary=/);
    const raw = request.body.toString('utf8');
    assert.match(raw, /name="attachment"; filename="notes.txt"/);
    assert.ok(raw.includes(content));
    assert.equal(request.url, '/api/v1/repos/o/r/releases/3/assets?name=notes.txt');
  });

  test('a base64 file above MAX_BINARY_BYTES is refused before sending', async () => {
    server.handle((_req, res) => json(res, 201, {}));
    const tooBig = Buffer.alloc(2048, 1).toString('base64');
    const result = await execute(upload, { owner: 'o', repo: 'r', id: 3, attachment: tooBig }, context(), {
      maxBinaryBytes: 1024,
    });
    assert.equal((result.payload as ErrorPayload).error.kind, 'payload_too_large');
    assert.equal(server.requests.length, 0);
  });

  test('form fields of an urlencoded operation are sent urlencoded', async () => {
    server.handle((_req, res) => json(res, 200, {}));
    const formEntry = entry({
      method: 'POST',
      path: '/x',
      form: ['title', 'draft'],
      consumes: ['application/x-www-form-urlencoded'],
    });
    await execute(formEntry, { title: 'a b&c', draft: true }, context());
    assert.match(String(server.requests[0]?.headers['content-type']), /^application\/x-www-form-urlencoded/);
    assert.equal(server.requests[0]?.body.toString(), 'title=a+b%26c&draft=true');
  });

  test('a file field that is not base64 is refused', async () => {
    const result = await execute(upload, { owner: 'o', repo: 'r', id: 3, attachment: 'not base64!' }, context());
    assert.equal((result.payload as ErrorPayload).error.kind, 'bad_request');
  });
});

describe('transport failures', () => {
  const ping = entry({ path: '/version' });

  test('a redirect is not followed and is an error', async () => {
    server.handle((_req, res) => {
      res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' });
      res.end();
    });
    const result = await execute(ping, {}, context());
    const payload = result.payload as ErrorPayload;
    assert.equal(payload.error.kind, 'redirect_refused');
    assert.equal(payload.error.status, 302);
    assert.equal(server.requests.length, 1);
  });

  test('requests in a row reuse one kept-alive connection to Gitea, and the token rides on each', async () => {
    server.handle((_req, res) => json(res, 200, {}));
    for (let i = 0; i < 3; i++) assert.equal((await execute(ping, {}, context())).isError, false);
    assert.equal(server.requests.length, 3);
    assert.equal(new Set(server.requests.map((r) => r.remotePort)).size, 1);
    assert.ok(server.requests.every((r) => r.headers.authorization === `token ${TOKEN}`));
  });

  test('an answer that streams past maxResponseBytes without declaring its length is payload_too_large', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = `"${'x'.repeat(4096)}",`;
      res.write('[');
      for (let i = 0; i < 8; i++) res.write(chunk);
      res.end('""]');
    });
    const result = await execute(ping, {}, context(), { maxResponseBytes: 10_000 });
    assert.equal((result.payload as ErrorPayload).error.kind, 'payload_too_large');
    // The next call is answered: the dropped connection is not reused.
    server.handle((_req, res) => json(res, 200, { ok: true }));
    assert.equal((await execute(ping, {}, context())).isError, false);
  });

  test('a connection Gitea drops in the middle of its answer is a network error', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"partial": "');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const result = await execute(ping, {}, context());
    const payload = result.payload as ErrorPayload;
    assert.equal(payload.error.kind, 'network_error');
    assert.match(payload.error.message, /ECONNRESET/);
  });

  test('a slow Gitea gives a timeout error', async () => {
    server.handle((_req, res) => setTimeout(() => json(res, 200, {}), 2000).unref());
    const result = await execute(ping, {}, context(), { timeoutMs: 100 });
    assert.equal((result.payload as ErrorPayload).error.kind, 'timeout');
  });

  test('a token node refuses as a header value (a newline in it) is an error result, not a throw, and is not shown', async () => {
    server.handle((_req, res) => json(res, 200, {}));
    const token = `${TOKEN}\nx-injected: 1`;
    const result = await execute(ping, {}, { identity: { baseUrl: server.identity.baseUrl, token }, login: null });
    const payload = result.payload as ErrorPayload;
    assert.equal(payload.error.kind, 'network_error');
    assert.ok(!JSON.stringify(payload).includes(TOKEN));
    assert.equal(server.requests.length, 0);
  });

  test('an unreachable Gitea gives a network error without the token', async () => {
    const result = await execute(ping, {}, { identity: { baseUrl: 'http://127.0.0.1:1', token: TOKEN }, login: null });
    const payload = result.payload as ErrorPayload;
    assert.equal(payload.error.kind, 'network_error');
    assert.ok(!JSON.stringify(payload).includes(TOKEN));
  });
});
