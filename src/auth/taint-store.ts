// Integrity taints in the shared state store (SQLite by default, PostgreSQL for replicas): one row per
// namespace, principal, kind and repository, so every replica reads what any of them recorded. A save
// is one upsert that keeps the earliest start (and its tainting item) and the latest expiry, and starts
// afresh once a row has expired; two replicas writing at once cannot lose either's record.
import type { TaintKey, TaintRecord, TaintSource, TaintStore } from '../policy/integrity-taint.js';
import { migrate } from './migrations.js';
import { asNumber, asText, type SqlDriver } from './sql-driver.js';

const KINDS = new Set<TaintRecord['kind']>(['read', 'untrusted', 'private']);
/** Expired rows are deleted every this many saves of one process. */
const PRUNE_EVERY = 200;

export class SqlTaintStore implements TaintStore {
  readonly kind: string;
  private saves = 0;

  private constructor(private readonly driver: SqlDriver) {
    this.kind = driver.dialect;
  }

  /** Over an open driver, its schema brought up to date (the same steps the token store runs). */
  static async open(driver: SqlDriver): Promise<SqlTaintStore> {
    await migrate(driver);
    return new SqlTaintStore(driver);
  }

  async load(key: TaintKey, now: number): Promise<TaintRecord[]> {
    const rows = await this.driver.query(
      `SELECT kind, repository, source, since_at, expires_at FROM integrity_taints
        WHERE namespace = $1 AND principal = $2 AND expires_at > $3`,
      [key.namespace.toLowerCase(), key.principal.toLowerCase(), now],
    );
    return rows.flatMap((row) => {
      const kind = asText(row.kind) as TaintRecord['kind'];
      if (!KINDS.has(kind)) return [];
      return [
        {
          kind,
          repository: asText(row.repository) ?? '*',
          source: parseSource(asText(row.source)),
          since: asNumber(row.since_at),
          expires: asNumber(row.expires_at),
        },
      ];
    });
  }

  async save(key: TaintKey, records: readonly TaintRecord[], now: number): Promise<void> {
    if (records.length === 0) return;
    const params: unknown[] = [key.namespace.toLowerCase(), key.principal.toLowerCase(), now];
    const rows = records.map((record) => {
      const at = params.length;
      params.push(
        record.kind,
        record.repository,
        record.source ? JSON.stringify(record.source) : null,
        record.since,
        record.expires,
      );
      return `($1, $2, $${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5})`;
    });
    // An expired row is a window that closed: the new record replaces it whole.
    await this.driver.query(
      `INSERT INTO integrity_taints (namespace, principal, kind, repository, source, since_at, expires_at)
       VALUES ${rows.join(', ')}
       ON CONFLICT (namespace, principal, kind, repository) DO UPDATE SET
         source = CASE WHEN integrity_taints.expires_at <= $3 THEN excluded.source ELSE integrity_taints.source END,
         since_at = CASE WHEN integrity_taints.expires_at <= $3 THEN excluded.since_at ELSE integrity_taints.since_at END,
         expires_at = CASE WHEN integrity_taints.expires_at <= $3 OR excluded.expires_at > integrity_taints.expires_at
           THEN excluded.expires_at ELSE integrity_taints.expires_at END`,
      params,
    );
    if (++this.saves % PRUNE_EVERY === 0)
      await this.driver.query('DELETE FROM integrity_taints WHERE expires_at <= $1', [now]);
  }
}

function parseSource(text: string | null): TaintSource | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as TaintSource;
    return typeof value === 'object' && value !== null && typeof value.type === 'string' ? value : null;
  } catch {
    return null;
  }
}
