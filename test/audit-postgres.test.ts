// The PostgreSQL sink on a real PostgreSQL (started here on loopback), set up with `gitea-warden
// audit init-db` as docs/audit.md shows: two HTTP replicas of one namespace under concurrent load
// write one gap-free chain that `audit verify` passes (signed checkpoints included), with the
// namespace's own role, which may only add and read rows of its own chain; a replica joining a running
// one adds no unsigned rows; rows planted before a namespace's first start are named by its start
// checkpoint; the replicas share the rate limit through the same database.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { PostgresRateLimiter } from '../src/transports/rate-limit-postgres.js';
import {
  CLI_ARGS,
  connectHttp,
  namespaceEnv,
  repoRoot,
  spawnHttpNamespace,
  tempDir,
  type HttpNamespace,
} from './support/namespace.js';
import { startPostgres, type TestPostgres } from './support/postgres.js';
import { startContractSandbox, type ContractSandbox } from './support/spec-contract.js';
import { sealEvent, sha256Hex, GENESIS_PREV } from '../src/audit/chain.js';
import { sampleEvent } from './fixtures/audit-sample.js';

const BEARER = 'replica-bearer-token-0123456789abcdef';
let postgres: TestPostgres;
let sandbox: ContractSandbox;
let ownerUrl: string;
/** AUDIT_SINK of each namespace, as init-db printed it. */
const sinkOf = new Map<string, string>();
let roleUrl: string;
const dir = tempDir('warden-audit-pg-');
const NAMESPACES = ['gitea-author', 'gitea-reviewer', 'gitea-merger'];
const keys = { private: join(dir.path, 'signing.pem'), public: join(dir.path, 'signing.pub.pem') };

before(async () => {
  postgres = await startPostgres();
  ownerUrl = await postgres.createDatabase('warden');
  const setup = cli('audit', 'init-db', ownerUrl, ...NAMESPACES.flatMap((n) => ['--namespace', n]));
  assert.equal(setup.status, 0, setup.stderr);
  for (const namespace of NAMESPACES) {
    const url = new RegExp(`role \\S+ \\(namespace ${namespace}\\): created; AUDIT_SINK=(\\S+)`).exec(
      setup.stdout,
    )?.[1];
    assert.ok(url, `init-db printed no AUDIT_SINK for ${namespace}:\n${setup.stdout}`);
    sinkOf.set(namespace, url);
  }
  roleUrl = sinkOf.get('gitea-author') as string;
  assert.equal(cli('audit', 'keygen', '--private-key', keys.private, '--public-key', keys.public).status, 0);
  sandbox = await startContractSandbox();
});
after(async () => {
  await sandbox?.close();
  await postgres?.stop();
  dir.dispose();
});

function cli(...args: string[]) {
  return spawnSync(process.execPath, [...CLI_ARGS, ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
}

async function asRole(sql: string, url = roleUrl, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql, values);
  } finally {
    await client.end();
  }
}

function replicaEnv(namespace: string, every = '50'): Record<string, string> {
  return namespaceEnv(sandbox, namespace, {
    auditLog: join(dir.path, `unused-${namespace}.jsonl`),
    extra: {
      AUDIT_SINK: sinkOf.get(namespace) as string,
      AUDIT_SIGNING_KEY_FILE: keys.private,
      AUDIT_CHECKPOINT_EVERY: every,
      MCP_BEARER_TOKEN: BEARER,
    },
  });
}

async function callsThrough(replica: HttpNamespace, calls: number): Promise<void> {
  const connected = await connectHttp(replica.url, BEARER);
  try {
    for (let n = 0; n < calls; n++) {
      const result = await connected.client.callTool({
        name: 'gitea_repos_get',
        arguments: { owner: 'acme', repo: 'widgets' },
      });
      assert.equal(result.isError, false, JSON.stringify(result.structuredContent));
    }
  } finally {
    await connected.close();
  }
}

describe('two replicas, one chain', () => {
  const CALLS_PER_REPLICA = 100;
  const CONCURRENCY = 8;

  test(`${2 * CALLS_PER_REPLICA} concurrent calls through two replicas: one gap-free chain that verifies, signed`, async () => {
    const publicKey = keys.public;
    const env = replicaEnv('gitea-author');
    const replicas: HttpNamespace[] = await Promise.all([spawnHttpNamespace(env), spawnHttpNamespace(env)]);
    try {
      const clients = await Promise.all(replicas.map((r) => connectHttp(r.url, BEARER)));
      try {
        // Each replica runs CONCURRENCY workers; every call writes a write-ahead and a result event.
        const run = async (client: (typeof clients)[number], worker: number) => {
          for (let n = worker; n < CALLS_PER_REPLICA; n += CONCURRENCY) {
            const call =
              n % 10 === 0
                ? {
                    name: 'gitea_comments_create',
                    arguments: { owner: 'acme', repo: 'widgets', index: 3, body: { body: `replica call ${n}` } },
                  }
                : { name: 'gitea_repos_get', arguments: { owner: 'acme', repo: 'widgets' } };
            const result = await client.client.callTool(call);
            assert.equal(result.isError, false, JSON.stringify(result.structuredContent));
          }
        };
        await Promise.all(clients.flatMap((client) => Array.from({ length: CONCURRENCY }, (_, w) => run(client, w))));
      } finally {
        await Promise.all(clients.map((c) => c.close()));
      }
    } finally {
      await Promise.all(replicas.map((r) => r.close()));
    }
    for (const replica of replicas)
      assert.doesNotMatch(replica.stderr(), /change-me/, 'the database password reached the log');

    const rows = await postgres.query(
      `SELECT chain, seq, line FROM gitea_warden_audit WHERE chain = 'gitea-author' ORDER BY seq`,
      'warden',
    );
    const events = rows.rows.filter((r) => !String(r.line).includes('"phase":"checkpoint"'));
    assert.equal(events.length, 2 * 2 * CALLS_PER_REPLICA);
    assert.deepEqual(
      rows.rows.map((r) => Number(r.seq)),
      rows.rows.map((_, i) => i + 1),
      'the chain has a gap',
    );
    assert.ok(rows.rows.every((r) => r.chain === 'gitea-author'));
    const byCall = new Map<string, string[]>();
    for (const { line } of events) {
      const event = JSON.parse(line) as { call_id: string; phase: string };
      byCall.set(event.call_id, [...(byCall.get(event.call_id) ?? []), event.phase]);
    }
    assert.equal(byCall.size, 2 * CALLS_PER_REPLICA);
    for (const phases of byCall.values()) assert.deepEqual(phases, ['write_ahead', 'result']);

    const verified = cli('audit', 'verify', roleUrl, '--public-key', publicKey);
    assert.equal(verified.status, 0, verified.stdout + verified.stderr);
    assert.match(
      verified.stdout,
      new RegExp(
        `ok: ${rows.rows.length} events, chain intact, \\d+ signed checkpoints cover lines 1 to ${rows.rows.length}`,
      ),
    );
    assert.doesNotMatch(verified.stdout + verified.stderr, /change-me/);

    const shared = await postgres.query(`SELECT count(*)::int AS n FROM gitea_warden_rate`, 'warden');
    assert.ok(shared.rows[0].n >= 1, 'the replicas did not use the shared rate-limit table');
  });

  test('the role cannot change or delete a row, and verify names a row edited by the owner', async () => {
    await assert.rejects(asRole(`UPDATE gitea_warden_audit SET line = line`), /permission denied/);
    await assert.rejects(asRole(`DELETE FROM gitea_warden_audit`), /permission denied/);
    await assert.rejects(asRole(`TRUNCATE gitea_warden_audit`), /permission denied/);
    await postgres.query(
      `UPDATE gitea_warden_audit SET line = replace(line, '"profile":"gitea-author"', '"profile":"gitea-other"') WHERE seq = 3 AND chain = 'gitea-author'`,
      'warden',
    );
    const verified = cli('audit', 'verify', roleUrl);
    assert.equal(verified.status, 1);
    assert.match(verified.stdout, /broken: line 3: hash does not match/);
  });
});

describe('init-db: the set-up, one role per namespace', () => {
  test('run again it keeps everything and says so; as a namespace role it refuses', () => {
    const again = cli('audit', 'init-db', ownerUrl, '--namespace', 'gitea-author');
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /table gitea_warden_audit: exists, kept/);
    assert.match(again.stdout, /role gitea_warden_gitea_author \(namespace gitea-author\): exists, kept/);
    assert.doesNotMatch(again.stdout, /AUDIT_SINK=/, 'no new password for a role that exists');
    const asRoleRun = cli('audit', 'init-db', roleUrl, '--namespace', 'gitea-other');
    assert.equal(asRoleRun.status, 2);
    assert.match(
      asRoleRun.stderr,
      /connected as gitea_warden_gitea_author, but the database belongs to postgres: run init-db as its owner/,
    );
    assert.doesNotMatch(asRoleRun.stderr + asRoleRun.stdout, /warden-test-superuser|change-me/);
  });

  test("a namespace's role cannot add to, or read, another namespace's chain", async () => {
    const reviewer = sinkOf.get('gitea-reviewer') as string;
    const line = sealEvent(sampleEvent(1), '2025-01-01T00:00:00.000Z', 1, GENESIS_PREV).line;
    await assert.rejects(
      asRole(`INSERT INTO gitea_warden_audit (chain, seq, line) VALUES ('gitea-author', 999999, $1)`, reviewer, [line]),
      /row-level security/,
    );
    await postgres.query(
      `INSERT INTO gitea_warden_audit (chain, seq, line) VALUES ('gitea-owner-only', 1, 'x')`,
      'warden',
    );
    const seen = await asRole(`SELECT DISTINCT chain FROM gitea_warden_audit`, reviewer);
    assert.ok(
      seen.rows.every((r) => r.chain === 'gitea-reviewer'),
      JSON.stringify(seen.rows),
    );
  });

  test('--print-sql is the SQL of docs/audit.md, appendix', () => {
    const printed = cli('audit', 'init-db', ownerUrl, '--namespace', 'gitea-author', '--print-sql');
    assert.equal(printed.status, 0, printed.stderr);
    const doc = readFileSync(join(repoRoot, 'docs', 'audit.md'), 'utf8');
    const block = /## Appendix: the set-up as SQL[\s\S]*?```sql\n([\s\S]*?)```/.exec(doc)?.[1];
    assert.equal(
      block,
      printed.stdout,
      'docs/audit.md appendix differs from init-db --print-sql --namespace gitea-author',
    );
  });
});

describe('restarts of the PostgreSQL sink', () => {
  test('a replica joining a running one adds no unsigned rows: the chain verifies once both stopped', async () => {
    const env = replicaEnv('gitea-reviewer', '1000');
    const first = await spawnHttpNamespace(env);
    let second: HttpNamespace | undefined;
    try {
      await callsThrough(first, 3); // six events after the start checkpoint, none signed yet
      second = await spawnHttpNamespace(env);
      await callsThrough(second, 2);
      await callsThrough(first, 1);
    } finally {
      await second?.close();
      await first.close();
    }
    const verified = cli('audit', 'verify', sinkOf.get('gitea-reviewer') as string, '--public-key', keys.public);
    assert.equal(verified.status, 0, verified.stdout + verified.stderr);
    assert.match(verified.stdout, /ok: \d+ events, chain intact, [3-9] signed checkpoints/);
  });

  test("rows planted before a namespace's first start are named by its start checkpoint, and verify fails on them", async () => {
    // The attacker holds the namespace's own role (it may add rows) but never the signing key.
    const planted = [];
    let prev = GENESIS_PREV;
    for (let seq = 1; seq <= 3; seq++) {
      const { line } = sealEvent(sampleEvent(seq, { profile: 'gitea-merger' }), '2025-01-01T00:00:00.000Z', seq, prev);
      planted.push(line);
      prev = sha256Hex(line);
    }
    const merger = sinkOf.get('gitea-merger') as string;
    for (const [i, line] of planted.entries())
      await asRole(`INSERT INTO gitea_warden_audit (chain, seq, line) VALUES ('gitea-merger', $1, $2)`, merger, [
        i + 1,
        line,
      ]);

    const replica = await spawnHttpNamespace(replicaEnv('gitea-merger'));
    try {
      await callsThrough(replica, 1);
    } finally {
      await replica.close();
    }
    assert.match(
      replica.stderr(),
      /lines 1 to 3 of the audit log were not covered by a signature when this server started/,
    );
    const start = await postgres.query(
      `SELECT line FROM gitea_warden_audit WHERE chain = 'gitea-merger' AND seq = 4`,
      'warden',
    );
    assert.match(start.rows[0]?.line ?? '', /"phase":"checkpoint".*"unsigned_before":3/);
    const verified = cli('audit', 'verify', merger, '--public-key', keys.public);
    assert.equal(verified.status, 1, verified.stdout);
    assert.match(
      verified.stdout,
      /broken: line 4: lines 1 to 3 were not covered by a signature when the server started again/,
    );
  });
});

describe('the rate limit shared by replicas', () => {
  test('two limiters on one database grant one client no more than the limit between them', async () => {
    const replicas = [await PostgresRateLimiter.open(roleUrl, 3), await PostgresRateLimiter.open(roleUrl, 3)];
    try {
      const started = Date.now();
      const decisions = [];
      for (let i = 0; i < 10; i++) decisions.push(await replicas[i % 2]!.take('127.0.0.1|client-a'));
      const elapsedMs = Date.now() - started;
      const allowed = decisions.filter((d) => d.allowed).length;
      // The bucket refills 3 a minute; whatever the run took, only that much more can be granted.
      assert.ok(
        allowed >= 3 && allowed <= 3 + Math.floor((elapsedMs * 3) / 60_000),
        `allowed ${allowed} in ${elapsedMs} ms`,
      );
      const refused = decisions.find((d) => !d.allowed);
      assert.ok(refused && !refused.allowed && refused.retryAfterSeconds >= 1 && refused.message === undefined);
      assert.equal((await replicas[0]!.take('127.0.0.1|client-b')).allowed, true, 'another client has its own bucket');
    } finally {
      await Promise.all(replicas.map((r) => r.close()));
    }
  });

  test('a store that does not answer refuses (fail closed) and says why', async () => {
    const limiter = await PostgresRateLimiter.open(roleUrl, 3);
    await limiter.close();
    const decision = await limiter.take('127.0.0.1|client-c');
    assert.equal(decision.allowed, false);
    assert.match(decision.allowed ? '' : (decision.message ?? ''), /rate-limit store does not answer/);
  });
});
