// Signed checkpoints against an attacker who can rewrite every file the server writes but cannot
// read the signing key: each rewrite of issue 18 fails `audit verify --public-key` with its reason;
// an untouched log with its checkpoint file passes.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { statSync } from 'node:fs';
import { mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalJson, GENESIS_PREV, sealEvent, sha256Hex } from '../src/audit/chain.js';
import { publicKeyFromPem, signerFromPem, type Signer } from '../src/audit/checkpoint.js';
import { AuditLog, checkpointPathOf } from '../src/audit/log.js';
import { AuditStartRefused } from '../src/audit/checkpoint-check.js';
import { verifyAuditLog } from '../src/audit/verify.js';
import { sampleEvent } from './fixtures/audit-sample.js';
import { CLI_ARGS } from './support/namespace.js';

let dir: string;
let signer: Signer;
let publicPem: string;
let counter = 0;
const freshPath = (): string => join(dir, `log-${(counter += 1)}`, 'audit.jsonl');

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warden-audit-signed-'));
  const pair = generateKeyPairSync('ed25519');
  signer = signerFromPem(pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, 'test key');
  publicPem = pair.publicKey.export({ type: 'spki', format: 'pem' }) as string;
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A signed log of `events` events, a checkpoint every 4: start checkpoint, then events and checkpoints. */
async function signedLog(events: number, path = freshPath()): Promise<string> {
  const log = await AuditLog.open(path, { signer, checkpointEvery: 4 });
  for (let n = 1; n <= events; n += 1) await log.append(sampleEvent(n));
  await log.close();
  return path;
}

async function verifySigned(path: string, options: { allowUnsignedTail?: boolean } = {}) {
  const copy = await readFile(checkpointPathOf(path), 'utf8').catch(() => null);
  return verifyAuditLog(await readFile(path, 'utf8'), {
    publicKey: publicKeyFromPem(publicPem, 'test'),
    checkpointCopy: copy,
    ...options,
  });
}

const linesOf = async (path: string) => (await readFile(path, 'utf8')).trimEnd().split('\n');
const phaseOf = (line: string) => (JSON.parse(line) as { phase: string }).phase;

/** Rewrites lines and recomputes every prev and hash after them: a forger who knows the scheme but not the key. */
function rechain(lines: string[]): string[] {
  let prev = GENESIS_PREV;
  return lines.map((line, i) => {
    const { hash: _hash, ...fields } = JSON.parse(line) as Record<string, unknown>;
    const checkpoint = fields.checkpoint as Record<string, unknown> | undefined;
    if (checkpoint) fields.checkpoint = { ...checkpoint, covers: i, head: prev };
    const unsealed = { ...fields, seq: i + 1, prev };
    const next = JSON.stringify({ ...unsealed, hash: sha256Hex(canonicalJson(unsealed)) });
    prev = sha256Hex(next);
    return next;
  });
}
const text = (lines: string[]) => lines.map((l) => `${l}\n`).join('');

describe('signed checkpoints', () => {
  test('at start, every N events and at close; an untouched log passes with its checkpoint file', async () => {
    const path = await signedLog(10);
    const phases = (await linesOf(path)).map(phaseOf);
    assert.deepEqual(phases.map((p) => (p === 'checkpoint' ? 'C' : 'e')).join(''), 'CeeeeCeeeeCeeC');
    assert.deepEqual(await verifySigned(path), { ok: true, events: 14, signed: { checkpoints: 4, through: 14 } });
    assert.equal((await linesOf(path)).at(-1), (await readFile(checkpointPathOf(path), 'utf8')).trim());
    assert.equal(statSync(checkpointPathOf(path)).mode & 0o777, 0o600);
  });

  test('a reopened log continues the chain without an extra checkpoint when it ended in one', async () => {
    const path = await signedLog(2);
    await signedLog(1, path);
    const phases = (await linesOf(path)).map(phaseOf);
    assert.deepEqual(phases.map((p) => (p === 'checkpoint' ? 'C' : 'e')).join(''), 'CeeCeC');
    assert.equal((await verifySigned(path)).ok, true);
  });

  // Each rewrite an attacker with the server's Unix user (but not the key) can make, and what verify says.
  const rewrites: { name: string; rewrite: (path: string) => Promise<void>; reason: RegExp }[] = [
    {
      name: 'cutting the tail back to an earlier checkpoint',
      rewrite: async (path) => writeFile(path, text((await linesOf(path)).slice(0, 11))),
      reason: /ends at line 11 but the checkpoint file covers line 14: the log was cut back/,
    },
    {
      name: 'cutting the tail and the checkpoint file with it',
      rewrite: async (path) => {
        await writeFile(path, text((await linesOf(path)).slice(0, 11)));
        await unlink(checkpointPathOf(path));
      },
      reason: /checkpoint file is missing/,
    },
    {
      name: 'emptying the file',
      rewrite: async (path) => writeFile(path, ''),
      reason: /no signed checkpoint in the log/,
    },
    {
      name: 'rewriting an event and rechaining the whole file',
      rewrite: async (path) => {
        const lines = (await linesOf(path)).map((l, i) =>
          i === 2 ? l.replace('"decision":"deny"', '"decision":"allow"') : l,
        );
        await writeFile(path, text(rechain(lines)));
      },
      reason: /line 6: signed checkpoint: its signature does not verify/,
    },
    {
      name: 'replacing the file with a fresh valid chain (no key)',
      rewrite: async (path) => {
        await rm(path);
        const log = await AuditLog.open(path);
        for (let n = 1; n <= 14; n += 1) await log.append(sampleEvent(n, { tool: 'gitea_repos_get' }));
        await log.close();
      },
      reason: /no signed checkpoint in the log/,
    },
    {
      name: 'replacing the file with a fresh chain that copies the old checkpoint lines',
      rewrite: async (path) => {
        const lines = await linesOf(path);
        const forged = lines.map((l) =>
          phaseOf(l) === 'checkpoint' ? l : l.replace('"tool":"gitea_pulls_merge"', '"tool":"gitea_repos_get"'),
        );
        await writeFile(path, text(rechain(forged)));
      },
      reason: /signed checkpoint: its signature does not verify/,
    },
    {
      name: 'appending a forged event after the last checkpoint',
      rewrite: async (path) => {
        const lines = await linesOf(path);
        const forged = sealEvent(
          sampleEvent(15),
          '2025-01-01T00:01:00.000Z',
          lines.length + 1,
          sha256Hex(lines.at(-1) ?? ''),
        ).line;
        await writeFile(path, text([...lines, forged]));
      },
      reason: /line 15: lines 15 to 15 come after the last signed checkpoint/,
    },
    {
      name: 'editing the last event with its hash (and the checkpoint after it) recomputed',
      rewrite: async (path) => {
        const lines = (await linesOf(path)).map((l, i) =>
          i === 12 ? l.replace('"reason":"self_merge"', '"reason":null') : l,
        );
        await writeFile(path, text(rechain(lines)));
      },
      reason: /line 14: signed checkpoint: its signature does not verify/,
    },
    {
      name: 'deleting the checkpoint file',
      rewrite: async (path) => unlink(checkpointPathOf(path)),
      reason: /checkpoint file is missing/,
    },
    {
      name: 'replacing the log and its checkpoint file with another signed log',
      rewrite: async (path) => {
        const other = await signedLog(6);
        await writeFile(path, await readFile(other, 'utf8'));
      },
      reason:
        /the log ends at line 9 but the checkpoint file covers line 14|is not the checkpoint the checkpoint file holds/,
    },
  ];

  for (const { name, rewrite, reason } of rewrites) {
    test(`verify fails for ${name}`, async () => {
      const path = await signedLog(10);
      await rewrite(path);
      const result = await verifySigned(path);
      assert.equal(result.ok, false);
      assert.match(`line ${result.firstBroken?.line}: ${result.firstBroken?.reason}`, reason);
    });
  }

  test('a checkpoint signed by another key fails with the key ids named', async () => {
    const path = await signedLog(3);
    const other = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) as string;
    const result = verifyAuditLog(await readFile(path, 'utf8'), {
      publicKey: publicKeyFromPem(other, 'other'),
      checkpointCopy: await readFile(checkpointPathOf(path), 'utf8'),
    });
    assert.match(result.firstBroken?.reason ?? '', /signed by key [0-9a-f]{16}, not by the given public key/);
  });

  test('a live log (no closing checkpoint yet) passes with allowUnsignedTail, and fails without', async () => {
    const path = freshPath();
    const log = await AuditLog.open(path, { signer, checkpointEvery: 100 });
    for (let n = 1; n <= 3; n += 1) await log.append(sampleEvent(n));
    assert.equal((await verifySigned(path, { allowUnsignedTail: true })).ok, true);
    assert.match((await verifySigned(path)).firstBroken?.reason ?? '', /come after the last signed checkpoint/);
    await log.close();
    assert.equal((await verifySigned(path)).ok, true);
  });

  test('lines written while no server ran are named by the next start checkpoint, and verify fails on them', async () => {
    const path = await signedLog(2);
    const lines = await linesOf(path);
    const forged = sealEvent(
      sampleEvent(9),
      '2025-01-01T00:01:00.000Z',
      lines.length + 1,
      sha256Hex(lines.at(-1) ?? ''),
    ).line;
    await writeFile(path, text([...lines, forged]));
    await signedLog(1, path);
    const result = await verifySigned(path);
    assert.match(
      result.firstBroken?.reason ?? '',
      /lines 5 to 5 were not covered by a signature when the server started again/,
    );
  });

  test('a writer refuses to continue a log cut back past its checkpoint file', async () => {
    const path = await signedLog(10);
    await writeFile(path, text((await linesOf(path)).slice(0, 11)));
    // The cut ends on a checkpoint line, so only the checkpoint file shows the cut.
    await assert.rejects(AuditLog.open(path, { signer }), AuditStartRefused);
    await writeFile(path, text((await linesOf(path)).slice(0, 9)));
    await assert.rejects(AuditLog.open(path, { signer }), /checkpoint file covers line 14/);
  });
});

describe('gitea-warden audit keygen and verify --public-key', () => {
  const cli = (...args: string[]) => spawnSync(process.execPath, [...CLI_ARGS, 'audit', ...args], { encoding: 'utf8' });

  test('keygen writes a key pair that signs and verifies; verify prints the first broken line and exits 1', async () => {
    const keys = await mkdtemp(join(dir, 'keys-'));
    const privateKey = join(keys, 'audit-signing.pem');
    const publicKey = join(keys, 'audit-signing.pub.pem');
    const made = cli('keygen', '--private-key', privateKey, '--public-key', publicKey);
    assert.equal(made.status, 0, made.stderr);
    assert.equal(statSync(privateKey).mode & 0o777, 0o600);
    assert.equal(
      cli('keygen', '--private-key', privateKey, '--public-key', publicKey).status,
      2,
      'an existing key is never overwritten',
    );

    const path = freshPath();
    const log = await AuditLog.open(path, {
      signer: signerFromPem(await readFile(privateKey, 'utf8'), 'k'),
      checkpointEvery: 4,
    });
    for (let n = 1; n <= 5; n += 1) await log.append(sampleEvent(n));
    await log.close();
    const ok = cli('verify', path, '--public-key', publicKey);
    assert.equal(ok.status, 0, ok.stdout);
    assert.equal(ok.stdout, 'ok: 8 events, chain intact, 3 signed checkpoints cover lines 1 to 8\n');

    await unlink(checkpointPathOf(path));
    const missing = cli('verify', path, '--public-key', publicKey);
    assert.equal(missing.status, 1);
    assert.match(missing.stdout, /^broken: line 8: the checkpoint file is missing/);
    assert.equal(
      cli('verify', path, '--public-key', privateKey).status,
      2,
      'a private key is refused as the verify key',
    );
  });
});
