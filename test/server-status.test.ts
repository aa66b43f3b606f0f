// gitea_server_status tells when the files the namespace loaded changed on disk (restart_required),
// while the running namespace keeps serving what it loaded. In process, no Gitea needed: without a
// token the namespace starts unverified and the built-in tool still answers.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { payloadOf, repoRoot, tempDir, toolNames } from './support/namespace.js';
import { connectInProcess, type InProcessConnection } from './support/in-process.js';

const dir = tempDir('warden-status-');
const profileFile = join(dir.path, 'reviewer.yaml');
let client: InProcessConnection['client'];
let connection: InProcessConnection;

interface StatusFile {
  path: string;
  sha256: string;
  changed: boolean;
}

before(async () => {
  copyFileSync(join(repoRoot, 'profiles', 'gitea-reviewer.yaml'), profileFile);
  const env = {
    GITEA_URL: 'http://127.0.0.1:9',
    GITEA_MCP_PROFILE: profileFile,
    AUDIT_LOG: join(dir.path, 'audit.jsonl'),
  };
  connection = await connectInProcess(env);
  ({ client } = connection);
});

after(async () => {
  await connection.close();
  dir.dispose();
});

async function status(): Promise<{ restart_required: boolean; profileFile: StatusFile | undefined }> {
  const payload = payloadOf(await client.callTool({ name: 'gitea_server_status', arguments: {} }));
  const files = payload.files as StatusFile[];
  return {
    restart_required: payload.restart_required,
    profileFile: files.find((file) => file.path.endsWith('reviewer.yaml')),
  };
}

test('an edited profile file sets restart_required; the namespace keeps serving what it loaded', async () => {
  const loaded = readFileSync(profileFile);
  const loadedHash = createHash('sha256').update(loaded).digest('hex');
  const listedAtStart = await toolNames(client);
  const atStart = await status();
  assert.equal(atStart.restart_required, false);
  assert.deepEqual(
    { sha256: atStart.profileFile?.sha256, changed: atStart.profileFile?.changed },
    { sha256: loadedHash, changed: false },
  );

  // The edit would shrink the listing to one domain if it were applied.
  writeFileSync(profileFile, loaded.toString('utf8').replace(/^toolsets: .*$/m, 'toolsets: [repos]'));
  const after = await status();
  assert.equal(after.restart_required, true);
  assert.deepEqual(
    { sha256: after.profileFile?.sha256, changed: after.profileFile?.changed },
    { sha256: loadedHash, changed: true },
  );
  assert.deepEqual(await toolNames(client), listedAtStart);

  writeFileSync(profileFile, loaded);
  assert.equal((await status()).restart_required, false, 'the file as loaded again: no restart needed');
});
