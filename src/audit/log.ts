// The append-only audit log: one JSON line per event, hash-chained (see chain.ts), durable
// before the call proceeds, with signed checkpoints when a signing key is given (checkpoint.ts).
//
// Group commit: appends queue up while a write is in flight; the next write takes every queued event,
// seals them in order, writes them in one piece and fsyncs once. Each append's promise resolves only
// after the fsync that covers its line, so the write-ahead promise is unchanged; a lone client waits
// for no one. Before each write the writer checks that its path still names the file it holds (device
// and inode) at the size it left it: a deleted, renamed, replaced or foreign-written log fails closed.
// Any write failure closes the log for good: that append and every later one reject.
// The check and the write are synchronous: a stat and an append of a few lines into the page cache
// take microseconds, less than a hop to libuv's thread pool each; only the fsync, which waits for
// the disk, runs there.
import { statSync, writeSync } from 'node:fs';
import { mkdir, open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { checkLink, checkSealedLine, GENESIS_PREV, sealBatch, sha256Hex } from './chain.js';
import { GroupCommit } from './group-commit.js';
import { asCheckpoint, sealCheckpoint, type Signer } from './checkpoint.js';
import type { AuditEvent, ChainedAuditEvent } from './event.js';
import { TRUNCATED_FINAL_LINE } from './verify.js';
import { lockLog, LogLockedError, type LogLock } from './lock.js';
import type { HighWaterMark } from './high-water.js';
import { AuditStartRefused, checkSignedStart, type StartFindings } from './checkpoint-check.js';

/** Writing to (or opening) the log failed. Names the path and errno code, never event data. */
export class AuditWriteError extends Error {
  constructor(
    readonly path: string,
    readonly code: string,
    what: string,
  ) {
    super(`audit log ${path}: ${what} failed (${code}); no further events will be written`);
    this.name = 'AuditWriteError';
  }
}

/** The existing log does not verify at its tail, so the chain cannot be continued. */
export class AuditChainError extends Error {
  constructor(
    readonly path: string,
    readonly line: number | null,
    readonly reason: string,
  ) {
    const where = line === null ? 'its last line' : `line ${line}`;
    super(
      `audit log ${path}: ${where} does not verify (${reason}); refusing to append. ` +
        `Run 'gitea-warden audit verify ${path}', keep the file as evidence and start a new log.`,
    );
    this.name = 'AuditChainError';
  }
}

export interface AuditLogOptions {
  /** Fills `time` when the caller leaves it out. */
  clock?: () => Date;
  /** Signs a checkpoint at start, every `checkpointEvery` events, and at close. */
  signer?: Signer;
  checkpointEvery?: number;
  /** Told how long each fsync took, in seconds (the server's metrics). */
  onFsync?: (seconds: number) => void;
  /** With a signer: the record beside the key of this log's chain and last checkpoint (high-water.ts). */
  highWater?: HighWaterMark;
}

export const DEFAULT_CHECKPOINT_EVERY = 100;

/** The copy of the latest checkpoint line, beside the log. */
export function checkpointPathOf(logPath: string): string {
  return `${logPath}.checkpoint`;
}

interface ChainHead {
  seq: number;
  /** SHA-256 of the last line, the next event's prev. */
  prev: string;
  /** The last line's text when it is a checkpoint, so a start checkpoint is not written twice. */
  lastIsCheckpoint: boolean;
}

/** The file the writer holds, as it left it. */
interface FileIdentity {
  dev: number;
  ino: number;
  size: number;
}

const TAIL_CHUNK = 64 * 1024;

export class AuditLog {
  private readonly commits = new GroupCommit<AuditEvent, ChainedAuditEvent>((events) => this.write(events, false));
  private failure: AuditWriteError | null = null;
  private sinceCheckpoint = 0;
  private closing = false;
  /** SHA-256 of the first line (the chain's id in the high-water mark); null until one is written. */
  private chain: string | null = null;
  /** What the start checks found (signed logs only). */
  private findings: StartFindings | null = null;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    private readonly lock: LogLock,
    private head: ChainHead,
    private file: FileIdentity,
    private readonly clock: () => Date,
    private readonly onFsync: ((seconds: number) => void) | undefined,
    private readonly signer: Signer | undefined,
    private readonly checkpointEvery: number,
    private readonly highWater: HighWaterMark | undefined,
  ) {}

  /** Lines no checkpoint of the key covered when the log was opened (named by its start checkpoint). */
  get unsignedAtStart(): { from: number; to: number } | null {
    return this.findings?.unsigned ?? null;
  }

  /** Opens (or creates) the log as its only writer and continues its chain; rejects if the tail does not verify. */
  static async open(path: string, options: AuditLogOptions = {}): Promise<AuditLog> {
    await attempt(path, 'creating its directory', () => mkdir(dirname(path), { recursive: true, mode: 0o700 }));
    const lock = await lockLog(path).catch((error: unknown) => {
      throw error instanceof LogLockedError
        ? new AuditWriteError(
            path,
            'ELOCKED',
            `taking the lock held by process ${error.pid} (one writer per log: give each namespace its own AUDIT_LOG)`,
          )
        : new AuditWriteError(path, errnoCode(error), 'taking the lock');
    });
    try {
      const existed = await fileExists(path);
      const handle = await attempt(path, 'open', () => open(path, 'a+', 0o600));
      try {
        if (!existed) await attempt(path, 'fsync of the directory', () => syncDirectory(dirname(path)));
        const head = await readChainHead(path, handle);
        const { dev, ino, size } = await attempt(path, 'stat', () => handle.stat());
        const every = options.checkpointEvery ?? DEFAULT_CHECKPOINT_EVERY;
        const log = new AuditLog(
          path,
          handle,
          lock,
          head,
          { dev, ino, size },
          options.clock ?? (() => new Date()),
          options.onFsync,
          options.signer,
          every,
          options.signer ? options.highWater : undefined,
        );
        if (options.signer) {
          const { signer, highWater } = options;
          log.findings = await checkSignedStart(path, handle, size, head.seq, signer, highWater).catch((error) => {
            if (error instanceof AuditStartRefused) throw error;
            throw new AuditWriteError(path, errnoCode(error), 'reading its checkpoint file and high-water mark');
          });
          log.chain = log.findings.chain;
          await log.startCheckpoint();
        }
        return log;
      } catch (error) {
        await handle.close();
        // A start refused before anything was written leaves no empty log behind that looks like a new one.
        if (!existed && error instanceof AuditStartRefused) await unlink(path).catch(() => undefined);
        throw error;
      }
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  /** Resolves once the event's line is written and fsync'd; rejects with AuditWriteError otherwise. */
  append(event: AuditEvent): Promise<ChainedAuditEvent> {
    return new Promise((resolve, reject) => {
      if (this.closing) return reject(new AuditWriteError(this.path, 'ECLOSED', 'append after close'));
      this.commits.push(event).then(resolve, reject);
    });
  }

  /** Waits for queued appends, signs a last checkpoint, then closes the file; later appends reject. */
  async close(): Promise<void> {
    this.closing = true;
    await this.commits.drain();
    if (this.failure === null && this.signer && this.sinceCheckpoint > 0) {
      await this.write([], true).catch(() => undefined);
    }
    if (this.failure === null) this.failure = new AuditWriteError(this.path, 'ECLOSED', 'append after close');
    await this.handle.close();
    await this.lock.release();
  }

  /**
   * A checkpoint at start when the chain does not already end in one that verified: for a new log (so
   * even a short log carries a signature) and after lines no checkpoint covers (counted in
   * unsigned_before, which `audit verify` names). A log that ends in its checkpoint only has its
   * high-water mark brought up to it.
   */
  private async startCheckpoint(): Promise<void> {
    const unsigned = this.findings?.unsigned ?? null;
    if (this.head.seq > 0 && this.head.lastIsCheckpoint && unsigned === null) {
      await this.markHighWater(this.head.seq, this.head.prev);
      return;
    }
    await this.write([], true, unsigned === null ? 0 : unsigned.to - unsigned.from + 1);
  }

  /** Records the chain's last checkpoint beside the key; a failure closes the log like a failed write. */
  private async markHighWater(seq: number, head: string): Promise<void> {
    if (!this.highWater || this.chain === null) return;
    try {
      await this.highWater.write({ chain: this.chain, seq, head });
    } catch (error) {
      throw this.fail(errnoCode(error), `writing the high-water mark ${this.highWater.file}`);
    }
  }

  /** Seals, writes and fsyncs `events` (plus a checkpoint when one is due or forced) as one write. */
  private async write(
    events: AuditEvent[],
    forceCheckpoint: boolean,
    unsignedBefore?: number,
  ): Promise<ChainedAuditEvent[]> {
    if (this.failure !== null) throw this.failure;
    this.checkStillTheLog();
    const time = this.clock().toISOString();
    const { lines, sealed, head } = sealBatch(events, time, this.head);
    let { seq, prev } = head;
    let checkpoint: string | null = null;
    const due =
      this.signer !== undefined && (forceCheckpoint || this.sinceCheckpoint + events.length >= this.checkpointEvery);
    if (due && this.signer) {
      seq += 1;
      checkpoint = sealCheckpoint(this.signer, seq, prev, time, unsignedBefore).line;
      lines.push(checkpoint);
      prev = sha256Hex(checkpoint);
    }
    const data = Buffer.from(lines.map((line) => `${line}\n`).join(''), 'utf8');
    try {
      writeAll(this.handle.fd, data);
      const syncStarted = performance.now();
      await this.handle.sync();
      this.onFsync?.((performance.now() - syncStarted) / 1000);
    } catch (error) {
      throw this.fail(errnoCode(error), 'write');
    }
    this.file.size += data.length;
    this.chain ??= sha256Hex(lines[0] ?? '');
    this.head = { seq, prev, lastIsCheckpoint: checkpoint !== null };
    this.sinceCheckpoint = checkpoint === null ? this.sinceCheckpoint + events.length : 0;
    if (checkpoint !== null) {
      await this.copyCheckpoint(checkpoint);
      await this.markHighWater(seq, prev);
    }
    return sealed;
  }

  /** The path must still name the file this writer holds, unchanged by anyone else. */
  private checkStillTheLog(): void {
    let now;
    try {
      now = statSync(this.path);
    } catch (error) {
      const code = errnoCode(error);
      throw this.fail(
        code,
        code === 'ENOENT' ? 'finding the log at its path (it was deleted or renamed while the server ran)' : 'stat',
      );
    }
    if (now.dev !== this.file.dev || now.ino !== this.file.ino)
      throw this.fail('EREPLACED', 'checking the file (its path now names another file: the log was replaced)');
    if (now.size !== this.file.size) {
      throw this.fail(
        'EMODIFIED',
        `checking the file (its size changed from ${this.file.size} to ${now.size} bytes outside this server)`,
      );
    }
  }

  /** Replaces the checkpoint file atomically: a new file, fsync'd, renamed over the old one. */
  private async copyCheckpoint(line: string): Promise<void> {
    const target = checkpointPathOf(this.path);
    const temporary = join(dirname(target), `.${basename(target)}.${process.pid}.tmp`);
    try {
      const handle = await open(temporary, 'w', 0o600);
      try {
        await handle.writeFile(`${line}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, target);
      await syncDirectory(dirname(target));
    } catch (error) {
      throw this.fail(errnoCode(error), `writing the checkpoint file ${target}`);
    }
  }

  private fail(code: string, what: string): AuditWriteError {
    this.failure = new AuditWriteError(this.path, code, what);
    return this.failure;
  }
}

async function fileExists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return false;
    throw new AuditWriteError(path, errnoCode(error), 'stat');
  }
}

async function attempt<T>(path: string, what: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    throw new AuditWriteError(path, errnoCode(error), what);
  }
}

/** A new file's directory entry is durable only once the directory itself is fsync'd. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function writeAll(fd: number, data: Buffer): void {
  let offset = 0;
  while (offset < data.length) offset += writeSync(fd, data, offset, data.length - offset);
}

function errnoCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'EIO';
}

/** Reads the last two lines (no more of the file than that) and checks that the last one ends an intact chain. */
async function readChainHead(path: string, handle: FileHandle): Promise<ChainHead> {
  const { size } = await attempt(path, 'stat', () => handle.stat());
  if (size === 0) return { seq: 0, prev: GENESIS_PREV, lastIsCheckpoint: false };
  const { text, wholeFile } = await attempt(path, 'read', () => readTail(handle, size));
  if (!text.endsWith('\n')) {
    const before = lastCompleteLineSeq(text, wholeFile);
    throw new AuditChainError(path, before === undefined ? null : before + 1, TRUNCATED_FINAL_LINE);
  }
  const pieces = text.slice(0, -1).split('\n');
  if (!wholeFile) pieces.shift(); // the first piece may start mid-line
  const last = pieces.at(-1) ?? '';
  const beforeLine = pieces.at(-2);
  const before = beforeLine === undefined ? null : checkSealedLine(beforeLine);
  const lastLineNumber = before === null ? 1 : before.ok ? before.seq + 1 : null;
  const check = checkSealedLine(last);
  if (!check.ok) throw new AuditChainError(path, lastLineNumber, check.reason);
  if (before !== null && !before.ok)
    throw new AuditChainError(path, null, `the line before the last: ${before.reason}`);
  const problem = checkLink(check, before === null ? null : { line: beforeLine ?? '', seq: before.seq });
  if (problem !== null) throw new AuditChainError(path, lastLineNumber, problem);
  return { seq: check.seq, prev: sha256Hex(last), lastIsCheckpoint: asCheckpoint(last) !== null };
}

/** The seq of the last complete line before a torn one, when it can be read. */
function lastCompleteLineSeq(text: string, wholeFile: boolean): number | undefined {
  const pieces = text.split('\n');
  pieces.pop();
  if (pieces.length === 0) return wholeFile ? 0 : undefined;
  const check = checkSealedLine(pieces.at(-1) ?? '');
  return check.ok ? check.seq : undefined;
}

/** Reads backwards from the end until three newlines are in hand (two whole lines) or the file starts. */
async function readTail(handle: FileHandle, size: number): Promise<{ text: string; wholeFile: boolean }> {
  const chunks: Buffer[] = [];
  let start = size;
  let newlines = 0;
  while (start > 0 && newlines < 3) {
    const length = Math.min(TAIL_CHUNK, start);
    start -= length;
    const chunk = Buffer.alloc(length);
    await handle.read(chunk, 0, length, start);
    chunks.unshift(chunk);
    newlines += chunk.reduce((n, byte) => (byte === 0x0a ? n + 1 : n), 0);
  }
  // Decode once, after joining, so a multi-byte character split between chunks stays whole.
  return { text: Buffer.concat(chunks).toString('utf8'), wholeFile: start === 0 };
}
