// The sandbox's fixed parts: its route tables against the pinned spec, seeds, and the CLI command.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { stringify } from 'yaml';
import { validationErrors } from '../src/shared/document.js';
import { packageRoot } from '../src/shared/paths.js';
import { Router } from '../src/sandbox/router.js';
import { seedSchema } from '../src/sandbox/seed-schema.js';
import { defaultSeed, loadSeed, type SandboxSeed } from '../src/sandbox/seed.js';
import { sandboxRoutes, startSandbox } from '../src/sandbox/server.js';
import { createContractChecker, loadSpec } from './support/spec-contract.js';
import { CLI_ARGS } from './support/namespace.js';

const spec = loadSpec();
const contract = createContractChecker(spec);

const tinySeed = (): SandboxSeed => ({
  users: [{ login: 'solo', password: 'pw', token: 'f'.repeat(40) }],
  repos: [
    {
      owner: 'solo',
      name: 'one',
      branches: [{ name: 'main', commits: [{ message: 'init', author: 'solo', files: { a: 'a' } }] }],
    },
  ],
});

describe('route tables', () => {
  test('every spec operation the sandbox does not serve answers unserved, naming its own template', () => {
    const router = new Router([...sandboxRoutes]);
    const served = new Set(sandboxRoutes.map((r) => `${r.method} ${r.path}`));
    const misrouted = Object.entries(spec.paths).flatMap(([path, methods]) =>
      Object.keys(methods)
        .map((m) => m.toUpperCase())
        .filter((method) => !served.has(`${method} ${path}`))
        .flatMap((method) => {
          const found = router.match(method, path.replace(/\{[^}]+\}/g, '7'));
          return found.kind === 'unserved' && found.path === path
            ? []
            : [`${method} ${path}: ${found.kind === 'served' ? found.route.operationId : found.kind}`];
        }),
    );
    assert.deepEqual(misrouted, []);
  });

  test("every served route is the spec's operation, method and path", () => {
    for (const route of sandboxRoutes) {
      assert.deepEqual(
        contract.operations.get(route.operationId),
        { method: route.method, path: route.path },
        route.operationId,
      );
    }
    assert.equal(new Set(sandboxRoutes.map((r) => r.operationId)).size, sandboxRoutes.length);
  });
});

describe('seeds', () => {
  test('the default seed fits the seed schema and loads', () => {
    assert.deepEqual(validationErrors(seedSchema, defaultSeed()), []);
    const { credentials } = loadSeed(defaultSeed());
    assert.deepEqual(Object.keys(credentials), ['admin', 'alice', 'bob', 'carol', 'dave', 'erin']);
  });

  test('tokens and passwords are random per run unless pinned', () => {
    const a = loadSeed(defaultSeed()).credentials.alice;
    const b = loadSeed(defaultSeed()).credentials.alice;
    assert.notEqual(a?.token, b?.token);
    assert.notEqual(a?.password, b?.password);
    assert.equal(loadSeed(tinySeed()).credentials.solo?.token, 'f'.repeat(40));
  });

  test('a seed that names an unknown user or branch is refused with what is wrong', () => {
    const unknownUser = tinySeed();
    unknownUser.repos[0]!.branches[0]!.commits![0]!.author = 'ghost';
    assert.throws(() => loadSeed(unknownUser), /unknown user 'ghost'/);
    const unknownBranch = tinySeed();
    unknownBranch.repos[0]!.branches.push({ name: 'x', from: 'nope' });
    assert.throws(() => loadSeed(unknownBranch), /starts from unknown 'nope'/);
  });

  test('a custom seed replaces the world', async () => {
    const sandbox = await startSandbox({ seed: tinySeed() });
    try {
      const me = await fetch(`${sandbox.url}/api/v1/user`, { headers: { Authorization: `token ${'f'.repeat(40)}` } });
      assert.equal(((await me.json()) as { login: string }).login, 'solo');
      assert.equal((await fetch(`${sandbox.url}/api/v1/repos/acme/widgets`)).status, 404);
    } finally {
      await sandbox.close();
    }
  });
});

function startCli(args: string[]) {
  return spawn(process.execPath, [...CLI_ARGS, 'sandbox', ...args], {
    cwd: packageRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe('gitea-warden sandbox', () => {
  test('prints one JSON line with the url and credentials, serves, logs without secrets, stops on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-cli-'));
    try {
      const seedFile = join(dir, 'seed.yaml');
      writeFileSync(seedFile, stringify(tinySeed()));
      const child = startCli(['--seed', seedFile]);
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const first = await new Promise<string>((resolve) =>
        createInterface({ input: child.stdout }).once('line', resolve),
      );
      const banner = JSON.parse(first) as { url: string; users: Record<string, { token: string; password: string }> };
      assert.match(banner.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(banner.users.solo?.token, 'f'.repeat(40));
      const me = await fetch(`${banner.url}/api/v1/user`, {
        headers: { Authorization: `token ${banner.users.solo?.token}` },
      });
      assert.equal(me.status, 200);
      const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      assert.equal(await exit, 0);
      assert.match(stderr, /GET \/api\/v1\/user 200 solo/);
      assert.ok(!stderr.includes('f'.repeat(40)));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an invalid seed file is refused with its file, line and path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-cli-'));
    try {
      const seedFile = join(dir, 'seed.yaml');
      writeFileSync(seedFile, 'users:\n  - login: solo\nrepos:\n  - owner: solo\n');
      const child = startCli(['--seed', seedFile]);
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
      assert.notEqual(code, 0);
      assert.match(stderr, /seed\.yaml:4 \/repos\/0/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
