// The shared token store for several replicas: PostgreSQL through pg's pool. Migrations run under
// a session advisory lock, so replicas starting at the same moment migrate once.
import pg from 'pg';
import type { Row, SqlDriver } from './sql-driver.js';

/** Any 64-bit number unique to this use; the store's migrations take it. */
const MIGRATION_LOCK = 0x6769_7465_6177_6431n;

export async function openPostgres(url: string): Promise<SqlDriver> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // An idle client's network error must not crash the process; the next query reports it.
  pool.on('error', () => undefined);
  // Fails now, at start-up, if the database cannot be reached.
  (await pool.connect()).release();
  const query = async (sql: string, params: readonly unknown[] = []): Promise<Row[]> =>
    (await pool.query(sql, [...params])).rows as Row[];
  return {
    dialect: 'postgres',
    query,
    async exclusive(work) {
      const client = await pool.connect();
      try {
        await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK.toString()]);
        try {
          return await work(async (sql, params = []) => (await client.query(sql, [...params])).rows as Row[]);
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK.toString()]);
        }
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
