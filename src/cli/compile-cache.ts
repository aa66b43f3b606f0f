// Node 22.1 and later can keep V8's compiled code of the modules between runs
// (module.enableCompileCache), so a namespace starts faster. The cache is code this process will run:
// it lives only in a directory of this user's own ($XDG_CACHE_HOME or ~/.cache, created 0700, not used
// when another user owns it or others can write to it), never in the shared temp dir Node would
// pick by default, where another local user could plant it.
import { mkdirSync, statSync } from 'node:fs';
import module from 'node:module';
import { join, resolve } from 'node:path';

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
    const stat = statSync(directory);
    return stat.uid === process.getuid?.() && (stat.mode & 0o022) === 0 ? directory : null;
  } catch {
    // No cache: the process starts as it would without one.
    return null;
  }
}
