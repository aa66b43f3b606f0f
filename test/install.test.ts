// What users install is what is tested: `npm pack` the package, install the tarball into a
// temporary prefix as the README says, and from there run --version, init, check on what init wrote,
// serve answering tools/list over stdio and streamable HTTP against the sandbox, the demo, the shell
// lines of the README and of examples/README.md, and the CI workflows' steps in a scratch repository
// that keeps only profiles/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { packageRoot } from '../src/shared/paths.js';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { payloadOf, tempDir } from './support/namespace.js';

const dir = tempDir('warden-install-');
const prefix = join(dir.path, 'prefix');
const bin = join(prefix, 'bin');
const version = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
const tarballName = `gitea-warden-${version}.tgz`;
let tarball: string;
let sandbox: Sandbox;

/** npm with the global prefix redirected to the temporary one: `npm install --global` lands there. */
const npmEnv = (): NodeJS.ProcessEnv => ({
  ...process.env,
  npm_config_prefix: prefix,
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
});

/** The environment a user's shell has after installing: the prefix's bin first on PATH, nothing of ours. */
const userEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
  PATH: `${bin}:${process.env.PATH ?? ''}`,
  HOME: process.env.HOME ?? dir.path,
  npm_config_prefix: prefix,
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

function ok(run: SpawnSyncReturns<string>, what: string): string {
  assert.equal(run.status, 0, `${what}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  return run.stdout;
}

before(async () => {
  // The README's own two lines: pack in the checkout, install the tarball (into the temporary prefix).
  const packDir = join(dir.path, 'pack');
  mkdirSync(packDir);
  ok(
    spawnSync('npm', ['pack', '--pack-destination', packDir], { cwd: packageRoot, env: npmEnv(), encoding: 'utf8' }),
    'npm pack',
  );
  tarball = join(packDir, tarballName);
  ok(
    spawnSync('npm', ['install', '--global', `./${tarballName}`], { cwd: packDir, env: npmEnv(), encoding: 'utf8' }),
    'npm install --global',
  );
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
    assert.match(out, /wrote profiles\/gitea-author\.yaml/);
    assert.match(ok(sh('gitea-warden check profiles/', project, userEnv()), 'check'), /check: no findings/);
  });

  test('gitea-warden serve answers tools/list over stdio against the sandbox, as the client config starts it', async () => {
    const config = JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8'));
    const entry = config.mcpServers['gitea-author'] as { command: string; args: string[]; env: Record<string, string> };
    const env = userEnv({
      GITEA_URL: sandbox.url,
      GITEA_MCP_PROFILE: entry.env.GITEA_MCP_PROFILE as string,
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
      // Started from the user's project, the denial names the user's profile relative to it.
      const merge = { method: 'POST', path: '/repos/acme/widgets/pulls/1/merge', body: { do: 'merge' } };
      const denial = payloadOf(await client.callTool({ name: 'gitea_api_request', arguments: merge })).error;
      assert.match(denial.determining.entry, /^profiles\/gitea-author\.yaml:\d+$/);
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
    'the same install from the checkout; the tarball install in before() runs the next block as written',
  ],
  [/^npm pack\b|^npm install --global \.\/gitea-warden-/, 'run as written in before()'],
  [/^MCP_TRANSPORT=http /, 'a long-running HTTP server; test/e2e-server-http.test.ts and the OAuth tests serve it'],
  [
    /^export OAUTH_CLIENT_SECRET=/,
    'the settings of the OAuth shared service started by the next command; the OAuth tests set them',
  ],
];

describe('the shell lines of the README and examples/README.md run as written', () => {
  for (const file of ['README.md', 'examples/README.md']) {
    test(file, () => {
      const work = join(dir.path, `readme-${file.replace(/\W/g, '_')}`);
      mkdirSync(work);
      // A repository that keeps its profiles on main, as the examples assume; /tmp/old.yaml becomes a scratch path.
      ok(
        sh(
          'git init -q -b main && gitea-warden init --author alice --reviewer bob --merger carol --reconciler dave >/dev/null && git add -A && git -c user.name=t -c user.email=t@t commit -qm profiles',
          work,
          userEnv(),
        ),
        'scratch repository',
      );
      const lines = shellLines(file);
      const run = lines.filter((line) => !notRun.some(([pattern]) => pattern.test(line)));
      assert.ok(run.length >= 3, `${file}: ${run.length} lines to run`);
      const script = run
        .map((line) =>
          line
            .replace('https://gitea.example.com', sandbox.url)
            .replace('GITEA_AUTHOR_TOKEN=...', `GITEA_AUTHOR_TOKEN=${sandbox.users.alice?.token ?? ''}`),
        )
        .map((line) => line.replace(/\/tmp\/old\.yaml/g, join(work, 'old.yaml')))
        // init would refuse to overwrite the scratch repository's profiles; a fresh directory for it.
        .map((line) => (line.startsWith('gitea-warden init ') ? `mkdir -p fresh && cd fresh && ${line}` : line))
        .join('\n');
      ok(sh(script, work, userEnv({ AUDIT_LOG: join(work, 'audit.jsonl') })), `${file}:\n${script}`);
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
  /** A pull request on a scratch repository: base commit with profiles, head commit with `change` applied. */
  function pullRequest(name: string, change: (profiles: string) => void): { repo: string; base: string } {
    const repo = join(dir.path, `ci-${name}`);
    mkdirSync(repo);
    ok(
      sh(
        'git init -q -b main && gitea-warden init --author alice --reviewer bob --merger carol --reconciler dave >/dev/null',
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

  const widen = (profiles: string) => {
    const file = join(profiles, 'gitea-reviewer.yaml');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('  - gitea.pr.comment\n', '  - gitea.pr.comment\n  - gitea.pr.edit\n'),
    );
  };
  const narrow = (profiles: string) => {
    const file = join(profiles, 'gitea-reviewer.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('  - gitea.issue.comment\n', ''));
  };

  let installed = false;
  /**
   * Runs the workflow's shell steps in order, with GitHub's expressions filled in; the exit status of
   * the first failing step. The install step runs once: later runs would install the same tarball again.
   */
  function runWorkflow(
    workflow: string,
    repo: string,
    base: string,
    labels: string[],
  ): { status: number; output: string } {
    const doc = parse(readFileSync(join(packageRoot, 'examples', 'ci', workflow), 'utf8')) as {
      env?: Record<string, string>;
      jobs: Record<string, { steps: Step[] }>;
    };
    const steps = Object.values(doc.jobs).flatMap((job) => job.steps);
    let output = '';
    for (const step of steps.filter((candidate) => candidate.run !== undefined)) {
      if (step.name === 'Install gitea-warden' && installed) continue;
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
      // The pinned package: here the tarball this test packed, exactly as a tarball URL would be used.
      const env = userEnv({ ...doc.env, WARDEN_PACKAGE: tarball, ...stepEnv });
      const run = sh(expression(step.run as string), repo, env);
      output += run.stdout + run.stderr;
      if (run.status !== 0) return { status: run.status ?? 1, output };
      if (step.name === 'Install gitea-warden') installed = true;
    }
    return { status: 0, output };
  }

  test('both workflows declare what they need: pinned install, profiles/ only, labels, permissions, current actions', () => {
    for (const workflow of ['github-actions.yml', 'gitea-actions.yml']) {
      const text = readFileSync(join(packageRoot, 'examples', 'ci', workflow), 'utf8');
      assert.match(text, /WARDEN_PACKAGE: git\+https:\/\/\S+#[0-9a-f]{40}/, `${workflow}: pinned to a commit`);
      assert.match(text, /run: npm install --global "\$WARDEN_PACKAGE"/, `${workflow}: installs the pinned package`);
      assert.doesNotMatch(text, /npm install --global gitea-warden/, `${workflow}: never the registry name`);
      assert.doesNotMatch(text, /policies\//, `${workflow}: a repository that keeps only profiles/`);
    }
    const github = parse(readFileSync(join(packageRoot, 'examples', 'ci', 'github-actions.yml'), 'utf8'));
    assert.equal(github.permissions['security-events'], 'write');
    assert.ok(github.on.pull_request.types.includes('labeled') && github.on.pull_request.types.includes('unlabeled'));
    const uses = github.jobs.check.steps.flatMap((step: Step) => (step.uses ? [step.uses] : []));
    assert.ok(uses.includes('github/codeql-action/upload-sarif@v4'), uses.join(', '));
  });

  test('a narrowing change passes both, and the SARIF file is there for the upload', () => {
    const { repo, base } = pullRequest('narrow', narrow);
    for (const workflow of ['github-actions.yml', 'gitea-actions.yml']) {
      const result = runWorkflow(workflow, repo, base, []);
      assert.equal(result.status, 0, `${workflow}: ${result.output}`);
    }
    const sarif = JSON.parse(readFileSync(join(repo, 'warden.sarif'), 'utf8'));
    assert.equal(sarif.version, '2.1.0');
    assert.deepEqual(sarif.runs[0].results, []);
  });

  test('a widening change fails both; the GitHub gate passes it once the approval label is added', () => {
    const { repo, base } = pullRequest('widen', widen);
    for (const workflow of ['github-actions.yml', 'gitea-actions.yml']) {
      const result = runWorkflow(workflow, repo, base, []);
      assert.equal(result.status, 1, `${workflow}: ${result.output}`);
      assert.match(result.output, /gitea\.pr\.edit/);
    }
    assert.equal(runWorkflow('github-actions.yml', repo, base, ['access-change-approved']).status, 0);
  });
});
