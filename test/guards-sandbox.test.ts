// The gatherers, judges and guarded reconciler actions against the sandbox Gitea over HTTP.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultSeed } from '../src/sandbox/seed.js';
import { GiteaHttpClient } from '../src/gitea/http.js';
import { HttpGiteaWriter } from '../src/gitea/writer.js';
import { gatherCallFacts, readOpenPulls } from '../src/gitea/facts.js';
import { cleanupMergedPrBranch, reconcileAlreadyLandedPr } from '../src/gitea/reconcile.js';
import { callGuardsFor, judgeCall } from '../src/policy/guards/call-guards.js';
import { judgeCleanup, type CleanupRequest } from '../src/policy/guards/cleanup-branch-guard.js';
import { judgeReconcileLanded } from '../src/policy/guards/reconcile-landed-guard.js';
import { judgeUnmoved } from '../src/policy/guards/unmoved-guard.js';
import { cleanupPatterns, loadPolicySet } from '../src/policy-files/policy-set.js';
import { startContractSandbox, type ContractSandbox } from './support/spec-contract.js';

const policy = loadPolicySet();
const config = policy.guards;
let sandbox: ContractSandbox;

function clientFor(login: string): GiteaHttpClient {
  const token = sandbox.users[login]?.token;
  assert.ok(token, `sandbox user ${login}`);
  return new GiteaHttpClient({ baseUrl: sandbox.url, token });
}

before(async () => {
  const seed = defaultSeed();
  const widgets = seed.repos.find((r) => r.name === 'widgets');
  // An open pull request from dev, whose head (main's first commit) is already on main.
  widgets?.pulls?.push({ title: 'Sync dev', author: 'alice', head: 'dev', base: 'main' });
  sandbox = await startContractSandbox({ seed });
});
after(() => sandbox.close());

async function pullNumber(head: string, state: 'open' | 'closed'): Promise<number> {
  const pulls = (await clientFor('dave').get('/repos/acme/widgets/pulls', { state, limit: 50 })).data as Array<{
    number: number;
    head: { ref: string };
  }>;
  const found = pulls.find((p) => p.head.ref === head);
  assert.ok(found, `a ${state} pull request from ${head}`);
  return found.number;
}

describe('guards against the sandbox', () => {
  test('merging an unreviewed pull request: self-merge for the author, no approval for anyone', async () => {
    const index = await pullNumber('feature/login', 'open');
    const guards = callGuardsFor(['gitea.pr.merge'], policy.callGuards);
    for (const [identity, codes] of [
      ['alice', ['self_merge', 'head_sha_missing', 'no_independent_approval']],
      ['carol', ['head_sha_missing', 'no_independent_approval']],
    ] as const) {
      const facts = await gatherCallFacts(
        clientFor('carol'),
        guards,
        { owner: 'acme', repo: 'widgets', index, identity, expectedHeadSha: null, deleteBranch: null },
        config.facts,
      );
      const verdict = judgeCall(guards, facts, config.merge);
      assert.deepEqual(
        verdict.checks.filter((c) => !c.passed).map((c) => c.code),
        codes,
      );
    }
  });

  test('cleanup refuses the open pull request branch and deletes the merged one', async () => {
    const gitea = { reader: clientFor('dave'), writer: new HttpGiteaWriter(clientFor('dave')) };
    const run = (request: CleanupRequest) =>
      cleanupMergedPrBranch(
        gitea,
        request,
        { judge: (facts) => judgeCleanup(request, facts, cleanupPatterns(policy)), unmoved: judgeUnmoved },
        config.facts,
      );

    const open = await pullNumber('feature/login', 'open');
    const refused = await run({
      owner: 'acme',
      repo: 'widgets',
      prNumber: open,
      branch: 'feature/login',
    });
    assert.equal(refused.action, 'refused');
    assert.deepEqual(
      refused.checks.filter((c) => !c.passed).map((c) => c.code),
      ['pr_not_merged', 'head_not_landed', 'branch_in_use'],
    );

    const merged = await pullNumber('feature/old-docs', 'closed');
    const request = {
      owner: 'acme',
      repo: 'widgets',
      prNumber: merged,
      branch: 'feature/old-docs',
    };
    const report = await run(request);
    assert.deepEqual(
      report.checks.filter((c) => !c.passed),
      [],
    );
    assert.equal(report.action, 'deleted');
    assert.equal(
      typeof report.evidence.landed_via,
      'string',
      'the merge commit on main has the branch tip as a parent',
    );
    assert.equal((await clientFor('dave').get('/repos/acme/widgets/branches/feature/old-docs')).status, 404);
    // Run again: the branch is gone now, a missing fact, so nothing is deleted.
    assert.equal((await run(request)).action, 'refused');
  });

  test('reconcile closes the already-landed pull request with an evidence comment, and refuses the others', async () => {
    const gitea = { reader: clientFor('dave'), writer: new HttpGiteaWriter(clientFor('dave')) };
    const unlanded = await pullNumber('feature/login', 'open');
    const refused = await reconcileAlreadyLandedPr(
      gitea,
      { owner: 'acme', repo: 'widgets', index: unlanded },
      { judge: judgeReconcileLanded, unmoved: judgeUnmoved },
    );
    assert.equal(refused.action, 'refused');
    assert.deepEqual(
      refused.checks.filter((c) => !c.passed).map((c) => c.code),
      ['head_not_landed'],
    );

    const landed = await pullNumber('dev', 'open');
    const report = await reconcileAlreadyLandedPr(
      gitea,
      { owner: 'acme', repo: 'widgets', index: landed },
      { judge: judgeReconcileLanded, unmoved: judgeUnmoved },
    );
    assert.equal(report.action, 'closed', JSON.stringify(report));
    const heads = await readOpenPulls(clientFor('dave'), 'acme', 'widgets', config.facts);
    assert.ok(heads.ok && !heads.value.some((p) => p.headRef === 'dev'));
    const comments = (await clientFor('dave').get(`/repos/acme/widgets/issues/${landed}/comments`)).data as Array<{
      body: string;
      user: { login: string };
    }>;
    const evidence = comments.at(-1);
    assert.equal(evidence?.user.login, 'dave');
    assert.match(evidence?.body ?? '', new RegExp(`\`${String(report.evidence.target_sha)}\``));
  });
});

test('every answer the sandbox gave in this file conforms to the pinned Gitea spec', () => {
  sandbox.assertConformed();
});
