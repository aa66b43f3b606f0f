// The signed audit log across restarts of a real `serve` process, against an attacker with a shell
// as the server's user who never reads the signing key: the attacker's code below gets the log's
// path only (the key, its directory and the high-water mark there are the operator's). Each way
// through of issue 25 is refused at the next start and `audit verify --public-key` fails; the
// legitimate restarts still work: after a clean shutdown, after a crash (the unsigned tail named),
// and a new log on purpose after `audit new-log`.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { canonicalJson, GENESIS_PREV, sealEvent, sha256Hex } from '../src/audit/chain.js';
import {
  CLI_ARGS,
  connectHttp,
  namespaceEnv,
  payloadOf,
  repoRoot,
  spawnHttpNamespace,
  tempDir,
  type HttpNamespace,
} from './support/namespace.js';
import { startContractSandbox, type ContractSandbox } from './support/spec-contract.js';

let sandbox: ContractSandbox;
const dir = tempDir('warden-e2e-restart-');
/** The operator's: the attacker code never gets these paths. */
const keyDir = join(dir.path, 'operator-keys');
const keys = { private: join(keyDir, 'signing.pem'), public: join(keyDir, 'signing.pub.pem') };
let counter = 0;

before(async () => {
  sandbox = await startContractSandbox();
  await mkdir(keyDir, { mode: 0o700 });
  const made = cli('audit', 'keygen', '--private-key', keys.private, '--public-key', keys.public);
  assert.equal(made.status, 0, made.stderr);
});
after(async () => {
  await sandbox.close();
  dir.dispose();
});

function cli(...args: string[]) {
  return spawnSync(process.execPath, [...CLI_ARGS, ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
}

const freshLog = () => join(dir.path, `logs-${(counter += 1)}`, 'audit.jsonl');

function serverFor(auditLog: string, every = '4'): Promise<HttpNamespace> {
  return spawnHttpNamespace(
    namespaceEnv(sandbox, 'gitea-author', {
      auditLog,
      extra: { AUDIT_SIGNING_KEY_FILE: keys.private, AUDIT_CHECKPOINT_EVERY: every },
    }),
  );
}

const comment = (text: string) => ({
  name: 'gitea_comments_create',
  arguments: { owner: 'acme', repo: 'widgets', index: 3, body: { body: text } },
});
/** Refused by the author's profile (workflow files are out of its write paths): its result event says deny. */
const merge = {
  name: 'gitea_contents_create_file',
  arguments: {
    owner: 'acme',
    repo: 'widgets',
    filepath: '.gitea/workflows/exfiltrate.yml',
    body: { content: Buffer.from('on: push').toString('base64') },
  },
};

/** Runs calls through a server on `auditLog`, then stops it cleanly; returns the tool results' payloads. */
async function session(
  auditLog: string,
  calls: Array<{ name: string; arguments: Record<string, unknown> }>,
  every = '4',
) {
  const server = await serverFor(auditLog, every);
  const payloads: Record<string, any>[] = [];
  try {
    const connected = await connectHttp(server.url);
    try {
      for (const call of calls) payloads.push(payloadOf(await connected.client.callTool(call)));
    } finally {
      await connected.close();
    }
  } finally {
    await server.close();
  }
  return { payloads, stderr: server.stderr() };
}

function verify(auditLog: string) {
  return cli('audit', 'verify', auditLog, '--public-key', keys.public);
}

// ---- the attacker: the log's path, nothing else ----
const linesOf = async (path: string) => (await readFile(path, 'utf8')).trimEnd().split('\n');
const text = (lines: string[]) => lines.map((l) => `${l}\n`).join('');
const isCheckpoint = (line: string) => line.includes('"phase":"checkpoint"');

/** Recomputes seq, prev and hash of every line: a forger who knows the scheme but not the key. */
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

/** A merge result event sealed after the log's last line. */
function forgedMerge(lines: string[]): string {
  const event = {
    phase: 'result' as const,
    call_id: 'forged',
    profile: 'gitea-author',
    audit_label: 'gitea-author',
    login: 'alice',
    tool: 'gitea_pulls_merge',
    operation: 'gitea.pr.merge',
    decision: 'allow' as const,
    reason: 'allowed',
    target: { owner: 'acme', repo: 'widgets', index: 1 },
    status: 'ok' as const,
    http_status: 200,
    argument_names: ['body', 'index', 'owner', 'repo'],
  };
  return sealEvent(event, new Date().toISOString(), lines.length + 1, sha256Hex(lines.at(-1) ?? '')).line;
}

const attacks: Array<{
  name: string;
  attack: (log: string) => Promise<void>;
  refusal: RegExp;
  verifyFinds: RegExp | null;
}> = [
  {
    name: 'refused calls rewritten as allowed, checkpoints removed, the chain recomputed and an unsigned line as the copy',
    attack: async (log) => {
      const lines = (await linesOf(log))
        .filter((line) => !isCheckpoint(line))
        .map((line) => line.replace('"decision":"deny"', '"decision":"allow"'));
      const forged = rechain(lines);
      await writeFile(log, text(forged));
      await writeFile(`${log}.checkpoint`, `${forged.at(-1)}\n`);
    },
    refusal: /checkpoint file .* is not a checkpoint this key signed \(it holds no checkpoint\): it was forged/,
    verifyFinds: /no signed checkpoint in the log/,
  },
  {
    name: 'the same, with a checkpoint line copied from the log as the copy',
    attack: async (log) => {
      const original = await linesOf(log);
      const lines = original.map((line) => line.replace('"decision":"deny"', '"decision":"allow"'));
      const forged = rechain(lines);
      await writeFile(log, text(forged));
      await writeFile(`${log}.checkpoint`, `${forged.at(-1)}\n`);
    },
    refusal: /is not a checkpoint this key signed \(its signature does not verify/,
    verifyFinds: /signed checkpoint: its signature does not verify/,
  },
  {
    name: 'one forged merge appended after the shutdown checkpoint, and made the copy',
    attack: async (log) => {
      const lines = await linesOf(log);
      const forged = forgedMerge(lines);
      await writeFile(log, text([...lines, forged]));
      await writeFile(`${log}.checkpoint`, `${forged}\n`);
    },
    refusal: /is not a checkpoint this key signed/,
    verifyFinds: /the checkpoint file does not hold a checkpoint|come after the last signed checkpoint/,
  },
  {
    name: 'the log and its checkpoint file deleted',
    attack: async (log) => {
      await rm(log);
      await rm(`${log}.checkpoint`);
    },
    refusal:
      /the log is gone or empty, but the high-water mark .* says it held a signed chain through line \d+ \(it was deleted\)/,
    verifyFinds: null,
  },
  {
    name: 'the log and its checkpoint file replaced by another log signed with the same key',
    attack: async (log) => {
      // A log of the attacker's own making with the same key: an earlier run at another path.
      const other = join(log, '..', '..', 'other-run.jsonl');
      await copyFile(other, log);
      await copyFile(`${other}.checkpoint`, `${log}.checkpoint`);
    },
    refusal: /the log is another chain than the one the high-water mark .* records \(it was replaced\)/,
    verifyFinds: null, // a whole other signed log verifies on its own: only the mark beside the key tells
  },
  {
    name: 'the log and its checkpoint file rolled back to a copy saved earlier',
    attack: async (log) => {
      await copyFile(`${log}.saved`, log);
      await copyFile(`${log}.checkpoint.saved`, `${log}.checkpoint`);
    },
    refusal:
      /records a checkpoint at line \d+ that the log and its checkpoint file no longer reach \(they were rolled back/,
    verifyFinds: null, // an earlier signed state verifies on its own: only the mark beside the key tells
  },
];

describe('a restart after the log was tampered with, key out of reach', () => {
  for (const { name, attack, refusal, verifyFinds } of attacks) {
    test(`${name}: every call is refused, and nothing is signed over it`, async () => {
      const log = freshLog();
      await mkdir(join(log, '..'), { recursive: true });
      if (name.includes('another log')) await session(join(log, '..', '..', 'other-run.jsonl'), [comment('other')]);
      const first = await session(log, [merge, comment('one'), merge]);
      assert.ok(
        first.payloads[0]?.decision?.decision === 'deny' || first.payloads[0]?.error,
        JSON.stringify(first.payloads[0]),
      );
      if (name.includes('rolled back')) {
        await copyFile(log, `${log}.saved`);
        await copyFile(`${log}.checkpoint`, `${log}.checkpoint.saved`);
        await session(log, [comment('two')]);
      }
      assert.equal(verify(log).status, 0, verify(log).stdout);

      await attack(log);
      const tampered = await readFile(log, 'utf8').catch(() => '');
      const second = await session(log, [comment('after the attack')]);
      const error = second.payloads[0]?.error;
      assert.equal(error?.kind, 'audit_unavailable', JSON.stringify(second.payloads[0]));
      assert.match(error.hint, refusal);
      assert.match(error.hint, /refusing to append/);
      assert.equal(await readFile(log, 'utf8').catch(() => ''), tampered, 'the server wrote to the tampered log');
      if (verifyFinds !== null) {
        const verified = verify(log);
        assert.equal(verified.status, 1, verified.stdout);
        assert.match(verified.stdout, verifyFinds);
      }
    });
  }
});

describe('legitimate restarts', () => {
  test('after a clean shutdown the chain continues, and verifies', async () => {
    const log = freshLog();
    await session(log, [comment('first run'), merge]);
    const second = await session(log, [comment('second run')]);
    assert.equal(second.payloads[0]?.error, undefined, JSON.stringify(second.payloads[0]));
    assert.doesNotMatch(second.stderr, /not covered by a signature/);
    const verified = verify(log);
    assert.equal(verified.status, 0, verified.stdout);
  });

  test('after a crash the next start names the unsigned tail, as docs/audit.md says, and goes on', async () => {
    const log = freshLog();
    const crashing = await serverFor(log, '100');
    const connected = await connectHttp(crashing.url);
    for (const n of [1, 2]) await connected.client.callTool(comment(`before the crash ${n}`));
    crashing.child.kill('SIGKILL');
    await new Promise((resolve) => crashing.child.once('exit', resolve));
    await connected.close().catch(() => undefined);
    const lines = await linesOf(log);
    assert.equal(lines.filter(isCheckpoint).length, 1, 'only the start checkpoint was signed before the crash');

    const second = await session(log, [comment('after the crash')]);
    assert.equal(second.payloads[0]?.error, undefined, JSON.stringify(second.payloads[0]));
    assert.match(
      second.stderr,
      new RegExp(`lines 2 to ${lines.length} of the audit log were not covered by a signature`),
    );
    const verified = verify(log);
    assert.equal(verified.status, 1);
    assert.match(
      verified.stdout,
      new RegExp(`lines 2 to ${lines.length} were not covered by a signature when the server started again`),
    );
  });

  test('a new log where one was deleted, once the operator ran audit new-log with the key', async () => {
    const log = freshLog();
    await session(log, [comment('old chain')]);
    await rm(log);
    await rm(`${log}.checkpoint`);
    const refused = await session(log, [comment('refused')]);
    assert.equal(refused.payloads[0]?.error?.kind, 'audit_unavailable');

    const retired = cli('audit', 'new-log', log, '--signing-key', keys.private);
    assert.equal(retired.status, 0, retired.stderr);
    assert.match(
      retired.stdout,
      /retired the high-water mark .*signed through line \d+; the next start .* begins a new log/,
    );
    const fresh = await session(log, [comment('new chain')]);
    assert.equal(fresh.payloads[0]?.error, undefined, JSON.stringify(fresh.payloads[0]));
    assert.equal(verify(log).status, 0, verify(log).stdout);
    // The mark holds the new chain again: deleting this one is refused too.
    await rm(log);
    await rm(`${log}.checkpoint`);
    assert.equal((await session(log, [comment('again')])).payloads[0]?.error?.kind, 'audit_unavailable');
  });

  test('audit new-log refuses while the log is still there', () => {
    const log = join(dir.path, 'still-here.jsonl');
    spawnSync('touch', [log]);
    const refused = cli('audit', 'new-log', log, '--signing-key', keys.private);
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /still exists: move it aside first/);
  });
});
