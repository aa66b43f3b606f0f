// A client identified by its metadata document (MCP 2025-11-25), end to end through the official
// SDK's OAuth client (v2, clientMetadataUrl): the document is served over https on loopback (a test
// CA given to serve, as an operator with a private CA would), serve fetches and checks it, the
// consent page names the verified host, and the agent then acts as the person. Then each document
// serve must refuse, refused with its reason and fetched no further than the first hop.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { payloadOf, repoRoot, tempDir } from './support/namespace.js';
import {
  connectAs,
  registerWardenApp,
  ScriptedBrowser,
  signInWithSdk,
  spawnOAuthServe,
  TestClientProvider,
  type OAuthServe,
} from './support/oauth-flow.js';

const TLS = join(repoRoot, 'test', 'fixtures', 'tls');
const REDIRECT = 'http://127.0.0.1:9/callback';

interface DocumentHost {
  origin: string;
  port: number;
  hits: string[];
  connections: number;
  server: Server | ReturnType<typeof createHttpServer>;
}

async function hostDocuments(
  tls: boolean,
  route: (url: string, origin: string, res: ServerResponse) => void,
): Promise<DocumentHost> {
  const host = { hits: [] as string[], connections: 0 } as DocumentHost;
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    host.hits.push(req.url ?? '');
    route(req.url ?? '', host.origin, res);
  };
  const server = tls
    ? createServer({ cert: readFileSync(join(TLS, 'server.pem')), key: readFileSync(join(TLS, 'server.key')) }, handler)
    : createHttpServer(handler);
  server.on(tls ? 'secureConnection' : 'connection', () => host.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host.port = (server.address() as AddressInfo).port;
  host.origin = `${tls ? 'https' : 'http'}://127.0.0.1:${host.port}`;
  host.server = server;
  return host;
}

function document(url: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    client_id: url,
    client_name: 'Documented agent',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...extra,
  });
}

const json = (res: ServerResponse, body: string) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(body);

describe('clients identified by a metadata document', () => {
  let sandbox: Sandbox;
  let dir: ReturnType<typeof tempDir>;
  let serve: OAuthServe;
  let docs: DocumentHost;
  let elsewhere: DocumentHost;

  before(async () => {
    sandbox = await startSandbox();
    dir = tempDir('warden-cimd-');
    elsewhere = await hostDocuments(true, (url, origin, res) => json(res, document(`${origin}${url}`)));
    docs = await hostDocuments(true, (url, origin, res) => {
      const self = `${origin}${url}`;
      if (url === '/agent.json') return json(res, document(self));
      if (url === '/other-id.json') return json(res, document(`${origin}/agent.json`));
      if (url === '/moved.json') return void res.writeHead(302, { location: `${elsewhere.origin}/agent.json` }).end();
      if (url === '/big.json') return json(res, document(self, { padding: 'x'.repeat(64 * 1024) }));
      if (url === '/slow.json') return void setTimeout(() => json(res, document(self)), 3_000).unref();
      if (url === '/secret.json') return json(res, document(self, { client_secret: 'not-allowed' }));
      res.writeHead(404).end();
    });
    const app = await registerWardenApp(sandbox);
    serve = await spawnOAuthServe(sandbox, app, {
      auditLog: join(dir.path, 'audit.jsonl'),
      store: join(dir.path, 'tokens.sqlite'),
      extra: { NODE_EXTRA_CA_CERTS: join(TLS, 'ca.pem'), OAUTH_CLIENT_DOCUMENT_TIMEOUT_MS: '1000' },
    });
  });

  after(async () => {
    for (const host of [docs, elsewhere]) {
      host?.server.closeAllConnections();
      host?.server.close();
    }
    await serve?.close();
    await sandbox?.close();
    dir?.dispose();
  });

  test('a client named by its document URL signs in end to end; the consent page names the verified host', async () => {
    const url = `${docs.origin}/agent.json`;
    const provider = new TestClientProvider(REDIRECT, 'ignored: the document names it', url);
    const { signIn } = await signInWithSdk(serve.url, serve.base, sandbox, 'alice', provider);
    // The SDK used the URL as client_id (no registration), and the grant went through.
    assert.equal(provider.info?.client_id, url);
    assert.match(signIn.consentPage, /<span id="client-name">Documented agent<\/span>/);
    assert.match(
      signIn.consentPage,
      new RegExp(`verified: its description is published at 127\\.0\\.0\\.1:${docs.port}`),
    );
    assert.ok(provider.saved?.access_token, 'tokens issued');
    const client = await connectAs(serve.url, provider);
    assert.equal(payloadOf(await client.callTool({ name: 'gitea_whoami', arguments: {} })).login, 'alice');
    await client.close();
    // A second sign-in of the same client uses the cached document.
    const fetched = docs.hits.filter((h) => h === '/agent.json').length;
    await signInWithSdk(serve.url, serve.base, sandbox, 'alice', new TestClientProvider(REDIRECT, 'x', url));
    assert.equal(docs.hits.filter((h) => h === '/agent.json').length, fetched);
  });

  test('a redirect URI the document does not list is refused', async () => {
    const answer = await authorize(`${docs.origin}/agent.json`, 'http://127.0.0.1:9/elsewhere');
    assert.equal(answer.status, 400);
    assert.match(answer.body, /Unregistered redirect_uri/);
  });

  const refused: Array<[string, string, RegExp, () => void]> = [
    [
      'its client_id is another URL',
      '/other-id.json',
      /its client_id \(https:\/\/127\.0\.0\.1:\d+\/agent\.json\) is not its own URL/,
      () => {},
    ],
    [
      'it redirects to another host',
      '/moved.json',
      /redirects to another origin \(https:\/\/127\.0\.0\.1:\d+\), which is not followed/,
      () => assert.equal(elsewhere.connections, 0, 'the other host was never contacted'),
    ],
    ['it is too large', '/big.json', /larger than 32768 bytes/, () => {}],
    ['it is too slow', '/slow.json', /did not arrive within 1 s/, () => {}],
    ['it carries a secret', '/secret.json', /must not carry a client secret/, () => {}],
  ];
  for (const [what, path, reason, firstHopOnly] of refused) {
    test(`refused with its reason: ${what}`, async () => {
      const hits = docs.hits.length;
      const answer = await authorize(`${docs.origin}${path}`, REDIRECT);
      assert.equal(answer.status, 400);
      assert.match(answer.body, /The application is not known here/);
      assert.match(answer.body.replace(/&#39;/g, "'"), reason);
      assert.equal(docs.hits.length, hits + 1, 'one fetch, the first hop only');
      firstHopOnly();
    });
  }

  test('an internal address is refused, named with the address it resolves to', async () => {
    for (const [url, reason] of [
      ['https://10.0.0.7/agent.json', /resolves to 10\.0\.0\.7, a private address/],
      ['https://169.254.169.254/latest/meta-data/agent.json', /link-local or cloud metadata/],
      ['https://[fd00:ec2::254]/agent.json', /unique local/],
    ] as const) {
      const answer = await authorize(url, REDIRECT);
      assert.equal(answer.status, 400, url);
      assert.match(answer.body, reason, url);
    }
  });

  test('a server whose public URL is not loopback treats loopback documents as internal: no connection', async () => {
    const plain = await hostDocuments(false, (url, origin, res) => json(res, document(`${origin}${url}`)));
    const app = await registerWardenApp(sandbox);
    const behindProxy = await spawnOAuthServe(sandbox, app, {
      auditLog: join(dir.path, 'audit-proxy.jsonl'),
      store: join(dir.path, 'tokens-proxy.sqlite'),
      extra: { PUBLIC_BASE_URL: 'https://warden.test', NODE_EXTRA_CA_CERTS: join(TLS, 'ca.pem') },
    });
    try {
      for (const [url, reason] of [
        [`https://localhost:${docs.port}/agent.json`, /resolves to (127\.0\.0\.1|::1), a loopback address/],
        [`${plain.origin}/agent.json`, /must be an https URL/],
      ] as const) {
        const before = docs.connections + plain.connections;
        const answer = await authorize(url, REDIRECT, behindProxy.base);
        assert.equal(answer.status, 400, url);
        assert.match(answer.body, reason, url);
        assert.equal(docs.connections + plain.connections, before, `no connection for ${url}`);
      }
    } finally {
      await behindProxy.close();
      plain.server.close();
    }
  });

  /** A browser's GET /authorize with this client_id and redirect URI, PKCE and all. */
  async function authorize(clientId: string, redirectUri: string, base = serve.base) {
    const url = new URL(`${base}/authorize`);
    url.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      state: 's',
    }).toString();
    return new ScriptedBrowser().request(url.toString());
  }
});
