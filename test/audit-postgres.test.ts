// The PostgreSQL sink on a real PostgreSQL (started here on loopback), set up with the SQL that
// docs/audit.md gives: two HTTP replicas of one namespace under concurrent load write one gap-free
// chain that `audit verify` passes (signed checkpoints included), with a role that may only INSERT
// and SELECT; the replicas share the rate limit through the same database.
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

const BEARER = 'replica-bearer-token-0123456789abcdef';
let postgres: TestPostgres;
let sandbox: ContractSandbox;
let roleUrl: string;
const dir = tempDir('warden-audit-pg-');

/** The setup SQL exactly as docs/audit.md shows it. */
function documentedSetup(): string {
  const doc = readFileSync(join(repoRoot, 'docs', 'audit.md'), 'utf8');
  const block = /```sql\n([\s\S]*?)```/.exec(doc)?.[1];
  assert.ok(block, 'docs/audit.md has no sql block');
  return block;
}

before(async () => {
  postgres = await startPostgres();
  const ownerUrl = await postgres.createDatabase('warden');
  await postgres.query(documentedSetup(), 'warden');
  roleUrl = ownerUrl.replace(/\/\/postgres:[^@]+@/, '//gitea_warden:change-me@');
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

async function asRole(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: roleUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('two replicas, one chain', () => {
  const CALLS_PER_REPLICA = 100;
  const CONCURRENCY = 8;

  test(`${2 * CALLS_PER_REPLICA} concurrent calls through two replicas: one gap-free chain that verifies, signed`, async () => {
    const privateKey = join(dir.path, 'signing.pem');
    const publicKey = join(dir.path, 'signing.pub.pem');
    assert.equal(cli('audit', 'keygen', '--private-key', privateKey, '--public-key', publicKey).status, 0);
    const env = namespaceEnv(sandbox, 'gitea-author', {
      auditLog: join(dir.path, 'unused.jsonl'),
      extra: {
        AUDIT_SINK: roleUrl,
        AUDIT_SIGNING_KEY_FILE: privateKey,
        AUDIT_CHECKPOINT_EVERY: '50',
        MCP_BEARER_TOKEN: BEARER,
      },
    });
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

    const rows = await postgres.query(`SELECT chain, seq, line FROM gitea_warden_audit ORDER BY seq`, 'warden');
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
      `UPDATE gitea_warden_audit SET line = replace(line, '"profile":"gitea-author"', '"profile":"gitea-other"') WHERE seq = 3`,
      'warden',
    );
    const verified = cli('audit', 'verify', roleUrl);
    assert.equal(verified.status, 1);
    assert.match(verified.stdout, /broken: line 3: hash does not match/);
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
