// gitea-warden init: the profiles and client configuration a team starts from pass `check`, serve
// the team's own logins, never overwrite without --force, and a one-person setup says in the profile
// that its login comes from the environment.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { run as check } from '../src/cli/check.js';
import { run as init } from '../src/cli/init.js';
import { profileFileFor } from '../src/policy-files/profile-files.js';
import { profilesDir } from '../src/shared/paths.js';
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
/** init with the profiles in DIR/profiles and the client configuration in DIR (a repository of profiles). */
const into = (target: string) => ['--profiles', join(target, 'profiles'), '--dir', target];

describe('a team of four', () => {
  const target = join(dir.path, 'team');

  test('writes four profiles and the client configuration, and prints the next step', async () => {
    const result = await capture(init, [...team, '--repo', 'acme/widgets', '--client', 'vscode', ...into(target)]);
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
    assert.match(reviewer, /^ {2}trusted_orgs: \[acme\]$/m, "the trust domain is the owner of the team's repositories");
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
    const refused = await capture(init, [...team, '--reviewer-token-var', 'REVIEW_TOKEN', ...into(target)]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /not overwriting .*gitea-author\.yaml.*nothing was written/);
    assert.match(readFileSync(join(target, 'profiles', 'gitea-reviewer.yaml'), 'utf8'), /GITEA_REVIEWER_TOKEN/);
    const forced = await capture(init, [...team, '--reviewer-token-var', 'REVIEW_TOKEN', ...into(target), '--force']);
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
    const result = await capture(init, ['--login-from-env', 'GITEA_LOGIN', '--client', 'claude-code', ...into(target)]);
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
    [
      ['--author', 'ana,ben'],
      /--author takes one Gitea login \(several people sign in to one namespace only with --oauth\)/,
    ],
    [['--author', 'ana', '--trust', 'acme/devs'], /--trust 'acme\/devs': name the team's people/],
    [['--oauth', '--author', 'acme/devs'], /name at least one login beside teams/],
    [['--author', 'ana', '--repo', 'widgets'], /--repo wants OWNER\/NAME/],
    [['--author', 'ana', '--author-token-var', 'lower'], /--author-token-var wants a variable name/],
    [['--merger-token-var', 'M'], /--merger-token-var without --merger LOGIN/],
  ];
  for (const [args, message] of rows) {
    const result = await capture(init, [...args, ...into(target)]);
    assert.equal(result.code, 2, args.join(' '));
    assert.match(result.stderr, message);
  }
  assert.equal(existsSync(target), false);
});

describe("the team's own people, trusted by name, in profiles out of the agent's reach", () => {
  const people = ['--author', 'ana', '--reviewer', 'ben', '--merger', 'cleo', '--reconciler', 'dan'];
  const xdg = join(dir.path, 'xdg');
  const written = join(xdg, 'gitea-warden', 'profiles');
  const project = join(dir.path, 'project');
  const withConfigHome = async <T>(work: () => Promise<T>): Promise<T> => {
    const saved = process.env.XDG_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = xdg;
    try {
      return await work();
    } finally {
      if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = saved;
    }
  };
  /** The people a profile names: its user, who may sign in, and its integrity lists. */
  const namesIn = (file: string): string[] => {
    const data = parse(readFileSync(file, 'utf8')) as Record<string, unknown> & {
      integrity?: { trusted_users?: string[]; blocked_users?: string[] };
    };
    return [
      ...(typeof data.authenticated_username === 'string' ? [data.authenticated_username] : []),
      ...((data.authenticated_users as string[] | undefined) ?? []),
      ...(data.integrity?.trusted_users ?? []),
      ...(data.integrity?.blocked_users ?? []),
    ].map((name) => name.toLowerCase());
  };

  test('by default the profiles go to the config directory, not the project, each with a read-only note', async () => {
    const result = await withConfigHome(() =>
      capture(init, [...people, '--trust', 'eve', '--client', 'claude-code', '--dir', project]),
    );
    assert.equal(result.code, 0, result.stderr);
    for (const role of ['author', 'reviewer', 'merger', 'reconciler']) {
      const text = readFileSync(join(written, `gitea-${role}.yaml`), 'utf8');
      assert.match(text, /^# READ-ONLY for agents: keep this file where no agent can write it/m);
      assert.match(text, /reads it once at start; gitea_server_status shows restart_required after a change/);
    }
    assert.equal(existsSync(join(project, 'profiles')), false, 'nothing in the project but the client configuration');
    assert.doesNotMatch(result.stdout, /an agent working there can edit its own profile/);
    const config = JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8'));
    assert.equal(config.mcpServers['gitea-reviewer'].env.GITEA_MCP_PROFILE, join(written, 'gitea-reviewer.yaml'));
    assert.equal((await capture(check, [written])).code, 0);
  });

  test("each profile trusts the team's other people and --trust, never a name of the reference profiles", () => {
    const reference = readdirSync(profilesDir)
      .filter((name) => name.endsWith('.yaml'))
      .flatMap((name) => namesIn(join(profilesDir, name)));
    assert.ok(reference.includes('admin') && reference.includes('bob'), 'the reference profiles name sandbox people');
    for (const role of ['author', 'reviewer', 'merger', 'reconciler']) {
      const names = namesIn(join(written, `gitea-${role}.yaml`));
      assert.deepEqual(
        names.filter((name) => reference.includes(name)),
        [],
        `gitea-${role} names nobody of the reference profiles`,
      );
    }
    const reviewer = parse(readFileSync(join(written, 'gitea-reviewer.yaml'), 'utf8'));
    assert.deepEqual(reviewer.integrity.trusted_users, ['ana', 'cleo', 'dan', 'eve']);
    assert.equal(reviewer.authenticated_username, 'ben');
  });

  test('profiles inside the project directory: init says an agent working there could edit them', async () => {
    const repo = join(dir.path, 'repo');
    const result = await capture(init, [...people, '--profiles', join(repo, 'profiles'), '--dir', repo]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /is inside .*: an agent working there can edit its own profile/);
  });

  test('a bare name is the team file: the init directory first, then ./profiles; the package copy only when asked', () => {
    const cwd = join(dir.path, 'somewhere');
    mkdirSync(join(cwd, 'profiles'), { recursive: true });
    const search = { userDir: written, cwd };
    assert.equal(profileFileFor('gitea-reviewer', search), join(written, 'gitea-reviewer.yaml'));
    writeFileSync(join(cwd, 'profiles', 'gitea-triage.yaml'), 'profile_name: gitea-triage\n');
    assert.equal(profileFileFor('gitea-triage', search), join(cwd, 'profiles', 'gitea-triage.yaml'));
    assert.equal(profileFileFor('gitea-warden:gitea-reviewer', search), join(profilesDir, 'gitea-reviewer.yaml'));
    assert.throws(
      () => profileFileFor('gitea-owner', search),
      /no profile named 'gitea-owner': looked for gitea-owner\.yaml \(\.yml, \.json\) in .* and .*; the package's reference profile is gitea-warden:gitea-owner/,
    );
    // The same name in both places, different contents: which one is meant is not guessed.
    writeFileSync(join(cwd, 'profiles', 'gitea-reviewer.yaml'), 'profile_name: gitea-reviewer\n');
    assert.throws(() => profileFileFor('gitea-reviewer', search), /'gitea-reviewer' is ambiguous: .* differ/);
    assert.throws(() => profileFileFor('gitea-warden:nope', search), /no reference profile gitea-warden:nope/);
    assert.throws(() => profileFileFor('gitea-warden:../package.json', search), /no reference profile/);
  });

  test('--oauth writes who may sign in to each role: logins and teams', async () => {
    const target = join(dir.path, 'oauth');
    const result = await capture(init, [
      '--oauth',
      '--author',
      'ana,ben',
      '--author',
      'acme/Developers',
      '--reviewer',
      'cleo',
      ...into(target),
    ]);
    assert.equal(result.code, 0, result.stderr);
    const author = parse(readFileSync(join(target, 'profiles', 'gitea-author.yaml'), 'utf8'));
    assert.deepEqual(author.authenticated_users, ['ana', 'ben']);
    assert.deepEqual(author.authenticated_teams, ['acme/Developers']);
    assert.deepEqual(author.integrity.trusted_users, ['cleo']);
    assert.match(result.stdout, /AUTH_MODE=oauth GITEA_MCP_PROFILE=.*gitea-author\.yaml gitea-warden serve/);
    assert.equal((await capture(check, [join(target, 'profiles')])).code, 0);
  });

  test('a mistyped option or client gets a suggestion', async () => {
    const option = await capture(init, ['--reveiwer', 'ben', ...into(join(dir.path, 'typo'))]);
    assert.equal(option.code, 2);
    assert.match(option.stderr, /did you mean --reviewer\?/);
    const client = await capture(init, ['--author', 'ana', '--client', 'vscod', ...into(join(dir.path, 'typo'))]);
    assert.match(client.stderr, /did you mean vscode\?/);
  });
});
