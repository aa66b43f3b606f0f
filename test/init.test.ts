// gitea-warden init: the profiles and client configuration a team starts from pass `check`, serve
// the team's own logins, never overwrite without --force, and a one-person setup says in the profile
// that its login comes from the environment.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run as check } from '../src/cli/check.js';
import { run as init } from '../src/cli/init.js';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { StartupError } from '../src/shared/startup-error.js';
import { connectInProcess, openNamespace } from './support/in-process.js';
import { payloadOf, tempDir } from './support/namespace.js';
import { capture } from './policy-helpers.js';

const dir = tempDir('warden-init-');
after(() => dir.dispose());
let sandbox: Sandbox;
before(async () => {
  sandbox = await startSandbox();
});
after(() => sandbox.close());

const team = ['--author', 'alice', '--reviewer', 'bob', '--merger', 'carol', '--reconciler', 'dave'];

describe('a team of four', () => {
  const target = join(dir.path, 'team');

  test('writes four profiles and the client configuration, and prints the next step', async () => {
    const result = await capture(init, [...team, '--repo', 'acme/widgets', '--client', 'vscode', '--dir', target]);
    assert.equal(result.code, 0, result.stderr);
    for (const role of ['author', 'reviewer', 'merger', 'reconciler'])
      assert.ok(existsSync(join(target, 'profiles', `gitea-${role}.yaml`)), role);
    assert.match(result.stdout, /next:\n {2}gitea-warden check .*profiles\/\n/);
    assert.match(result.stdout, /export GITEA_REVIEWER_TOKEN=\.\.\./);
    const config = JSON.parse(readFileSync(join(target, '.vscode', 'mcp.json'), 'utf8'));
    assert.deepEqual(Object.keys(config.servers), [
      'gitea-author',
      'gitea-reviewer',
      'gitea-merger',
      'gitea-reconciler',
    ]);
    assert.deepEqual(config.servers['gitea-merger'], {
      type: 'stdio',
      command: 'gitea-warden',
      args: ['serve'],
      env: {
        GITEA_URL: '${env:GITEA_URL}',
        GITEA_MCP_PROFILE: '${workspaceFolder}/profiles/gitea-merger.yaml',
        GITEA_MERGER_TOKEN: '${env:GITEA_MERGER_TOKEN}',
      },
    });
  });

  test('check passes on what it wrote', async () => {
    const result = await capture(check, [join(target, 'profiles')]);
    assert.equal(result.code, 0, result.stdout);
  });

  test('the profiles carry the logins, the token variables and the repository scope', () => {
    const reviewer = readFileSync(join(target, 'profiles', 'gitea-reviewer.yaml'), 'utf8');
    assert.match(reviewer, /^authenticated_username: bob$/m);
    assert.match(reviewer, /^token_source_name: GITEA_REVIEWER_TOKEN$/m);
    assert.match(reviewer, /^repositories: \[acme\/widgets\]$/m);
    assert.doesNotMatch(reviewer, /yaml-language-server/, 'no schema path into the package');
  });

  test('a generated profile serves its user: identity verified, outside the scope refused', async () => {
    const connection = await connectInProcess({
      GITEA_URL: sandbox.url,
      GITEA_MCP_PROFILE: join(target, 'profiles', 'gitea-author.yaml'),
      GITEA_AUTHOR_TOKEN: sandbox.users.alice?.token ?? '',
      AUDIT_LOG: join(dir.path, 'team-audit.jsonl'),
    });
    try {
      assert.equal(
        payloadOf(await connection.client.callTool({ name: 'gitea_whoami', arguments: {} })).verification,
        'verified',
      );
      const outside = payloadOf(
        await connection.client.callTool({ name: 'gitea_repos_get', arguments: { owner: 'acme', repo: 'gadgets' } }),
      );
      assert.equal(outside.error?.kind, 'policy_denied');
    } finally {
      await connection.close();
    }
  });

  test('a second run refuses to overwrite and writes nothing; --force replaces', async () => {
    const refused = await capture(init, [...team, '--reviewer-token-var', 'REVIEW_TOKEN', '--dir', target]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /not overwriting .*gitea-author\.yaml.*nothing was written/);
    assert.match(readFileSync(join(target, 'profiles', 'gitea-reviewer.yaml'), 'utf8'), /GITEA_REVIEWER_TOKEN/);
    const forced = await capture(init, [...team, '--reviewer-token-var', 'REVIEW_TOKEN', '--dir', target, '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(
      readFileSync(join(target, 'profiles', 'gitea-reviewer.yaml'), 'utf8'),
      /^token_source_name: REVIEW_TOKEN$/m,
    );
  });
});

describe('one person: the login from the environment, stated in the profile', () => {
  const target = join(dir.path, 'solo');
  const profile = join(target, 'profiles', 'gitea-author.yaml');
  const env = (extra: Record<string, string>) => ({
    GITEA_URL: sandbox.url,
    GITEA_MCP_PROFILE: profile,
    GITEA_AUTHOR_TOKEN: sandbox.users.alice?.token ?? '',
    AUDIT_LOG: join(dir.path, `solo-${Object.keys(extra).length}.jsonl`),
    ...extra,
  });

  test('writes authenticated_username_from_env in place of a login, warns about self-review, and passes check', async () => {
    const result = await capture(init, ['--login-from-env', 'GITEA_LOGIN', '--client', 'claude-code', '--dir', target]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      /one login for several roles: the guards refuse approving or merging that login's own pull requests/,
    );
    const text = readFileSync(profile, 'utf8');
    assert.match(text, /^authenticated_username_from_env: GITEA_LOGIN$/m);
    assert.doesNotMatch(text, /^authenticated_username:/m);
    const config = JSON.parse(readFileSync(join(target, '.mcp.json'), 'utf8'));
    assert.equal(config.mcpServers['gitea-author'].env.GITEA_LOGIN, '${GITEA_LOGIN}');
    assert.equal((await capture(check, [join(target, 'profiles')])).code, 0);
  });

  test('serve takes the login from the variable and says so in gitea_whoami', async () => {
    const connection = await connectInProcess(env({ GITEA_LOGIN: 'alice' }));
    try {
      const whoami = payloadOf(await connection.client.callTool({ name: 'gitea_whoami', arguments: {} }));
      assert.equal(whoami.verification, 'verified');
      assert.equal(whoami.expected_login, 'alice');
      assert.equal(whoami.expected_login_from_env, 'GITEA_LOGIN');
    } finally {
      await connection.close();
    }
  });

  test('with the variable unset, serve does not start (exit 2), naming the variable', async () => {
    await assert.rejects(
      openNamespace(env({})),
      (error: unknown) =>
        error instanceof StartupError &&
        error.exitCode === 2 &&
        /takes its Gitea login from GITEA_LOGIN/.test(error.message),
    );
  });

  test('a profile with both a login and the variable, or neither, is a finding naming both fields', async () => {
    for (const [name, identity, said] of [
      ['both', 'authenticated_username: a\nauthenticated_username_from_env: GITEA_LOGIN\n', 'sets more than one'],
      ['neither', '', 'needs exactly one'],
    ] as const) {
      const file = join(dir.path, `${name}.yaml`);
      writeFileSync(
        file,
        `profile_name: p\nrole: author\n${identity}token_source_name: T\nallowed_operations: [gitea.read]\n`,
      );
      const result = await capture(check, [file]);
      assert.equal(result.code, 1, name);
      assert.match(
        result.stdout,
        new RegExp(`${said} of the fields authenticated_username, authenticated_username_from_env`),
        name,
      );
    }
  });
});

test('bad init input: exit 2, nothing written', async () => {
  const target = join(dir.path, 'bad');
  const rows: Array<[string[], RegExp]> = [
    [[], /name at least one role/],
    [['--author', 'ana bob'], /'ana bob' is not a Gitea login/],
    [['--author', 'ana', '--reviewer', 'ANA'], /each role needs its own Gitea user/],
    [['--author', 'ana', '--client', 'emacs'], /--client must be one of: claude-code, vscode, cursor/],
    [['--author', 'ana', '--repo', 'widgets'], /--repo wants OWNER\/NAME/],
    [['--author', 'ana', '--author-token-var', 'lower'], /--author-token-var wants a variable name/],
    [['--merger-token-var', 'M'], /--merger-token-var without --merger LOGIN/],
  ];
  for (const [args, message] of rows) {
    const result = await capture(init, [...args, '--dir', target]);
    assert.equal(result.code, 2, args.join(' '));
    assert.match(result.stderr, message);
  }
  assert.equal(existsSync(target), false);
});
