// The example client, CI and systemd configurations stay true to the profiles: they parse, name
// profiles that exist, hand each namespace the token variable its profile reads, and hold no secret.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { packageRoot, profilesDir } from '../src/shared/paths.js';
import { profileIdentity } from '../src/cli/demo-namespace.js';
import { SETTINGS } from '../src/server/settings.js';
import { run as runInit } from '../src/cli/init.js';
import { tempDir } from './support/namespace.js';

const examplesDir = join(packageRoot, 'examples');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

const exampleFiles = filesUnder(examplesDir)
  .map((file) => relative(examplesDir, file))
  .sort();
const clientConfigs = exampleFiles.filter((file) => file.endsWith('.json'));

interface ServerEntry {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
}

/** The MCP server entries of a client config: Claude Code and Cursor say mcpServers, VS Code servers. */
function serverEntries(file: string): Array<[string, ServerEntry]> {
  const config = JSON.parse(readFileSync(join(examplesDir, file), 'utf8')) as {
    mcpServers?: Record<string, ServerEntry>;
    servers?: Record<string, ServerEntry>;
  };
  return Object.entries(config.mcpServers ?? config.servers ?? {});
}

const profileExists = (name: string) => existsSync(join(profilesDir, `${name}.yaml`));

/**
 * What `gitea-warden init --client CLIENT` writes for the four roles, as text: the profiles where init
 * puts them by default (~/.config/gitea-warden/profiles, a scratch home here), the configuration in a
 * scratch project.
 */
async function initClientConfig(client: string, file: string): Promise<string> {
  const dir = tempDir('init-example');
  const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
  process.env.HOME = join(dir.path, 'home');
  delete process.env.XDG_CONFIG_HOME;
  try {
    const logins = ['--author', 'ana', '--reviewer', 'ben', '--merger', 'cleo', '--reconciler', 'dan'];
    const write = process.stdout.write;
    process.stdout.write = (() => true) as typeof process.stdout.write;
    try {
      assert.equal(await runInit([...logins, '--client', client, '--dir', join(dir.path, 'project')]), 0);
    } finally {
      process.stdout.write = write;
    }
    return readFileSync(join(dir.path, 'project', file), 'utf8');
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    dir.dispose();
  }
}

const INIT_FILES: Record<string, { client: string; file: string }> = {
  'claude-code/.mcp.json': { client: 'claude-code', file: '.mcp.json' },
  'cursor/mcp.json': { client: 'cursor', file: '.cursor/mcp.json' },
  'vscode/mcp.json': { client: 'vscode', file: '.vscode/mcp.json' },
};

describe('example client configs', () => {
  test('there are client configs for Claude Code, VS Code and Cursor', () => {
    assert.deepEqual(clientConfigs, Object.keys(INIT_FILES));
  });

  for (const file of clientConfigs) {
    describe(file, () => {
      // One source: the example is what `init` writes, so a user's own setup starts the same way.
      test('is exactly what gitea-warden init --client writes', async () => {
        const { client, file: written } = INIT_FILES[file] as { client: string; file: string };
        assert.equal(readFileSync(join(examplesDir, file), 'utf8'), await initClientConfig(client, written));
      });

      test('parses as JSON and declares the four role namespaces', () => {
        assert.deepEqual(
          serverEntries(file)
            .map(([name]) => name)
            .sort(),
          ['gitea-author', 'gitea-merger', 'gitea-reconciler', 'gitea-reviewer'],
        );
      });

      for (const [name, entry] of serverEntries(file)) {
        test(`${name}: names the profile init writes and passes exactly its token variable, from the environment`, () => {
          // The command the README's install puts on PATH, run as written (test/install.test.ts runs it so).
          assert.equal(entry.command, 'gitea-warden');
          assert.deepEqual(entry.args, ['serve']);
          const profile = entry.env?.GITEA_MCP_PROFILE;
          // Outside the project (where its agent works): the user's config directory, as the client spells home.
          assert.match(
            String(profile),
            new RegExp(`^\\$\\{(HOME|userHome)\\}/\\.config/gitea-warden/profiles/${name}\\.yaml$`),
            'the namespace is named after its profile file, in the directory init writes to',
          );
          assert.ok(profileExists(name), `${name} is a reference profile`);
          const tokenVariables = Object.keys(entry.env ?? {}).filter((key) => key.endsWith('_TOKEN'));
          assert.deepEqual(tokenVariables, [profileIdentity(name).tokenVariable]);
          for (const [key, value] of Object.entries(entry.env ?? {})) {
            if (key !== 'GITEA_MCP_PROFILE')
              assert.match(
                value,
                /^\$\{[^}]+\}$/,
                `${key} must be a reference to the environment or an input, never a literal`,
              );
          }
        });
      }
    });
  }
});

describe('systemd unit', () => {
  const unit = readFileSync(join(examplesDir, 'systemd', 'gitea-warden-reviewer.service'), 'utf8');

  test('names an existing profile and keeps the token out of the unit file', () => {
    const profileFile = /^Environment=GITEA_MCP_PROFILE=(.+)$/m.exec(unit)?.[1];
    assert.ok(profileFile, 'the unit sets GITEA_MCP_PROFILE');
    const profile = basename(profileFile, '.yaml');
    assert.ok(profileExists(profile), `${profile} is no file in profiles/`);
    assert.match(unit, /^EnvironmentFile=/m);
    assert.ok(
      unit.includes(profileIdentity(profile).tokenVariable),
      'the unit names the token variable its profile reads',
    );
    assert.doesNotMatch(unit, /^Environment=\w*TOKEN=/m);
  });
});

/** What `gitea-warden serve` reads from the environment: its settings, and the secrets it names. */
const serveVariables = new Set([
  ...SETTINGS.map((setting) => setting.env),
  'MCP_BEARER_TOKEN',
  'OAUTH_CLIENT_SECRET',
  'EXTRA_SECRETS',
  'GITEA_TOKEN',
]);

test("every variable an example sets is one serve reads (a setting, a secret or the profile's token variable)", () => {
  const unit = readFileSync(join(examplesDir, 'systemd', 'gitea-warden-reviewer.service'), 'utf8');
  const unitVariables = [...unit.matchAll(/^Environment=(\w+)=/gm)].map((match) => match[1] as string);
  const clientVariables = clientConfigs.flatMap((file) =>
    serverEntries(file).flatMap(([, entry]) => Object.keys(entry.env ?? {})),
  );
  const tokenVariables = new Set(
    readdirSync(profilesDir)
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => profileIdentity(basename(f, '.yaml')).tokenVariable),
  );
  const unknown = [...unitVariables, ...clientVariables].filter(
    (name) => !serveVariables.has(name) && !tokenVariables.has(name),
  );
  assert.deepEqual([...new Set(unknown)], []);
  assert.ok(unitVariables.length > 3 && clientVariables.length > 3, 'the variables were found');
});

describe('CI workflows', () => {
  for (const file of ['ci/github-actions.yml', 'ci/gitea-actions.yml']) {
    test(`${file} runs gitea-warden check and diff`, () => {
      const workflow = readFileSync(join(examplesDir, file), 'utf8');
      assert.match(workflow, /gitea-warden check profiles\//);
      assert.match(workflow, /gitea-warden diff /);
    });
  }
});

test('examples/README.md explains every example file', () => {
  const readme = readFileSync(join(examplesDir, 'README.md'), 'utf8');
  for (const file of exampleFiles.filter((f) => f !== 'README.md'))
    assert.ok(readme.includes(file), `README.md does not mention ${file}`);
});

test('no example or README fetches the name gitea-warden from the npm registry (it is not ours there)', () => {
  const registryFetch =
    /\bnpx\b[^\n]*\bgitea-warden\b|\bnpm (install|i|add)( +-{1,2}[\w-]+)* +gitea-warden(@\S*)?(?![\w./-])/;
  const files = [...exampleFiles.map((file) => join(examplesDir, file)), join(packageRoot, 'README.md')];
  const offenders = files
    .filter((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .some((line) => registryFetch.test(line)),
    )
    .map((file) => relative(packageRoot, file));
  assert.deepEqual(offenders, []);
  assert.ok(
    registryFetch.test('command: ["npx", "--yes", "gitea-warden", "serve"]') &&
      registryFetch.test('npm install --global gitea-warden'),
    'the pattern catches both forms',
  );
});
