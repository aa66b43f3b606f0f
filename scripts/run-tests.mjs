#!/usr/bin/env node
// Node 20's test runner does not expand globs, so this lists test/**/*.test.ts itself
// and hands them to `node --import tsx --test`. Extra arguments filter by substring.
// Beside node's usual report, scripts/test-file-counts.mjs counts the tests of each file: a file
// that ran none (it exited or crashed before declaring one) fails the run even when node says ok.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';

const root = fileURLToPath(new URL('..', import.meta.url));
const filters = process.argv.slice(2);

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
}

const files = walk(join(root, 'test'))
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => relative(root, f))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();

if (files.length === 0) {
  console.error('run-tests: no test files matched');
  process.exit(1);
}

const scratch = mkdtempSync(join(tmpdir(), 'warden-test-counts-'));
const countsFile = join(scratch, 'counts.json');
// A bare profile name is looked up in the user's config directory first (src/shared/paths.ts): the
// suite's names must mean the checkout's profiles/, whatever `gitea-warden init` wrote for this user.
const configHome = join(scratch, 'config');
const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=2',
    // node's own default (spec on a terminal, TAP otherwise), kept because naming a reporter replaces it.
    `--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`,
    '--test-reporter-destination=stdout',
    `--test-reporter=${join(root, 'scripts', 'test-file-counts.mjs')}`,
    `--test-reporter-destination=${countsFile}`,
    ...files,
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, XDG_CONFIG_HOME: configHome } },
);
let counts = {};
try {
  counts = JSON.parse(readFileSync(countsFile, 'utf8'));
} catch {
  console.error('run-tests: the per-file test counts were not written; treating every file as silent');
}
rmSync(scratch, { recursive: true, force: true });
const silent = files.filter((file) => !(counts[resolve(root, file)] > 0));
if (silent.length > 0) {
  console.error(`run-tests: these test files ran no test (they exited or crashed first):\n  ${silent.join('\n  ')}`);
  process.exit(1);
}
process.exit(result.status ?? 1);
