import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditLog } from '../src/audit/log.js';
import { sampleEvent } from './fixtures/audit-sample.js';
import { CLI_ARGS } from './support/namespace.js';

let dir: string;
let intact: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warden-audit-cli-'));
  intact = join(dir, 'intact.jsonl');
  const log = await AuditLog.open(intact);
  for (const n of [1, 2, 3]) await log.append(sampleEvent(n));
  await log.close();
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function auditCli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const child = spawnSync(process.execPath, [...CLI_ARGS, 'audit', ...args], {
    encoding: 'utf8',
  });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

describe('gitea-warden audit verify', () => {
  test('an intact log: ok with the event count, exit 0', () => {
    const result = auditCli('verify', intact);
    assert.equal(result.status, 0);
    assert.equal(result.stdout, 'ok: 3 events, chain intact\n');
  });

  test('a tampered log: the first broken line and why, exit 1', async () => {
    const tampered = join(dir, 'tampered.jsonl');
    const lines = (await readFile(intact, 'utf8')).split('\n');
    await writeFile(tampered, [lines[0], lines[2], ''].join('\n'));
    const result = auditCli('verify', tampered);
    assert.equal(result.status, 1);
    assert.match(result.stdout, /^broken: line 2: prev does not match/);
  });

  test('an unreadable file: exit 2', () => {
    const result = auditCli('verify', join(dir, 'missing.jsonl'));
    assert.equal(result.status, 2);
    assert.match(result.stderr, /cannot read .*ENOENT/);
  });

  test('--help prints usage, exit 0; a wrong command line exits 2', () => {
    assert.equal(auditCli('--help').status, 0);
    assert.equal(auditCli('check', intact).status, 2);
  });
});
