// The audit log records names and targets, never a value redaction would hide: a secret a caller puts
// into an argument name, a target or a tool name is redacted in the events as it is in results.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fingerprint } from '../src/gitea/redact.js';
import { tempDir } from './support/namespace.js';
import { connectInProcess, type InProcessConnection } from './support/in-process.js';

// Gitea's token shape (40 hex) fits the owner and repo name patterns, so a valid call can carry it.
const TOKEN = 'abcdef0123456789abcdef0123456789abcdef01';
const BEARER = 'bearer-secret-for-http-clients-0123';
const dir = tempDir('warden-audit-secrets-');
const auditLog = join(dir.path, 'audit.jsonl');
let client: InProcessConnection['client'];
let connection: InProcessConnection;

before(async () => {
  // Nothing listens on port 9: identity stays unverified, reads fail at the network, which is enough here.
  const env = {
    GITEA_URL: 'http://127.0.0.1:9',
    GITEA_MCP_PROFILE: 'gitea-reviewer',
    AUDIT_LOG: auditLog,
    GITEA_REVIEWER_TOKEN: TOKEN,
    MCP_BEARER_TOKEN: BEARER,
  };
  connection = await connectInProcess(env);
  ({ client } = connection);
});

after(async () => {
  await connection.close();
  dir.dispose();
});

const routes: Array<[string, string, Record<string, unknown>]> = [
  ['an argument name of an invalid call', 'gitea_repos_get', { owner: 'acme', repo: 'widgets', [TOKEN]: 1 }],
  [
    'a body key of an invalid call',
    'gitea_comments_create',
    { owner: 'acme', repo: 'widgets', index: 1, body: { body: 'x', [BEARER]: 1 } },
  ],
  ['the owner of a valid call', 'gitea_repos_get', { owner: TOKEN, repo: 'widgets' }],
  ['the repository of a valid call', 'gitea_repos_get', { owner: 'acme', repo: TOKEN }],
  ['the name of an unknown tool', TOKEN, {}],
];

for (const [route, tool, args] of routes) {
  test(`a secret in ${route} never reaches the audit log`, async () => {
    const before = readFileSync(auditLog, 'utf8').length;
    await client.callTool({ name: tool, arguments: args }).catch(() => undefined);
    const written = readFileSync(auditLog, 'utf8').slice(before);
    assert.equal(written.split('\n').filter(Boolean).length, 2, 'a write-ahead and a result event');
    assert.equal(written.includes(TOKEN) || written.includes(BEARER), false, written);
    assert.ok(
      written.includes(fingerprint(TOKEN)) || written.includes(fingerprint(BEARER)),
      'the redacted value keeps its fingerprint',
    );
  });
}
