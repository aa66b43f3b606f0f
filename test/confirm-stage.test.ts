// The confirm stage end to end in this process: namespaces loaded as `serve` loads them, the pipeline
// called round by round as the transport calls it (answerToolCall with what the client can ask and
// what its person answered), against the sandbox. A merge, a cleanup and a landed close reach Gitea
// only after the person confirmed; a declined, cancelled, expired, replayed, tampered, forged or
// transplanted confirmation reaches nothing; a push or a retarget between question and answer voids
// it. The same flows through the official MCP clients of both eras: confirm-e2e.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { defaultSeed } from '../src/sandbox/index.js';
import { answerToolCall, type ToolCallAnswer } from '../src/server/call/pipeline.js';
import { ANSWER_KEY, FIRST_ROUND, type CallRound } from '../src/server/confirm/round.js';
import { StateSealer } from '../src/server/confirm/request-state.js';
import type { Namespace } from '../src/server/session.js';
import { namespaceEnv, payloadOf, tempDir } from './support/namespace.js';
import { openNamespace } from './support/in-process.js';
import { askingRound, answering, withState } from './support/rounds.js';
import { startContractSandbox, type ContractSandbox } from './support/spec-contract.js';

const where = { owner: 'acme', repo: 'widgets' };
const KEY = 'a-confirmation-key-of-at-least-32-characters';
const dir = tempDir('warden-confirm-stage-');
const store = join(dir.path, 'state.sqlite');
let sandbox: ContractSandbox;
const opened: Namespace[] = [];
let merger: Namespace;
let mergerReplica: Namespace;
let reviewer: Namespace;
let reconciler: Namespace;
let owner: Namespace;
let phraseReconciler: Namespace;
let otherKeyMerger: Namespace;

const FORM: CallRound = askingRound();
const yes = { action: 'accept', content: { [ANSWER_KEY]: true } };

let loaded = 0;
async function load(profile: string, extra: Record<string, string> = {}, tokenOf?: string): Promise<Namespace> {
  // Its own log each: namespaces load in parallel, so the name is taken before any of them is up.
  const auditLog = join(dir.path, `${profile.replace(/\W/g, '_')}-${loaded++}.jsonl`);
  const env = namespaceEnv(sandbox, profile, {
    auditLog,
    ...(tokenOf ? { tokenOf } : {}),
    extra: { OAUTH_STORE: store, CONFIRMATION_KEY: KEY, ...extra },
  });
  const namespace = await openNamespace(env);
  opened.push(namespace);
  return namespace;
}

function auditOf(namespace: Namespace): Array<Record<string, any>> {
  return readFileSync(namespace.session.audit.path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, any>);
}

/** Gitea requests of this method whose path matches, made while `action` ran. */
async function reaching(method: string, path: RegExp, action: () => Promise<unknown>): Promise<number> {
  const start = sandbox.requests.length;
  await action();
  return sandbox.requests.slice(start).filter((r) => r.method === method && path.test(r.path)).length;
}

/** What a person does to Gitea directly, outside any namespace (the admin unless `login` says who). */
async function asAdmin(method: string, path: string, body: unknown, login = 'admin'): Promise<number> {
  const response = await fetch(`${sandbox.url}/api/v1${path}`, {
    method,
    headers: { authorization: `token ${sandbox.users[login]?.token ?? ''}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return response.status;
}

const run = (namespace: Namespace, tool: string, args: Record<string, unknown>, round: CallRound = FORM) =>
  answerToolCall(namespace, tool, args, round);
const answer = (first: ToolCallAnswer, response: unknown, round: CallRound = FORM): CallRound =>
  answering(first, response, round);
const errorOf = (result: ToolCallAnswer) => payloadOf(result.result).error as Record<string, any> | undefined;

async function pullHead(index: number): Promise<string> {
  return payloadOf((await run(merger, 'gitea_pulls_get', { ...where, index }, FIRST_ROUND)).result).data.head.sha;
}

async function approve(index: number): Promise<void> {
  const head = await pullHead(index);
  const review = await run(
    reviewer,
    'gitea_pulls_create_review',
    { ...where, index, body: { event: 'APPROVED', commit_id: head } },
    FIRST_ROUND,
  );
  assert.equal(errorOf(review), undefined, JSON.stringify(errorOf(review)));
}

function openState(first: ToolCallAnswer) {
  const opened = merger.session.confirm.states.open(first.ask?.state);
  assert.ok(opened.ok);
  return opened.state;
}

/** The admin commits a file to `branch` (creating the branch from main when it is new), outside any namespace. */
async function push(branch: string, path: string, content: string): Promise<void> {
  const exists = sandbox.state.repo('acme', 'widgets')?.branches.has(branch) === true;
  const status = await asAdmin('POST', `/repos/acme/widgets/contents/${path}`, {
    content: Buffer.from(content).toString('base64'),
    ...(exists ? { branch } : { branch: 'main', new_branch: branch }),
    message: `Change ${path}`,
  });
  assert.equal(status, 201);
}

/** A new approved pull request of alice's from a new branch; its number. */
async function openPull(branch: string): Promise<number> {
  await push(branch, `src/${branch.replace(/\W/g, '-')}.js`, `${branch}\n`);
  const status = await asAdmin(
    'POST',
    '/repos/acme/widgets/pulls',
    {
      title: `Change ${branch}`,
      head: branch,
      base: 'main',
    },
    'alice',
  );
  assert.equal(status, 201);
  const number = Math.max(...(sandbox.state.repo('acme', 'widgets')?.issues.map((i) => i.number) ?? [0]));
  await approve(number);
  return number;
}

function writeProfile(name: string, data: Record<string, unknown>): string {
  const file = join(dir.path, `${name}.yaml`);
  writeFileSync(file, stringify({ profile_name: name, ...data }));
  return file;
}

before(async () => {
  const seed = defaultSeed();
  const widgets = seed.repos.find((r) => r.name === 'widgets');
  widgets?.branches.push({
    name: 'feature/second',
    from: 'main',
    commits: [{ message: 'A second change', author: 'alice', files: { 'src/second.js': 'export {};\n' } }],
  });
  // PR #3: from dev, whose head is main's first commit: already landed, still open. PR #4: a second change.
  widgets?.pulls?.push(
    { title: 'Sync dev', author: 'alice', head: 'dev', base: 'main' },
    { title: 'A second change', author: 'alice', head: 'feature/second', base: 'main' },
  );
  sandbox = await startContractSandbox({ seed });
  const reconcilerPhrase = writeProfile('reconciler-phrase', {
    role: 'reconciler',
    authenticated_username: 'dave',
    token_source_name: 'GITEA_RECONCILER_TOKEN',
    allowed_operations: ['gitea.read', 'gitea.pr.close', 'gitea.issue.comment', 'gitea.branch.delete'],
    confirmation_fallback: 'phrase',
  });
  [merger, mergerReplica, reviewer, reconciler, owner, otherKeyMerger] = await Promise.all([
    load('gitea-merger'),
    load('gitea-merger'),
    load('gitea-reviewer'),
    load('gitea-reconciler'),
    load('gitea-owner', { TOOLSETS: 'all' }),
    load('gitea-merger', { CONFIRMATION_KEY: 'another-confirmation-key-of-32-characters!' }),
  ]);
  phraseReconciler = await load(reconcilerPhrase, { GITEA_RECONCILER_TOKEN: sandbox.users.dave?.token ?? '' });
});

after(async () => {
  await Promise.all(opened.map((n) => n.session.audit.close()));
  await Promise.all(opened.map((n) => n.session.confirm.close()));
  await sandbox.close();
  dir.dispose();
});

describe('a merge reaches Gitea only after the person at the client confirmed it', () => {
  test('the question shows exactly what will happen, and nothing reached Gitea while it waits', async () => {
    await approve(1);
    const head = await pullHead(1);
    const args = { ...where, index: 1, body: { do: 'merge', head_commit_id: head, delete_branch_after_merge: false } };
    let first!: ToolCallAnswer;
    assert.equal(
      await reaching('POST', /\/merge$/, async () => (first = await run(merger, 'gitea_pulls_merge', args))),
      0,
    );
    const request = first.ask?.requests[ANSWER_KEY];
    assert.equal(request?.mode, 'form');
    const message = request?.message ?? '';
    for (const expected of [
      /^Merge pull request #1 "Add login form" into main of acme\/widgets\?/,
      /Operation: gitea\.pr\.merge/,
      /Repository: acme\/widgets \(id \d+\)/,
      /Pull request: #1 "Add login form" \(feature\/login into main\)/,
      new RegExp(`Head commit: ${head}`),
      /Head branch deleted after the merge: no/,
      /Acts as: carol \(namespace gitea-merger\)/,
    ])
      assert.match(message, expected);
    assert.deepEqual(request?.mode === 'form' ? request.requestedSchema.required : [], [ANSWER_KEY]);
    assert.ok(first.ask?.state.startsWith('gwq1.'));
    assert.ok(!first.ask?.state.includes(head), 'the state is sealed: the client cannot read the head in it');

    let second!: ToolCallAnswer;
    assert.equal(
      await reaching(
        'POST',
        /\/pulls\/1\/merge$/,
        async () => (second = await run(merger, 'gitea_pulls_merge', args, answer(first, yes))),
      ),
      1,
    );
    assert.equal(second.ask, undefined);
    assert.equal(errorOf(second), undefined, JSON.stringify(errorOf(second)));
    const events = auditOf(merger).filter((e) => e.phase === 'result' && e.tool === 'gitea_pulls_merge');
    assert.deepEqual(
      events.slice(-2).map((e) => [e.status, e.reason, e.evidence?.confirmed_by ?? null]),
      [
        ['asked', 'confirmation_asked', null],
        ['ok', 'allowed', 'at_client'],
      ],
    );
    assert.equal(events.at(-1)?.evidence?.confirmation, events.at(-2)?.evidence?.confirmation, 'the same confirmation');
  });

  test('replayed: the used confirmation, presented again, reaches nothing', async () => {
    // PR #4 is merged with one answer, then the same answer comes back for a new merge of it.
    await approve(4);
    const args = { ...where, index: 4, body: { do: 'merge', head_commit_id: await pullHead(4) } };
    const first = await run(merger, 'gitea_pulls_merge', args);
    // Declined first: a declined state is spent too.
    const declined = await run(merger, 'gitea_pulls_merge', args, answer(first, { action: 'decline' }));
    assert.equal(errorOf(declined)?.kind, 'confirmation_declined');
    let replayed!: ToolCallAnswer;
    assert.equal(
      await reaching(
        'POST',
        /\/merge$/,
        async () => (replayed = await run(merger, 'gitea_pulls_merge', args, answer(first, yes))),
      ),
      0,
    );
    assert.equal(errorOf(replayed)?.kind, 'confirmation_replayed');
    // ... on the other replica too: the spend is in the shared store.
    const onReplica = await run(mergerReplica, 'gitea_pulls_merge', args, answer(first, yes));
    assert.equal(errorOf(onReplica)?.kind, 'confirmation_replayed');
  });

  test('a question asked by one replica is answered at the other, once', async () => {
    const args = { ...where, index: 4, body: { do: 'merge', head_commit_id: await pullHead(4) } };
    const first = await run(merger, 'gitea_pulls_merge', args);
    let atReplica!: ToolCallAnswer;
    assert.equal(
      await reaching(
        'POST',
        /\/pulls\/4\/merge$/,
        async () => (atReplica = await run(mergerReplica, 'gitea_pulls_merge', args, answer(first, yes))),
      ),
      1,
    );
    assert.equal(errorOf(atReplica), undefined, JSON.stringify(errorOf(atReplica)));
    assert.equal(errorOf(await run(merger, 'gitea_pulls_merge', args, answer(first, yes)))?.kind !== undefined, true);
  });
});

describe('answers that reach nothing', () => {
  let index = 0;
  let other = 0;
  before(async () => {
    [index, other] = [await openPull('feature/third'), await openPull('feature/fourth')];
  });
  const argsFor = async (n = index) => ({
    ...where,
    index: n,
    body: { do: 'merge', head_commit_id: await pullHead(n) },
  });

  const refusals: Array<[string, (first: ToolCallAnswer) => CallRound, string]> = [
    ['declined', (first) => answer(first, { action: 'decline' }), 'confirmation_declined'],
    ['cancelled', (first) => answer(first, { action: 'cancel' }), 'confirmation_declined'],
    [
      'left unticked',
      (first) => answer(first, { action: 'accept', content: { [ANSWER_KEY]: false } }),
      'confirmation_declined',
    ],
    [
      'tampered',
      (first) => {
        const state = first.ask?.state ?? '';
        const at = state.length - 10;
        return withState(
          answer(first, yes),
          `${state.slice(0, at)}${state[at] === 'A' ? 'B' : 'A'}${state.slice(at + 1)}`,
        );
      },
      'confirmation_invalid',
    ],
    ['made up', (first) => withState(answer(first, yes), 'gwq1.v1.AAAA.BBBB.CCCC'), 'confirmation_invalid'],
    [
      'forged under a key the server does not hold',
      (first) => withState(answer(first, yes), new StateSealer(null).seal(openState(first))),
      'confirmation_invalid',
    ],
    [
      'expired',
      // Sealed by this server's own key, past its expiry: as if the person answered after ten minutes.
      (first) =>
        withState(
          answer(first, yes),
          merger.session.confirm.states.seal({ ...openState(first), expiresAt: Date.now() - 1 }),
        ),
      'confirmation_expired',
    ],
  ];
  for (const [what, retry, kind] of refusals) {
    test(`${what}: refused (${kind}), and the merge never reached Gitea`, async () => {
      const args = await argsFor();
      const first = await run(merger, 'gitea_pulls_merge', args);
      assert.ok(first.ask, 'the person is asked');
      let second!: ToolCallAnswer;
      const merges = await reaching(
        'POST',
        /\/merge$/,
        async () => (second = await run(merger, 'gitea_pulls_merge', args, retry(first))),
      );
      assert.equal(merges, 0);
      assert.equal(errorOf(second)?.kind, kind, JSON.stringify(second.result.structuredContent));
      assert.match(errorOf(second)?.message ?? '', /Nothing reached Gitea/);
      assert.equal(second.ask, undefined);
    });
  }

  test('a state sealed by another replica under another CONFIRMATION_KEY does not open here', async () => {
    const args = await argsFor();
    const first = await run(otherKeyMerger, 'gitea_pulls_merge', args);
    const second = await run(merger, 'gitea_pulls_merge', args, answer(first, yes));
    assert.equal(errorOf(second)?.kind, 'confirmation_invalid');
    assert.match(errorOf(second)?.message ?? '', /CONFIRMATION_KEY/);
  });

  test("transplanted to another principal: the owner presents the merger's confirmation", async () => {
    const args = await argsFor();
    const first = await run(merger, 'gitea_pulls_merge', args);
    let second!: ToolCallAnswer;
    assert.equal(
      await reaching(
        'POST',
        /\/merge$/,
        async () => (second = await run(owner, 'gitea_pulls_merge', args, answer(first, yes))),
      ),
      0,
    );
    assert.equal(errorOf(second)?.kind, 'confirmation_transplanted', JSON.stringify(errorOf(second)));
    assert.match(errorOf(second)?.message ?? '', /principal/);
  });

  test('transplanted to another pull request, and to another tool', async () => {
    const first = await run(merger, 'gitea_pulls_merge', await argsFor());
    let second!: ToolCallAnswer;
    assert.equal(
      await reaching(
        'POST',
        /\/merge$/,
        async () => (second = await run(merger, 'gitea_pulls_merge', await argsFor(other), answer(first, yes))),
      ),
      0,
    );
    assert.equal(errorOf(second)?.kind, 'confirmation_transplanted');
    assert.match(errorOf(second)?.message ?? '', /pullRequest/);
    const third = await run(
      reconciler,
      'gitea_reconcile_already_landed_pr',
      { ...where, pr_number: 3 },
      answer(first, yes),
    );
    assert.equal(errorOf(third)?.kind, 'confirmation_transplanted');
  });

  test('transplanted to another head: pushed and approved again, the old answer does not merge the new head', async () => {
    const before = await argsFor();
    const first = await run(merger, 'gitea_pulls_merge', before);
    await push('feature/third', 'src/pushed-later.js', 'pushed between question and answer\n');
    await approve(index);
    const after = await argsFor();
    assert.notEqual(after.body.head_commit_id, before.body.head_commit_id);
    let stale!: ToolCallAnswer;
    let moved!: ToolCallAnswer;
    const merges = await reaching('POST', /\/merge$/, async () => {
      // The same arguments as asked: the guard refuses the moved head.
      stale = await run(merger, 'gitea_pulls_merge', before, answer(first, yes));
      // The new head's arguments with the old answer: bound to other arguments.
      moved = await run(merger, 'gitea_pulls_merge', after, answer(first, yes));
    });
    assert.equal(merges, 0);
    assert.equal(errorOf(stale)?.reason, 'head_sha_mismatch');
    assert.equal(errorOf(moved)?.kind, 'confirmation_transplanted');
  });

  test('a client that cannot ask is refused, naming elicitation; nothing reached Gitea', async () => {
    const args = await argsFor();
    let result!: ToolCallAnswer;
    assert.equal(
      await reaching(
        'POST',
        /\/merge$/,
        async () => (result = await run(merger, 'gitea_pulls_merge', args, FIRST_ROUND)),
      ),
      0,
    );
    assert.equal(errorOf(result)?.kind, 'confirmation_unavailable');
    assert.match(errorOf(result)?.message ?? '', /elicitation/);
    assert.match(errorOf(result)?.hint ?? '', /elicitation/);
  });
});

describe('the reconciler tools: a person confirms the landed close and the cleanup', () => {
  test('the landed close: asked with the evidence, closed only after the answer; a retarget in between voids it', async () => {
    const args = { ...where, pr_number: 3 };
    let first!: ToolCallAnswer;
    assert.equal(
      await reaching(
        'PATCH',
        /\/pulls\/3$/,
        async () => (first = await run(reconciler, 'gitea_reconcile_already_landed_pr', args)),
      ),
      0,
    );
    const message = first.ask?.requests[ANSWER_KEY]?.message ?? '';
    assert.match(message, /^Close pull request #3 "Sync dev" of acme\/widgets as already landed\?/);
    assert.match(message, /Landed: the head commit is on main/);
    // Retargeted to a branch its head has landed on as well: the guard still passes, the answer is void.
    assert.equal(await asAdmin('PATCH', '/repos/acme/widgets/pulls/3', { base: 'feature/second' }), 201);
    let voided!: ToolCallAnswer;
    const writes = await reaching(
      'PATCH',
      /\/pulls\/3$/,
      async () => (voided = await run(reconciler, 'gitea_reconcile_already_landed_pr', args, answer(first, yes))),
    );
    assert.equal(writes, 0, 'the retarget voided the answer');
    assert.ok(voided.ask, 'asked again');
    assert.match(
      voided.ask?.requests[ANSWER_KEY]?.message ?? '',
      /no longer applies: the target branch \(a retarget\?\) was main and is now feature\/second/,
    );
    assert.match(voided.ask?.requests[ANSWER_KEY]?.message ?? '', /into feature\/second/);
    // The void answer is spent: presented again it is a replay.
    assert.equal(
      errorOf(await run(reconciler, 'gitea_reconcile_already_landed_pr', args, answer(first, yes)))?.kind,
      'confirmation_replayed',
    );
    let closed!: ToolCallAnswer;
    assert.equal(
      await reaching(
        'PATCH',
        /\/pulls\/3$/,
        async () => (closed = await run(reconciler, 'gitea_reconcile_already_landed_pr', args, answer(voided, yes))),
      ),
      1,
    );
    assert.equal(payloadOf(closed.result).action, 'closed', JSON.stringify(closed.result.structuredContent));
    const event = auditOf(reconciler)
      .filter((e) => e.phase === 'result')
      .at(-1);
    assert.equal(event?.evidence?.confirmed_by, 'at_client');
    assert.equal(event?.evidence?.action, 'closed');
  });

  test('the cleanup: a push to the branch between question and answer voids it; the answer to the new question deletes', async () => {
    const args = { ...where, pr_number: 2, branch: 'feature/old-docs' };
    const first = await run(reconciler, 'gitea_cleanup_merged_pr_branch', args);
    const message = first.ask?.requests[ANSWER_KEY]?.message ?? '';
    assert.match(message, /^Delete branch feature\/old-docs of acme\/widgets\?/);
    assert.match(message, /Branch deleted: feature\/old-docs at [0-9a-f]{40}/);
    // A fast-forward push of the branch to main's tip: still landed, but not the tip the person saw.
    const repo = sandbox.state.repo('acme', 'widgets');
    const mainTip = repo?.branches.get('main') ?? '';
    repo?.branches.set('feature/old-docs', mainTip);
    let voided!: ToolCallAnswer;
    const deletes = await reaching(
      'DELETE',
      /\/branches\//,
      async () => (voided = await run(reconciler, 'gitea_cleanup_merged_pr_branch', args, answer(first, yes))),
    );
    assert.equal(deletes, 0);
    assert.match(
      voided.ask?.requests[ANSWER_KEY]?.message ?? '',
      /no longer applies: .*tip \(a push\?\) was [0-9a-f]{40} and is now/,
    );
    assert.match(
      voided.ask?.requests[ANSWER_KEY]?.message ?? '',
      new RegExp(`Branch deleted: feature/old-docs at ${mainTip}`),
    );
    let deleted!: ToolCallAnswer;
    assert.equal(
      await reaching(
        'DELETE',
        /\/branches\//,
        async () => (deleted = await run(reconciler, 'gitea_cleanup_merged_pr_branch', args, answer(voided, yes))),
      ),
      1,
    );
    assert.equal(payloadOf(deleted.result).action, 'deleted', JSON.stringify(deleted.result.structuredContent));
  });

  test('without elicitation, the reconciler tools are refused; the phrase fallback takes exactly the typed phrase', async () => {
    // feature/login is PR #1's head, merged above: the cleanup's guard passes, the confirmation decides.
    const cleanup = { ...where, pr_number: 1, branch: 'feature/login' };
    const noAsk = await run(reconciler, 'gitea_cleanup_merged_pr_branch', cleanup, FIRST_ROUND);
    assert.equal(errorOf(noAsk)?.kind, 'confirmation_unavailable');
    let wrong!: ToolCallAnswer;
    assert.equal(
      await reaching(
        'DELETE',
        /\/branches\//,
        async () =>
          (wrong = await run(
            phraseReconciler,
            'gitea_cleanup_merged_pr_branch',
            { ...cleanup, confirmation: 'yes' },
            FIRST_ROUND,
          )),
      ),
      0,
    );
    assert.equal(errorOf(wrong)?.kind, 'confirmation_mismatch');
    assert.match(errorOf(wrong)?.hint ?? '', /CLEANUP MERGED PR 1 BRANCH feature\/login/);
    let typed!: ToolCallAnswer;
    assert.equal(
      await reaching(
        'DELETE',
        /\/branches\//,
        async () =>
          (typed = await run(
            phraseReconciler,
            'gitea_cleanup_merged_pr_branch',
            { ...cleanup, confirmation: 'CLEANUP MERGED PR 1 BRANCH feature/login' },
            FIRST_ROUND,
          )),
      ),
      1,
    );
    assert.equal(payloadOf(typed.result).action, 'deleted', JSON.stringify(typed.result.structuredContent));
    const event = auditOf(phraseReconciler)
      .filter((e) => e.phase === 'result')
      .at(-1);
    assert.equal(event?.evidence?.confirmed_by, 'phrase');
  });
});

describe('a repository deletion asks with the repository and its immutable id', () => {
  test('declined, no DELETE reaches Gitea; the question names the repository and its id', async () => {
    const args = { owner: 'acme', repo: 'gadgets' };
    let first!: ToolCallAnswer;
    let second!: ToolCallAnswer;
    const deletes = await reaching('DELETE', /^\/api\/v1\/repos\/acme\/gadgets$/, async () => {
      first = await run(owner, 'gitea_repos_delete', args);
      second = await run(owner, 'gitea_repos_delete', args, answer(first, { action: 'decline' }));
    });
    assert.equal(deletes, 0);
    const id = sandbox.state.repo('acme', 'gadgets')?.id;
    const message = first.ask?.requests[ANSWER_KEY]?.message ?? '';
    assert.match(message, /^Delete repository acme\/gadgets and everything in it\?/);
    assert.match(message, new RegExp(`Repository: acme/gadgets \\(id ${id}\\)`));
    assert.match(message, /Gitea request: DELETE \/repos\/acme\/gadgets/);
    assert.equal(errorOf(second)?.kind, 'confirmation_declined');
  });

  test('a repository whose id cannot be read is not asked about: refused, naming the fact', async () => {
    const result = await run(owner, 'gitea_repos_delete', { owner: 'acme', repo: 'no-such-repository' });
    assert.equal(result.ask, undefined);
    assert.equal(errorOf(result)?.kind, 'fact_unavailable');
    assert.match(
      errorOf(result)?.message ?? '',
      /cannot show what will happen: Repository acme\/no-such-repository could not be read \(HTTP 404\)/,
    );
  });
});
