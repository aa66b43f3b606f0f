// The audit log as the server uses it: opened once at start; when it cannot be opened the server
// still starts, and every tool call is refused (audit_unavailable) with the real cause and its fix,
// rather than run unaudited.
//
// Several processes, one profile (two editor windows): a log has one writer, so when the DEFAULT log
// is held by another live process this one takes the next per-process log beside it
// (audit-<profile>.2.jsonl, ...). Each log is a whole chain of its own that `audit verify` checks;
// a shared chain across processes is what the PostgreSQL sink is for. An AUDIT_LOG the operator named
// is never swapped for another file: a lock there refuses, naming the process that holds it.
import { readFile } from 'node:fs/promises';
import { signerFromPem, SigningKeyError, type Signer } from '../audit/checkpoint.js';
import { AuditLog, AuditWriteError } from '../audit/log.js';
import type { AuditEvent, ChainedAuditEvent } from '../audit/event.js';
import { describeDatabase } from '../audit/database-url.js';
import { perProcessAuditPath } from '../audit/path.js';
import { auditAppend, auditFsync, secondsSince } from '../telemetry/instruments.js';
import { HighWaterMark, highWaterDirOf } from '../audit/high-water.js';

export interface AuditSinkOptions {
  path: string;
  /** AUDIT_SINK: a postgres:// URL puts the chain in PostgreSQL instead of the file. */
  databaseUrl: string | null;
  /** The chain's name in the table (the profile). */
  chain: string;
  /** The path is the default one (AUDIT_LOG unset): a held log gives way to a per-process log. */
  isDefaultPath: boolean;
  signingKeyFile: string | null;
  checkpointEvery: number;
}

/** Where events go: a file (log.ts) or a table (postgres-log.ts). */
interface AuditStore {
  append(event: AuditEvent): Promise<ChainedAuditEvent>;
  close(): Promise<void>;
  /** Lines no checkpoint of the key covered at start, which the start checkpoint names. */
  readonly unsignedAtStart: { from: number; to: number } | null;
}

/** How many per-process logs beside the default one are tried before giving up. */
const PER_PROCESS_LOGS = 8;

export class AuditSink {
  private failure: string | null;

  private constructor(
    readonly path: string,
    private readonly log: AuditStore | null,
    /** Why the log could not be opened (a path and an errno code, nothing secret). */
    readonly openFailure: string | null,
  ) {
    this.failure = openFailure === null ? null : hintFor(openFailure);
  }

  static async open(options: AuditSinkOptions): Promise<AuditSink> {
    let signer: Signer | undefined;
    try {
      signer = options.signingKeyFile === null ? undefined : await readSigner(options.signingKeyFile);
    } catch (error) {
      return new AuditSink(
        options.path,
        null,
        error instanceof Error ? error.message : 'cannot read AUDIT_SIGNING_KEY_FILE',
      );
    }
    if (options.databaseUrl !== null) {
      const where = describeDatabase(options.databaseUrl);
      try {
        // pg loads only for a database sink: a file-only setup does not pay for it at start.
        const { PostgresAuditLog } = await import('../audit/postgres-log.js');
        const store = await PostgresAuditLog.open(options.databaseUrl, {
          chain: options.chain,
          signer,
          checkpointEvery: options.checkpointEvery,
        });
        return new AuditSink(where, store, null);
      } catch (error) {
        return new AuditSink(where, null, error instanceof Error ? error.message : 'cannot open the audit table');
      }
    }
    const candidates = options.isDefaultPath
      ? Array.from({ length: PER_PROCESS_LOGS }, (_, i) => perProcessAuditPath(options.path, i + 1))
      : [options.path];
    let lastFailure = 'cannot open the audit log';
    for (const path of candidates) {
      try {
        return new AuditSink(
          path,
          await AuditLog.open(path, {
            signer,
            checkpointEvery: options.checkpointEvery,
            onFsync: (seconds) => auditFsync.record(seconds, {}),
            // Beside the key, where the agent cannot write (docs/audit.md).
            highWater:
              options.signingKeyFile === null
                ? undefined
                : new HighWaterMark(highWaterDirOf(options.signingKeyFile), path),
          }),
          null,
        );
      } catch (error) {
        lastFailure = error instanceof Error ? error.message : lastFailure;
        if (!(error instanceof AuditWriteError && error.code === 'ELOCKED'))
          return new AuditSink(path, null, lastFailure);
      }
    }
    return new AuditSink(options.path, null, lastFailure);
  }

  /** True once the event is durable; false when it could not be written. */
  async append(event: AuditEvent): Promise<boolean> {
    if (this.log === null) return false;
    try {
      const started = performance.now();
      await this.log.append(event);
      auditAppend.record(secondsSince(started), { sink: this.path.startsWith('postgres://') ? 'postgres' : 'file' });
      return true;
    } catch (error) {
      this.failure = hintFor(error instanceof Error ? error.message : 'the audit log cannot be written');
      return false;
    }
  }

  /** Whether the next event can be written, as far as this process knows (readiness): open, and no write failed. */
  writable(): boolean {
    return this.log !== null && this.failure === null;
  }

  /** For the start-up log: lines the start checkpoint names as not covered by a signature. */
  startNotice(): string | null {
    const unsigned = this.log?.unsignedAtStart ?? null;
    if (unsigned === null) return null;
    return (
      `lines ${unsigned.from} to ${unsigned.to} of the audit log were not covered by a signature when this server ` +
      "started (a crash, or lines written while no server ran); its start checkpoint names them and 'audit verify' " +
      'reports them: check them by hand'
    );
  }

  /** The cause of the refusal and what to do about it, for the refused call's hint. */
  failureHint(): string {
    return this.failure ?? hintFor('the audit log cannot be written');
  }

  async close(): Promise<void> {
    await this.log?.close();
  }
}

async function readSigner(file: string): Promise<Signer> {
  let pem: string;
  try {
    pem = await readFile(file, 'utf8');
  } catch (error) {
    throw new SigningKeyError(
      `AUDIT_SIGNING_KEY_FILE ${file} cannot be read (${(error as { code?: string }).code ?? 'EIO'})`,
    );
  }
  return signerFromPem(pem, `AUDIT_SIGNING_KEY_FILE ${file}`);
}

/** The failure's own words (a path and a code, nothing secret) with the fix for its kind. */
function hintFor(cause: string): string {
  if (/\(ELOCKED\)/.test(cause)) {
    return `${cause}. Fix: give this namespace its own AUDIT_LOG, or leave AUDIT_LOG unset (each process then gets a log of its own).`;
  }
  if (/\((ENOENT|EREPLACED|EMODIFIED)\)/.test(cause)) {
    return `${cause}. Fix: keep the log and its checkpoint file as evidence, run 'gitea-warden audit verify', restart the server.`;
  }
  if (/^audit log postgres:\/\//.test(cause)) {
    return `${cause}. Fix: check AUDIT_SINK's database, the table gitea_warden_audit and the role's INSERT and SELECT grants (docs/audit.md); then restart.`;
  }
  if (/AUDIT_SIGNING_KEY_FILE/.test(cause))
    return `${cause}. Fix: point AUDIT_SIGNING_KEY_FILE at an Ed25519 private key, then restart.`;
  if (/does not verify|refusing to append/.test(cause)) return cause;
  return `${cause}. Fix: the log and its directory must be writable by the server's user; then restart.`;
}
