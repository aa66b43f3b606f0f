// Secrets the server holds are never shown: the key that seals the OAuth token store
// (TOKEN_ENCRYPTION_KEY) and the password of the token store's database (in OAUTH_STORE's URL, or
// PGPASSWORD) are redacted from results like the bearer token and the OAuth client secret are, here
// when an issue someone wrote quotes them. A PostgreSQL state store needs CONFIRMATION_KEY too (the
// replicas' shared sealing key of confirmations), which is held back the same way.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { connectStdio, namespaceEnv, payloadOf, tempDir } from './support/namespace.js';

const KEY = 'sealing-key-that-must-never-be-shown-0123456789';
const STORE_PASSWORD = 'store-password-never-shown-42';
const PG_PASSWORD = 'pg-env-password-never-shown-7';
const CONFIRMATION_KEY = 'confirmation-key-never-shown-0123456789abc';

let sandbox: Sandbox;
let dir: ReturnType<typeof tempDir>;

before(async () => {
  sandbox = await startSandbox();
  dir = tempDir('warden-secrets-');
});

after(async () => {
  await sandbox?.close();
  dir?.dispose();
});

test("TOKEN_ENCRYPTION_KEY and the token store's database password are redacted from what the agent reads", async () => {
  const created = await fetch(`${sandbox.url}/api/v1/repos/acme/widgets/issues`, {
    method: 'POST',
    headers: { authorization: `token ${sandbox.users.erin?.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      title: 'config dump',
      body: `key=${KEY}\nstore=postgres://warden:${STORE_PASSWORD}@db/warden\npg=${PG_PASSWORD}\nconfirm=${CONFIRMATION_KEY}`,
    }),
  });
  const issue = ((await created.json()) as { number: number }).number;
  const ns = await connectStdio(
    namespaceEnv(sandbox, 'gitea-author', {
      auditLog: join(dir.path, 'audit.jsonl'),
      extra: {
        TOKEN_ENCRYPTION_KEY: KEY,
        OAUTH_STORE: `postgres://warden:${STORE_PASSWORD}@127.0.0.1:9/warden`,
        PGPASSWORD: PG_PASSWORD,
        CONFIRMATION_KEY,
        // Erin wrote the issue: shown, not withheld, so the redaction is what keeps the secrets out.
        SECRET_DETECTION_MODE: 'mask',
      },
    }),
  );
  try {
    const result = await ns.client.callTool({
      name: 'gitea_api_request',
      arguments: { method: 'GET', path: `/repos/acme/widgets/issues/${issue}` },
    });
    const text = JSON.stringify(result);
    assert.equal(result.isError, false, text);
    for (const secret of [KEY, STORE_PASSWORD, PG_PASSWORD, CONFIRMATION_KEY])
      assert.ok(!text.includes(secret), 'a server secret was shown');
    assert.match(String(payloadOf(result).data?.body ?? text), /REDACTED|sha256:/);
  } finally {
    await ns.close();
  }
});
