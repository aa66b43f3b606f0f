// The audit chain in PostgreSQL (AUDIT_SINK=postgres://...): every replica of a namespace appends to
// one chain, one row per line, in the table set up by docs/audit.md. The rows hold the same sealed
// lines a file would, so `audit verify` checks a table exactly as it checks a file.
//
// Serialised append: each write is one transaction that takes a transaction-scoped advisory lock on
// the chain, reads the last row, seals the batch after it and inserts it; the primary key (chain,
// seq) refuses a fork even if the lock were bypassed. The promise resolves after COMMIT, so the
// write-ahead guarantee holds across replicas. Group commit as in log.ts: events queued while a
// transaction runs go into the next one. The server's role needs INSERT and SELECT only: it can
// neither change nor delete a row, so not even the server can rewrite history.
//
// Start checkpoint: with a signing key, opening writes a checkpoint into the chain at once, in the same
// locked transaction that reads what the chain holds. Rows after the last checkpoint this key signed
// are counted in its unsigned_before (and `audit verify` names them): rows planted before a
// namespace's first start, or left by a replica that crashed. Rows after the last checkpoint while
// another replica of the namespace runs are that replica's own, which its next checkpoint signs: each
// open replica holds a shared session lock on the chain, and a start that finds another holder does not
// count them. `audit init-db` gives each namespace a role that may add rows to its own chain only.
import pg from 'pg';
import { checkSealedLine, GENESIS_PREV, sealBatch, sha256Hex } from './chain.js';
import { GroupCommit } from './group-commit.js';
import { asCheckpoint, checkCheckpoint, sealCheckpoint, type Signer } from './checkpoint.js';
import type { AuditEvent, ChainedAuditEvent } from './event.js';
import { describeDatabase } from './database-url.js';
import { AuditChainError, AuditWriteError, DEFAULT_CHECKPOINT_EVERY } from './log.js';

export const AUDIT_TABLE = 'gitea_warden_audit';

export interface PostgresAuditOptions {
  /** The chain's name in the table: the namespace's profile. */
  chain: string;
  clock?: () => Date;
  signer?: Signer;
  checkpointEvery?: number;
}

export class PostgresAuditLog {
  private readonly commits = new GroupCommit<AuditEvent, ChainedAuditEvent>((events) => this.write(events, false));
  private failure: AuditWriteError | null = null;
  private closing = false;
  private sinceCheckpoint = 0;
  /** The database (without password) and the chain, for messages. */
  private readonly name: string;
  /** Rows no checkpoint of the key covered when this replica started, alone (named by its start checkpoint). */
  unsignedAtStart: { from: number; to: number } | null = null;

  private constructor(
    private readonly client: pg.Client,
    private readonly options: PostgresAuditOptions,
    private readonly clock: () => Date,
    where: string,
  ) {
    this.name = `${where} chain ${options.chain}`;
  }

  /** Connects and checks that the table answers; rejects with AuditWriteError naming the database, never the password. */
  static async open(url: string, options: PostgresAuditOptions): Promise<PostgresAuditLog> {
    const where = describeDatabase(url);
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
    client.on('error', () => undefined); // a dropped connection fails the next write, which fails closed
    try {
      await client.connect();
      await client.query(`SELECT 1 FROM ${AUDIT_TABLE} LIMIT 0`);
      // Held for the session: a replica starting later sees that this one runs.
      await client.query('SELECT pg_advisory_lock_shared(hashtextextended($1, 0))', [liveKey(options.chain)]);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw new AuditWriteError(
        where,
        pgCode(error),
        `opening the audit table ${AUDIT_TABLE} (set it up with 'gitea-warden audit init-db', docs/audit.md)`,
      );
    }
    const log = new PostgresAuditLog(client, options, options.clock ?? (() => new Date()), where);
    if (options.signer) {
      try {
        await log.write([], true, true);
      } catch (error) {
        await client.end().catch(() => undefined);
        throw error;
      }
    }
    return log;
  }

  append(event: AuditEvent): Promise<ChainedAuditEvent> {
    return new Promise((resolve, reject) => {
      if (this.closing) return reject(new AuditWriteError(this.name, 'ECLOSED', 'append after close'));
      this.commits.push(event).then(resolve, reject);
    });
  }

  /** Waits for queued appends, signs a last checkpoint when this replica wrote since its last one, disconnects. */
  async close(): Promise<void> {
    this.closing = true;
    await this.commits.drain();
    if (this.failure === null && this.options.signer && this.sinceCheckpoint > 0)
      await this.write([], true).catch(() => undefined);
    if (this.failure === null) this.failure = new AuditWriteError(this.name, 'ECLOSED', 'append after close');
    await this.client.end().catch(() => undefined);
  }

  /**
   * One transaction: lock the chain, read its last line, insert the sealed batch after it. At start
   * (`starting`) the checkpoint also counts the rows no checkpoint of the key covers, when no other
   * replica runs.
   */
  private async write(events: AuditEvent[], forceCheckpoint: boolean, starting = false): Promise<ChainedAuditEvent[]> {
    if (this.failure !== null) throw this.failure;
    const { chain, signer } = this.options;
    const every = this.options.checkpointEvery ?? DEFAULT_CHECKPOINT_EVERY;
    try {
      await this.client.query('BEGIN');
      await this.client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`gitea-warden-audit:${chain}`]);
      const last = await this.client.query<{ seq: string; line: string }>(
        `SELECT seq, line FROM ${AUDIT_TABLE} WHERE chain = $1 ORDER BY seq DESC LIMIT 1`,
        [chain],
      );
      let seq = 0;
      let prev = GENESIS_PREV;
      const row = last.rows[0];
      if (row) {
        const check = checkSealedLine(row.line);
        if (!check.ok || check.seq !== Number(row.seq)) {
          throw new AuditChainError(
            this.name,
            Number(row.seq),
            check.ok ? 'its seq column does not match the line' : check.reason,
          );
        }
        seq = check.seq;
        prev = sha256Hex(row.line);
      }
      const time = this.clock().toISOString();
      const batch = sealBatch(events, time, { seq, prev });
      const { lines, sealed } = batch;
      ({ seq, prev } = batch.head);
      const due = signer !== undefined && (forceCheckpoint || this.sinceCheckpoint + events.length >= every);
      if (due && signer) {
        const unsigned = starting ? await this.uncovered(seq, signer) : null;
        if (starting) this.unsignedAtStart = unsigned;
        seq += 1;
        const count = unsigned === null ? 0 : unsigned.to - unsigned.from + 1;
        lines.push(sealCheckpoint(signer, seq, prev, time, count).line);
      }
      const first = seq - lines.length + 1;
      await this.client.query(
        `INSERT INTO ${AUDIT_TABLE} (chain, seq, line) SELECT $1, $2::bigint + n - 1, line FROM unnest($3::text[]) WITH ORDINALITY AS t(line, n)`,
        [chain, first, lines],
      );
      await this.client.query('COMMIT');
      this.sinceCheckpoint = due ? 0 : this.sinceCheckpoint + events.length;
      return sealed;
    } catch (error) {
      await this.client.query('ROLLBACK').catch(() => undefined);
      if (error instanceof AuditChainError) {
        this.failure = new AuditWriteError(this.name, 'ECHAIN', `continuing the chain (${error.reason})`);
      } else {
        this.failure = new AuditWriteError(this.name, pgCode(error), 'the append transaction');
      }
      throw this.failure;
    }
  }

  /**
   * Rows after the last checkpoint this key signed, up to `lastSeq`; null when there are none, or
   * when another replica runs (they are its own, and its next checkpoint signs them). Called inside
   * the append transaction, under the chain's lock.
   */
  private async uncovered(lastSeq: number, signer: Signer): Promise<{ from: number; to: number } | null> {
    const { chain } = this.options;
    const key = liveKey(chain);
    const alone = await this.client.query<{ alone: boolean }>(
      'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS alone',
      [key],
    );
    if (alone.rows[0]?.alone !== true) return null;
    await this.client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]);
    let signedThrough = 0;
    for (let before = lastSeq + 1; signedThrough === 0;) {
      const page = await this.client.query<{ seq: string; line: string }>(
        `SELECT seq, line FROM ${AUDIT_TABLE} WHERE chain = $1 AND seq < $2 AND line LIKE '%"phase":"checkpoint"%' ` +
          'ORDER BY seq DESC LIMIT 100',
        [chain, before],
      );
      if (page.rows.length === 0) break;
      for (const row of page.rows) {
        const checkpoint = asCheckpoint(row.line);
        const sealed = checkSealedLine(row.line);
        if (
          checkpoint &&
          sealed.ok &&
          sealed.seq === Number(row.seq) &&
          !checkCheckpoint(checkpoint, signer.publicKey)
        ) {
          signedThrough = sealed.seq;
          break;
        }
      }
      before = Number(page.rows.at(-1)?.seq ?? 0);
    }
    return signedThrough < lastSeq ? { from: signedThrough + 1, to: lastSeq } : null;
  }
}

/** Reads one chain of the table as the text of a log file, for verification. */
export async function readChainText(
  url: string,
  chain: string | undefined,
): Promise<{ chain: string; text: string; lastCheckpoint: string | null }> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    let name = chain;
    if (name === undefined) {
      const chains = (
        await client.query<{ chain: string }>(`SELECT DISTINCT chain FROM ${AUDIT_TABLE} ORDER BY chain`)
      ).rows.map((r) => r.chain);
      if (chains.length !== 1)
        throw new Error(
          `the table holds ${chains.length} chains (${chains.join(', ') || 'none'}): name one with --chain`,
        );
      name = chains[0] as string;
    }
    const rows = (
      await client.query<{ seq: string; line: string }>(
        `SELECT seq, line FROM ${AUDIT_TABLE} WHERE chain = $1 ORDER BY seq`,
        [name],
      )
    ).rows;
    // A row whose seq column disagrees with its line is reported by the chain check as a broken link.
    const lines = rows.map((r, i) => (Number(r.seq) === i + 1 ? r.line : `{"seq_column":${Number(r.seq)}}`));
    const lastCheckpoint = [...lines].reverse().find((line) => asCheckpoint(line) !== null) ?? null;
    return { chain: name, text: lines.map((line) => `${line}\n`).join(''), lastCheckpoint };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The key of the session lock every open replica of a chain holds shared. */
function liveKey(chain: string): string {
  return `gitea-warden-audit-live:${chain}`;
}

function pgCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'EDB';
}
