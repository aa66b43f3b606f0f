// In Gitea a pull request is also an issue. The issue-manager may close and edit issues, never pull
// requests: reaching PR #1 through /issues/1 needs the pull request permission too, read from the
// live issue, and an issue that is no pull request is not affected.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { handleToolCall } from '../src/server/call/pipeline.js';
import type { Namespace } from '../src/server/session.js';
import { payloadOf, tempDir } from './support/namespace.js';
import { startContractSandbox, type ContractSandbox } from './support/spec-contract.js';
import { openNamespace } from './support/in-process.js';

const dir = tempDir('warden-pr-as-issue-');
let sandbox: ContractSandbox;
const namespaces = new Map<string, Namespace>();

async function open(profile: string, login: string, tokenVariable: string): Promise<Namespace> {
  const env = {
    GITEA_URL: sandbox.url,
    GITEA_MCP_PROFILE: profile,
    [tokenVariable]: sandbox.users[login]?.token ?? '',
    AUDIT_LOG: join(dir.path, `${profile}.jsonl`),
  };
  return openNamespace(env);
}

/** Ids of comments alice posts on pull request #1 and on issue #3, for the comment routes. */
const comments = { onPull: 0, onIssue: 0 };

async function postComment(index: number): Promise<number> {
  const response = await fetch(`${sandbox.url}/api/v1/repos/acme/widgets/issues/${index}/comments`, {
    method: 'POST',
    headers: { authorization: `token ${sandbox.users.alice?.token ?? ''}`, 'content-type': 'application/json' },
    body: JSON.stringify({ body: `a comment on #${index}` }),
  });
  assert.equal(response.status, 201);
  return ((await response.json()) as { id: number }).id;
}

before(async () => {
  sandbox = await startContractSandbox();
  comments.onPull = await postComment(1);
  comments.onIssue = await postComment(3);
  namespaces.set('issue-manager', await open('gitea-issue-manager', 'erin', 'GITEA_ISSUE_MANAGER_TOKEN'));
  namespaces.set('reconciler', await open('gitea-reconciler', 'dave', 'GITEA_RECONCILER_TOKEN'));
});

after(async () => {
  for (const namespace of namespaces.values()) await namespace.session.audit.close();
  await sandbox.close();
  dir.dispose();
});

/** The call's outcome and the PATCH requests it sent to Gitea. */
async function edit(role: string, tool: string, args: Record<string, unknown>) {
  const namespace = namespaces.get(role);
  assert.ok(namespace);
  const before = sandbox.requests.length;
  const result = await handleToolCall(namespace, tool, args);
  const patches = sandbox.requests.slice(before).filter((r) => r.method === 'PATCH');
  return { isError: result.isError === true, payload: payloadOf(result), patches };
}

describe('issue endpoints on a pull request', () => {
  const cases: [string, string, string, Record<string, unknown>, 'allow' | 'deny', string[]][] = [
    [
      'closing PR #1 through the issue endpoint',
      'issue-manager',
      'gitea_issues_edit',
      { owner: 'acme', repo: 'widgets', index: 1, body: { state: 'closed' } },
      'deny',
      ['gitea.issue.close', 'gitea.pr.close'],
    ],
    [
      'retitling PR #1 through the issue endpoint',
      'issue-manager',
      'gitea_issues_edit',
      { owner: 'acme', repo: 'widgets', index: 1, body: { title: 'renamed' } },
      'deny',
      ['gitea.issue.edit', 'gitea.pr.edit'],
    ],
    [
      'the same close through the raw tool',
      'issue-manager',
      'gitea_api_request',
      { method: 'PATCH', path: '/repos/acme/widgets/issues/1', body: { state: 'closed' } },
      'deny',
      ['gitea.issue.close', 'gitea.pr.close'],
    ],
    [
      'retitling issue #4, which is no pull request',
      'issue-manager',
      'gitea_issues_edit',
      { owner: 'acme', repo: 'widgets', index: 4, body: { title: 'Document releases' } },
      'allow',
      [],
    ],
    [
      'closing issue #3, which is no pull request',
      'issue-manager',
      'gitea_issues_edit',
      { owner: 'acme', repo: 'widgets', index: 3, body: { state: 'closed' } },
      'allow',
      [],
    ],
    [
      'the reconciler, who may close pull requests, closing PR #1 there',
      'reconciler',
      'gitea_issues_edit',
      { owner: 'acme', repo: 'widgets', index: 1, body: { state: 'closed' } },
      'allow',
      [],
    ],
  ];
  for (const [name, role, tool, args, expected, operations] of cases) {
    test(`${name}: ${expected}`, async () => {
      const { isError, payload, patches } = await edit(role, tool, args);
      if (expected === 'allow') {
        assert.equal(isError, false, JSON.stringify(payload));
        assert.equal(patches.length, 1);
        return;
      }
      assert.equal(payload.error?.kind, 'policy_denied');
      assert.equal(payload.error?.reason, 'not_allowed');
      assert.deepEqual(payload.error?.operations, operations);
      // The denial names the live fact that made it a pull request edit.
      const fact = (payload.error?.failed ?? []).find((f: { code: string }) => f.code === 'issue_is_pull_request');
      assert.equal(fact?.fact, 'GET /repos/{owner}/{repo}/issues/{index}: pull_request', JSON.stringify(payload.error));
      assert.match(fact?.message ?? '', /^#1 is a pull request, so this issue route also needs gitea\.pr\./);
      assert.deepEqual(patches, [], 'a refused edit reached Gitea');
    });
  }
});

// Gitea's comment routes judge the comment's own issue (GetCommentByID, then
// CanWriteIssuesOrPulls(comment.Issue.IsPull)) and ignore the {index} of the deprecated ones.
describe('comment routes by id judge the issue the comment is on', () => {
  const cases: [string, string, string, () => Record<string, unknown>, 'allow' | 'deny'][] = [
    [
      'the issue-manager editing a comment on PR #1 by its id',
      'issue-manager',
      'gitea_comments_edit',
      () => ({ owner: 'acme', repo: 'widgets', id: comments.onPull, body: { body: 'edited' } }),
      'deny',
    ],
    [
      'the same comment through the deprecated route, naming issue #3 as its index',
      'issue-manager',
      'gitea_comments_edit_deprecated',
      () => ({ owner: 'acme', repo: 'widgets', index: 3, id: comments.onPull, body: { body: 'edited' } }),
      'deny',
    ],
    [
      'the same through the raw tool',
      'issue-manager',
      'gitea_api_request',
      () => ({
        method: 'PATCH',
        path: `/repos/acme/widgets/issues/3/comments/${comments.onPull}`,
        body: { body: 'x' },
      }),
      'deny',
    ],
    [
      'the issue-manager editing a comment on issue #3 by its id',
      'issue-manager',
      'gitea_comments_edit',
      () => ({ owner: 'acme', repo: 'widgets', id: comments.onIssue, body: { body: 'edited' } }),
      'allow',
    ],
    [
      'the reconciler, who may comment on pull requests, editing the comment on PR #1',
      'reconciler',
      'gitea_comments_edit',
      () => ({ owner: 'acme', repo: 'widgets', id: comments.onPull, body: { body: 'edited' } }),
      'allow',
    ],
  ];
  for (const [name, role, tool, args, expected] of cases) {
    test(`${name}: ${expected}`, async () => {
      const { isError, payload, patches } = await edit(role, tool, args());
      if (expected === 'allow') {
        assert.equal(isError, false, JSON.stringify(payload));
        assert.equal(patches.length, 1);
        return;
      }
      assert.equal(payload.error?.reason, 'not_allowed', JSON.stringify(payload));
      assert.deepEqual(payload.error?.operations, ['gitea.issue.comment', 'gitea.pr.comment']);
      const fact = (payload.error?.failed ?? []).find((f: { code: string }) => f.code === 'issue_is_pull_request');
      assert.equal(fact?.fact, 'GET /repos/{owner}/{repo}/issues/comments/{id}: pull_request_url');
      assert.deepEqual(patches, [], 'a refused edit reached Gitea');
    });
  }
});

test('every answer the sandbox gave in this file conforms to the pinned Gitea spec', () => {
  sandbox.assertConformed();
});
