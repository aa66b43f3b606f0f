// The binary's own behaviour: usage, unknown commands, and a reader that stops early.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../src/shared/paths.js';

const main = join(packageRoot, 'src', 'cli', 'main.ts');
const cli = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', main, ...args], { cwd: packageRoot, encoding: 'utf8' });

test('no command prints the usage to stderr and exits 2; an unknown command names itself', () => {
  const bare = cli();
  assert.equal(bare.status, 2);
  assert.match(bare.stderr, /usage: gitea-warden <command>/);
  const unknown = cli('frobnicate');
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /unknown command 'frobnicate'/);
});

test('a reader that closes early (| head) ends the command quietly, without a stack trace', () => {
  const piped = spawnSync(
    'sh',
    ['-c', `"${process.execPath}" --import tsx "${main}" tools --json | head -c 100 > /dev/null`],
    { cwd: packageRoot, encoding: 'utf8' },
  );
  assert.equal(piped.stderr, '');
  assert.equal(piped.status, 0);
});
