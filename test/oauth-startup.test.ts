// AUTH_MODE=oauth refuses to start (exit 2, one line naming the setting, no secret) when what it needs
// is missing: the encryption key for the token store, the Gitea application's credentials, a profile
// that names who may sign in, the HTTP transport, HTTPS for a public bind.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { namespaceEnv, runServe, tempDir } from './support/namespace.js';
import { ENCRYPTION_KEY, OAUTH_PROFILE } from './support/oauth-flow.js';

let sandbox: Sandbox;
let dir: ReturnType<typeof tempDir>;
before(async () => {
  sandbox = await startSandbox();
  dir = tempDir('warden-oauth-start-');
});
after(async () => {
  await sandbox.close();
  dir.dispose();
});

const SECRET = 'gto_secret-value-that-must-not-be-printed';

function env(overrides: Record<string, string | null>): Record<string, string> {
  const base = namespaceEnv(sandbox, 'gitea-author', {
    auditLog: join(dir.path, 'audit.jsonl'),
    extra: {
      GITEA_MCP_PROFILE: OAUTH_PROFILE,
      MCP_TRANSPORT: 'http',
      MCP_PORT: '0',
      AUTH_MODE: 'oauth',
      OAUTH_CLIENT_ID: 'client-id',
      OAUTH_CLIENT_SECRET: SECRET,
      TOKEN_ENCRYPTION_KEY: ENCRYPTION_KEY,
      OAUTH_STORE: join(dir.path, 'tokens.sqlite'),
    },
  });
  for (const [key, value] of Object.entries(overrides)) {
    if (value === null) delete base[key];
    else base[key] = value;
  }
  return base;
}

const cases: Array<[string, Record<string, string | null>, RegExp]> = [
  ['no TOKEN_ENCRYPTION_KEY', { TOKEN_ENCRYPTION_KEY: null }, /needs TOKEN_ENCRYPTION_KEY/],
  [
    'a short TOKEN_ENCRYPTION_KEY',
    { TOKEN_ENCRYPTION_KEY: 'short' },
    /TOKEN_ENCRYPTION_KEY must be at least 32 characters/,
  ],
  ['no client secret', { OAUTH_CLIENT_SECRET: null }, /needs OAUTH_CLIENT_ID and OAUTH_CLIENT_SECRET/],
  ['no client id', { OAUTH_CLIENT_ID: null }, /needs OAUTH_CLIENT_ID and OAUTH_CLIENT_SECRET/],
  [
    'a profile that names nobody',
    { GITEA_MCP_PROFILE: 'gitea-author' },
    /names nobody who may sign in: set authenticated_users and\/or authenticated_teams/,
  ],
  ['stdio', { MCP_TRANSPORT: 'stdio' }, /AUTH_MODE=oauth needs MCP_TRANSPORT=http/],
  ['a public bind without an https PUBLIC_BASE_URL', { MCP_HOST: '0.0.0.0' }, /needs PUBLIC_BASE_URL=https/],
  [
    'OAUTH_GITEA_SCOPES naming no Gitea scope',
    { OAUTH_GITEA_SCOPES: 'read:user write:everything' },
    /OAUTH_GITEA_SCOPES names 'write:everything', which is no Gitea token scope/,
  ],
  [
    'a client document timeout past 10 seconds',
    { OAUTH_CLIENT_DOCUMENT_TIMEOUT_MS: '60000' },
    /OAUTH_CLIENT_DOCUMENT_TIMEOUT_MS must be between 100 and 10000 milliseconds/,
  ],
  [
    'an unreachable PostgreSQL store',
    // Replicas on PostgreSQL need CONFIRMATION_KEY first (src/server/confirm/runtime.ts); given, the store is tried.
    { OAUTH_STORE: `postgres://warden:${SECRET}@127.0.0.1:9/warden`, CONFIRMATION_KEY: 'k'.repeat(40) },
    /cannot open the OAuth token store \(OAUTH_STORE\)/,
  ],
];

for (const [name, overrides, message] of cases) {
  test(`refuses to start in oauth mode with ${name}`, async () => {
    const { code, stderr } = await runServe(env(overrides));
    assert.equal(code, 2, stderr);
    assert.match(stderr, message);
    assert.ok(!stderr.includes(SECRET), 'no secret in the message');
  });
}
