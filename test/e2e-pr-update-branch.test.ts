// Updating a pull request (POST /pulls/{n}/update) merges or rebases its base into its head branch:
// a push to the head. A pull request whose head is a protected branch (main, opened against a branch
// the author controls) must not become a way to land unreviewed code on main. The head is read live.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { handleToolCall } from '../src/server/call/pipeline.js';
import type { Namespace } from '../src/server/session.js';
import { payloadOf, tempDir } from './support/namespace.js';
import { startContractSandbox, type ContractSandbox } from './support/spec-contract.js';
import { openNamespace } from './support/in-process.js';

const dir = tempDir('warden-pr-update-');
let sandbox: ContractSandbox;
let author: Namespace;
let mainAsHead: number;

before(async () => {
  sandbox = await startContractSandbox();
  author = await openNamespace({
    GITEA_URL: sandbox.url,
    GITEA_MCP_PROFILE: 'gitea-author',
    GITEA_AUTHOR_TOKEN: sandbox.users.alice?.token ?? '',
    AUDIT_LOG: join(dir.path, 'author.jsonl'),
  });
  // The author may open this: its base is a feature branch; its head is main.
  const created = payloadOf(
    await handleToolCall(author, 'gitea_pulls_create', {
      owner: 'acme',
      repo: 'widgets',
      body: { head: 'main', base: 'feature/login', title: 'Sync' },
    }),
  );
  assert.equal(typeof created.data?.number, 'number', JSON.stringify(created));
  mainAsHead = created.data.number;
});

after(async () => {
  await author.session.audit.close();
  await sandbox.close();
  dir.dispose();
});

/** The call's payload and the update requests it sent to Gitea. */
async function update(tool: string, args: (index: number) => Record<string, unknown>, index: () => number) {
  const before = sandbox.requests.length;
  const payload = payloadOf(await handleToolCall(author, tool, args(index())));
  const sent = sandbox.requests.slice(before).filter((r) => r.method === 'POST' && r.path.endsWith('/update'));
  return { payload, sent };
}

describe('updating a pull request branch', () => {
  const generated = (index: number) => ({ owner: 'acme', repo: 'widgets', index });
  const cases: [string, string, (index: number) => Record<string, unknown>, () => number, 'reaches Gitea' | string][] =
    [
      ['PR #1, head feature/login', 'gitea_pulls_update', generated, () => 1, 'reaches Gitea'],
      ['a PR whose head is main', 'gitea_pulls_update', generated, () => mainAsHead, 'protected_branch'],
      [
        'a PR whose head is main, rebased',
        'gitea_pulls_update',
        (index) => ({ ...generated(index), style: 'rebase' }),
        () => mainAsHead,
        'protected_branch',
      ],
      [
        'a PR whose head is main, through the raw tool',
        'gitea_api_request',
        (index) => ({ method: 'POST', path: `/repos/acme/widgets/pulls/${index}/update` }),
        () => mainAsHead,
        'protected_branch',
      ],
      ['a PR that cannot be read', 'gitea_pulls_update', generated, () => 999, 'target_unreadable'],
    ];
  for (const [name, tool, args, index, expected] of cases) {
    test(`${name}: ${expected}`, async () => {
      const { payload, sent } = await update(tool, args, index);
      if (expected === 'reaches Gitea') {
        assert.notEqual(payload.error?.kind, 'policy_denied', JSON.stringify(payload));
        assert.equal(sent.length, 1);
        return;
      }
      assert.equal(payload.error?.kind, 'policy_denied', JSON.stringify(payload));
      assert.equal(payload.error?.reason, expected);
      assert.deepEqual(sent, [], 'a refused update reached Gitea');
    });
  }
});
