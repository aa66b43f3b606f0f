// The per-client rate limit shared by every replica (AUDIT_SINK=postgres://... over HTTP): the same
// token bucket as rate-limit.ts, one row per client in gitea_warden_rate, taken in one atomic
// upsert on the database's clock, so replicas neither double the limit nor disagree on time.
// A store that does not answer refuses the request (fail closed), saying so.
import pg from 'pg';
import type { RateDecision, RateLimit } from './rate-limit.js';

export const RATE_TABLE = 'gitea_warden_rate';

const NOW_MS = `(extract(epoch from clock_timestamp()) * 1000)`;

export class PostgresRateLimiter implements RateLimit {
  private readonly refillPerMs: number;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly perMinute: number,
  ) {
    this.refillPerMs = perMinute / 60_000;
  }

  /** Connects and checks the table; rejects with a message that names the table, never the URL's password. */
  static async open(url: string, perMinute: number): Promise<PostgresRateLimiter> {
    const pool = new pg.Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 10_000 });
    pool.on('error', () => undefined); // an idle client that drops is replaced on the next take
    try {
      await pool.query(`SELECT 1 FROM ${RATE_TABLE} LIMIT 0`);
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw new Error(
        `the shared rate-limit table ${RATE_TABLE} cannot be read (${codeOf(error)}); see docs/audit.md for its setup`,
      );
    }
    return new PostgresRateLimiter(pool, perMinute);
  }

  async take(key: string): Promise<RateDecision> {
    try {
      // Refill since the last take (capped at the limit), then take one if at least one is there.
      const refilled = `LEAST($2::float8, r.tokens + GREATEST(${NOW_MS} - r.updated_ms, 0) * $3::float8)`;
      const taken = await this.pool.query(
        `INSERT INTO ${RATE_TABLE} AS r (key, tokens, updated_ms) VALUES ($1, $2::float8 - 1, ${NOW_MS})
         ON CONFLICT (key) DO UPDATE SET tokens = ${refilled} - 1, updated_ms = GREATEST(${NOW_MS}, r.updated_ms)
         WHERE ${refilled} >= 1
         RETURNING tokens`,
        [key, this.perMinute, this.refillPerMs],
      );
      if (taken.rowCount === 1) return { allowed: true };
      const left = await this.pool.query<{ tokens: number }>(
        `SELECT LEAST($2::float8, r.tokens + GREATEST(${NOW_MS} - r.updated_ms, 0) * $3::float8) AS tokens FROM ${RATE_TABLE} r WHERE key = $1`,
        [key, this.perMinute, this.refillPerMs],
      );
      const tokens = Number(left.rows[0]?.tokens ?? 0);
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / this.refillPerMs / 1000)) };
    } catch {
      return {
        allowed: false,
        retryAfterSeconds: 5,
        message: 'Service unavailable: the shared rate-limit store does not answer',
      };
    }
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'error';
}
