// A native addon (better-sqlite3) that does not load: built for another Node.js (after switching
// Node versions, or a package copied between machines), or damaged. node's own message names a
// NODE_MODULE_VERSION; this says which Node it was built for and the one command that fixes it.
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';

/** What to tell a person when `error` is the native addon `name` failing to load, or null for any other error. */
export function nativeModuleProblem(error: unknown, name: string, from: string = import.meta.url): string | null {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const message = error instanceof Error ? error.message : '';
  if (code !== 'ERR_DLOPEN_FAILED' && !/NODE_MODULE_VERSION/.test(message)) return null;
  const rebuild = `rebuild it for this Node with: cd ${packageDirOf(name, from)} && npm rebuild ${name}`;
  const built = /NODE_MODULE_VERSION (\d+)/.exec(message)?.[1];
  const needed = /requires\s+NODE_MODULE_VERSION (\d+)/.exec(message)?.[1] ?? process.versions.modules;
  return built !== undefined && built !== needed
    ? `${name} was built for another Node.js (NODE_MODULE_VERSION ${built}; this is Node ${process.version}, which needs ${needed}): ${rebuild}`
    : `${name}'s native module does not load on Node ${process.version} (${code ?? 'dlopen failed'}): ${rebuild}`;
}

/** The directory whose node_modules holds the addon: where `npm rebuild` must run. */
function packageDirOf(name: string, from: string): string {
  try {
    const manifest = createRequire(from).resolve(`${name}/package.json`);
    return resolve(dirname(manifest), '..', '..');
  } catch {
    return '<the gitea-warden package directory>';
  }
}
