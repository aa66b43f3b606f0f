// Node 22.1 and later can keep V8's compiled code of the modules between runs
// (module.enableCompileCache), so a namespace starts faster. The cache is code this process will run:
// it lives only in a directory of this user's own ($XDG_CACHE_HOME or ~/.cache, created 0700), never
// in the shared temp dir Node would pick by default, where another local user could plant it. It is
// used only when that directory and every directory above it belong to this user or root and no one
// else can write to them: whoever can write to a parent can rename the cache away and put their own
// in its place. A root-owned sticky directory (/tmp) counts as safe, since the sticky bit keeps
// others from renaming or removing what they do not own.
import { mkdirSync, statSync } from 'node:fs';
import module from 'node:module';
import { dirname, join, resolve } from 'node:path';

type EnableCompileCache = (directory: string) => unknown;

export function enableCompileCache(env: NodeJS.ProcessEnv = process.env): void {
  const enable = (module as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
  const directory = enable ? compileCacheDirectory(env) : null;
  if (enable && directory) enable(directory);
}

/** This user's own cache directory, created if missing; null when there is none to trust or none asked for. */
export function compileCacheDirectory(env: NodeJS.ProcessEnv): string | null {
  // NODE_COMPILE_CACHE set: Node already follows it, as the user asked.
  if (env.NODE_COMPILE_CACHE !== undefined || env.GITEA_WARDEN_COMPILE_CACHE === 'off') return null;
  const base = env.XDG_CACHE_HOME ? resolve(env.XDG_CACHE_HOME) : env.HOME ? join(env.HOME, '.cache') : null;
  if (!base) return null;
  const directory = join(base, 'gitea-warden', 'compile-cache');
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    return pathIsTrusted(directory) ? directory : null;
  } catch {
    // No cache: the process starts as it would without one.
    return null;
  }
}

const STICKY = 0o1000;
const WRITABLE_BY_OTHERS = 0o022;

/** `directory` and each directory above it: owned by this user or root, writable by no one else. */
function pathIsTrusted(directory: string): boolean {
  const uid = process.getuid?.();
  if (uid === undefined) return false;
  for (let dir = directory; ; dir = dirname(dir)) {
    const stat = statSync(dir);
    if (stat.uid !== uid && stat.uid !== 0) return false;
    const stickyRoot = dir !== directory && stat.uid === 0 && (stat.mode & STICKY) !== 0;
    if ((stat.mode & WRITABLE_BY_OTHERS) !== 0 && !stickyRoot) return false;
    if (dirname(dir) === dir) return true;
  }
}
