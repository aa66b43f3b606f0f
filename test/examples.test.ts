// The example client, CI and systemd configurations stay true to the profiles: they parse, name
// profiles that exist, hand each namespace the token variable its profile reads, and hold no secret.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { packageRoot, profilesDir } from '../src/shared/paths.js';
import { profileIdentity } from '../src/cli/demo-namespace.js';
import { SETTINGS } from '../src/server/settings.js';

const examplesDir = join(packageRoot, 'examples');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

const exampleFiles = filesUnder(examplesDir).map((file) => relative(examplesDir, file)).sort();
const clientConfigs = exampleFiles.filter((file) => file.endsWith('.json'));

interface ServerEntry {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
}

/** The MCP server entries of a client config: Claude Code and Cursor say mcpServers, VS Code servers. */
function serverEntries(file: string): Array<[string, ServerEntry]> {
  const config = JSON.parse(readFileSync(join(examplesDir, file), 'utf8')) as { mcpServers?: Record<string, ServerEntry>; servers?: Record<string, ServerEntry> };
  return Object.entries(config.mcpServers ?? config.servers ?? {});
}

const profileExists = (name: string) => existsSync(join(profilesDir, `${name}.yaml`));

describe('example client configs', () => {
  test('there are client configs for Claude Code, VS Code and Cursor', () => {
    assert.deepEqual(clientConfigs, ['claude-code/.mcp.json', 'cursor/mcp.json', 'vscode/mcp.json']);
  });

  for (const file of clientConfigs) {
    describe(file, () => {
      test('parses as JSON and declares the four role namespaces', () => {
        assert.deepEqual(serverEntries(file).map(([name]) => name).sort(), ['gitea-author', 'gitea-merger', 'gitea-reconciler', 'gitea-reviewer']);
      });

      for (const [name, entry] of serverEntries(file)) {
        test(`${name}: names an existing profile and passes exactly its token variable, from the environment`, () => {
          // The command the README's install puts on PATH, run as written (test/install.test.ts runs it so).
          assert.equal(entry.command, 'gitea-warden');
          assert.deepEqual(entry.args, ['serve']);
          const profile = entry.env?.GITEA_MCP_PROFILE;
          assert.ok(profile && profileExists(profile), `GITEA_MCP_PROFILE ${String(profile)} is no file in profiles/`);
          assert.equal(name, profile, 'the namespace is named after its profile');
          const tokenVariables = Object.keys(entry.env ?? {}).filter((key) => key.endsWith('_TOKEN'));
          assert.deepEqual(tokenVariables, [profileIdentity(profile).tokenVariable]);
          for (const [key, value] of Object.entries(entry.env ?? {})) {
            if (key !== 'GITEA_MCP_PROFILE') assert.match(value, /^\$\{[^}]+\}$/, `${key} must be a reference to the environment or an input, never a literal`);
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
    assert.ok(unit.includes(profileIdentity(profile).tokenVariable), 'the unit names the token variable its profile reads');
    assert.doesNotMatch(unit, /^Environment=\w*TOKEN=/m);
  });
});

/** What `gitea-warden serve` reads from the environment: its settings, and the secrets it names. */
const serveVariables = new Set([...SETTINGS.map((setting) => setting.env), 'MCP_BEARER_TOKEN', 'OAUTH_CLIENT_SECRET', 'EXTRA_SECRETS', 'GITEA_TOKEN']);

test('every variable an example sets is one serve reads (a setting, a secret or the profile\'s token variable)', () => {
  const unit = readFileSync(join(examplesDir, 'systemd', 'gitea-warden-reviewer.service'), 'utf8');
  const unitVariables = [...unit.matchAll(/^Environment=(\w+)=/gm)].map((match) => match[1] as string);
  const clientVariables = clientConfigs.flatMap((file) => serverEntries(file).flatMap(([, entry]) => Object.keys(entry.env ?? {})));
  const tokenVariables = new Set(readdirSync(profilesDir).filter((f) => f.endsWith('.yaml')).map((f) => profileIdentity(basename(f, '.yaml')).tokenVariable));
  const unknown = [...unitVariables, ...clientVariables].filter((name) => !serveVariables.has(name) && !tokenVariables.has(name));
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
  for (const file of exampleFiles.filter((f) => f !== 'README.md')) assert.ok(readme.includes(file), `README.md does not mention ${file}`);
});
