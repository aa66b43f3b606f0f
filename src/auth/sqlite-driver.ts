// The embedded token store: one SQLite file (better-sqlite3) in the state directory, created with
// mode 0600 in a 0700 directory, because it holds sealed Gitea tokens and the hashes of ours.
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Row, SqlDriver } from './sql-driver.js';

/**
 * Every Database and Statement this process made, kept reachable until it exits. Node 24.19 and later
 * abort the process (`RemoveEnvironmentCleanupHook: Assertion failed: (env) != nullptr`) when the
 * garbage collector finalizes a better-sqlite3 12 object outside JavaScript, an idle GC for one; 13
 * fixes it but crashes on Node 20. Objects never collected are freed by Node's own clean-up at exit,
 * which has its environment. Statements are cached per SQL text, so the set stays small: one per
 * distinct statement and connection.
 */
const retained: Array<{ db: Database.Database; statements: Map<string, Database.Statement> }> = [];

export function openSqlite(file: string): SqlDriver {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  // Create the file ourselves first, so it never exists with the process umask's wider mode.
  closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
  const db = new Database(file);
  const statements = new Map<string, Database.Statement>();
  retained.push({ db, statements });
  // exec, not pragma(): pragma() prepares a Statement and drops it (see `retained`).
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA busy_timeout = 5000');
  db.exec('PRAGMA foreign_keys = ON');
  for (const sidecar of [`${file}-wal`, `${file}-shm`]) {
    try {
      chmodSync(sidecar, 0o600);
    } catch {
      // not created yet; SQLite gives it the main file's mode
    }
  }
  const query = (sql: string, params: readonly unknown[] = []): Promise<Row[]> => {
    const { text, values } = positional(sql, params);
    let statement = statements.get(text);
    if (statement === undefined) {
      statement = db.prepare(text);
      statements.set(text, statement);
    }
    const rows = statement.reader ? (statement.all(...values) as Row[]) : (statement.run(...values), []);
    return Promise.resolve(rows);
  };
  return {
    dialect: 'sqlite',
    query,
    async exclusive(work) {
      db.exec('BEGIN IMMEDIATE');
      try {
        const result = await work(query);
        db.exec('COMMIT');
        return result;
      } catch (error) {
        db.exec('ROLLBACK');
        throw error;
      }
    },
    close() {
      db.close();
      return Promise.resolve();
    },
  };
}

/** `$1 ... $n` (used in any order, any number of times) to SQLite's positional `?`. */
function positional(sql: string, params: readonly unknown[]): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const text = sql.replace(/\$(\d+)/g, (_, n: string) => {
    values.push(toSqlite(params[Number(n) - 1]));
    return '?';
  });
  return { text, values };
}

function toSqlite(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value === undefined ? null : value;
}
