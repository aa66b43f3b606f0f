// The test PostgreSQL (test/support/postgres.ts) is a real server on loopback that the tests start
// and remove themselves; other tests build on it, so its promises are checked here once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { startPostgres } from './support/postgres.js';

test('startPostgres runs a real PostgreSQL on 127.0.0.1 and stop() removes it', async () => {
  const pg = await startPostgres();
  let dataDir = '';
  try {
    const { rows } = await pg.query(
      `SELECT host(inet_server_addr()) AS addr, current_setting('data_directory') AS dir`,
    );
    assert.equal(rows[0].addr, '127.0.0.1');
    dataDir = rows[0].dir;
    const url = await pg.createDatabase('warden_support');
    assert.match(url, /^postgres:\/\/.*@127\.0\.0\.1:\d+\/warden_support$/);
    assert.equal((await pg.query('SELECT current_database() AS db', 'warden_support')).rows[0].db, 'warden_support');
  } finally {
    await pg.stop();
  }
  assert.equal(existsSync(dataDir), false, 'the data directory is gone after stop()');
});
