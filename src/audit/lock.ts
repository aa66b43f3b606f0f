// One writer per audit log. The chain's head lives in the writing process's memory, so a second
// process appending to the same file would fork the chain and every later open would refuse it.
// The lock is a sibling file created exclusively and holding the writer's pid; a lock whose process
// is gone (a crash) is taken over.
import { open, readFile, unlink } from 'node:fs/promises';

export interface LogLock {
  release(): Promise<void>;
}

export class LogLockedError extends Error {
  constructor(
    readonly lockPath: string,
    readonly pid: number,
  ) {
    super(`${lockPath} is held by process ${pid}; give each namespace its own AUDIT_LOG`);
    this.name = 'LogLockedError';
  }
}

export async function lockLog(logPath: string): Promise<LogLock> {
  const lockPath = `${logPath}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      return { release: () => unlink(lockPath).catch(() => undefined) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number((await readFile(lockPath, 'utf8').catch(() => '')).trim());
    if (Number.isInteger(holder) && holder > 0 && isAlive(holder)) throw new LogLockedError(lockPath, holder);
    await unlink(lockPath).catch(() => undefined);
  }
  throw new LogLockedError(lockPath, 0);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
