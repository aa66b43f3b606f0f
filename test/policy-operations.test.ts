import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { defaultSpecPath } from '../src/shared/paths.js';
import { checkPolicies } from '../src/policy-files/policy-set.js';
import { mapCall, pullRequestOperations, withOperations } from '../src/policy/operation-map.js';
import { loadCatalog } from '../src/catalog/load.js';
import { policy } from './policy-helpers.js';

const catalog = loadCatalog().entries;

const spec = JSON.parse(readFileSync(defaultSpecPath(), 'utf8')) as {
  paths: Record<string, Record<string, { operationId?: string }>>;
};
const specOperations = Object.values(spec.paths).flatMap((item) =>
  Object.entries(item).map(([method, op]) => ({ method, id: op.operationId as string })),
);
const rawMap = (parse(readFileSync(policy.operationMap.file, 'utf8')) as { map: Record<string, string[]> }).map;

describe('operation map covers the spec exactly', () => {
  test('every spec operation is mapped exactly once', () => {
    const counts = new Map<string, number>();
    for (const ids of Object.values(rawMap)) for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
    const unmapped = specOperations.filter((op) => !counts.has(op.id)).map((op) => op.id);
    const twice = [...counts].filter(([, n]) => n > 1).map(([id]) => id);
    assert.deepEqual(unmapped, []);
    assert.deepEqual(twice, []);
  });

  test('every mapped operationId exists in the spec', () => {
    const ids = new Set(specOperations.map((op) => op.id));
    assert.deepEqual(
      Object.values(rawMap)
        .flat()
        .filter((id) => !ids.has(id)),
      [],
    );
  });

  test('every mapped canonical name is in the vocabulary, and the policy files are clean', () => {
    assert.deepEqual(checkPolicies(), []);
  });

  test('GET operations are reads, admin reads are admin, token listings are credential reads', () => {
    for (const op of specOperations.filter((o) => o.method === 'get')) {
      const mapped = mapCall(policy.operationMap, op.id, {});
      assert.ok(mapped.ok);
      assert.ok(['gitea.read', 'gitea.admin.read', 'gitea.token.list'].includes(mapped.operations[0] as string), op.id);
    }
    const adminRead = mapCall(policy.operationMap, 'adminSearchUsers', {});
    assert.deepEqual(adminRead.ok && adminRead.operations, ['gitea.admin.read']);
  });
});

describe('argument rules', () => {
  const at = { owner: 'acme', repo: 'widgets', index: 3 };
  const cases: [string, string, unknown, string[] | string][] = [
    ['PR edit closing', 'repoEditPullRequest', { ...at, body: { state: 'closed' } }, ['gitea.pr.close']],
    ['PR edit reopening', 'repoEditPullRequest', { ...at, body: { state: 'open' } }, ['gitea.pr.edit']],
    ['PR edit title', 'repoEditPullRequest', { ...at, body: { title: 'x' } }, ['gitea.pr.edit']],
    [
      'PR edit base: a retarget opens it into the new base',
      'repoEditPullRequest',
      { ...at, body: { title: 'x', base: 'main' } },
      ['gitea.pr.edit', 'gitea.pr.create'],
    ],
    ['PR edit unknown state', 'repoEditPullRequest', { ...at, body: { state: 'CLOSED' } }, 'unknown_argument_value'],
    ['review APPROVED', 'repoCreatePullReview', { ...at, body: { event: 'APPROVED' } }, ['gitea.pr.approve']],
    [
      'review REQUEST_CHANGES',
      'repoCreatePullReview',
      { ...at, body: { event: 'REQUEST_CHANGES' } },
      ['gitea.pr.request_changes'],
    ],
    ['review COMMENT', 'repoCreatePullReview', { ...at, body: { event: 'COMMENT' } }, ['gitea.pr.review']],
    ['review PENDING', 'repoCreatePullReview', { ...at, body: { event: 'PENDING' } }, ['gitea.pr.review']],
    [
      'submit review APPROVED',
      'repoSubmitPullReview',
      { ...at, id: 9, body: { event: 'APPROVED' } },
      ['gitea.pr.approve'],
    ],
    ['review unknown event', 'repoCreatePullReview', { ...at, body: { event: 'approved' } }, 'unknown_argument_value'],
    [
      'review REQUEST_REVIEW',
      'repoSubmitPullReview',
      { ...at, id: 9, body: { event: 'REQUEST_REVIEW' } },
      'unknown_argument_value',
    ],
    ['review without event', 'repoCreatePullReview', { ...at, body: {} }, 'missing_argument'],
    ['issue edit closing', 'issueEditIssue', { ...at, body: { state: 'closed' } }, ['gitea.issue.close']],
    ['issue edit body', 'issueEditIssue', { ...at, body: { body: 'x' } }, ['gitea.issue.edit']],
    [
      'issue comment is never a review',
      'issueCreateComment',
      { ...at, body: { body: 'LGTM, APPROVED' } },
      ['gitea.issue.comment'],
    ],
    ['merge', 'repoMergePullRequest', { ...at, body: { Do: 'merge' } }, ['gitea.pr.merge']],
    [
      'force merge',
      'repoMergePullRequest',
      { ...at, body: { Do: 'merge', force_merge: true } },
      ['gitea.pr.merge', 'gitea.pr.force_merge'],
    ],
    [
      'merge deleting the branch',
      'repoMergePullRequest',
      { ...at, body: { Do: 'squash', delete_branch_after_merge: true } },
      ['gitea.pr.merge', 'gitea.branch.delete'],
    ],
    [
      'both widenings',
      'repoMergePullRequest',
      { ...at, body: { Do: 'merge', force_merge: true, delete_branch_after_merge: true } },
      ['gitea.pr.merge', 'gitea.pr.force_merge', 'gitea.branch.delete'],
    ],
    // Cancelling a scheduled auto-merge stops a merge: not gitea.pr.merge, so the merge guard (head SHA, approvals) does not judge it.
    ['cancel a scheduled auto-merge', 'repoCancelScheduledAutoMerge', at, ['gitea.pr.cancel_auto_merge']],
    [
      'force_merge as a string',
      'repoMergePullRequest',
      { ...at, body: { force_merge: 'true' } },
      'unknown_argument_value',
    ],
    [
      'contents API write',
      'repoCreateFile',
      { ...at, filepath: 'a.txt', body: { content: 'eA==' } },
      ['gitea.repo.commit'],
    ],
    ['multi-file change', 'repoChangeFiles', { ...at, body: { files: [] } }, ['gitea.repo.commit']],
    ['release draft', 'repoCreateRelease', { ...at, body: { tag_name: 'v1', draft: true } }, ['gitea.release.create']],
    ['release published', 'repoCreateRelease', { ...at, body: { tag_name: 'v1' } }, ['gitea.release.publish']],
    ['sudo widens any call', 'repoGet', { ...at, sudo: 'bob' }, ['gitea.read', 'gitea.admin.sudo']],
    ['token minting', 'userCreateToken', { username: 'alice', body: { name: 't' } }, ['gitea.token.create']],
    ['runner registration token', 'repoCreateRunnerRegistrationToken', at, ['gitea.runner.register']],
    ['unknown operationId', 'repoFrobnicate', at, 'unknown_operation_id'],
  ];
  for (const [name, operationId, args, expected] of cases) {
    test(name, () => {
      const mapped = mapCall(policy.operationMap, operationId, args);
      if (Array.isArray(expected)) assert.deepEqual(mapped.ok && mapped.operations, expected);
      else assert.equal(!mapped.ok && mapped.reason, expected);
    });
  }
});

describe('issue operations on a pull request (on_pull_requests)', () => {
  const mapped = (operationId: string, args: unknown) => {
    const call = mapCall(policy.operationMap, operationId, args);
    assert.ok(call.ok);
    return call;
  };
  const cases: [string, string, unknown, string[]][] = [
    [
      'closing through the issue endpoint also needs the pull request close',
      'issueEditIssue',
      { owner: 'a', repo: 'b', index: 1, body: { state: 'closed' } },
      ['gitea.pr.close'],
    ],
    [
      'editing through the issue endpoint also needs the pull request edit',
      'issueEditIssue',
      { owner: 'a', repo: 'b', index: 1, body: { title: 't' } },
      ['gitea.pr.edit'],
    ],
    [
      'commenting on a pull request through the issue endpoint also needs the pull request comment',
      'issueCreateComment',
      { owner: 'a', repo: 'b', index: 1, body: { body: 'x' } },
      ['gitea.pr.comment'],
    ],
    [
      'labelling through the issue endpoint also needs the pull request edit',
      'issueAddLabel',
      { owner: 'a', repo: 'b', index: 1, body: { labels: [1] } },
      ['gitea.pr.edit'],
    ],
    [
      'deleting issue #n when it is a pull request deletes the pull request',
      'issueDelete',
      { owner: 'a', repo: 'b', index: 1 },
      ['gitea.pr.delete'],
    ],
    ['a read needs no live fact', 'issueGetIssue', { owner: 'a', repo: 'b', index: 1 }, []],
  ];
  for (const [name, operationId, args, expected] of cases) {
    test(name, () => assert.deepEqual(pullRequestOperations(policy.operationMap, mapped(operationId, args)), expected));
  }

  // Gitea routes every /repos/{owner}/{repo}/issues/{index}/... operation through GetIssueByIndex,
  // which finds pull requests too: each such write must need a pull request permission on a PR.
  test('every issue write that takes an {index} needs a pull request permission when the index is a pull request', () => {
    const indexed = catalog.filter(
      (entry) => entry.path.startsWith('/repos/{owner}/{repo}/issues/{index}') && entry.method !== 'GET',
    );
    assert.ok(indexed.length >= 30, `only ${indexed.length} issue routes with an index in the catalog`);
    const missing = indexed.flatMap((entry) => {
      const call = mapCall(policy.operationMap, entry.operationId, {
        owner: 'a',
        repo: 'b',
        index: 1,
        body: { state: 'open' },
      });
      if (!call.ok) return [`${entry.operationId}: ${call.message}`];
      const writes = call.operations.filter((op) => policy.vocabulary.operations.get(op)?.risk !== 'read');
      return writes
        .filter((op) => !policy.operationMap.onPullRequests.has(op))
        .map((op) => `${entry.operationId} (${op})`);
    });
    assert.deepEqual(missing, []);
    for (const pull of policy.operationMap.onPullRequests.values()) assert.match(pull, /^gitea\.pr\./);
  });

  test('withOperations adds each extra operation once and says why', () => {
    const close = mapped('issueEditIssue', { owner: 'a', repo: 'b', index: 1, body: { state: 'closed' } });
    const widened = withOperations(close, ['gitea.pr.close', 'gitea.pr.close']);
    assert.deepEqual(widened.operations, ['gitea.issue.close', 'gitea.pr.close']);
    assert.match(widened.rule, /pull request/);
    assert.equal(withOperations(close, []), close);
  });
});
