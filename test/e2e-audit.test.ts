// The audit log under real `serve` processes: a log deleted or renamed under a running server
// refuses the next call; two processes with one profile both serve and each log verifies; a named
// log held by another process refuses with the holder and the fix; a signed log verifies with the
// public key once the server stopped.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CLI_ARGS,
  connectStdio,
  namespaceEnv,
  payloadOf,
  repoRoot,
  tempDir,
  type Connected,
} from './support/namespace.js';
import { startContractSandbox, type ContractSandbox } from './support/spec-contract.js';

let sandbox: ContractSandbox;
const dir = tempDir('warden-e2e-audit-');

before(async () => {
  sandbox = await startContractSandbox();
});
after(async () => {
  await sandbox.close();
  dir.dispose();
});

const comment = (text: string) => ({
  name: 'gitea_comments_create',
  arguments: { owner: 'acme', repo: 'widgets', index: 3, body: { body: text } },
});
const commentsReached = () =>
  sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/issues/3/comments')).length;

function cli(...args: string[]) {
  return spawnSync(process.execPath, [...CLI_ARGS, ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
}

describe('a log taken away under a running server', () => {
  for (const how of ['deleted', 'renamed'] as const) {
    test(`${how}: the next call is refused before Gitea, naming the cause and the fix`, async () => {
      const auditLog = join(dir.path, `taken-${how}.jsonl`);
      const author: Connected = await connectStdio(namespaceEnv(sandbox, 'gitea-author', { auditLog }));
      try {
        assert.equal((await author.client.callTool(comment('before'))).isError, false);
        if (how === 'deleted') await unlink(auditLog);
        else await rename(auditLog, `${auditLog}.elsewhere`);
        const before = commentsReached();
        const refused = await author.client.callTool(comment('after'));
        assert.equal(commentsReached(), before, 'the call reached Gitea');
        const error = payloadOf(refused).error;
        assert.equal(error.kind, 'audit_unavailable');
        assert.match(error.hint, /deleted or renamed while the server ran/);
        assert.match(error.hint, /restart the server/);
        assert.equal((await author.client.callTool(comment('later'))).isError, true, 'every later call is refused too');
      } finally {
        await author.close();
      }
    });
  }
});

describe('several processes, one profile', () => {
  test('two serve processes with the default log both serve calls, and each log verifies', async () => {
    const state = join(dir.path, 'state');
    const envOf = () => {
      const env = { ...namespaceEnv(sandbox, 'gitea-author', { auditLog: 'unused' }), XDG_STATE_HOME: state };
      delete (env as Record<string, string>).AUDIT_LOG;
      return env;
    };
    const first = await connectStdio(envOf());
    const second = await connectStdio(envOf());
    try {
      const results = await Promise.all(
        [first, second].flatMap((ns, i) => [1, 2, 3].map((n) => ns.client.callTool(comment(`window ${i} call ${n}`)))),
      );
      assert.ok(
        results.every((r) => r.isError === false),
        JSON.stringify(results.find((r) => r.isError)),
      );
    } finally {
      await first.close();
      await second.close();
    }
    const logs = readdirSync(join(state, 'gitea-warden'))
      .filter((f) => f.endsWith('.jsonl'))
      .sort();
    assert.deepEqual(logs, ['audit-gitea-author.2.jsonl', 'audit-gitea-author.jsonl']);
    for (const log of logs) {
      const verified = cli('audit', 'verify', join(state, 'gitea-warden', log));
      assert.equal(verified.status, 0, verified.stdout);
      assert.match(verified.stdout, /^ok: 6 events/);
    }
  });

  test('an AUDIT_LOG held by another process refuses calls, naming that process and the fix', async () => {
    const auditLog = join(dir.path, 'named.jsonl');
    const first = await connectStdio(namespaceEnv(sandbox, 'gitea-author', { auditLog }));
    const second = await connectStdio(namespaceEnv(sandbox, 'gitea-author', { auditLog }));
    try {
      assert.equal((await first.client.callTool(comment('first'))).isError, false);
      const error = payloadOf(await second.client.callTool(comment('second'))).error;
      assert.equal(error.kind, 'audit_unavailable');
      assert.match(error.hint, /held by process \d+/);
      assert.match(error.hint, /give this namespace its own AUDIT_LOG, or leave AUDIT_LOG unset/);
    } finally {
      await first.close();
      await second.close();
    }
  });
});

describe('signed checkpoints from a running server', () => {
  test('AUDIT_SIGNING_KEY_FILE: the stopped server leaves a log that verify --public-key passes', async () => {
    const privateKey = join(dir.path, 'signing.pem');
    const publicKey = join(dir.path, 'signing.pub.pem');
    assert.equal(cli('audit', 'keygen', '--private-key', privateKey, '--public-key', publicKey).status, 0);
    const auditLog = join(dir.path, 'signed.jsonl');
    const env = namespaceEnv(sandbox, 'gitea-author', {
      auditLog,
      extra: { AUDIT_SIGNING_KEY_FILE: privateKey, AUDIT_CHECKPOINT_EVERY: '3' },
    });
    const author = await connectStdio(env);
    try {
      for (const n of [1, 2, 3]) assert.equal((await author.client.callTool(comment(`signed ${n}`))).isError, false);
      const live = cli('audit', 'verify', auditLog, '--public-key', publicKey, '--allow-unsigned-tail');
      assert.equal(live.status, 0, live.stdout);
    } finally {
      await author.close();
    }
    assert.ok(existsSync(`${auditLog}.checkpoint`));
    const verified = cli('audit', 'verify', auditLog, '--public-key', publicKey);
    assert.equal(verified.status, 0, verified.stdout);
    assert.match(verified.stdout, /signed checkpoints cover lines 1 to \d+/);
  });

  test('an unreadable signing key refuses every call, naming AUDIT_SIGNING_KEY_FILE', async () => {
    const env = namespaceEnv(sandbox, 'gitea-author', {
      auditLog: join(dir.path, 'nokey.jsonl'),
      extra: { AUDIT_SIGNING_KEY_FILE: join(dir.path, 'missing.pem') },
    });
    const author = await connectStdio(env);
    try {
      const error = payloadOf(await author.client.callTool(comment('unsigned'))).error;
      assert.equal(error.kind, 'audit_unavailable');
      assert.match(error.hint, /AUDIT_SIGNING_KEY_FILE .*missing\.pem cannot be read \(ENOENT\)/);
    } finally {
      await author.close();
    }
  });
});
