// The call budgets' windows in the state store (SQLite or PostgreSQL through sql-driver.ts). Times
// come from the database's clock, so replicas on machines whose clocks differ count one window;
// every write names the version it read, so two replicas counting at once cannot both take the last
// call of a budget (the loser reads again). The judgement is the server's (src/server/call/budget.ts).
import { asNumber, type SqlDriver } from './sql-driver.js';

export interface StoredWindow {
  stamps: number[];
  version: number | null;
  now: number;
}

const NOW_MS: Readonly<Record<SqlDriver['dialect'], string>> = {
  postgres: `CAST(extract(epoch from clock_timestamp()) * 1000 AS BIGINT)`,
  sqlite: `CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)`,
};

export class SqlBudgetStore {
  private driver: Promise<SqlDriver> | null = null;

  /** `open` runs on the first budgeted call (and again after a failure): a namespace that never counts never opens it. */
  constructor(private readonly open: () => Promise<SqlDriver>) {}

  async read(key: string): Promise<StoredWindow> {
    const driver = await this.connected();
    const rows = await driver.query(
      `SELECT b.stamps AS stamps, b.version AS version, ${NOW_MS[driver.dialect]} AS now_ms
       FROM (SELECT 1 AS one) AS clock LEFT JOIN budget_windows b ON b.key = $1`,
      [key],
    );
    const row = rows[0] ?? {};
    const stamps = typeof row.stamps === 'string' && row.stamps !== '' ? row.stamps.split(',').map(Number) : [];
    return {
      stamps: stamps.filter(Number.isFinite),
      version: row.version === null || row.version === undefined ? null : asNumber(row.version),
      now: asNumber(row.now_ms),
    };
  }

  async swap(key: string, version: number | null, stamps: readonly number[]): Promise<boolean> {
    const driver = await this.connected();
    const text = stamps.map((at) => String(Math.trunc(at))).join(',');
    const rows =
      version === null
        ? await driver.query(
            'INSERT INTO budget_windows (key, stamps, version) VALUES ($1, $2, 1) ON CONFLICT (key) DO NOTHING RETURNING version',
            [key, text],
          )
        : await driver.query(
            'UPDATE budget_windows SET stamps = $2, version = version + 1 WHERE key = $1 AND version = $3 RETURNING version',
            [key, text, version],
          );
    return rows.length === 1;
  }

  /** Whether the store answers (readiness); opens it when it is not open yet. */
  async ping(): Promise<void> {
    await (await this.connected()).query('SELECT 1');
  }

  async close(): Promise<void> {
    const driver = this.driver;
    this.driver = null;
    if (driver) await (await driver.catch(() => null))?.close();
  }

  private connected(): Promise<SqlDriver> {
    this.driver ??= this.open().catch((error: unknown) => {
      this.driver = null;
      throw error;
    });
    return this.driver;
  }
}

/**
 * The state store's driver for budgets: OAUTH_STORE's SQLite file or PostgreSQL URL (the default file
 * in the state directory when unset), migrated like the token store. Loaded on the first budgeted call.
 */
export async function openBudgetDriver(setting: string | null, env: NodeJS.ProcessEnv): Promise<SqlDriver> {
  const { migrate } = await import('./migrations.js');
  let driver: SqlDriver;
  if (setting !== null && /^postgres(ql)?:\/\//.test(setting)) {
    const { openPostgres } = await import('./postgres-driver.js');
    driver = await openPostgres(setting);
  } else {
    const [{ openSqlite }, { defaultStorePath }] = await Promise.all([
      import('./sqlite-driver.js'),
      import('./oauth-setup.js'),
    ]);
    driver = openSqlite(setting ?? defaultStorePath(env));
  }
  try {
    await migrate(driver);
  } catch (error) {
    await driver.close();
    throw error;
  }
  return driver;
}
