// The two servers the protocol section compares the product with, built at bench time into temporary
// directories: the bare relay (bench/relay-server.ts, bundled as scripts/bundle.mjs bundles the
// product, so both start from one file) and "today", the bundle of the last commit on the v1 SDK,
// built in a detached worktree of this repository beside this one's node_modules.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { repoRoot } from '../test/support/namespace.js';

/** The last commit before the move to the MCP SDK v2 (still served by the v1 SDK, 2025 era only). */
export const DEFAULT_BASELINE_REF = 'd06a8c2';

export interface BuiltServer {
  /** The bundle to run with node, and the directory to run it in. */
  entry: string;
  cwd: string;
  dispose(): void;
}

export interface Baseline {
  /** The ref asked for (BENCH_PROTOCOL_BASELINE, else DEFAULT_BASELINE_REF). */
  ref: string;
  /** Its commit, when it resolved. */
  commit: string | null;
  /** null when the baseline could not be built; `reason` says why. */
  server: BuiltServer | null;
  reason: string | null;
}

/** Bundles the relay into a temporary directory: esm, node20, everything inlined, as the product's bundle. */
export async function buildRelay(): Promise<BuiltServer> {
  const dir = mkdtempSync(join(tmpdir(), 'warden-bench-relay-'));
  const entry = join(dir, 'relay-server.mjs');
  await build({
    entryPoints: [join(repoRoot, 'bench', 'relay-server.ts')],
    outfile: entry,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Bundled CommonJS modules call require for node's own modules (as in scripts/bundle.mjs).
    banner: {
      js: "import { createRequire as bundleRequire } from 'node:module'; const require = bundleRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
  return { entry, cwd: dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Checks out `ref` in a detached worktree, links this checkout's node_modules into it (the v1 SDK is
 * still installed as a dev dependency) and runs its `npm run build`. Any failure leaves no worktree
 * behind and is returned as the reason, so the section can report without the baseline.
 */
export function buildBaseline(ref: string = process.env.BENCH_PROTOCOL_BASELINE || DEFAULT_BASELINE_REF): Baseline {
  const resolved = git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  if (resolved.status !== 0) return { ref, commit: null, server: null, reason: `ref ${ref} is not a commit here` };
  const commit = resolved.stdout.trim();
  const dir = mkdtempSync(join(tmpdir(), 'warden-bench-baseline-'));
  const tree = join(dir, 'tree');
  const dispose = () => {
    if (existsSync(tree)) git(['worktree', 'remove', '--force', tree]);
    rmSync(dir, { recursive: true, force: true });
  };
  const added = git(['worktree', 'add', '--detach', tree, commit]);
  if (added.status !== 0) {
    dispose();
    return { ref, commit, server: null, reason: `git worktree add failed: ${firstLine(added.stderr)}` };
  }
  const entry = join(tree, 'dist', 'bin', 'gitea-warden.js');
  let failure: string | null;
  try {
    symlinkSync(realpathSync(join(repoRoot, 'node_modules')), join(tree, 'node_modules'), 'dir');
    const built = spawnSync('npm', ['run', 'build'], {
      cwd: tree,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    failure =
      built.status === 0 && existsSync(entry)
        ? null
        : `npm run build failed: ${firstError(`${built.stdout}\n${built.stderr}`)}`;
  } catch (error) {
    failure = (error as Error).message;
  }
  if (failure !== null) {
    dispose();
    return { ref, commit, server: null, reason: failure };
  }
  return { ref, commit, server: { entry, cwd: tree, dispose }, reason: null };
}

function git(args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync('git', args, { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}

/** The first line that names an error (tsc's, npm's), else the last line. */
function firstError(text: string): string {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  return (lines.find((line) => /error/i.test(line)) ?? lines[lines.length - 1] ?? '').trim();
}
