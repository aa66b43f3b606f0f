// The official MCP conformance suite (@modelcontextprotocol/conformance, the 0.2 line that knows
// 2026-07-28) against a served namespace over streamable HTTP, for what each revision requires:
// 2025-11-25 and 2026-07-28. Scenarios that do not apply (they call the SDKs' fixture tools, or use
// resources, prompts, completions or logging, which a namespace does not offer) are listed with
// their reason in test/fixtures/conformance-baseline.yml; the suite fails on any other failure and
// on a listed one that starts to pass. It needs Node 22, so it runs in CI's Node 22 and 24 rounds.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { namespaceEnv, repoRoot, spawnHttpNamespace, tempDir, type HttpNamespace } from './support/namespace.js';

const major = Number(process.versions.node.split('.')[0]);
const skip =
  major < 22 ? `the conformance suite needs Node 22 (this is ${process.version}); CI runs it on 22 and 24` : false;
const manifest = createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json');
const cli = join(dirname(manifest), 'dist', 'index.js');
const baseline = join(repoRoot, 'test', 'fixtures', 'conformance-baseline.yml');

/** Runs the suite for one revision; resolves with its exit code and what it printed. */
function conformance(url: string, revision: string, cwd: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(
    process.execPath,
    [cli, 'server', '--url', url, '--requirements', revision, '--expected-failures', baseline],
    { cwd, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

// Skipped test by test, not as a suite: a skipped suite counts as one test where a run counts two, and
// .ci/run requires the same count on every Node.
describe('the official MCP conformance suite', () => {
  const dir = tempDir('warden-conformance-');
  let sandbox: Sandbox | undefined;
  let served: HttpNamespace | undefined;

  before(async () => {
    if (skip) return;
    sandbox = await startSandbox();
    served = await spawnHttpNamespace(
      namespaceEnv(sandbox, 'gitea-author', {
        auditLog: join(dir.path, 'audit.jsonl'),
        // The suite sends a few hundred requests in a minute; the default limit would answer 429.
        extra: { RATE_LIMIT_PER_MINUTE: '100000' },
      }),
    );
  });

  after(async () => {
    await served?.close();
    await sandbox?.close();
    dir.dispose();
  });

  for (const revision of ['2025-11-25', '2026-07-28']) {
    test(`every scored scenario that applies passes for ${revision}`, { skip }, async () => {
      const { code, output } = await conformance((served as HttpNamespace).url, revision, dir.path);
      const summary = output
        .split('\n')
        .filter((line) => /^(Total|.*Unexpected|.*Baseline|.*stale|\s+✗|\s+✓)/.test(line))
        .join('\n');
      assert.equal(code, 0, `conformance ${revision} exited ${code}:\n${summary}`);
      assert.match(output, /Baseline check passed/);
    });
  }
});
