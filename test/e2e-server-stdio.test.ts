// End to end over stdio: real `gitea-warden serve` processes, one per namespace, against the sandbox,
// driven by the official MCP SDK client.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProtocolError } from '@modelcontextprotocol/client';
import { type Sandbox } from '../src/sandbox/index.js';
import {
  CLI_ARGS,
  connectStdio,
  namespaceEnv,
  payloadOf,
  repoRoot,
  tempDir,
  toolNames,
  type Connected,
} from './support/namespace.js';
import { startContractSandbox, type ContractSandbox } from './support/spec-contract.js';

let sandbox: ContractSandbox;
const dir = tempDir('warden-e2e-stdio-');
const open: Connected[] = [];

async function namespace(
  profile: string,
  options: { tokenOf?: string; auditLog?: string; extra?: Record<string, string> } = {},
): Promise<Connected> {
  const env = namespaceEnv(sandbox, profile, {
    auditLog: options.auditLog ?? join(dir.path, `${profile}.jsonl`),
    ...options,
  });
  const connected = await connectStdio(env);
  open.push(connected);
  return connected;
}

/**
 * Sandbox requests made while `action` ran, but for a namespace's background identity check (GET
 * /user), which runs after start whatever the call (before() waits for it where a tool can).
 */
async function requestsDuring(action: () => Promise<unknown>): Promise<number> {
  const before = sandbox.requests.length;
  await action();
  return sandbox.requests.slice(before).filter((r) => !(r.method === 'GET' && r.path === '/api/v1/user')).length;
}

let author: Connected;
let reviewer: Connected;
let reconciler: Connected;
/** gitea-author with LIST_DENIED_TOOLS. */
let listingDenied: Connected;
/** gitea-author holding bob's token. */
let wrongToken: Connected;
/** gitea-author whose audit log cannot be written. */
let blind: Connected;

before(async () => {
  sandbox = await startContractSandbox();
  const notADir = join(dir.path, 'plain-file');
  writeFileSync(notADir, 'not a directory');
  // Every namespace of the file starts at once: a process start costs far more than any test here.
  [author, reviewer, reconciler, listingDenied, wrongToken, blind] = await Promise.all([
    namespace('gitea-author'),
    namespace('gitea-reviewer'),
    namespace('gitea-reconciler'),
    namespace('gitea-author', { auditLog: join(dir.path, 'debug.jsonl'), extra: { LIST_DENIED_TOOLS: 'true' } }),
    namespace('gitea-author', { tokenOf: 'bob', auditLog: join(dir.path, 'mismatch.jsonl') }),
    namespace('gitea-author', { auditLog: join(notADir, 'audit.jsonl') }),
  ]);
});

after(async () => {
  await Promise.all(open.map((c) => c.close()));
  await sandbox.close();
  dir.dispose();
});

describe('tools/list per profile', () => {
  test('each role lists its own tools, and never more than 128', async () => {
    const lists = {
      author: await toolNames(author.client),
      reviewer: await toolNames(reviewer.client),
      reconciler: await toolNames(reconciler.client),
    };
    const table: Array<[keyof typeof lists, string, boolean]> = [
      ['reviewer', 'gitea_pulls_create_review', true],
      ['reviewer', 'gitea_pulls_merge', false],
      ['author', 'gitea_pulls_create_review', false],
      ['author', 'gitea_pulls_merge', false],
      ['author', 'gitea_pulls_create', true],
      ['author', 'gitea_comments_create', true],
      ['reconciler', 'gitea_pulls_merge', false],
      ['reconciler', 'gitea_pulls_create', false],
      ['reconciler', 'gitea_branches_delete', false],
      ['reconciler', 'gitea_cleanup_merged_pr_branch', true],
    ];
    for (const [who, tool, listed] of table)
      assert.equal(lists[who].includes(tool), listed, `${who} lists ${tool}: expected ${listed}`);
    for (const [who, names] of Object.entries(lists)) {
      assert.ok(names.length <= 128, `${who} lists ${names.length} tools`);
      for (const builtin of ['gitea_whoami', 'gitea_server_status', 'gitea_api_request'])
        assert.ok(names.includes(builtin), `${who} lists ${builtin}`);
    }
  });

  test('LIST_DENIED_TOOLS lists tools the profile can never use', async () => {
    const names = await toolNames(listingDenied.client);
    assert.ok(names.includes('gitea_pulls_merge'));
    assert.ok(names.length > (await toolNames(author.client)).length);
    const denied = await listingDenied.client.callTool({
      name: 'gitea_pulls_merge',
      arguments: { owner: 'acme', repo: 'widgets', index: 1, body: { do: 'merge' } },
    });
    assert.equal(payloadOf(denied).error.kind, 'policy_denied');
  });

  test('tools carry annotations; Gitea tools are open-world', async () => {
    const { tools } = await author.client.listTools();
    // A listing sends only the hints that differ from MCP's defaults (readOnly false, destructive true, openWorld true;
    // destructive means nothing for a read-only tool).
    const hints = (name: string) => {
      const annotations = tools.find((t) => t.name === name)?.annotations;
      const readOnly = annotations?.readOnlyHint ?? false;
      return {
        readOnly,
        destructive: readOnly ? null : (annotations?.destructiveHint ?? true),
        openWorld: annotations?.openWorldHint ?? true,
      };
    };
    assert.deepEqual(hints('gitea_repos_get'), { readOnly: true, destructive: null, openWorld: true });
    assert.deepEqual(hints('gitea_pulls_create'), { readOnly: false, destructive: false, openWorld: true });
    assert.deepEqual(hints('gitea_contents_delete_file'), { readOnly: false, destructive: true, openWorld: true });
    assert.deepEqual(hints('gitea_whoami'), { readOnly: true, destructive: null, openWorld: false });
    assert.equal(tools.find((t) => t.name === 'gitea_repos_get')?.inputSchema.type, 'object');
  });
});

describe('the author cannot approve or merge its own pull request', () => {
  const merge = { owner: 'acme', repo: 'widgets', index: 1, body: { do: 'merge', head_commit_id: 'abc' } };
  test('the generated merge and review tools are unknown to the author', async () => {
    for (const name of ['gitea_pulls_merge', 'gitea_pulls_create_review']) {
      await assert.rejects(
        author.client.callTool({ name, arguments: merge }),
        (error: unknown) => error instanceof ProtocolError && /Unknown tool/.test(error.message),
      );
    }
  });

  const rawCases: Array<[string, Record<string, unknown>, string]> = [
    [
      'raw merge',
      { method: 'POST', path: '/repos/acme/widgets/pulls/1/merge', body: { do: 'merge' } },
      'gitea.pr.merge',
    ],
    [
      'raw approve',
      { method: 'POST', path: '/api/v1/repos/acme/widgets/pulls/1/reviews', body: { event: 'APPROVED', body: 'lgtm' } },
      'gitea.pr.approve',
    ],
  ];
  for (const [label, args, operation] of rawCases) {
    test(`${label} through gitea_api_request is denied before any Gitea request`, async () => {
      let result: unknown;
      const made = await requestsDuring(
        async () => (result = await author.client.callTool({ name: 'gitea_api_request', arguments: args })),
      );
      assert.equal(made, 0);
      const error = payloadOf(result).error;
      assert.equal(error.kind, 'policy_denied');
      assert.equal(error.reason, 'forbidden');
      assert.equal(error.operation, operation);
      assert.match(error.determining.entry, /^profiles\/gitea-author\.yaml:\d+$/);
      assert.ok(error.hint);
    });
  }

  test('sudo without gitea.admin.sudo is denied, also for an allowed operation', async () => {
    let result: unknown;
    const made = await requestsDuring(async () => {
      result = await author.client.callTool({
        name: 'gitea_comments_create',
        arguments: { owner: 'acme', repo: 'widgets', index: 1, sudo: 'bob', body: { body: 'as bob' } },
      });
    });
    assert.equal(made, 0);
    const error = payloadOf(result).error;
    assert.equal(error.kind, 'policy_denied');
    assert.ok(error.operations.includes('gitea.admin.sudo'));
  });

  test('the reviewer may not review through a path with percent-encoding or no operation', async () => {
    for (const path of ['/repos/acme/widgets/pulls/1%2Fmerge', '/repos/acme/widgets/nothing/here']) {
      const result = await reviewer.client.callTool({ name: 'gitea_api_request', arguments: { method: 'POST', path } });
      assert.equal(result.isError, true);
      assert.equal(payloadOf(result).error.kind, 'no_route');
    }
  });
});

describe('arguments', () => {
  test('validation errors name the path and never echo the value', async () => {
    const secret = 'ghp_S3cretTokenValue0123456789abcdef';
    const result = await author.client.callTool({
      name: 'gitea_comments_create',
      arguments: { owner: 'acme', repo: 'widgets', index: secret, body: { body: 'x', extra: secret } },
    });
    assert.equal(result.isError, true);
    const error = payloadOf(result).error;
    assert.equal(error.kind, 'invalid_arguments');
    assert.ok(error.errors.some((e: { path: string }) => e.path === '/index'));
    assert.ok(error.errors.some((e: { path: string }) => e.path === '/body/extra'));
    assert.ok(!JSON.stringify(result).includes(secret));
  });
});

describe('a write through the author', () => {
  test('commenting on an issue returns the envelope', async () => {
    const result = await author.client.callTool({
      name: 'gitea_comments_create',
      arguments: { owner: 'acme', repo: 'widgets', index: 3, body: { body: 'I can reproduce this.' } },
    });
    assert.equal(result.isError, false, JSON.stringify(result));
    const payload = payloadOf(result);
    assert.deepEqual(payload.identity, { login: 'alice', mode: 'token', sudo: null });
    assert.deepEqual(payload.request, { method: 'POST', path: '/repos/acme/widgets/issues/3/comments' });
    assert.equal(payload.status, 201);
    assert.equal(payload.data.body, 'I can reproduce this.');
    assert.ok(payload.untrusted_content);
    const [content] = result.content as Array<{ type: string; text: string }>;
    assert.deepEqual(JSON.parse(content?.text ?? 'null'), payload);
  });

  test('the same read through gitea_api_request and the generated tool', async () => {
    const raw = await author.client.callTool({
      name: 'gitea_api_request',
      arguments: { method: 'GET', path: '/repos/acme/widgets/issues/3/comments' },
    });
    const generated = await author.client.callTool({
      name: 'gitea_comments_list',
      arguments: { owner: 'acme', repo: 'widgets', index: 3 },
    });
    assert.equal(raw.isError, false, JSON.stringify(raw));
    assert.deepEqual(payloadOf(raw).data, payloadOf(generated).data);
  });
});

describe('built-in tools', () => {
  test('whoami names the verified login, profile and role, never the token', async () => {
    const result = await author.client.callTool({ name: 'gitea_whoami', arguments: {} });
    const payload = payloadOf(result);
    assert.deepEqual(
      { login: payload.login, verified: payload.verified, profile: payload.profile, role: payload.role },
      { login: 'alice', verified: true, profile: 'gitea-author', role: 'author' },
    );
    assert.ok(!JSON.stringify(result).includes(sandbox.users.alice?.token ?? 'none'));
  });

  test('server_status hashes the profile and policies', async () => {
    const payload = payloadOf(await author.client.callTool({ name: 'gitea_server_status', arguments: {} }));
    assert.equal(payload.restart_required, false);
    assert.ok(payload.files.some((f: { path: string }) => f.path === 'profiles/gitea-author.yaml'));
    assert.ok(payload.files.every((f: { sha256: string }) => /^[0-9a-f]{64}$/.test(f.sha256)));
  });
});

describe('identity', () => {
  test('a token of another user: mutations fail identity_mismatch, reads proceed', async () => {
    const wrong = wrongToken;
    const whoami = payloadOf(await wrong.client.callTool({ name: 'gitea_whoami', arguments: {} }));
    assert.deepEqual(
      { login: whoami.login, verification: whoami.verification },
      { login: 'bob', verification: 'mismatch' },
    );
    let write: unknown;
    const made = await requestsDuring(async () => {
      write = await wrong.client.callTool({
        name: 'gitea_comments_create',
        arguments: { owner: 'acme', repo: 'widgets', index: 3, body: { body: 'hi' } },
      });
    });
    assert.equal(made, 0);
    assert.equal(payloadOf(write).error.kind, 'identity_mismatch');
    const read = await wrong.client.callTool({
      name: 'gitea_repos_get',
      arguments: { owner: 'acme', repo: 'widgets' },
    });
    assert.equal(read.isError, false);
  });
});

describe('audit', () => {
  test('an unwritable audit log refuses calls and makes no Gitea request', async () => {
    let result: unknown;
    const made = await requestsDuring(async () => {
      result = await blind.client.callTool({
        name: 'gitea_comments_create',
        arguments: { owner: 'acme', repo: 'widgets', index: 3, body: { body: 'unaudited' } },
      });
    });
    assert.equal(made, 0);
    assert.equal(payloadOf(result).error.kind, 'audit_unavailable');
  });

  test('every call writes a write-ahead and a result event; a tampered log fails audit verify', async () => {
    const log = join(dir.path, 'gitea-author.jsonl');
    const events = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { call_id: string; phase: string; tool: string; argument_names: string[] });
    const byCall = new Map<string, string[]>();
    for (const e of events) byCall.set(e.call_id, [...(byCall.get(e.call_id) ?? []), e.phase]);
    for (const phases of byCall.values()) assert.deepEqual(phases, ['write_ahead', 'result']);
    assert.ok(!readFileSync(log, 'utf8').includes('I can reproduce this.'), 'argument values stay out of the log');
    const verify = (file: string) =>
      spawnSync(process.execPath, [...CLI_ARGS, 'audit', 'verify', file], {
        cwd: repoRoot,
        encoding: 'utf8',
      });
    assert.equal(verify(log).status, 0);
    const tampered = join(dir.path, 'tampered.jsonl');
    writeFileSync(tampered, readFileSync(log, 'utf8').replace('"decision":"deny"', '"decision":"allow"'));
    assert.notEqual(verify(tampered).status, 0);
  });
});

test('every answer the sandbox gave in this file conforms to the pinned Gitea spec', () => {
  sandbox.assertConformed();
});
