// The raw tool reaches only what the namespace serves: an operation whose generated tool the operator
// took away with DISABLED_TOOLS is refused through gitea_api_request too, before any Gitea request.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { handleToolCall } from '../src/server/call/pipeline.js';
import type { Namespace } from '../src/server/session.js';
import { payloadOf, tempDir } from './support/namespace.js';
import { startContractSandbox, type ContractSandbox } from './support/spec-contract.js';
import { openNamespace } from './support/in-process.js';

const dir = tempDir('warden-raw-filters-');
let sandbox: ContractSandbox;
let namespace: Namespace;

before(async () => {
  sandbox = await startContractSandbox();
  const env = {
    GITEA_URL: sandbox.url,
    GITEA_MCP_PROFILE: 'gitea-author',
    GITEA_AUTHOR_TOKEN: sandbox.users.alice?.token ?? '',
    AUDIT_LOG: join(dir.path, 'audit.jsonl'),
    DISABLED_TOOLS: 'gitea_comments_create',
  };
  namespace = await openNamespace(env);
});

after(async () => {
  await namespace.session.audit.close();
  await sandbox.close();
  dir.dispose();
});

test('a disabled tool is unknown, and its operation is refused through the raw tool with no Gitea request', async () => {
  await assert.rejects(
    handleToolCall(namespace, 'gitea_comments_create', {
      owner: 'acme',
      repo: 'widgets',
      index: 1,
      body: { body: 'hi' },
    }),
    /Unknown tool/,
  );
  const before = sandbox.requests.length;
  const raw = await handleToolCall(namespace, 'gitea_api_request', {
    method: 'POST',
    path: '/repos/acme/widgets/issues/1/comments',
    body: { body: 'hi' },
  });
  assert.equal(raw.isError, true);
  assert.equal(payloadOf(raw).error.kind, 'tool_disabled');
  assert.equal(sandbox.requests.length, before);
});

test('operations the namespace still serves go through the raw tool as before', async () => {
  const raw = await handleToolCall(namespace, 'gitea_api_request', {
    method: 'GET',
    path: '/repos/acme/widgets/issues/1/comments',
  });
  assert.equal(raw.isError, false, JSON.stringify(payloadOf(raw)));
});

test('every answer the sandbox gave in this file conforms to the pinned Gitea spec', () => {
  sandbox.assertConformed();
});
