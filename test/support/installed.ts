// The installed command, as a user gets it: `npm pack` in the checkout, then `npm install --global`
// of the tarball into a prefix of its own (the README's two lines). Packing and installing take a
// minute on a loaded machine, so it is done once per build, not once per test file: the result is
// kept under the system's temporary directory, keyed by a hash of everything the tarball holds and by
// the running Node's native ABI (better-sqlite3 is compiled at install, for one ABI: CI runs Node 20,
// 22 and 24 one after another on one machine), and a test file that finds it ready uses it. Two files starting at once take turns through a lock
// directory; another build's copy is removed when a new one is made.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { packageRoot } from '../../src/shared/paths.js';

export interface Installed {
  /** The global prefix the package was installed into: its bin/ holds `gitea-warden`. */
  prefix: string;
  bin: string;
  /** The installed package's directory (prefix/lib/node_modules/gitea-warden). */
  packageDir: string;
  /** The tarball npm pack wrote. */
  tarball: string;
  version: string;
}

const version = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
const cacheRoot = join(tmpdir(), 'gitea-warden-installed');
/** Longer than a whole `npm test`: a copy untouched for this long belongs to no running test. */
const STALE_AFTER_MS = 2 * 60 * 60_000;

/** What npm pack puts in the tarball (package.json `files`, the manifest, the README), hashed. */
function contentHash(): string {
  const manifest = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { files: string[] };
  const hash = createHash('sha256');
  const add = (path: string) => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) add(join(path, name));
      return;
    }
    hash.update(relative(packageRoot, path)).update('\0').update(readFileSync(path)).update('\0');
  };
  for (const entry of [...manifest.files, 'package.json', 'README.md']) add(join(packageRoot, entry));
  // The installed addon is built for one Node: another Node gets a copy of its own.
  hash.update(`node-abi-${process.versions.modules}-${process.platform}-${process.arch}`);
  return hash.digest('hex').slice(0, 16);
}

/** npm with the global prefix redirected: `npm install --global` lands in `prefix`. */
export function npmEnv(prefix: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    npm_config_prefix: prefix,
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
}

function layout(dir: string): Installed {
  const prefix = join(dir, 'prefix');
  return {
    prefix,
    bin: join(prefix, 'bin'),
    packageDir: join(prefix, 'lib', 'node_modules', 'gitea-warden'),
    tarball: join(dir, 'pack', `gitea-warden-${version}.tgz`),
    version,
  };
}

function packAndInstall(dir: string): void {
  const building = `${dir}.building`;
  rmSync(building, { recursive: true, force: true });
  const target = layout(building);
  mkdirSync(join(building, 'pack'), { recursive: true });
  const run = (args: string[], cwd: string) => {
    const result = spawnSync('npm', args, { cwd, env: npmEnv(target.prefix), encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`npm ${args.join(' ')}: ${result.stdout}\n${result.stderr}`);
  };
  // dist/ is what `npm test` just built: packing does not build it again under the other test files.
  run(['pack', '--ignore-scripts', '--pack-destination', join(building, 'pack')], packageRoot);
  run(['install', '--global', `./${`gitea-warden-${version}.tgz`}`], join(building, 'pack'));
  // npm builds the addon against the headers its nodedir names; with another Node's headers the
  // install succeeds and every command that opens a store fails later, far from the cause.
  const addon = join(target.packageDir, 'node_modules', 'better-sqlite3');
  const load = spawnSync(process.execPath, ['-e', `new (require(${JSON.stringify(addon)}))(':memory:').close()`], {
    encoding: 'utf8',
  });
  if (load.status !== 0) {
    throw new Error(
      `the installed better-sqlite3 does not load on Node ${process.version} (ABI ${process.versions.modules}); ` +
        `set npm_config_nodedir to this Node's headers (the directory holding include/node/node.h) and run again:\n${load.stderr}`,
    );
  }
  renameSync(building, dir);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The package installed from a tarball of the current build: made once, shared by every test file. */
export async function installedPackage(): Promise<Installed> {
  const dir = join(cacheRoot, contentHash());
  const lock = `${dir}.lock`;
  mkdirSync(cacheRoot, { recursive: true });
  for (const waited = Date.now(); !existsSync(dir);) {
    try {
      mkdirSync(lock);
    } catch {
      // Another test file is packing; a lock left by a process that died is taken over.
      const holder = Number(readFileSync(join(lock, 'pid'), { encoding: 'utf8', flag: 'a+' }) || 0);
      if (holder > 0 && !pidAlive(holder)) rmSync(lock, { recursive: true, force: true });
      if (Date.now() - waited > 15 * 60_000) throw new Error(`waited 15 minutes for ${lock}`);
      await sleep(500);
      continue;
    }
    try {
      writeFileSync(join(lock, 'pid'), String(process.pid));
      if (!existsSync(dir)) {
        // Copies made from other builds are of no more use, once no run can still be using them: a test
        // run of another checkout (or another Node) may be installing from its copy right now.
        for (const name of readdirSync(cacheRoot)) {
          const key = name.replace(/\.(building|lock)$/, '');
          if (name.endsWith('.lock') || key === basename(dir) || existsSync(join(cacheRoot, `${key}.lock`))) continue;
          if (Date.now() - statSync(join(cacheRoot, name)).mtimeMs < STALE_AFTER_MS) continue;
          rmSync(join(cacheRoot, name), { recursive: true, force: true });
        }
        packAndInstall(dir);
      }
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  // In use now: another build's clean-up leaves it alone for a while (STALE_AFTER_MS).
  const now = new Date();
  utimesSync(dir, now, now);
  return layout(dir);
}
