// The append-only audit log: one JSON line per event, hash-chained (see chain.ts), durable
// before the call proceeds.
//
// fsync policy: one file handle opened for append ('a+': append, plus reads of the tail on open);
// every append writes the whole line and fsyncs the handle before its promise resolves. Appends
// run through a queue, so concurrent calls get consecutive seq numbers and an unbroken chain.
// Any write failure closes the log for good (fail closed): that append and every later one reject.
import { mkdir, open, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { checkLink, checkSealedLine, GENESIS_PREV, sealEvent, sha256Hex } from './chain.js';
import type { AuditEvent, ChainedAuditEvent } from './event.js';
import { TRUNCATED_FINAL_LINE } from './verify.js';
import { lockLog, LogLockedError, type LogLock } from './lock.js';

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
}

interface ChainHead {
  seq: number;
  /** SHA-256 of the last line, the next event's prev. */
  prev: string;
}

const TAIL_CHUNK = 64 * 1024;

export class AuditLog {
  private queue: Promise<unknown> = Promise.resolve();
  private failure: AuditWriteError | null = null;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    private readonly lock: LogLock,
    private head: ChainHead,
    private readonly clock: () => Date,
  ) {}

  /** Opens (or creates) the log as its only writer and continues its chain; rejects if the tail does not verify. */
  static async open(path: string, options: AuditLogOptions = {}): Promise<AuditLog> {
    await attempt(path, 'creating its directory', () => mkdir(dirname(path), { recursive: true, mode: 0o700 }));
    const lock = await lockLog(path).catch((error: unknown) => {
      throw error instanceof LogLockedError
        ? new AuditWriteError(path, 'ELOCKED', `taking the lock held by process ${error.pid} (one writer per log: give each namespace its own AUDIT_LOG)`)
        : new AuditWriteError(path, errnoCode(error), 'taking the lock');
    });
    try {
      const existed = await fileExists(path);
      const handle = await attempt(path, 'open', () => open(path, 'a+', 0o600));
      try {
        if (!existed) await attempt(path, 'fsync of the directory', () => syncDirectory(dirname(path)));
        const head = await readChainHead(path, handle);
        return new AuditLog(path, handle, lock, head, options.clock ?? (() => new Date()));
      } catch (error) {
        await handle.close();
        throw error;
      }
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  /** Resolves once the event's line is written and fsync'd; rejects with AuditWriteError otherwise. */
  append(event: AuditEvent): Promise<ChainedAuditEvent> {
    const written = this.queue.then(() => this.write(event));
    this.queue = written.catch(() => undefined);
    return written;
  }

  /** Waits for queued appends, then closes the file; later appends reject. */
  async close(): Promise<void> {
    await this.queue;
    if (this.failure === null) this.failure = new AuditWriteError(this.path, 'ECLOSED', 'append after close');
    await this.handle.close();
    await this.lock.release();
  }

  private async write(event: AuditEvent): Promise<ChainedAuditEvent> {
    if (this.failure !== null) throw this.failure;
    const seq = this.head.seq + 1;
    const sealed = sealEvent(event, this.clock().toISOString(), seq, this.head.prev);
    try {
      await writeAll(this.handle, Buffer.from(`${sealed.line}\n`, 'utf8'));
      await this.handle.sync();
    } catch (error) {
      this.failure = new AuditWriteError(this.path, errnoCode(error), 'write');
      throw this.failure;
    }
    this.head = { seq, prev: sha256Hex(sealed.line) };
    return sealed.event;
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

async function writeAll(handle: FileHandle, data: Buffer): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const { bytesWritten } = await handle.write(data, offset, data.length - offset);
    offset += bytesWritten;
  }
}

function errnoCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'EIO';
}

/** Reads the last two lines (no more of the file than that) and checks that the last one ends an intact chain. */
async function readChainHead(path: string, handle: FileHandle): Promise<ChainHead> {
  const { size } = await attempt(path, 'stat', () => handle.stat());
  if (size === 0) return { seq: 0, prev: GENESIS_PREV };
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
  if (before !== null && !before.ok) throw new AuditChainError(path, null, `the line before the last: ${before.reason}`);
  const problem = checkLink(check, before === null ? null : { line: beforeLine ?? '', seq: before.seq });
  if (problem !== null) throw new AuditChainError(path, lastLineNumber, problem);
  return { seq: check.seq, prev: sha256Hex(last) };
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
