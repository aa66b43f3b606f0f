// Bad input everywhere gets a clear error, the documented exit code, and never an echo of what it
// was: one table over the command line, then the server's side (GITEA_URL, a silent Gitea, a
// mistyped tool).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { packageRoot } from '../src/shared/paths.js';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { connectInProcess } from './support/in-process.js';
import { namespaceEnv, payloadOf, tempDir } from './support/namespace.js';

const main = join(packageRoot, 'src', 'cli', 'main.ts');
/** tsx by URL: the commands run from a temporary directory, where a bare 'tsx' would not resolve. */
const tsx = import.meta.resolve('tsx');
const dir = tempDir('warden-bad-input-');
after(() => dir.dispose());

function file(name: string, content: string | Buffer): string {
  const path = join(dir.path, name);
  writeFileSync(path, content);
  return path;
}

const profileHead =
  'profile_name: p\nrole: author\nauthenticated_username: ana\ntoken_source_name: GITEA_AUTHOR_TOKEN\n';
const binary = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe]), randomBytes(2048)]);
const version = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;

interface Row {
  name: string;
  args: () => string[];
  env?: Record<string, string>;
  code: number;
  /** What stdout and stderr together must say. */
  says: RegExp;
  /** Bytes of the input that must not come back. */
  echoes?: Buffer;
}

const rows: Row[] = [
  {
    name: 'check on a 300 kB profile: refused by size before parsing',
    args: () => [
      'check',
      file('huge.yaml', `${profileHead}allowed_operations:\n${'  - gitea.pr.create\n'.repeat(16000)}`),
    ],
    code: 1,
    says: /huge\.yaml: error too_large: is \d+ bytes, over the 262144-byte limit/,
  },
  {
    name: 'check on malformed YAML: line and column',
    args: () => [
      'check',
      file('broken.yaml', `${profileHead}allowed_operations: [gitea.read\nforbidden_operations: {`),
    ],
    code: 1,
    // The flow sequence opened on line 5 is found unterminated where line 6 starts.
    says: /broken\.yaml:6: error parse_error: not valid YAML\/JSON at line 6, column 1: .+\(BAD_INDENT\)/,
  },
  {
    name: 'check on nesting deep enough to exhaust the parser',
    args: () => ['check', file('deep.yaml', '['.repeat(100000))],
    code: 1,
    says: /deep\.yaml:1: error parse_error: not valid YAML\/JSON at line 1, column \d+: nested too deeply/,
  },
  {
    name: 'check on an empty file: called empty',
    args: () => ['check', file('empty.yaml', '# nothing yet\n\n')],
    code: 1,
    says: /empty\.yaml: error empty: is empty/,
  },
  {
    name: 'check on a binary file: refused, not shown',
    args: () => ['check', file('image.yaml', binary)],
    code: 1,
    says: /image\.yaml: error binary: is binary, not a YAML or JSON text file \(its content is not shown\)/,
    echoes: binary,
  },
  {
    name: 'migrate -i on random bytes: exit 2, nothing printed back',
    args: () => ['migrate', '-i', file('random.bin', binary)],
    code: 2,
    says: /gitea-warden migrate: .*random\.bin: is binary/,
    echoes: binary,
  },
  {
    name: 'migrate -i on a YAML scalar: not a profile',
    args: () => ['migrate', '-i', file('scalar.yaml', 'just some words\n')],
    code: 2,
    says: /scalar\.yaml is not a profile/,
  },
  {
    name: 'a mistyped operation in a profile: the fix names the closest one',
    args: () => ['check', file('typo.yaml', `${profileHead}allowed_operations: [gitea.read, gitea.pr.craete]\n`)],
    code: 1,
    says: /typo\.yaml:5: error unknown_operation: .*'gitea\.pr\.craete' is not in the gitea vocabulary \(did you mean gitea\.pr\.create\?\).*fix: write gitea\.pr\.create/,
  },
  {
    name: 'decide with a mistyped operation: denied, with a did-you-mean hint',
    args: () => ['decide', '--profile', 'gitea-warden:gitea-merger', '--operation', 'gitea.pr.mrege'],
    code: 1,
    says: /"reason": "unknown_operation"[\s\S]*"hint": "did you mean gitea\.pr\.merge\?/,
  },
  {
    name: 'a mistyped command: did you mean',
    args: () => ['chekc'],
    code: 2,
    says: /unknown command 'chekc' \(did you mean check\?\)/,
  },
  {
    name: '--version prints the package version',
    args: () => ['--version'],
    code: 0,
    says: new RegExp(`^gitea-warden ${version.replace(/\./g, '\\.')}\\n$`),
  },
  {
    name: 'serve with a GITEA_URL that is no URL: exit 2 before anything starts',
    args: () => ['serve'],
    env: { GITEA_MCP_PROFILE: 'gitea-author', GITEA_URL: 'gitea.example.com' },
    code: 2,
    says: /GITEA_URL must be the URL of a Gitea, for example https:\/\/gitea\.example\.com/,
  },
  {
    name: 'serve with a GITEA_URL holding credentials: exit 2, not echoed',
    args: () => ['serve'],
    env: { GITEA_MCP_PROFILE: 'gitea-author', GITEA_URL: 'https://ana:s3cr3t-pass@gitea.example.com' },
    code: 2,
    says: /GITEA_URL must not hold credentials/,
    echoes: Buffer.from('s3cr3t-pass'),
  },
];

describe('bad input on the command line', () => {
  for (const row of rows) {
    test(row.name, () => {
      const env = { PATH: process.env.PATH ?? '', HOME: dir.path, ...row.env };
      const run = spawnSync(process.execPath, ['--import', tsx, main, ...row.args()], {
        cwd: dir.path,
        env,
        encoding: 'buffer',
      });
      const output = Buffer.concat([run.stdout, run.stderr]);
      const text = output.toString('utf8');
      assert.equal(run.status, row.code, text);
      assert.match(text, row.says);
      assert.doesNotMatch(text, /at .+\.(ts|js):\d+|Maximum call stack/, 'no stack trace');
      if (row.echoes) assert.equal(output.includes(row.echoes.subarray(0, 16)), false, 'the input is not printed back');
    });
  }
});

describe('bad input reaching the server', () => {
  let sandbox: Sandbox;
  before(async () => {
    sandbox = await startSandbox();
  });
  after(() => sandbox.close());

  const envFor = (url: string) =>
    namespaceEnv(sandbox, 'gitea-author', {
      auditLog: join(dir.path, `audit-${Math.random()}.jsonl`),
      extra: { GITEA_URL: url },
    });

  test('a GITEA_URL copied with /api/v1 names the same Gitea: the identity verifies', async () => {
    const connection = await connectInProcess(envFor(`${sandbox.url}/api/v1/`));
    try {
      const whoami = payloadOf(await connection.client.callTool({ name: 'gitea_whoami', arguments: {} }));
      assert.equal(whoami.verification, 'verified');
      assert.equal(whoami.gitea_url, sandbox.url);
    } finally {
      await connection.close();
    }
  });

  test('a GITEA_URL that is no Gitea is reported as the URL, not as a token problem', async () => {
    const connection = await connectInProcess(envFor(`${sandbox.url}/gitea`));
    try {
      const whoami = payloadOf(await connection.client.callTool({ name: 'gitea_whoami', arguments: {} }));
      assert.equal(whoami.verification, 'unverified');
      assert.match(whoami.detail, /HTTP 404: GITEA_URL is not the base URL of a Gitea/);
    } finally {
      await connection.close();
    }
  });

  test(
    'a Gitea that never answers does not hold the handshake; a mutation waits for the check and is refused',
    { timeout: 120_000 },
    async () => {
      const sockets: Socket[] = [];
      let asked!: () => void;
      const userAsked = new Promise<void>((resolve) => (asked = resolve));
      const received: string[] = [];
      // Holds the first connection unanswered; once that is cut, any later one is cut at once.
      const silent: Server = createServer((socket) => {
        if (sockets.length > 0 && sockets.every((held) => held.destroyed)) socket.destroy();
        sockets.push(socket);
        socket.on('data', (chunk: Buffer) => {
          received.push(chunk.toString('latin1').split('\r\n')[0] ?? '');
          asked();
        });
      });
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const { port } = silent.address() as { port: number };
      const connection = await connectInProcess(
        { ...envFor(`http://127.0.0.1:${port}`), GITEA_TIMEOUT_MS: '600000' },
        undefined,
        { identity: 'background' },
      );
      try {
        await userAsked;
        // initialize is done and tools/list answers while GET /user still waits for its answer.
        const { tools } = await connection.client.listTools();
        assert.ok(tools.some((tool) => tool.name === 'gitea_whoami'));
        assert.equal(sockets.filter((socket) => !socket.destroyed).length, 1, 'GET /user is still unanswered');
        const mutation = connection.client.callTool({
          name: 'gitea_comments_create',
          arguments: { owner: 'acme', repo: 'widgets', index: 1, body: { body: 'hi' } },
        });
        for (const socket of sockets) socket.destroy();
        const refused = payloadOf(await mutation);
        assert.equal(refused.error.kind, 'identity_unverified');
        assert.match(refused.error.message, /Gitea did not answer GET \/user/);
        assert.equal(received[0], 'GET /api/v1/user HTTP/1.1');
      } finally {
        await connection.close();
        for (const socket of sockets) socket.destroy();
        await new Promise<void>((resolve) => silent.close(() => resolve()));
      }
    },
  );

  test('a mistyped tool name: the protocol error suggests the listed tool it resembles', async () => {
    const connection = await connectInProcess(envFor(sandbox.url));
    try {
      await assert.rejects(
        connection.client.callTool({ name: 'gitea_whoiam', arguments: {} }),
        /Unknown tool: gitea_whoiam \(did you mean gitea_whoami\?\)/,
      );
      await assert.rejects(
        connection.client.callTool({ name: 'gitea_pulls_create_review', arguments: {} }),
        (error: Error) => !/did you mean/.test(error.message),
      );
    } finally {
      await connection.close();
    }
  });
});
