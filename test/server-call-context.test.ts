// One typed context per tools/call: the server's own code reads what a call names (owner, repo,
// number, sudo, the expected head) from its arguments once, in src/server/call/call-context.ts, and every
// later stage takes it from the context. The stages are listed in the pipeline's header from the code.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { CALL_STAGES, handleToolCall } from '../src/server/call/pipeline.js';
import type { Namespace } from '../src/server/session.js';
import { packageRoot, shownPath } from '../src/shared/paths.js';
import { payloadOf, tempDir } from './support/namespace.js';
import { openNamespace } from './support/in-process.js';
import { startContractSandbox, type ContractSandbox } from './support/spec-contract.js';

const pipelineFile = join(packageRoot, 'src', 'server', 'call', 'pipeline.ts');

function lineOf(file: string, pattern: RegExp): number {
  const index = readFileSync(join(packageRoot, file), 'utf8')
    .split('\n')
    .findIndex((line) => pattern.test(line));
  assert.ok(index >= 0, `${pattern} is not in ${file}`);
  return index + 1;
}

describe('the call stages', () => {
  test("the pipeline's header lists CALL_STAGES, in order, with modules that exist", () => {
    const width = Math.max(...CALL_STAGES.map((s) => s.does.length));
    const expected = CALL_STAGES.map(
      (s, i) => `//${String(i + 1).padStart(4)} ${s.stage.padEnd(12)} ${s.does.padEnd(width)}  ${s.module}`,
    );
    const header = readFileSync(pipelineFile, 'utf8')
      .split('\n')
      .slice(1, 1 + CALL_STAGES.length);
    assert.deepEqual(header, expected);
    for (const { module } of CALL_STAGES)
      assert.ok(existsSync(join(dirname(pipelineFile), module)), `${module} does not exist`);
  });
});

describe('a tools/call reads its arguments once', () => {
  const dir = tempDir('warden-call-context-');
  let sandbox: ContractSandbox;
  let merger: Namespace;
  let reconciler: Namespace;
  let author: Namespace;

  before(async () => {
    sandbox = await startContractSandbox();
    merger = await openNamespace({
      GITEA_URL: sandbox.url,
      GITEA_MCP_PROFILE: 'gitea-merger',
      GITEA_MERGER_TOKEN: sandbox.users.carol?.token ?? '',
      AUDIT_LOG: join(dir.path, 'merger.jsonl'),
    });
    reconciler = await openNamespace({
      GITEA_URL: sandbox.url,
      GITEA_MCP_PROFILE: 'gitea-reconciler',
      GITEA_RECONCILER_TOKEN: sandbox.users.dave?.token ?? '',
      AUDIT_LOG: join(dir.path, 'reconciler.jsonl'),
    });
    author = await openNamespace({
      GITEA_URL: sandbox.url,
      GITEA_MCP_PROFILE: 'gitea-author',
      GITEA_AUTHOR_TOKEN: sandbox.users.alice?.token ?? '',
      AUDIT_LOG: join(dir.path, 'author.jsonl'),
    });
  });
  after(async () => {
    await merger.session.audit.close();
    await reconciler.session.audit.close();
    await author.session.audit.close();
    await sandbox.close();
    dir.dispose();
  });

  /** The arguments behind a proxy that notes which src/server module read which named field. */
  function watched(args: Record<string, unknown>): { args: Record<string, unknown>; reads: string[] } {
    const reads: string[] = [];
    const named = new Set(['owner', 'repo', 'index', 'pr_number', 'sudo', 'body']);
    const proxy = new Proxy(args, {
      get(target, key, receiver) {
        if (typeof key === 'string' && named.has(key)) {
          // Frame 0 is this trap; frame 1 is the code that read the field.
          const caller = (new Error().stack ?? '').split('\n')[2] ?? '';
          const file =
            /\((?:file:\/\/)?([^():]+):\d+:\d+\)$/.exec(caller)?.[1] ??
            /at (?:file:\/\/)?([^():]+):\d+:\d+$/.exec(caller)?.[1] ??
            caller;
          const shown = relative(packageRoot, file);
          if (shown.startsWith('src/server/')) reads.push(`${shown} ${key}`);
        }
        return Reflect.get(target, key, receiver);
      },
    });
    return { args: proxy, reads };
  }

  test('a merge (guarded, live facts read): the server reads each named field once, in the context', async () => {
    const { args, reads } = watched({
      owner: 'acme',
      repo: 'widgets',
      index: 1,
      body: { do: 'merge', head_commit_id: 'f'.repeat(40) },
    });
    const before = sandbox.requests.length;
    const payload = payloadOf(await handleToolCall(merger, 'gitea_pulls_merge', args));
    assert.equal(payload.error?.kind, 'policy_denied', JSON.stringify(payload)); // the merge guard judged it (stale head)
    const pullReads = sandbox.requests
      .slice(before)
      .filter((r) => r.method === 'GET' && r.path === '/api/v1/repos/acme/widgets/pulls/1');
    assert.equal(pullReads.length, 1);
    const context = 'src/server/call/call-context.ts';
    assert.deepEqual(reads.sort(), [
      `${context} body`,
      `${context} index`,
      `${context} owner`,
      `${context} repo`,
      `${context} sudo`,
    ]);
    // The guard's denial cites the policy line that makes it judge a merge.
    assert.deepEqual(
      payload.error.determining.entry,
      `${shownPath(join(packageRoot, 'policies', 'guards.yaml'))}:${lineOf('policies/guards.yaml', /^\s+merge: \[gitea\.pr\.merge\b/)}`,
    );
  });

  test('a call the lists deny names the reference namespace that holds the operation (hint holders, read on first use)', async () => {
    const payload = payloadOf(
      await handleToolCall(author, 'gitea_api_request', {
        method: 'POST',
        path: '/repos/acme/widgets/pulls/1/merge',
        body: { do: 'merge' },
      }),
    );
    assert.equal(payload.error?.kind, 'policy_denied', JSON.stringify(payload));
    assert.match(payload.error.hint, /use the gitea-merger namespace, which holds gitea\.pr\.merge/);
  });

  test('a push to a protected branch cites the protected_branches line of policies/targets.yaml', async () => {
    const payload = payloadOf(
      await handleToolCall(author, 'gitea_api_request', {
        method: 'PUT',
        path: '/repos/acme/widgets/branches/main',
        body: { new_commit_id: 'a'.repeat(40) },
      }),
    );
    assert.equal(payload.error?.kind, 'policy_denied', JSON.stringify(payload));
    const failed = payload.error.failed.find((f: { code: string }) => f.code === 'protected_branch');
    assert.ok(failed, JSON.stringify(payload.error));
    assert.match(failed.message, /protected_branches: main/);
    const line = lineOf('policies/targets.yaml', /^protected_branches:/);
    assert.deepEqual(failed.entry, {
      file: shownPath(join(packageRoot, 'policies', 'targets.yaml')),
      line,
      rule: 'protected_branches: main',
    });
  });

  test('a built-in tool naming a pull request by pr_number: the context reads it, the tool takes it from there', async () => {
    const { args, reads } = watched({ owner: 'acme', repo: 'widgets', pr_number: 1 });
    const payload = payloadOf(await handleToolCall(reconciler, 'gitea_reconcile_already_landed_pr', args));
    assert.equal(payload.error?.report?.checks?.length > 0, true, JSON.stringify(payload)); // refused: PR #1 has not landed
    const context = 'src/server/call/call-context.ts';
    assert.deepEqual(reads.sort(), [
      `${context} body`,
      `${context} index`,
      `${context} owner`,
      `${context} pr_number`,
      `${context} repo`,
      `${context} sudo`,
    ]);
  });
});
