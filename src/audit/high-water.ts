// The high-water mark of a signed log: a record, kept beside the signing key where the agent cannot
// write (docs/audit.md), of the chain a log holds (the SHA-256 of its first line), the seq of its last
// checkpoint and that line's SHA-256. Deleting a log and its checkpoint file, putting back an older
// copy of both, or swapping in another chain signed by the same key all pass the checks a writer can
// make from the log's own directory; none of them matches this record. Only an operator who can write
// to the key's directory retires it (`gitea-warden audit new-log`), so that a new chain may start.
import { createHash } from 'node:crypto';
import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

export interface HighWaterRecord {
  /** The log's absolute path, for people reading the file. */
  log: string;
  /** SHA-256 of the log's first line: which chain this is. */
  chain: string;
  /** The seq of the last checkpoint written. */
  seq: number;
  /** SHA-256 of that checkpoint line. */
  head: string;
  /** Set by `audit new-log`: the chain above ended and a new log may start at this path. */
  retired?: { time: string };
}

/** The folder beside the signing key that holds one record per log. */
export function highWaterDirOf(signingKeyFile: string): string {
  return join(dirname(resolve(signingKeyFile)), 'audit-high-water');
}

export class HighWaterMark {
  readonly file: string;

  constructor(
    readonly dir: string,
    readonly logPath: string,
  ) {
    const id = createHash('sha256').update(resolve(logPath), 'utf8').digest('hex').slice(0, 16);
    this.file = join(dir, `${basename(logPath).replace(/[^A-Za-z0-9_.-]/g, '_')}.${id}.json`);
  }

  /** The record, or null when there is none; throws (with the errno code) when it cannot be read. */
  async read(): Promise<HighWaterRecord | null> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    const parsed = JSON.parse(text) as Partial<HighWaterRecord>;
    if (typeof parsed.chain !== 'string' || typeof parsed.head !== 'string' || !Number.isInteger(parsed.seq))
      throw Object.assign(new Error(`${this.file} is not a high-water record`), { code: 'EBADHWM' });
    return parsed as HighWaterRecord;
  }

  /** Replaces the record atomically (a new file, fsync'd, renamed over the old one, the folder fsync'd). */
  async write(record: Omit<HighWaterRecord, 'log'>): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const temporary = join(this.dir, `.${basename(this.file)}.${process.pid}.tmp`);
    const handle = await open(temporary, 'w', 0o600);
    try {
      await handle.writeFile(`${JSON.stringify({ log: resolve(this.logPath), ...record }, null, 2)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, this.file);
    const dir = await open(this.dir, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }
}
