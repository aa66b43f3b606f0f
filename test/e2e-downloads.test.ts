// Downloads through a real namespace (the MCP client, `serve`, the sandbox answering repoGetArchive as
// Gitea does): a branch whose files hold the namespace's own token, an AWS key and a private key comes
// back as a .tar.gz and a .zip in which none of them can be read after unpacking; the .bundle of the
// same branch is withheld as uninspectable. Every sandbox answer conforms to the spec.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { unzipSync } from 'fflate';
import { readTar } from '../src/shared/tar.js';
import { connectStdio, namespaceEnv, payloadOf, tempDir, type Connected } from './support/namespace.js';
import { startContractSandbox, type ContractSandbox } from './support/spec-contract.js';

let sandbox: ContractSandbox;
let author: Connected;
const dir = tempDir('warden-e2e-downloads-');
const AWS_KEY = 'AKIAIOSFODNN7EXAMPLE';
const KEY_BODY = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj';

before(async () => {
  sandbox = await startContractSandbox();
  const token = sandbox.users.alice?.token ?? '';
  const repo = sandbox.state.repos.find((r) => r.owner === 'acme' && r.name === 'widgets');
  assert.ok(repo);
  const main = repo.commits.get(repo.branches.get('main') ?? '');
  assert.ok(main);
  const commit = sandbox.state.addCommit(repo, {
    parents: [main.sha],
    message: 'Add deployment settings',
    author: { name: 'Alice', email: 'alice@example.com', login: 'alice' },
    date: '2025-03-01T10:00:00Z',
    tree: {
      ...main.tree,
      'deploy/.env': `GITEA_TOKEN=${token}\nAWS_ACCESS_KEY_ID=${AWS_KEY}\n`,
      'deploy/id_rsa': `-----BEGIN RSA PRIVATE KEY-----\n${KEY_BODY}\n-----END RSA PRIVATE KEY-----\n`,
    },
  });
  sandbox.state.moveBranch(repo, 'deploy-settings', commit.sha);
  author = await connectStdio(namespaceEnv(sandbox, 'gitea-author', { auditLog: `${dir.path}/audit.jsonl` }));
});
after(async () => {
  await author?.close();
  sandbox.assertConformed();
  await sandbox.close();
  dir.dispose();
});

const archive = (name: string) => ({
  name: 'gitea_contents_get_archive',
  arguments: { owner: 'acme', repo: 'widgets', archive: name },
});

function unpack(bytes: Buffer): Record<string, string> {
  if (bytes[0] === 0x1f)
    return Object.fromEntries(
      readTar(gunzipSync(bytes), 1000)
        .filter((e) => e.type === '0')
        .map((e) => [e.name, e.data.toString('utf8')]),
    );
  return Object.fromEntries(
    Object.entries(unzipSync(bytes))
      .filter(([name]) => !name.endsWith('/'))
      .map(([n, d]) => [n, Buffer.from(d).toString('utf8')]),
  );
}

describe('repoGetArchive through a namespace', () => {
  for (const format of ['tar.gz', 'zip']) {
    test(`a .${format} of a branch holding the token, an AWS key and a private key: none readable after unpacking`, async () => {
      const token = sandbox.users.alice?.token ?? '';
      const result = await author.client.callTool(archive(`deploy-settings.${format}`));
      assert.equal(result.isError, false, JSON.stringify(result.structuredContent));
      const payload = payloadOf(result);
      const bytes = Buffer.from(payload.data.content_base64 as string, 'base64');
      const files = unpack(bytes);
      const repo = sandbox.state.repos.find((r) => r.owner === 'acme' && r.name === 'widgets');
      const tree = repo?.commits.get(repo.branches.get('deploy-settings') ?? '')?.tree ?? {};
      assert.deepEqual(
        Object.keys(files).sort(),
        Object.keys(tree)
          .map((path) => `widgets/${path}`)
          .sort(),
      );
      const everything = JSON.stringify(result) + Object.values(files).join('\n');
      for (const secret of [token, AWS_KEY, KEY_BODY])
        assert.equal(everything.includes(secret), false, secret.slice(0, 6));
      assert.match(files['widgets/deploy/.env'] ?? '', /GITEA_TOKEN=\[REDACTED sha256:/);
      assert.equal(files['widgets/README.md'], '# widgets\n');
      assert.equal(payload.data.decoded_as, 'archive');
    });
  }

  test('the .bundle of the same branch is withheld as uninspectable', async () => {
    const result = await author.client.callTool(archive('deploy-settings.bundle'));
    assert.equal(result.isError, true);
    const error = payloadOf(result).error;
    assert.equal(error.kind, 'download_uninspectable');
    assert.match(error.message, /git bundle/);
    assert.equal(JSON.stringify(result).includes(AWS_KEY), false);
  });
});
