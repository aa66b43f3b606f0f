// Issue 7 end to end: the live-fact guards and the guarded reconciler tools, through real
// namespaces loaded as `serve` loads them, against the sandbox, driven by the MCP SDK client over an
// in-memory transport (the stdio transport itself is e2e-server-stdio's; seven processes at once are
// too slow on a loaded machine).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { defaultSeed, type Sandbox } from '../src/sandbox/index.js';
import { namespaceEnv, payloadOf, repoRoot, tempDir, toolNames, type Connected } from './support/namespace.js';
import { connectInProcess } from './support/in-process.js';
import { startContractSandbox, type ContractSandbox } from './support/spec-contract.js';

const where = { owner: 'acme', repo: 'widgets' };
const dir = tempDir('warden-e2e-guards-');
const open: Connected[] = [];
let sandbox: ContractSandbox;
let author: Connected;
let reviewer: Connected;
let merger: Connected;
let reconciler: Connected;
let selfReviewer: Connected;
/** gitea-author under a config without allow_runtime_switching, and one with it. */
let staticAuthor: Connected;
let switchingAuthor: Connected;

let started = 0;
/** Each namespace's audit log. */
const auditLogs = new Map<Connected, string>();

async function namespace(profile: string, extra: Record<string, string> = {}): Promise<Connected> {
  // Its own log each: namespaces start in parallel, so the name is taken before any of them is up.
  const auditLog = join(dir.path, `${profile.replace(/\W/g, '_')}-${started++}.jsonl`);
  const connected = await connectInProcess(namespaceEnv(sandbox, profile, { auditLog, extra }));
  open.push(connected);
  auditLogs.set(connected, auditLog);
  return connected;
}

async function call(ns: Connected, name: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> {
  return payloadOf(await ns.client.callTool({ name, arguments: args }));
}

/** Sandbox requests matching method and path suffix made while `action` ran. */
async function requestsDuring(method: string, suffix: RegExp, action: () => Promise<unknown>): Promise<number> {
  const start = sandbox.requests.length;
  await action();
  return sandbox.requests.slice(start).filter((r) => r.method === method && suffix.test(r.path)).length;
}

async function pullHead(index: number): Promise<string> {
  const pull = await call(merger, 'gitea_pulls_get', { ...where, index });
  return pull.data.head.sha as string;
}

function failedCodes(payload: Record<string, any>): string[] {
  return (payload.error?.failed ?? []).map((f: { code: string }) => f.code);
}

before(async () => {
  const seed = defaultSeed();
  // PR #3: from dev, whose head (main's first commit) is already on main: landed, still open.
  seed.repos
    .find((r) => r.name === 'widgets')
    ?.pulls?.push({ title: 'Sync dev', author: 'alice', head: 'dev', base: 'main' });
  sandbox = await startContractSandbox({ seed });
  // Every namespace of the file starts at once: a process start costs far more than any test here.
  const switching = (allow: boolean) => ({
    GITEA_MCP_CONFIG: writeSwitchingConfig(allow),
    GITEA_REVIEWER_TOKEN: sandbox.users.bob?.token ?? '',
  });
  [author, reviewer, merger, reconciler, selfReviewer, staticAuthor, switchingAuthor] = await Promise.all([
    namespace('gitea-author'),
    namespace('gitea-reviewer'),
    namespace('gitea-merger'),
    namespace('gitea-reconciler'),
    namespace(writeSelfReviewerProfile(), { ALICE_TOKEN: sandbox.users.alice?.token ?? '' }),
    namespace('gitea-author', switching(false)),
    namespace('gitea-author', switching(true)),
  ]);
});

/** A reviewer profile that holds alice's token: the lists allow approving, only the self-review guard refuses. */
function writeSelfReviewerProfile(): string {
  const file = join(dir.path, 'alice-reviewer.yaml');
  writeFileSync(
    file,
    stringify({
      profile_name: 'alice-reviewer',
      role: 'reviewer',
      authenticated_username: 'alice',
      token_source_name: 'ALICE_TOKEN',
      allowed_operations: ['gitea.read', 'gitea.pr.approve'],
      forbidden_operations: ['gitea.pr.merge', 'gitea.pr.force_merge', 'gitea.branch.push', 'gitea.repo.commit'],
    }),
  );
  return file;
}

/** A multi-identity config (author and reviewer) with or without allow_runtime_switching. */
function writeSwitchingConfig(allow: boolean): string {
  const identity = (name: string) => parse(readFileSync(join(repoRoot, 'profiles', `${name}.yaml`), 'utf8'));
  const file = join(dir.path, `config-${allow}.yaml`);
  const identities = { author: identity('gitea-author'), reviewer: identity('gitea-reviewer') };
  writeFileSync(
    file,
    stringify({
      ...(allow ? { allow_runtime_switching: true } : {}),
      environments: { sandbox: { services: { gitea: { identities } } } },
    }),
  );
  return file;
}

after(async () => {
  await Promise.all(open.map((c) => c.close()));
  await sandbox.close();
  dir.dispose();
});

describe('self-review: the guard catches what the lists cannot', () => {
  test("a reviewer profile holding alice's token cannot approve alice's pull request", async () => {
    const head = await pullHead(1);
    let payload: Record<string, any> = {};
    const posts = await requestsDuring('POST', /\/pulls\/1\/reviews$/, async () => {
      payload = await call(selfReviewer, 'gitea_pulls_create_review', {
        ...where,
        index: 1,
        body: { event: 'APPROVED', commit_id: head },
      });
    });
    assert.equal(payload.error.kind, 'policy_denied');
    assert.equal(payload.error.reason, 'self_review');
    assert.ok(failedCodes(payload).includes('self_review'));
    assert.equal(posts, 0, 'no review request reached Gitea');
  });

  test('the author itself has no route to approve or merge: generated tool, raw tool, sudo', async () => {
    await assert.rejects(
      author.client.callTool({
        name: 'gitea_pulls_create_review',
        arguments: { ...where, index: 1, body: { event: 'APPROVED' } },
      }),
      /Unknown tool/,
    );
    const routes: Array<[string, Record<string, unknown>]> = [
      ['raw approve', { method: 'POST', path: '/repos/acme/widgets/pulls/1/reviews', body: { event: 'APPROVED' } }],
      ['raw merge', { method: 'POST', path: '/repos/acme/widgets/pulls/1/merge', body: { do: 'merge' } }],
      [
        'raw merge as sudo bob',
        { method: 'POST', path: '/repos/acme/widgets/pulls/1/merge', query: { sudo: 'carol' }, body: { do: 'merge' } },
      ],
    ];
    for (const [name, args] of routes) {
      const payload = await call(author, 'gitea_api_request', args);
      assert.equal(payload.error?.kind, 'policy_denied', name);
    }
  });
});

describe('merge guard: stale approvals and moved heads', () => {
  test('stale approval and moved head are refused; a fresh approval of the current head merges', async () => {
    const first = await pullHead(1);
    const approved = await call(reviewer, 'gitea_pulls_create_review', {
      ...where,
      index: 1,
      body: { event: 'APPROVED', commit_id: first },
    });
    assert.equal(approved.error, undefined, 'bob approves the first head');

    const pushed = await call(author, 'gitea_contents_create_file', {
      ...where,
      filepath: 'src/late.js',
      body: {
        content: Buffer.from('late\n').toString('base64'),
        branch: 'feature/login',
        message: 'A push after review',
      },
    });
    assert.equal(pushed.error, undefined, 'alice pushes to the head branch');
    const second = await pullHead(1);
    assert.notEqual(second, first);

    const merge = (head: string) =>
      call(merger, 'gitea_pulls_merge', { ...where, index: 1, body: { do: 'merge', head_commit_id: head } });
    let stale: Record<string, any> = {};
    const merges = await requestsDuring('POST', /\/pulls\/1\/merge$/, async () => {
      stale = await merge(second);
      const moved = await merge(first);
      assert.ok(failedCodes(moved).includes('head_sha_mismatch'), `moved head: ${failedCodes(moved)}`);
    });
    assert.ok(
      failedCodes(stale).some((code) => code === 'no_independent_approval' || code === 'approval_stale'),
      `stale: ${failedCodes(stale)}`,
    );
    assert.equal(merges, 0, 'no refused merge reached Gitea');

    const fresh = await call(reviewer, 'gitea_pulls_create_review', {
      ...where,
      index: 1,
      body: { event: 'APPROVED', commit_id: second },
    });
    assert.equal(fresh.error, undefined);
    // Scheduling lets Gitea merge later whatever head passes its checks, a head no guard judged.
    let scheduled: Record<string, any> = {};
    const scheduledMerges = await requestsDuring('POST', /\/pulls\/1\/merge$/, async () => {
      scheduled = await call(merger, 'gitea_pulls_merge', {
        ...where,
        index: 1,
        body: { do: 'merge', head_commit_id: second, merge_when_checks_succeed: true },
      });
    });
    assert.deepEqual(failedCodes(scheduled), ['scheduled_merge_refused']);
    assert.equal(scheduledMerges, 0, 'the scheduled merge never reached Gitea');
    const merged = await merge(second);
    assert.equal(merged.error, undefined, JSON.stringify(merged.error));
    assert.equal((await call(merger, 'gitea_pulls_get', { ...where, index: 1 })).data.merged, true);
  });
});

describe('reconciler: only guarded tools delete branches and close landed pull requests', () => {
  const cleanup = (args: Record<string, unknown>) =>
    call(reconciler, 'gitea_cleanup_merged_pr_branch', { ...where, ...args });
  const confirm = (pr: number, branch: string) => `CLEANUP MERGED PR ${pr} BRANCH ${branch}`;

  test('tools/list: guarded tools for the reconciler only; the raw branch delete for nobody', async () => {
    const reconcilerTools = await toolNames(reconciler.client);
    assert.ok(reconcilerTools.includes('gitea_cleanup_merged_pr_branch'));
    assert.ok(reconcilerTools.includes('gitea_reconcile_already_landed_pr'));
    assert.ok(!reconcilerTools.includes('gitea_branches_delete'));
    const authorTools = await toolNames(author.client);
    assert.ok(!authorTools.includes('gitea_cleanup_merged_pr_branch'));
    assert.ok(!authorTools.includes('gitea_reconcile_already_landed_pr'));
  });

  test('cleanup refuses every unsafe case, with a report, and deletes nothing', async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      // A wrong typed phrase (confirmation_mismatch) matters only to a client that cannot ask its person:
      // test/confirm-stage.test.ts. This client's person confirms; the guard alone refuses these.
      [
        'branch is not the head',
        { pr_number: 2, branch: 'feature/login', confirmation: confirm(2, 'feature/login') },
        'branch_not_pr_head',
      ],
      ['pull request not merged, branch in use', { pr_number: 3, branch: 'dev', confirmation: confirm(3, 'dev') }, ''],
    ];
    for (const [name, args, code] of cases) {
      let payload: Record<string, any> = {};
      const deletes = await requestsDuring('DELETE', /\/branches\//, async () => (payload = await cleanup(args)));
      assert.equal(payload.error?.kind, 'policy_denied', name);
      if (code) {
        assert.equal(payload.error.reason, code, name);
        assert.ok(
          payload.error.report.checks.some((c: { code: string; passed: boolean }) => c.code === code && !c.passed),
          name,
        );
      }
      assert.equal(deletes, 0, `${name}: nothing deleted`);
    }
    // PR #3 heads the protected dev branch: refused whether by the scopes or by the guard.
    const devFailures = failedCodes(await cleanup({ pr_number: 3, branch: 'dev', confirmation: confirm(3, 'dev') }));
    assert.ok(devFailures.length > 0);
  });

  test('a refusal report passes the secret redaction: the token named as a branch is not echoed', async () => {
    const token = sandbox.users.dave?.token ?? 'no-token';
    const credential = `ghp_${'a1B2c3D4e5'.repeat(4)}`;
    for (const branch of [token, credential]) {
      const result = await reconciler.client.callTool({
        name: 'gitea_cleanup_merged_pr_branch',
        arguments: { ...where, pr_number: 2, branch, confirmation: confirm(2, branch) },
      });
      assert.equal(payloadOf(result).error.reason, 'branch_not_pr_head');
      assert.ok(!JSON.stringify(result).includes(branch), 'the report does not quote the secret');
    }
    const audit = readFileSync(auditLogs.get(reconciler) ?? '', 'utf8');
    assert.ok(!audit.includes(token) && !audit.includes(credential));
  });

  test('cleanup deletes the head branch of a merged pull request with the exact confirmation, and audits the evidence', async () => {
    const report = await cleanup({
      pr_number: 2,
      branch: 'feature/old-docs',
      confirmation: confirm(2, 'feature/old-docs'),
    });
    assert.equal(report.action, 'deleted', JSON.stringify(report.error ?? {}));
    assert.ok(report.checks.every((c: { passed: boolean }) => c.passed));
    assert.equal(report.evidence.branch, 'feature/old-docs');
    const branch = await call(reconciler, 'gitea_branches_get', { ...where, branch: 'feature/old-docs' });
    assert.equal(branch.error?.status, 404);
    const audit = readFileSync(auditLogs.get(reconciler) ?? '', 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const event = audit
      .filter(
        (e: { tool: string; phase: string }) => e.tool === 'gitea_cleanup_merged_pr_branch' && e.phase === 'result',
      )
      .at(-1);
    assert.equal(event.reason, 'deleted');
    assert.equal(event.evidence.branch, 'feature/old-docs');
    assert.match(event.evidence.head_sha, /^[0-9a-f]{40}$/);
  });

  test("the reconciler's raw branch delete is a guarded_tool_only denial", async () => {
    await assert.rejects(
      reconciler.client.callTool({ name: 'gitea_branches_delete', arguments: { ...where, branch: 'feature/login' } }),
      /Unknown tool/,
    );
    let payload: Record<string, any> = {};
    const deletes = await requestsDuring('DELETE', /\/branches\//, async () => {
      payload = await call(reconciler, 'gitea_api_request', {
        method: 'DELETE',
        path: '/repos/acme/widgets/branches/feature/login',
      });
    });
    assert.equal(payload.error.kind, 'policy_denied');
    assert.equal(payload.error.reason, 'guarded_tool_only');
    assert.match(payload.error.hint, /gitea_cleanup_merged_pr_branch/);
    assert.equal(deletes, 0);
  });

  test('reconcile closes a pull request whose head landed and refuses one that has not', async () => {
    const content = Buffer.from('new\n').toString('base64');
    await call(author, 'gitea_contents_create_file', {
      ...where,
      filepath: 'src/new.js',
      body: { content, branch: 'main', new_branch: 'feature/new', message: 'New work' },
    });
    const opened = await call(author, 'gitea_pulls_create', {
      ...where,
      body: { head: 'feature/new', base: 'main', title: 'New work' },
    });
    const fresh = opened.data.number as number;
    let refused: Record<string, any> = {};
    const writes = await requestsDuring(
      'PATCH',
      /\/pulls\//,
      async () =>
        (refused = await call(reconciler, 'gitea_reconcile_already_landed_pr', { ...where, pr_number: fresh })),
    );
    assert.equal(refused.error.reason, 'head_not_landed');
    assert.ok(refused.error.report.checks.length > 0);
    assert.equal(writes, 0);
    assert.equal(
      (await call(reconciler, 'gitea_reconcile_already_landed_pr', { ...where, pr_number: 2 })).error.reason,
      'pr_not_open',
    );

    const closed = await call(reconciler, 'gitea_reconcile_already_landed_pr', { ...where, pr_number: 3 });
    assert.equal(closed.action, 'closed', JSON.stringify(closed.error ?? {}));
    assert.equal(typeof closed.evidence.landed_via, 'string', 'a commit on main has the head as a parent');
    const pull = await call(reconciler, 'gitea_pulls_get', { ...where, index: 3 });
    assert.equal(pull.data.state, 'closed');
  });
});

describe('resolve_task_capability answers per namespace', () => {
  const table: Array<[string, () => Connected, string, boolean, string | undefined]> = [
    ['author asks merge_pr', () => author, 'merge_pr', false, 'gitea-merger'],
    ['merger asks merge_pr', () => merger, 'merge_pr', true, undefined],
    ['author asks create_pr', () => author, 'create_pr', true, undefined],
    ['reviewer asks cleanup_merged_pr_branch', () => reviewer, 'cleanup_merged_pr_branch', false, 'gitea-reconciler'],
  ];
  for (const [name, ns, task, allowed, elsewhere] of table) {
    test(name, async () => {
      const answer = await call(ns(), 'gitea_resolve_task_capability', { task });
      assert.equal(answer.allowed_in_current_session, allowed);
      assert.equal(answer.use_namespace, elsewhere);
    });
  }

  test('an unknown task fails closed', async () => {
    const result = await author.client.callTool({
      name: 'gitea_resolve_task_capability',
      arguments: { task: 'launch_rockets' },
    });
    assert.equal(result.isError, true);
    assert.equal(payloadOf(result).error.reason, 'unknown_task');
  });
});

describe('activate_profile', () => {
  test('refused when the config does not allow runtime switching', async () => {
    const ns = staticAuthor;
    const refused = await call(ns, 'gitea_activate_profile', { name: 'gitea-reviewer' });
    assert.equal(refused.error.reason, 'runtime_switching_disabled');
    assert.equal((await call(ns, 'gitea_whoami')).profile, 'gitea-author');
  });

  test('with allow_runtime_switching the namespace becomes the reviewer, verified again', async () => {
    const ns = switchingAuthor;
    assert.ok((await toolNames(ns.client)).includes('gitea_pulls_create'));
    const userChecks = await requestsDuring('GET', /\/api\/v1\/user$/, async () => {
      const switched = await call(ns, 'gitea_activate_profile', { name: 'gitea-reviewer' });
      assert.equal(switched.profile, 'gitea-reviewer');
      assert.equal(switched.verified, true);
    });
    assert.equal(userChecks, 1, 'GET /user again with the new token');
    const who = await call(ns, 'gitea_whoami');
    assert.deepEqual([who.profile, who.login, who.verified], ['gitea-reviewer', 'bob', true]);
    const names = await toolNames(ns.client);
    assert.ok(!names.includes('gitea_pulls_create') && names.includes('gitea_pulls_create_review'));
  });
});

test('every answer the sandbox gave in this file conforms to the pinned Gitea spec', () => {
  sandbox.assertConformed();
});
