// What users install is what is tested: `npm pack` the package, install the tarball into a
// temporary prefix as the README says, and from there run --version, init, check on what init wrote,
// serve answering tools/list over stdio and streamable HTTP against the sandbox, the demo, the shell
// lines of the README and of examples/README.md, and the CI workflows' steps in a scratch repository
// that keeps only profiles/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parse } from 'yaml';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { packageRoot } from '../src/shared/paths.js';
import { defaultSeed, startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { installedPackage, type Installed } from './support/installed.js';
import { payloadOf, tempDir } from './support/namespace.js';

const dir = tempDir('warden-install-');
/** The user's home: init writes the team's profiles to ~/.config/gitea-warden/profiles. */
const home = join(dir.path, 'home');
let installed: Installed;
let tarball: string;
let version: string;
let bin: string;
let sandbox: Sandbox;

/** The environment a user's shell has after installing: the prefix's bin first on PATH, nothing of ours. */
const userEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
  PATH: `${bin}:${process.env.PATH ?? ''}`,
  HOME: home,
  npm_config_prefix: installed.prefix,
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  ...extra,
});

function sh(script: string, cwd: string, env: Record<string, string>): SpawnSyncReturns<string> {
  return spawnSync('bash', ['-c', `set -euo pipefail\n${script}`], {
    cwd,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The same, without blocking this process (the sandbox serving its requests runs in it). */
function shAsync(
  script: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `set -euo pipefail\n${script}`], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('close', (code) => resolve({ status: code ?? 1, stdout, stderr }));
  });
}

function ok(run: { status: number | null; stdout: string; stderr: string }, what: string): string {
  assert.equal(run.status, 0, `${what}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  return run.stdout;
}

before(async () => {
  // The README's two lines, once per build for every test file (test/support/installed.ts).
  installed = await installedPackage();
  ({ tarball, version, bin } = installed);
  mkdirSync(home);
  sandbox = await startSandbox();
});

after(async () => {
  await sandbox?.close();
  dir.dispose();
});

test('the tarball holds the built command, the policies, the reference profiles and the catalog, not the tests', () => {
  const listed = spawnSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).stdout.split('\n');
  for (const file of [
    'package/dist/bin/gitea-warden.js',
    'package/policies/guards.yaml',
    'package/profiles/gitea-author.yaml',
    'package/src/catalog/tools.json',
  ]) {
    assert.ok(listed.includes(file), file);
  }
  assert.equal(listed.filter((file) => file.startsWith('package/test/')).length, 0);
});

describe('the installed command', () => {
  const project = join(dir.path, 'project');

  test('gitea-warden --version', () => {
    assert.equal(ok(sh('gitea-warden --version', dir.path, userEnv()), '--version'), `gitea-warden ${version}\n`);
  });

  test('gitea-warden init, then check on the generated profiles', () => {
    mkdirSync(project);
    const out = ok(
      sh(
        'gitea-warden init --author alice --reviewer bob --merger carol --reconciler dave --client claude-code',
        project,
        userEnv(),
      ),
      'init',
    );
    // Outside the project, where the agent works: the user's config directory.
    assert.match(out, /wrote ~\/\.config\/gitea-warden\/profiles\/gitea-author\.yaml/);
    assert.match(
      ok(sh('gitea-warden check', project, userEnv()), 'check'),
      /check: no findings \(checked 4 files: ~?.*\.config\/gitea-warden\/profiles\/gitea-author\.yaml/,
    );
  });

  test('gitea-warden serve answers tools/list over stdio against the sandbox, as the client config starts it', async () => {
    const config = JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8'));
    const entry = config.mcpServers['gitea-author'] as { command: string; args: string[]; env: Record<string, string> };
    const env = userEnv({
      GITEA_URL: sandbox.url,
      // As Claude Code expands ${VAR} in .mcp.json, from the environment it was started in.
      GITEA_MCP_PROFILE: (entry.env.GITEA_MCP_PROFILE as string).replace(/\$\{(\w+)\}/g, (_, name: string) =>
        name === 'HOME' ? home : '',
      ),
      GITEA_AUTHOR_TOKEN: sandbox.users.alice?.token ?? '',
      AUDIT_LOG: join(dir.path, 'author-audit.jsonl'),
      LOG_LEVEL: 'warn',
    });
    const transport = new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      env,
      cwd: project,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'install-test', version: '0.0.0' });
    await client.connect(transport);
    try {
      // The default TOOL_MODE=auto serves discovery for a listing this size: find leads to the operations.
      const { tools } = await client.listTools();
      assert.ok(
        tools.some((tool) => tool.name === 'gitea_find_operations'),
        tools.map((tool) => tool.name).join(', '),
      );
      const found = payloadOf(
        await client.callTool({ name: 'gitea_find_operations', arguments: { query: 'open a pull request' } }),
      );
      assert.ok(
        found.operations.some((op: { tool: string }) => op.tool === 'gitea_pulls_create'),
        JSON.stringify(found),
      );
      assert.equal(payloadOf(await client.callTool({ name: 'gitea_whoami', arguments: {} })).login, 'alice');
      // The denial names the user's own profile, where init wrote it, outside the project.
      const merge = { method: 'POST', path: '/repos/acme/widgets/pulls/1/merge', body: { do: 'merge' } };
      const denial = payloadOf(await client.callTool({ name: 'gitea_api_request', arguments: merge })).error;
      assert.equal(denial.determining.file, join(home, '.config', 'gitea-warden', 'profiles', 'gitea-author.yaml'));
      // A rule of the installed package's own policies is named as the package's file, never as a ../ path.
      const push = {
        method: 'PUT',
        path: '/repos/acme/widgets/contents/README.md',
        body: { branch: 'main', content: 'eA==', message: 'x', sha: '0' },
      };
      const protectedBranch = payloadOf(await client.callTool({ name: 'gitea_api_request', arguments: push })).error;
      assert.match(
        protectedBranch.failed[0].entry.file,
        /^gitea-warden:policies\/targets\.yaml$/,
        JSON.stringify(protectedBranch),
      );
    } finally {
      await client.close();
    }
  });

  test('gitea-warden demo tells its story from the installed package alone (no sources, no tsx)', () => {
    const run = sh('gitea-warden demo --json', dir.path, userEnv());
    assert.equal(run.status, 0, `demo\nstdout: ${run.stdout.slice(-2000)}\nstderr: ${run.stderr.slice(-2000)}`);
    const summary = JSON.parse(run.stdout) as { ok: boolean; calls: unknown[] };
    assert.equal(summary.ok, true);
    assert.ok(summary.calls.length >= 10, `${summary.calls.length} calls`);
  });

  test('gitea-warden serve answers tools/list and a call over streamable HTTP from the installed bundle', async () => {
    const child = spawn(join(bin, 'gitea-warden'), ['serve'], {
      cwd: project,
      env: userEnv({
        GITEA_URL: sandbox.url,
        GITEA_MCP_PROFILE: 'gitea-author',
        GITEA_AUTHOR_TOKEN: sandbox.users.alice?.token ?? '',
        AUDIT_LOG: join(dir.path, 'author-http-audit.jsonl'),
        MCP_TRANSPORT: 'http',
        MCP_PORT: '0',
        LOG_LEVEL: 'info',
      }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolveUrl, reject) => {
        let stderr = '';
        child.stderr?.on('data', (chunk: Buffer) => {
          stderr += chunk.toString('utf8');
          const found = /"url":"(http:[^"]+)"/.exec(stderr)?.[1];
          if (found) resolveUrl(found);
        });
        child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
      });
      const client = new Client({ name: 'install-test', version: '0.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        const { tools } = await client.listTools();
        assert.ok(tools.some((tool) => tool.name === 'gitea_whoami'));
        assert.equal(payloadOf(await client.callTool({ name: 'gitea_whoami', arguments: {} })).login, 'alice');
      } finally {
        await client.close();
      }
    } finally {
      child.kill('SIGTERM');
    }
  });
});

/** Commands of the ```sh blocks of a Markdown file, a line continued with \\ joined to the next. */
function shellLines(file: string): string[] {
  const text = readFileSync(join(packageRoot, file), 'utf8');
  const blocks = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => (match[1] ?? '').replace(/\\\n\s*/g, ''));
  return blocks.flatMap((block) => block.split('\n')).filter((line) => line.trim() !== '');
}

/** Lines not run here, each with the reason; every other line of the READMEs runs. */
const notRun: Array<[RegExp, string]> = [
  [/^npm ci && npm (run demo|test)\b/, 'the suite and the demo are what .ci/run runs; this test is part of that run'],
  [/^git clone https:\/\/gitea\.example\.com/, 'a placeholder URL: the checkout is this one'],
  [/^npm ci\b/, 'installs this checkout; the packed tarball below is installed instead'],
  [
    /^npm install --global \.\s/,
    'the same install from the checkout; the tarball install (test/support/installed.ts) runs the next block as written',
  ],
  [/^npm pack\b|^npm install --global \.\/gitea-warden-/, 'run as written by test/support/installed.ts'],
  [/^MCP_TRANSPORT=http /, 'a long-running HTTP server; test/e2e-server-http.test.ts and the OAuth tests serve it'],
  [
    /^export OAUTH_CLIENT_SECRET=/,
    'the settings of the OAuth shared service started by the next command; the OAuth tests set them',
  ],
];

/** The sandbox's people by the names the READMEs use, each a member of acme. */
const README_PEOPLE = ['ana', 'ben', 'cleo', 'dan', 'eve', 'rui', 'mei', 'ops-bot'];

describe('the shell lines of the README and examples/README.md run as written', () => {
  let people: Sandbox;
  before(async () => {
    const seed = defaultSeed();
    seed.users.push(...README_PEOPLE.map((login) => ({ login })));
    seed.orgs?.[0]?.teams.find((team) => team.name === 'Developers')?.members.push(...README_PEOPLE);
    people = await startSandbox({ seed });
  });
  after(() => people?.close());

  for (const file of ['README.md', 'examples/README.md']) {
    test(file, async () => {
      const work = join(dir.path, `readme-${file.replace(/\W/g, '_')}`);
      const readmeHome = join(work, 'home');
      mkdirSync(readmeHome, { recursive: true });
      const env = userEnv({ HOME: readmeHome, AUDIT_LOG: join(work, 'audit.jsonl') });
      // examples/README.md works in a repository that keeps its profiles on main, as its CI section says.
      if (file === 'examples/README.md')
        ok(
          sh(
            'git init -q -b main && gitea-warden init --author ana --reviewer ben --merger cleo --reconciler dan --profiles profiles >/dev/null && git add -A && git -c user.name=t -c user.email=t@t commit -qm profiles',
            work,
            env,
          ),
          'a repository of profiles',
        );
      const lines = shellLines(file);
      const run = lines.filter((line) => !notRun.some(([pattern]) => pattern.test(line)));
      assert.ok(run.length >= 3, `${file}: ${run.length} lines to run`);
      const script = run
        .map((line) =>
          line
            .replace('https://gitea.example.com', people.url)
            .replace('GITEA_AUTHOR_TOKEN=...', `GITEA_AUTHOR_TOKEN=${people.users.ana?.token ?? ''}`),
        )
        // Scratch paths for the places a README writes outside the user's home.
        .map((line) => line.replace(/\/tmp\/old\.yaml/g, join(work, 'old.yaml')))
        .map((line) => line.replace(/\/etc\/gitea-warden\//g, `${join(work, 'etc')}/`))
        .join('\n');
      const result = await shAsync(script, work, env);
      ok(result, `${file}:\n${script}`);
      if (file === 'README.md') {
        // What the README promises of its lines: the team's people in ~/.config, doctor ready.
        const reviewer = parse(
          readFileSync(join(readmeHome, '.config', 'gitea-warden', 'profiles', 'gitea-reviewer.yaml'), 'utf8'),
        );
        assert.deepEqual(reviewer.integrity.trusted_users, ['ana', 'cleo', 'dan', 'eve']);
        assert.match(result.stdout, /check: no findings \(checked 4 files/);
        assert.match(result.stdout, /doctor: ready/);
        const oauth = parse(readFileSync(join(work, 'etc', 'profiles', 'gitea-author.yaml'), 'utf8'));
        assert.deepEqual(oauth.authenticated_users, ['ana', 'ben']);
        assert.deepEqual(oauth.authenticated_teams, ['acme/Developers']);
      }
    });
  }
});

describe('the CI examples pass as written in a repository that keeps only profiles/', () => {
  interface Step {
    name?: string;
    run?: string;
    uses?: string;
    env?: Record<string, string>;
  }
  /** The tarball as a release asset would serve it: over HTTP, from loopback. */
  let server: Server;
  let tarballUrl: string;
  let sha256: string;
  before(async () => {
    const bytes = readFileSync(tarball);
    sha256 = createHash('sha256').update(bytes).digest('hex');
    server = createServer((req, res) => {
      if (req.url === '/gitea-warden.tgz') res.writeHead(200, { 'content-type': 'application/gzip' }).end(bytes);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    tarballUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/gitea-warden.tgz`;
  });
  after(() => server?.close());

  before(() => mkdirSync(runner));

  /** A pull request on a scratch repository: base commit with profiles, head commit with `change` applied. */
  function pullRequest(name: string, change: (profiles: string) => void): { repo: string; base: string } {
    const repo = join(dir.path, `ci-${name}`);
    mkdirSync(repo);
    ok(
      sh(
        'git init -q -b main && gitea-warden init --author ana --reviewer ben --merger cleo --reconciler dan --profiles profiles >/dev/null',
        repo,
        userEnv(),
      ),
      'init',
    );
    const commit = (message: string) =>
      ok(
        sh(
          `git add -A && git -c user.name=t -c user.email=t@t commit -qm '${message}' && git rev-parse HEAD`,
          repo,
          userEnv(),
        ),
        'commit',
      ).trim();
    const base = commit('base');
    change(join(repo, 'profiles'));
    commit('head');
    assert.deepEqual(
      readdirSync(repo).filter((entry) => entry !== '.git'),
      ['profiles'],
    );
    return { repo, base };
  }

  const edit = (file: string, from: string, to: string) => (profiles: string) => {
    const path = join(profiles, file);
    const text = readFileSync(path, 'utf8');
    assert.ok(text.includes(from), `${file} holds ${from}`);
    writeFileSync(path, text.replace(from, to));
  };
  const narrow = edit('gitea-reviewer.yaml', '  - gitea.issue.comment\n', '');

  /** The runner: one prefix whose bin is on PATH; the install step runs there once (later runs would install it again). */
  const runner = join(dir.path, 'runner');
  let installedOnRunner = false;

  /**
   * Runs the workflow's shell steps in order, with GitHub's expressions filled in and the pinned
   * tarball's URL and checksum pointed at the one this build packed; the exit status of the first
   * failing step.
   */
  async function runWorkflow(
    workflow: string,
    repo: string,
    base: string,
    labels: string[],
    pinned: { sha256?: string; prefix?: string } = {},
  ): Promise<{ status: number; output: string }> {
    const doc = parse(readFileSync(join(packageRoot, 'examples', 'ci', workflow), 'utf8')) as {
      env: Record<string, string>;
      jobs: Record<string, { steps: Step[] }>;
    };
    const steps = Object.values(doc.jobs).flatMap((job) => job.steps);
    const prefix = pinned.prefix ?? join(runner, 'prefix');
    let output = '';
    for (const step of steps.filter((candidate) => candidate.run !== undefined)) {
      const install = step.name === 'Install gitea-warden';
      if (install && installedOnRunner && pinned.prefix === undefined) continue;
      const expression = (text: string) =>
        text
          .replace(/\$\{\{\s*(github|gitea)\.event\.pull_request\.base\.sha\s*\}\}/g, base)
          .replace(
            /\$\{\{\s*contains\(github\.event\.pull_request\.labels\.\*\.name, '([^']+)'\)\s*\}\}/g,
            (_, label: string) => String(labels.includes(label)),
          );
      const stepEnv = Object.fromEntries(
        Object.entries(step.env ?? {}).map(([key, value]) => [key, expression(String(value))]),
      );
      const env = {
        PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`,
        // The runner's npm: its configuration and cache (the registry the dependencies come from).
        HOME: process.env.HOME ?? runner,
        npm_config_prefix: prefix,
        npm_config_prefer_offline: 'true',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        npm_config_update_notifier: 'false',
        ...doc.env,
        // The release asset this build would publish, and its checksum.
        WARDEN_TARBALL: tarballUrl,
        WARDEN_SHA256: pinned.sha256 ?? sha256,
        ...stepEnv,
      };
      const run = await shAsync(expression(step.run as string), repo, env);
      output += run.stdout + run.stderr;
      if (run.status !== 0) return { status: run.status, output };
      if (install && pinned.prefix === undefined) installedOnRunner = true;
    }
    return { status: 0, output };
  }

  test('both workflows install the pinned tarball (checksum checked), never git+ or the registry name', () => {
    for (const workflow of ['github-actions.yml', 'gitea-actions.yml']) {
      const text = readFileSync(join(packageRoot, 'examples', 'ci', workflow), 'utf8');
      const doc = parse(text) as { env: Record<string, string> };
      assert.match(doc.env.WARDEN_TARBALL ?? '', /^https:\/\/\S+\.tgz$/, `${workflow}: a tarball URL`);
      assert.match(doc.env.WARDEN_SHA256 ?? '', /^[0-9a-f]{64}$/, `${workflow}: its sha256`);
      assert.match(text, /sha256sum --check --strict/, `${workflow}: checks the checksum before installing`);
      const runs = Object.values((parse(text) as { jobs: Record<string, { steps: Step[] }> }).jobs)
        .flatMap((job) => job.steps)
        .map((step) => step.run ?? '')
        .join('\n');
      assert.match(runs, /npm install --global "\$tarball"/, `${workflow}: installs the checked tarball`);
      assert.doesNotMatch(runs, /git\+/, `${workflow}: never from git (npm/cli#8440)`);
      assert.doesNotMatch(runs, /npm install --global gitea-warden/, `${workflow}: never the registry name`);
      assert.doesNotMatch(text, /policies\//, `${workflow}: a repository that keeps only profiles/`);
    }
    const github = parse(readFileSync(join(packageRoot, 'examples', 'ci', 'github-actions.yml'), 'utf8'));
    assert.equal(github.permissions['security-events'], 'write');
    assert.ok(github.on.pull_request.types.includes('labeled') && github.on.pull_request.types.includes('unlabeled'));
    const uses = github.jobs.check.steps.flatMap((step: Step) => (step.uses ? [step.uses] : []));
    assert.ok(uses.includes('github/codeql-action/upload-sarif@v4'), uses.join(', '));
  });

  test('a tarball whose checksum differs is not installed', async () => {
    const { repo, base } = pullRequest('tampered', narrow);
    const fresh = join(dir.path, 'tampered-runner');
    const result = await runWorkflow('gitea-actions.yml', repo, base, [], { sha256: '0'.repeat(64), prefix: fresh });
    assert.notEqual(result.status, 0);
    assert.match(result.output, /FAILED/);
    assert.equal(spawnSync('ls', [join(fresh, 'bin', 'gitea-warden')]).status === 0, false, 'nothing was installed');
  });

  test('a narrowing change passes both, and the SARIF file is there for the upload', async () => {
    const { repo, base } = pullRequest('narrow', narrow);
    for (const workflow of ['github-actions.yml', 'gitea-actions.yml']) {
      const result = await runWorkflow(workflow, repo, base, []);
      assert.equal(result.status, 0, `${workflow}: ${result.output}`);
    }
    const sarif = JSON.parse(readFileSync(join(repo, 'warden.sarif'), 'utf8'));
    assert.equal(sarif.version, '2.1.0');
    assert.deepEqual(sarif.runs[0].results, []);
  });

  // Each a widening the gate let through before: the file and line of the change are in the output.
  const widenings: Array<[string, (profiles: string) => void, RegExp]> = [
    [
      'an operation',
      edit('gitea-reviewer.yaml', '  - gitea.pr.comment\n', '  - gitea.pr.comment\n  - gitea.pr.edit\n'),
      /profiles\/gitea-reviewer\.yaml:\d+: gain operations: \+ gitea\.pr\.edit/,
    ],
    [
      'a trusted user',
      edit('gitea-reviewer.yaml', 'trusted_users: [ana, cleo, dan]', 'trusted_users: [ana, cleo, dan, admin]'),
      /profiles\/gitea-reviewer\.yaml:\d+: gain integrity\.trusted_users: \+ admin/,
    ],
    [
      'the site admin as the user',
      edit('gitea-author.yaml', 'authenticated_username: ana', 'authenticated_username: admin'),
      /profiles\/gitea-author\.yaml:\d+: gain authenticated_username: acts as admin instead of ana/,
    ],
  ];
  for (const [name, change, expected] of widenings) {
    test(`a widening (${name}) fails both, naming file and line; the GitHub gate passes it once approved`, async () => {
      const { repo, base } = pullRequest(`widen-${name.replace(/\W/g, '-')}`, change);
      for (const workflow of ['github-actions.yml', 'gitea-actions.yml']) {
        const result = await runWorkflow(workflow, repo, base, []);
        assert.equal(result.status, 1, `${workflow}: ${result.output}`);
        assert.match(result.output, expected);
      }
      assert.equal((await runWorkflow('github-actions.yml', repo, base, ['access-change-approved'])).status, 0);
    });
  }
});
