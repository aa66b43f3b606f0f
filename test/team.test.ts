// A new team's first hour, as they would live it (issue 26): the command installed from the packed
// tarball (test/support/installed.ts), run in scratch directories with a home of their own, against
// a sandbox that knows the team's people. init writes their own people and trust, outside the
// project; a bare profile name means their file; check sees their profiles and asks Gitea about the
// names they trust; the agent's hints say what a person can do; READ_ONLY can still read in the
// default tool mode; the shared OAuth service starts from the installed package; and the small
// things a newcomer meets (an unexpanded ${VAR}, a native module built for another Node, doctor,
// typos) each say what they are.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { defaultSeed, startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { profilesDir } from '../src/shared/paths.js';
import { nativeModuleProblem } from '../src/shared/native-module.js';
import { installedPackage, type Installed } from './support/installed.js';
import { connectStdio, payloadOf, spawnHttpNamespace, tempDir, toolNames } from './support/namespace.js';

const dir = tempDir('warden-team-');
const TEAM = ['ana', 'ben', 'cleo', 'dan'];
let installed: Installed;
let sandbox: Sandbox;

before(async () => {
  installed = await installedPackage();
  const seed = defaultSeed();
  // The team, in the organization; a stranger; a teammate whose token lacks read:user.
  seed.users.push(...TEAM.map((login) => ({ login })), { login: 'mallory' });
  seed.users.push({ login: 'ivy', token_scopes: ['read:repository'] });
  seed.orgs?.[0]?.teams.find((team) => team.name === 'Developers')?.members.push(...TEAM, 'ivy');
  sandbox = await startSandbox({ seed });
});

after(async () => {
  await sandbox?.close();
  dir.dispose();
});

const bin = () => join(installed.bin, 'gitea-warden');
const token = (login: string) => sandbox.users[login]?.token ?? '';

/** A user's environment: the installed command on PATH, their own home, nothing of ours. */
function userEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: `${installed.bin}:${process.env.PATH ?? ''}`, HOME: home, ...extra };
}

/** Runs the installed command without blocking this process (the sandbox answering it runs here). */
function warden(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(bin(), args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const INSTALLED_SERVE = () => [join(installed.packageDir, 'dist', 'bin', 'gitea-warden.js'), 'serve'];

function makeDir(...parts: string[]): string {
  const path = join(dir.path, ...parts);
  mkdirSync(path, { recursive: true });
  return path;
}

/** The people a profile names: its user, who may sign in, and its integrity lists. */
function namesIn(file: string): string[] {
  const data = parse(readFileSync(file, 'utf8')) as Record<string, unknown> & {
    integrity?: { trusted_users?: string[]; blocked_users?: string[] };
  };
  return [
    ...(typeof data.authenticated_username === 'string' ? [data.authenticated_username] : []),
    ...((data.authenticated_users as string[] | undefined) ?? []),
    ...(data.integrity?.trusted_users ?? []),
    ...(data.integrity?.blocked_users ?? []),
  ].map((name) => name.toLowerCase());
}

describe("init writes the team's own people, outside the project; check sees them", () => {
  const home = makeDir('home');
  const project = makeDir('project');
  const written = join(home, '.config', 'gitea-warden', 'profiles');

  test("init: the team's users and trust in ~/.config, no name of the reference profiles", async () => {
    const run = await warden(
      ['init', '--author', 'ana', '--reviewer', 'ben', '--merger', 'cleo', '--reconciler', 'dan', '--trust', 'eve'],
      project,
      userEnv(home),
    );
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(readdirSync(project), [], 'nothing written into the project');
    const reference = readdirSync(profilesDir)
      .filter((name) => name.endsWith('.yaml'))
      .flatMap((name) => namesIn(join(profilesDir, name)));
    for (const role of ['author', 'reviewer', 'merger', 'reconciler']) {
      const file = join(written, `gitea-${role}.yaml`);
      assert.deepEqual(
        namesIn(file).filter((name) => reference.includes(name)),
        [],
        `gitea-${role}`,
      );
      assert.match(readFileSync(file, 'utf8'), /^# READ-ONLY for agents/m);
    }
    assert.deepEqual(parse(readFileSync(join(written, 'gitea-author.yaml'), 'utf8')).integrity.trusted_users, [
      'ben',
      'cleo',
      'dan',
      'eve',
    ]);
  });

  test('check with no paths checks those profiles and says which', async () => {
    const run = await warden(['check'], project, userEnv(home));
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(
      run.stdout,
      /check: no findings \(checked 4 files: .*\.config\/gitea-warden\/profiles\/gitea-author\.yaml/,
    );
    assert.doesNotMatch(run.stdout, /gitea-warden:/, 'not the package files');
  });

  test('check with no paths in a directory of four broken profiles reports each at file:line', async () => {
    const broken = makeDir('broken');
    mkdirSync(join(broken, 'profiles'));
    for (const name of ['a', 'b', 'c', 'd'])
      writeFileSync(
        join(broken, 'profiles', `${name}.yaml`),
        `profile_name: ${name}\nrole: author\nauthenticated_username: ana\ntoken_source_name: T\nallowed_operations: [gitea.pr.craete]\n`,
      );
    const run = await warden(['check'], broken, userEnv(makeDir('empty-home')));
    assert.equal(run.code, 1, run.stdout);
    for (const name of ['a', 'b', 'c', 'd'])
      assert.match(run.stdout, new RegExp(`^profiles/${name}\\.yaml:5: error unknown_operation`, 'm'));
    assert.match(run.stdout, /4 finding\(s\) \(checked 4 files: profiles\/a\.yaml/);
  });

  test('check asks Gitea about trusted names: a stranger and a login nobody has are warnings at their line', async () => {
    const file = join(makeDir('trust'), 'gitea-reviewer.yaml');
    writeFileSync(
      file,
      readFileSync(join(written, 'gitea-reviewer.yaml'), 'utf8')
        .replace('trusted_users: [ana, cleo, dan, eve]', 'trusted_users: [ana, mallory, ghost]')
        .replace('role: reviewer\n', 'role: reviewer\nrepositories: [acme/widgets]\n'),
    );
    const line =
      readFileSync(file, 'utf8')
        .split('\n')
        .findIndex((text) => text.includes('trusted_users')) + 1;
    const env = userEnv(home, { GITEA_URL: sandbox.url, GITEA_REVIEWER_TOKEN: token('ben') });
    const run = await warden(['check', file], dir.path, env);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, new RegExp(`gitea-reviewer\\.yaml:${line}: warning trusted_user_outside: .*'mallory'`));
    assert.match(run.stdout, new RegExp(`gitea-reviewer\\.yaml:${line}: warning trusted_user_unknown: .*'ghost'`));
    assert.doesNotMatch(run.stdout, /'ana'/, 'a member of acme passes');
    assert.equal((await warden(['check', '--offline', file], dir.path, env)).code, 0);
  });
});

describe("a bare profile name is the team's file, the package copy only when asked for", () => {
  const home = makeDir('repo-home');
  const repo = makeDir('team-repo');
  before(async () => {
    const run = await warden(
      ['init', '--author', 'ana', '--reviewer', 'ben', '--profiles', 'profiles'],
      repo,
      userEnv(home),
    );
    assert.equal(run.code, 0, run.stderr);
    // The team's reviewer comments but does not approve (the reference reviewer may).
    const file = join(repo, 'profiles', 'gitea-reviewer.yaml');
    const text = readFileSync(file, 'utf8');
    assert.ok(text.includes('  - gitea.pr.approve\n') && text.includes('can_approve_prs: true'));
    writeFileSync(
      file,
      text.replace('  - gitea.pr.approve\n', '').replace('can_approve_prs: true', 'can_approve_prs: false'),
    );
  });

  test('explain and decide answer from ./profiles/NAME.yaml', async () => {
    const explain = await warden(
      ['explain', '--profile', 'gitea-reviewer', '--operation', 'gitea.pr.approve'],
      repo,
      userEnv(home),
    );
    assert.equal(explain.code, 1, explain.stdout);
    assert.match(explain.stdout, /^DENY {2}operation gitea\.pr\.approve/);
    assert.match(explain.stdout, /decided by: {2}profiles\/gitea-reviewer\.yaml:\d+ +default deny/);
    const decide = await warden(
      ['decide', '--profile', 'gitea-reviewer', '--operation', 'gitea.pr.approve'],
      repo,
      userEnv(home),
    );
    assert.equal(JSON.parse(decide.stdout).effect, 'deny');
  });

  test('gitea-warden:NAME is the reference profile; a missing name says where it looked; two differing copies are refused', async () => {
    const reference = await warden(
      ['explain', '--profile', 'gitea-warden:gitea-reviewer', '--operation', 'gitea.pr.approve'],
      repo,
      userEnv(home),
    );
    assert.equal(reference.code, 0, reference.stderr);
    assert.match(reference.stdout, /gitea-warden:profiles\/gitea-reviewer\.yaml/);
    const missing = await warden(
      ['explain', '--profile', 'gitea-triage', '--operation', 'gitea.read'],
      repo,
      userEnv(home),
    );
    assert.equal(missing.code, 2);
    assert.match(
      missing.stderr,
      /no profile named 'gitea-triage': looked for gitea-triage\.yaml \(\.yml, \.json\) in .*\.config\/gitea-warden\/profiles and profiles/,
    );
    // Another copy where init writes by default, different from the project's: which one is meant is not guessed.
    const other = join(home, '.config', 'gitea-warden', 'profiles');
    mkdirSync(other, { recursive: true });
    cpSync(join(profilesDir, 'gitea-reviewer.yaml'), join(other, 'gitea-reviewer.yaml'));
    const ambiguous = await warden(
      ['explain', '--profile', 'gitea-reviewer', '--operation', 'gitea.read'],
      repo,
      userEnv(home),
    );
    assert.equal(ambiguous.code, 2);
    assert.match(ambiguous.stderr, /'gitea-reviewer' is ambiguous: .* differ; give the path/);
  });

  test("GITEA_MCP_PROFILE=NAME serves the team's file: its user, verified", async () => {
    const connection = await connectStdio(
      userEnv(makeDir('serve-home'), {
        GITEA_URL: sandbox.url,
        GITEA_MCP_PROFILE: 'gitea-author',
        GITEA_AUTHOR_TOKEN: token('ana'),
        AUDIT_LOG: join(dir.path, 'name-audit.jsonl'),
        LOG_LEVEL: 'warn',
      }),
      INSTALLED_SERVE(),
      repo,
    );
    try {
      const whoami = payloadOf(await connection.client.callTool({ name: 'gitea_whoami', arguments: {} }));
      assert.equal(whoami.expected_login, 'ana');
      assert.equal(whoami.verification, 'verified');
    } finally {
      await connection.close();
    }
  });

  test("a denial's hint says what a person can do; the edit is explain's fix, for people", async () => {
    const connection = await connectStdio(
      userEnv(makeDir('hint-home'), {
        GITEA_URL: sandbox.url,
        GITEA_MCP_PROFILE: join(repo, 'profiles', 'gitea-author.yaml'),
        GITEA_AUTHOR_TOKEN: token('ana'),
        AUDIT_LOG: join(dir.path, 'hint-audit.jsonl'),
        LOG_LEVEL: 'warn',
      }),
      INSTALLED_SERVE(),
      repo,
    );
    try {
      const remove = { method: 'DELETE', path: '/repos/acme/widgets' };
      const denial = payloadOf(
        await connection.client.callTool({ name: 'gitea_api_request', arguments: remove }),
      ).error;
      assert.equal(denial.kind, 'policy_denied');
      assert.ok(denial.hint, 'a hint');
      assert.doesNotMatch(denial.hint, /allowed_operations|\.yaml|\badd\b/, denial.hint);
      const activate = payloadOf(
        await connection.client.callTool({ name: 'gitea_activate_profile', arguments: { profile: 'gitea-owner' } }),
      );
      assert.doesNotMatch(JSON.stringify(activate), /allow_runtime_switching: true/);
    } finally {
      await connection.close();
    }
    const explain = await warden(
      ['explain', '--profile', join(repo, 'profiles', 'gitea-author.yaml'), '--operation', 'gitea.repo.delete'],
      repo,
      userEnv(home),
    );
    assert.match(
      explain.stdout,
      /fix: {9}add gitea\.repo\.delete to allowed_operations of profiles\/gitea-author\.yaml if this role should have it/,
    );
  });

  test('READ_ONLY with the default tool mode keeps gitea_call_operation, which reaches reads only', async () => {
    const connection = await connectStdio(
      userEnv(makeDir('read-home'), {
        GITEA_URL: sandbox.url,
        GITEA_MCP_PROFILE: join(repo, 'profiles', 'gitea-author.yaml'),
        GITEA_AUTHOR_TOKEN: token('ana'),
        AUDIT_LOG: join(dir.path, 'read-audit.jsonl'),
        READ_ONLY: 'true',
        TOOLSETS: 'all',
        LOG_LEVEL: 'warn',
      }),
      INSTALLED_SERVE(),
      repo,
    );
    try {
      const status = payloadOf(await connection.client.callTool({ name: 'gitea_server_status', arguments: {} }));
      assert.equal(status.tool_mode.mode, 'discovery', JSON.stringify(status));
      assert.ok((await toolNames(connection.client)).includes('gitea_call_operation'));
      const call = (tool: string, args: Record<string, unknown>) =>
        connection.client.callTool({ name: 'gitea_call_operation', arguments: { tool, arguments: args } });
      const list = await call('gitea_pulls_list', { owner: 'acme', repo: 'widgets' });
      assert.notEqual(list.isError, true, JSON.stringify(list.structuredContent));
      const create = payloadOf(
        await call('gitea_pulls_create', {
          owner: 'acme',
          repo: 'widgets',
          body: { head: 'dev', base: 'main', title: 'x' },
        }),
      );
      assert.equal(create.error?.kind, 'operation_not_offered', JSON.stringify(create));
    } finally {
      await connection.close();
    }
  });
});

describe('the shared OAuth service from the installed package', () => {
  test('init --oauth writes who may sign in; serve starts in OAuth mode and logs no refusal at error level', async () => {
    const service = makeDir('service');
    const init = await warden(
      ['init', '--oauth', '--author', 'ana,ben,acme/Developers', '--profiles', join(service, 'profiles')],
      service,
      userEnv(service),
    );
    assert.equal(init.code, 0, init.stderr);
    const profile = join(service, 'profiles', 'gitea-author.yaml');
    const data = parse(readFileSync(profile, 'utf8'));
    assert.deepEqual([data.authenticated_users, data.authenticated_teams], [['ana', 'ben'], ['acme/Developers']]);
    const serve = await spawnHttpNamespace(
      userEnv(service, {
        GITEA_URL: sandbox.url,
        GITEA_MCP_PROFILE: profile,
        AUTH_MODE: 'oauth',
        OAUTH_CLIENT_ID: 'client-id',
        OAUTH_CLIENT_SECRET: 'client-secret',
        TOKEN_ENCRYPTION_KEY: 'a'.repeat(64),
        OAUTH_STORE: join(service, 'tokens.sqlite'),
        AUDIT_LOG: join(service, 'audit.jsonl'),
      }),
      INSTALLED_SERVE(),
      service,
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const lines = serve
        .stderr()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; msg: string });
      assert.deepEqual(
        lines.filter((line) => line.level >= 50).map((line) => line.msg),
        [],
      );
      assert.ok(
        lines.some((line) => /per-user OAuth: each call runs with the signed-in person's Gitea token/.test(line.msg)),
      );
    } finally {
      await serve.close();
    }
  });
});

describe('small things a newcomer meets', () => {
  const home = makeDir('small-home');
  const project = makeDir('small');
  const profile = join(project, 'profiles', 'gitea-author.yaml');
  before(async () => {
    const run = await warden(
      ['init', '--author', 'ana', '--repo', 'acme/widgets', '--profiles', join(project, 'profiles')],
      project,
      userEnv(home),
    );
    assert.equal(run.code, 0, run.stderr);
  });
  const serveEnv = (extra: Record<string, string>) =>
    userEnv(home, {
      GITEA_URL: sandbox.url,
      GITEA_MCP_PROFILE: profile,
      AUDIT_LOG: join(dir.path, 'small-audit.jsonl'),
      ...extra,
    });

  test('an unexpanded ${VAR} from a client config is named as such, and nothing reaches Gitea', async () => {
    const before = sandbox.requests.length;
    const run = await warden(['serve'], project, serveEnv({ GITEA_AUTHOR_TOKEN: '${GITEA_AUTHOR_TOKEN}' }));
    assert.equal(run.code, 2);
    assert.match(
      run.stderr,
      /GITEA_AUTHOR_TOKEN holds \$\{GITEA_AUTHOR_TOKEN\}, a variable reference the MCP client did not expand/,
    );
    const path = await warden(
      ['serve'],
      project,
      serveEnv({
        GITEA_AUTHOR_TOKEN: token('ana'),
        GITEA_MCP_PROFILE: '${workspaceFolder}/profiles/gitea-author.yaml',
      }),
    );
    assert.equal(path.code, 2);
    assert.match(path.stderr, /GITEA_MCP_PROFILE holds \$\{workspaceFolder\}/);
    assert.equal(sandbox.requests.length, before, 'no request reached Gitea');
  });

  test('doctor: ready for the right token; a wrong user, a missing read:user and no Gitea each fail with the fix', async () => {
    const ready = await warden(['doctor'], project, serveEnv({ GITEA_AUTHOR_TOKEN: token('ana') }));
    assert.equal(ready.code, 0, ready.stdout);
    assert.match(ready.stdout, /^ok {4}identity: ana is the profile's user$/m);
    assert.match(ready.stdout, /^ok {4}acme\/widgets: ana has write access$/m);
    assert.match(ready.stdout, /doctor: ready\n$/);
    const wrong = await warden(['doctor'], project, serveEnv({ GITEA_AUTHOR_TOKEN: token('ben') }));
    assert.equal(wrong.code, 1);
    assert.match(wrong.stdout, /FAIL {2}identity: the token is ben's, the profile is for ana/);
    const scopes = await warden(['doctor'], project, serveEnv({ GITEA_AUTHOR_TOKEN: token('ivy') }));
    assert.equal(scopes.code, 1);
    assert.match(scopes.stdout, /FAIL {2}scopes: the token lacks read:user/);
    const away = await warden(
      ['doctor'],
      project,
      serveEnv({ GITEA_AUTHOR_TOKEN: 'x', GITEA_URL: 'http://127.0.0.1:9' }),
    );
    assert.equal(away.code, 1);
    assert.match(away.stdout, /FAIL {2}Gitea: Could not reach Gitea at http:\/\/127\.0\.0\.1:9/);
  });

  test('a better-sqlite3 that does not load says so, with the rebuild command for the installed package', async () => {
    const copy = join(makeDir('copied-install'), 'gitea-warden');
    cpSync(installed.packageDir, copy, { recursive: true });
    writeFileSync(
      join(copy, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'),
      'not an ELF',
    );
    const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [join(copy, 'dist', 'bin', 'gitea-warden.js'), 'serve'], {
        cwd: project,
        env: serveEnv({
          GITEA_AUTHOR_TOKEN: token('ana'),
          MCP_TRANSPORT: 'http',
          MCP_PORT: '0',
          AUTH_MODE: 'oauth',
          GITEA_MCP_PROFILE: join(profilesDir, 'examples', 'gitea-author-oauth.yaml'),
          OAUTH_CLIENT_ID: 'client-id',
          OAUTH_CLIENT_SECRET: 'client-secret',
          TOKEN_ENCRYPTION_KEY: 'a'.repeat(64),
          OAUTH_STORE: join(project, 'tokens.sqlite'),
        }),
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.on('close', (code) => resolve({ code, stderr }));
    });
    assert.equal(run.code, 2, run.stderr);
    assert.ok(run.stderr.includes(`cd ${copy} && npm rebuild better-sqlite3`), run.stderr);
  });

  test('a native module built for another Node names both versions', () => {
    const error = Object.assign(
      new Error(
        "The module '/x/better_sqlite3.node' was compiled against a different Node.js version using NODE_MODULE_VERSION 115. This version of Node.js requires NODE_MODULE_VERSION 127.",
      ),
      { code: 'ERR_DLOPEN_FAILED' },
    );
    assert.match(
      nativeModuleProblem(error, 'better-sqlite3') ?? '',
      /^better-sqlite3 was built for another Node\.js \(NODE_MODULE_VERSION 115; this is Node v[\d.]+, which needs 127\): rebuild it for this Node with: cd \S+ && npm rebuild better-sqlite3$/,
    );
    assert.equal(nativeModuleProblem(new Error('other'), 'better-sqlite3'), null);
  });

  test('a mistyped init option, DISABLED_TOOLS entry or task gets a suggestion', async () => {
    const option = await warden(['init', '--reveiwer', 'ben'], project, userEnv(home));
    assert.equal(option.code, 2);
    assert.match(option.stderr, /did you mean --reviewer\?/);
    const disabled = await warden(
      ['serve'],
      project,
      serveEnv({ GITEA_AUTHOR_TOKEN: token('ana'), DISABLED_TOOLS: 'gitea_pulls_merg' }),
    );
    assert.equal(disabled.code, 2);
    assert.match(
      disabled.stderr,
      /DISABLED_TOOLS names 'gitea_pulls_merg', which is no tool \(did you mean gitea_pulls_merge\b/,
    );
    const connection = await connectStdio(
      serveEnv({ GITEA_AUTHOR_TOKEN: token('ana'), LOG_LEVEL: 'warn' }),
      INSTALLED_SERVE(),
      project,
    );
    try {
      const task = payloadOf(
        await connection.client.callTool({ name: 'gitea_resolve_task_capability', arguments: { task: 'merge_rp' } }),
      );
      assert.match(task.error.message, /did you mean merge_pr\?/);
    } finally {
      await connection.close();
    }
  });
});
