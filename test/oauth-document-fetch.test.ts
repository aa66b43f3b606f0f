// The fetch of a client metadata document, an attacker-chosen URL (src/auth/document-fetch.ts), against
// real listeners on loopback that count what reaches them: refused addresses are never connected to,
// the connection goes to the address that was checked (a second DNS answer cannot move it), a redirect
// to another origin is not followed, and size and time are bounded.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  addressProblem,
  DEFAULT_DOCUMENT_POLICY,
  fetchDocument,
  type DocumentFetchPolicy,
} from '../src/auth/document-fetch.js';
import { ClientDocuments } from '../src/auth/client-documents.js';

interface Listener {
  port: number;
  origin: string;
  connections: number;
  requests: string[];
  server: Server;
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Listener> {
  const state = { connections: 0, requests: [] as string[] };
  const server = createServer((req, res) => {
    state.requests.push(req.url ?? '');
    handler(req, res);
  });
  server.on('connection', () => state.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(state, { port, origin: `http://127.0.0.1:${port}`, server });
}

const loopback: DocumentFetchPolicy = { ...DEFAULT_DOCUMENT_POLICY, allowLoopback: true, timeoutMs: 1_000 };

const documentOf = (url: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ client_id: url, client_name: 'Doc agent', redirect_uris: ['http://127.0.0.1:9/cb'], ...extra });

describe('client metadata document fetch', () => {
  let docs: Listener;
  let elsewhere: Listener;

  before(async () => {
    elsewhere = await listen((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    docs = await listen((req, res) => {
      const url = `${docs.origin}${req.url}`;
      if (req.url === '/client.json') res.writeHead(200, { 'content-type': 'application/json' }).end(documentOf(url));
      else if (req.url === '/moved') res.writeHead(302, { location: '/client.json' }).end();
      else if (req.url === '/away') res.writeHead(302, { location: `${elsewhere.origin}/client.json` }).end();
      else if (req.url === '/big-declared')
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2_000_000) }).end();
      else if (req.url === '/big-streamed') {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(16 * 1024, 32);
        const push = () => {
          if (res.destroyed) return;
          if (res.write(chunk)) setImmediate(push);
          else res.once('drain', push);
        };
        push();
      } else if (req.url === '/slow') setTimeout(() => res.writeHead(200).end(documentOf(url)), 3_000).unref();
      else if (req.url === '/html') res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
      else res.writeHead(404).end();
    });
  });

  after(() => {
    for (const l of [docs, elsewhere]) {
      l?.server.closeAllConnections();
      l?.server.close();
    }
  });

  test('a document on an allowed host is fetched', async () => {
    const answer = await fetchDocument(`${docs.origin}/client.json`, loopback);
    assert.equal(answer.ok, true);
  });

  test('refused addresses are refused before any connection, also when a name resolves to them', async () => {
    const before = docs.connections;
    // This server is not bound to loopback: localhost is an internal address like any other.
    const internal = { ...loopback, allowLoopback: false };
    const cases: Array<[string, RegExp, DocumentFetchPolicy?]> = [
      [`https://localhost:${docs.port}/client.json`, /resolves to (127\.0\.0\.1|::1), a loopback address/],
      [`https://127.0.0.1:${docs.port}/client.json`, /a loopback address/],
      ['https://10.1.2.3/client.json', /a private address/],
      ['https://169.254.169.254/latest/meta-data', /link-local or cloud metadata/],
      ['https://[::ffff:10.0.0.1]/client.json', /a private address/],
      ['https://[fd00:ec2::254]/client.json', /unique local/],
      ['https://[fe80::1]/client.json', /link-local/],
      ['https://0.0.0.0/client.json', /this network/],
      [`http://example.com/client.json`, /not an https URL/],
    ];
    for (const [url, reason] of cases) {
      const answer = await fetchDocument(url, internal);
      assert.equal(answer.ok, false, url);
      assert.match(answer.ok ? '' : answer.reason, reason, url);
    }
    // A name whose answers mix a public address with an internal one: refused too.
    const mixed = await fetchDocument('https://docs.example/client.json', {
      ...internal,
      resolve: async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '192.168.1.5', family: 4 },
      ],
    });
    assert.match(mixed.ok ? '' : mixed.reason, /resolves to 192\.168\.1\.5, a private address/);
    assert.equal(docs.connections, before, 'no connection reached a refused address');
  });

  test('the connection goes to the address that was checked: a second DNS answer cannot move it', async () => {
    let lookups = 0;
    const rebinding: DocumentFetchPolicy = {
      ...loopback,
      // First answer: this (loopback, allowed) listener; any later answer: an internal address.
      resolve: async () => [{ address: lookups++ === 0 ? '127.0.0.1' : '10.0.0.1', family: 4 }],
    };
    const requests = docs.requests.length;
    const answer = await fetchDocument(`http://docs.test:${docs.port}/client.json`, rebinding);
    assert.equal(answer.ok, true, answer.ok ? '' : answer.reason);
    assert.equal(lookups, 1, 'resolved once');
    assert.equal(docs.requests.length, requests + 1, 'the request reached the checked address');
  });

  test('a redirect to another origin is not followed; one within the origin is', async () => {
    const away = await fetchDocument(`${docs.origin}/away`, loopback);
    assert.match(away.ok ? '' : away.reason, new RegExp(`redirects to another origin \\(${elsewhere.origin}\\)`));
    assert.equal(elsewhere.connections, 0, 'the other origin was never contacted');
    const moved = await fetchDocument(`${docs.origin}/moved`, loopback);
    assert.equal(moved.ok, true);
  });

  test('too large, too slow or not JSON: refused', async () => {
    const declared = await fetchDocument(`${docs.origin}/big-declared`, loopback);
    assert.match(declared.ok ? '' : declared.reason, /larger than 32768 bytes/);
    const streamed = await fetchDocument(`${docs.origin}/big-streamed`, loopback);
    assert.match(streamed.ok ? '' : streamed.reason, /larger than 32768 bytes/);
    const started = Date.now();
    const slow = await fetchDocument(`${docs.origin}/slow`, loopback);
    assert.match(slow.ok ? '' : slow.reason, /did not arrive within 1 s/);
    assert.ok(Date.now() - started < 2_500, 'stopped at the deadline');
    const html = await fetchDocument(`${docs.origin}/html`, loopback);
    assert.match(html.ok ? '' : html.reason, /not JSON/);
  });

  test('the cache holds a document once per URL, and a refusal for a while', async () => {
    const documents = new ClientDocuments(loopback);
    const requests = docs.requests.length;
    await Promise.all([
      documents.resolve(`${docs.origin}/client.json`),
      documents.resolve(`${docs.origin}/client.json`),
    ]);
    await documents.resolve(`${docs.origin}/client.json`);
    assert.equal(docs.requests.length, requests + 1, 'one fetch for three resolutions');
    await assert.rejects(documents.resolve(`${docs.origin}/html`), /was refused: it is not JSON/);
    await assert.rejects(documents.resolve(`${docs.origin}/html`), /was refused/);
    assert.equal(docs.requests.length, requests + 2, 'a refusal is remembered');
  });
});

test('addresses: public ones pass; loopback only where allowed; every internal range is named', () => {
  const rows: Array<[string, boolean, string | null]> = [
    ['93.184.216.34', false, null],
    ['2606:2800:220:1::1', false, null],
    ['127.0.0.1', true, null],
    ['127.0.0.1', false, 'a loopback address'],
    ['::1', false, 'a loopback address'],
    ['10.0.0.1', true, 'a private address'],
    ['172.16.0.1', true, 'a private address'],
    ['192.168.0.1', true, 'a private address'],
    ['100.64.0.1', true, 'a shared (carrier-grade NAT) address'],
    ['169.254.169.254', true, 'a link-local or cloud metadata address'],
    ['::ffff:169.254.169.254', true, 'a link-local or cloud metadata address'],
    ['::ffff:a9fe:a9fe', true, 'a link-local or cloud metadata address'],
    ['fd00:ec2::254', true, 'a private (unique local) or cloud metadata address'],
    ['fe80::1', true, 'a link-local address'],
    ['224.0.0.1', true, 'a multicast address'],
    ['255.255.255.255', true, 'the broadcast address'],
    ['64:ff9b::a00:1', true, 'a NAT64 address'],
  ];
  for (const [address, allowLoopback, expected] of rows)
    assert.equal(addressProblem(address, allowLoopback), expected, `${address} (loopback ${allowLoopback})`);
});
