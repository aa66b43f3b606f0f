// What the model reads back: data decoding, pagination truth, error kinds and messages, size bounds.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execute } from '../src/gitea/executor.js';
import type { ErrorPayload, SuccessPayload } from '../src/gitea/envelope.js';
import { entry, json, startServer, TOKEN, type TestServer } from './gitea-fixtures.js';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

const context = () => ({ identity: server.identity, login: 'alice' });
const issues = entry({
  path: '/repos/{owner}/{repo}/issues',
  pathParams: ['owner', 'repo'],
  query: ['page', 'limit'],
  paginated: true,
});
const getOne = entry({ path: '/repos/o/r/issues/1' });
const issueList = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({ number: from + i, title: `Issue ${from + i}` }));

function success(result: Awaited<ReturnType<typeof execute>>): SuccessPayload {
  assert.equal(result.isError, false, JSON.stringify(result.payload));
  return result.payload as SuccessPayload;
}

function failure(result: Awaited<ReturnType<typeof execute>>): ErrorPayload {
  assert.equal(result.isError, true);
  return result.payload as ErrorPayload;
}

describe('pagination', () => {
  const link = (port: string, pairs: [number, string][]) =>
    pairs.map(([page, rel]) => `<${port}/api/v1/repos/o/r/issues?limit=100&page=${page}>; rel="${rel}"`).join(',');

  test('reports the page size Gitea applied when it capped limit, with next and last page', async () => {
    server.handle((_req, res) =>
      json(res, 200, issueList(1, 50), {
        'x-total-count': '120',
        link: link('http://g', [
          [2, 'next'],
          [3, 'last'],
        ]),
      }),
    );
    const payload = success(await execute(issues, { owner: 'o', repo: 'r', limit: 100 }, context()));
    assert.deepEqual(payload.pagination, { page: 1, limit: 50, total_count: 120, next_page: 2, last_page: 3 });
  });

  test('on the last page the page size follows from the total', async () => {
    server.handle((_req, res) =>
      json(res, 200, issueList(101, 20), {
        'x-total-count': '120',
        link: link('http://g', [
          [1, 'first'],
          [2, 'prev'],
        ]),
      }),
    );
    const payload = success(await execute(issues, { owner: 'o', repo: 'r', page: 3, limit: 100 }, context()));
    assert.deepEqual(payload.pagination, { page: 3, limit: 50, total_count: 120, next_page: null, last_page: 3 });
  });

  test('a single page reports no next page', async () => {
    server.handle((_req, res) => json(res, 200, issueList(1, 3), { 'x-total-count': '3' }));
    const payload = success(await execute(issues, { owner: 'o', repo: 'r', limit: 10 }, context()));
    assert.deepEqual(payload.pagination, { page: 1, limit: 10, total_count: 3, next_page: null, last_page: 1 });
  });
});

describe('data decoding', () => {
  const raw = entry({
    path: '/repos/{owner}/{repo}/raw/{filepath}',
    pathParams: ['owner', 'repo', ['filepath', true]],
    produces: ['application/octet-stream'],
  });
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(60, 7)]);
  const sendPng = () =>
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(png);
    });

  test('a binary body under the limit comes back as base64 with type and size', async () => {
    sendPng();
    const payload = success(
      await execute(raw, { owner: 'o', repo: 'r', filepath: 'logo.png' }, context(), { maxBinaryBytes: 1024 }),
    );
    assert.deepEqual(payload.data, {
      content_base64: png.toString('base64'),
      content_type: 'image/png',
      size: png.length,
      decoded_as: 'binary',
      changed: false,
    });
  });

  test('a binary body over the limit is a payload_too_large error', async () => {
    sendPng();
    const payload = failure(
      await execute(raw, { owner: 'o', repo: 'r', filepath: 'logo.png' }, context(), { maxBinaryBytes: 16 }),
    );
    assert.equal(payload.error.kind, 'payload_too_large');
    assert.match(payload.error.message, /64 bytes/);
  });

  test("the caller's token inside a binary body is redacted", async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from(`TOKEN=${TOKEN}`), Buffer.from([255])]));
    });
    const payload = success(await execute(raw, { owner: 'o', repo: 'r', filepath: 'blob.bin' }, context()));
    const content = Buffer.from((payload.data as { content_base64: string }).content_base64, 'base64');
    assert.equal(content.includes(TOKEN), false);
    assert.ok(content.includes('[REDACTED sha256:'));
  });

  test('an answer larger than maxResponseBytes is a payload_too_large error', async () => {
    server.handle((_req, res) => json(res, 200, issueList(1, 2000)));
    const payload = failure(await execute(issues, { owner: 'o', repo: 'r' }, context(), { maxResponseBytes: 10_000 }));
    assert.equal(payload.error.kind, 'payload_too_large');
  });

  test('JSON nested deeper than 100 levels is returned as text', async () => {
    const deep = `${'['.repeat(150)}1${']'.repeat(150)}`;
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(deep);
    });
    const payload = success(await execute(entry({ path: '/x' }), {}, context()));
    assert.equal(payload.data, deep);
  });

  test('JSON nested 100 levels deep is parsed', async () => {
    const deep = `${'['.repeat(100)}"[[[["${']'.repeat(100)}`;
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(deep);
    });
    const payload = success(await execute(entry({ path: '/x' }), {}, context()));
    assert.ok(Array.isArray(payload.data));
  });

  test('an empty 204 answer has null data', async () => {
    server.handle((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    const payload = success(await execute(entry({ method: 'DELETE', path: '/x' }), {}, context()));
    assert.equal(payload.status, 204);
    assert.equal(payload.data, null);
  });
});

describe('errors', () => {
  const cases: [number, string][] = [
    [400, 'bad_request'],
    [401, 'unauthorized'],
    [403, 'forbidden'],
    [404, 'not_found'],
    [409, 'conflict'],
    [422, 'validation'],
    [429, 'rate_limited'],
    [500, 'upstream_error'],
    [502, 'upstream_error'],
    [418, 'upstream_error'],
  ];
  for (const [status, kind] of cases) {
    test(`HTTP ${status} is kind ${kind} with Gitea's message`, async () => {
      server.handle((_req, res) => json(res, status, { message: `gitea says ${status}`, url: 'http://g/api/swagger' }));
      const payload = failure(await execute(entry({ path: '/x' }), {}, context()));
      assert.deepEqual(
        { status: payload.error.status, kind: payload.error.kind, message: payload.error.message },
        { status, kind, message: `gitea says ${status}` },
      );
      assert.deepEqual(payload.request, { method: 'GET', path: '/x' });
    });
  }

  test('a token and an Authorization header echoed in an error are removed', async () => {
    server.handle((_req, res) =>
      json(res, 500, { message: `bad token ${TOKEN}; request had Authorization: token ${TOKEN.slice(0, 20)}` }),
    );
    const payload = failure(await execute(entry({ path: '/x' }), {}, context()));
    const text = JSON.stringify(payload);
    assert.equal(text.includes(TOKEN), false);
    assert.equal(text.includes(TOKEN.slice(0, 20)), false);
    assert.match(payload.error.message, /bad token \[REDACTED sha256:[0-9a-f]{12}\]/);
    assert.match(payload.error.message, /Authorization: \[REDACTED\]/);
  });

  test('long error messages are cut to 500 characters', async () => {
    server.handle((_req, res) => json(res, 422, { message: 'x'.repeat(5000) }));
    const payload = failure(await execute(entry({ path: '/x' }), {}, context()));
    assert.ok(payload.error.message.length <= 501);
  });

  test('a non-JSON error body is used as the message', async () => {
    server.handle((_req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('maintenance');
    });
    const payload = failure(await execute(entry({ path: '/x' }), {}, context()));
    assert.deepEqual([payload.error.kind, payload.error.message], ['upstream_error', 'maintenance']);
  });
});

describe('output bounds', () => {
  test('a list longer than maxItems is cut, and the note says how to page on', async () => {
    server.handle((_req, res) =>
      json(res, 200, issueList(1, 50), {
        'x-total-count': '500',
        link: '<http://g/api/v1/x?page=2&limit=50>; rel="next"',
      }),
    );
    const payload = success(await execute(issues, { owner: 'o', repo: 'r', limit: 50 }, context(), { maxItems: 10 }));
    assert.equal((payload.data as unknown[]).length, 10);
    assert.match(payload.truncated ?? '', /first 10 of 50 items/);
    assert.match(payload.truncated ?? '', /limit=10 and page=2/);
  });

  test('a result over maxChars has long strings shortened, then items dropped, and stays within the bound', async () => {
    const bodies = Array.from({ length: 40 }, (_, i) => ({ number: i + 1, body: 'lorem ipsum '.repeat(2000) }));
    server.handle((_req, res) => json(res, 200, bodies, { 'x-total-count': '40' }));
    const payload = success(await execute(issues, { owner: 'o', repo: 'r', limit: 40 }, context(), { maxChars: 8000 }));
    assert.ok(JSON.stringify(payload).length <= 8000);
    assert.match(payload.truncated ?? '', /shortened/);
    const items = payload.data as { number: number }[];
    assert.ok(items.length > 0 && items.length < 40);
    assert.equal(items[0]?.number, 1);
  });

  test('a long text body is cut to the bound', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('diff line\n'.repeat(20000));
    });
    const payload = success(
      await execute(entry({ path: '/x.diff', produces: ['text/plain'] }), {}, context(), { maxChars: 5000 }),
    );
    assert.ok(JSON.stringify(payload).length <= 5000);
    assert.match(payload.truncated ?? '', /text was cut after \d+ of 200000 characters/);
  });

  test('one long string is shortened only as far as needed', async () => {
    server.handle((_req, res) => json(res, 200, { number: 1, body: 'y'.repeat(30000) }));
    const payload = success(await execute(getOne, {}, context(), { maxChars: 10000 }));
    const body = (payload.data as { body: string }).body;
    assert.ok(JSON.stringify(payload).length <= 10000);
    assert.ok(body.length > 8000, `kept ${body.length} characters`);
    assert.match(body, /more chars\]$/);
  });

  test('results within the bounds carry no truncation note', async () => {
    server.handle((_req, res) => json(res, 200, issueList(1, 5)));
    const payload = success(await execute(issues, { owner: 'o', repo: 'r' }, context()));
    assert.equal(payload.truncated, null);
    assert.equal((payload.data as unknown[]).length, 5);
  });
});
