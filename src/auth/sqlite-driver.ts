// The embedded token store: one SQLite file (better-sqlite3) in the state directory, created with
// mode 0600 in a 0700 directory, because it holds sealed Gitea tokens and the hashes of ours.
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Row, SqlDriver } from './sql-driver.js';

export function openSqlite(file: string): SqlDriver {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  // Create the file ourselves first, so it never exists with the process umask's wider mode.
  closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  for (const sidecar of [`${file}-wal`, `${file}-shm`]) {
    try {
      chmodSync(sidecar, 0o600);
    } catch {
      // not created yet; SQLite gives it the main file's mode
    }
  }
  const query = (sql: string, params: readonly unknown[] = []): Promise<Row[]> => {
    const { text, values } = positional(sql, params);
    const statement = db.prepare(text);
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
