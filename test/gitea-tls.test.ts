// The Gitea client over https: a real TLS handshake in front of the sandbox, trusted through
// NODE_EXTRA_CA_CERTS as a team with a private CA runs it, and refused with the fix when not trusted.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { connectStdio, namespaceEnv, payloadOf, repoRoot, tempDir, type Connected } from './support/namespace.js';

const TLS = join(repoRoot, 'test', 'fixtures', 'tls');
const CA = join(TLS, 'ca.pem');

let sandbox: Sandbox;
let front: Server;
let frontUrl: string;
let handshakes = 0;
let requests = 0;
const audit = tempDir('warden-tls-');

before(async () => {
  sandbox = await startSandbox();
  const target = new URL(sandbox.url);
  const tls = { cert: readFileSync(join(TLS, 'server.pem')), key: readFileSync(join(TLS, 'server.key')) };
  // Terminates TLS and passes each request on to the sandbox, as a reverse proxy before Gitea does.
  front = createServer(tls, (incoming, answer) => {
    requests++;
    const { hostname, port } = target;
    const upstream = request({
      hostname,
      port,
      method: incoming.method,
      path: incoming.url,
      headers: incoming.headers,
    });
    upstream.on('response', (reply) => {
      answer.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(answer);
    });
    upstream.on('error', () => answer.writeHead(502).end());
    incoming.pipe(upstream);
  });
  front.on('secureConnection', () => handshakes++);
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  frontUrl = `https://127.0.0.1:${(front.address() as AddressInfo).port}`;
});

after(async () => {
  front.closeAllConnections();
  await new Promise((resolve) => front.close(resolve));
  await sandbox.close();
  audit.dispose();
});

function authorOver(https: { trustCa: boolean }, log: string): Promise<Connected> {
  const extra = { GITEA_URL: frontUrl, ...(https.trustCa ? { NODE_EXTRA_CA_CERTS: CA } : {}) };
  return connectStdio(namespaceEnv(sandbox, 'gitea-author', { auditLog: join(audit.path, log), extra }));
}

describe('Gitea over https', () => {
  test('with its CA in NODE_EXTRA_CA_CERTS, the identity is verified and calls reuse one TLS connection', async () => {
    const author = await authorOver({ trustCa: true }, 'trusted.jsonl');
    try {
      const whoami = payloadOf(await author.client.callTool({ name: 'gitea_whoami', arguments: {} }));
      assert.equal(whoami.verified, true, JSON.stringify(whoami));
      const before = handshakes;
      for (let i = 0; i < 3; i++) {
        const result = await author.client.callTool({
          name: 'gitea_repos_get',
          arguments: { owner: 'acme', repo: 'widgets' },
        });
        assert.equal(result.isError, false, JSON.stringify(result));
        assert.equal(payloadOf(result).data.full_name, 'acme/widgets');
      }
      assert.equal(handshakes, before, 'a kept-alive TLS connection is reused');
    } finally {
      await author.close();
    }
  });

  test('an untrusted certificate fails the call as a network error that names the check and the fix', async () => {
    const author = await authorOver({ trustCa: false }, 'untrusted.jsonl');
    try {
      const before = requests;
      const result = await author.client.callTool({
        name: 'gitea_repos_get',
        arguments: { owner: 'acme', repo: 'widgets' },
      });
      const { error } = payloadOf(result);
      assert.equal(result.isError, true);
      assert.equal(error.kind, 'network_error');
      assert.match(error.message, /UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
      assert.match(error.hint, /NODE_EXTRA_CA_CERTS/);
      assert.equal(requests, before, 'no request passed the handshake');
      const whoami = payloadOf(await author.client.callTool({ name: 'gitea_whoami', arguments: {} }));
      assert.equal(whoami.verified, false);
      assert.match(whoami.detail, /UNABLE_TO_VERIFY_LEAF_SIGNATURE.*NODE_EXTRA_CA_CERTS/);
      const token = sandbox.users.alice?.token ?? '';
      assert.ok(token.length > 0 && !JSON.stringify([result, whoami]).includes(token));
    } finally {
      await author.close();
    }
  });
});
