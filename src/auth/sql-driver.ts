// What the token store needs from a database: parameterised queries ($1, $2, ... in PostgreSQL's
// spelling; the SQLite driver rewrites them) and one lock around migrations, so two replicas
// starting together do not both migrate.
export type Row = Record<string, unknown>;

export interface SqlDriver {
  /** 'sqlite' or 'postgres', for the few statements that differ. */
  readonly dialect: 'sqlite' | 'postgres';
  query(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Runs `work` while no other process migrates the same store. */
  exclusive<T>(work: (query: SqlDriver['query']) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** PostgreSQL answers BIGINT as a string; both drivers' numbers come back through this. */
export function asNumber(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

export function asText(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}
