// What users run is what was tested: the installed command (the bundle `npm run build` writes, with
// its precompiled validators and documents) and the TypeScript sources answer identically. The same
// generated decide requests (at least ten thousand: names, calls with arguments, targets, inline
// profiles good and broken) and every profile under profiles/ plus deliberately broken ones go to
// both; every answer line, every `check` report and exit code must be the same.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCatalog } from '../src/catalog/load.js';
import { loadPolicySet } from '../src/policy-files/policy-set.js';
import { profilesDir } from '../src/shared/paths.js';
import { CLI_ARGS, repoRoot, tempDir } from './support/namespace.js';
import { prng } from './support/prng.js';

const SOURCES = ['--import', 'tsx', join(repoRoot, 'src/cli/main.ts')];
const REQUESTS = 12_000;
const dir = tempDir('warden-bundle-sources-');
after(() => dir.dispose());

function run(args: string[], input = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** Both builds, one command: their answers side by side. */
async function both(args: string[], input = '') {
  const [bundle, sources] = await Promise.all([run([...CLI_ARGS, ...args], input), run([...SOURCES, ...args], input)]);
  return { bundle, sources };
}

function yamlFiles(path: string): string[] {
  return readdirSync(path).flatMap((name) => {
    const full = join(path, name);
    if (statSync(full).isDirectory()) return yamlFiles(full);
    return /\.ya?ml$/.test(name) ? [full] : [];
  });
}

const BASE = [
  'profile_name: broken',
  'role: author',
  'authenticated_username: alice',
  'token_source_name: GITEA_TOKEN',
  'allowed_operations: [gitea.read, gitea.branch.push]',
];

/** Profiles with one mistake each (and a few with several), as files. */
const BROKEN: Record<string, string> = {
  'repositories-text': [...BASE, 'repositories: acme/widgets'].join('\n'),
  'repositories-number': [...BASE, 'repositories: [1]'].join('\n'),
  'repositories-read-text': [...BASE, 'repositories: { read: x }'].join('\n'),
  'repositories-typo': [...BASE, 'repositories: { read: [a/b], wrtie: [a/b] }'].join('\n'),
  'repositories-empty-object': [...BASE, 'repositories: {}'].join('\n'),
  'paths-allow-text': [...BASE, 'paths: { write: { allow: x } }'].join('\n'),
  'unknown-field': [...BASE, 'colour: red'].join('\n'),
  'branches-text': [...BASE, 'branches: { gitea.branch.push: main }'].join('\n'),
  'integrity-level': [...BASE, 'integrity: { min_level: maybe }'].join('\n'),
  'toolsets-bad': [...BASE, 'toolsets: [Repos, Repos]'].join('\n'),
  'both-logins': [...BASE, 'authenticated_username_from_env: LOGIN'].join('\n'),
  'no-login': BASE.filter((line) => !line.startsWith('authenticated_username')).join('\n'),
  'no-role': BASE.filter((line) => !line.startsWith('role')).join('\n'),
  'role-unknown': BASE.map((line) => (line.startsWith('role') ? 'role: wizard' : line)).join('\n'),
  'operations-text': BASE.map((line) => (line.startsWith('allowed') ? 'allowed_operations: gitea.read' : line)).join(
    '\n',
  ),
  'unknown-operation': [...BASE, 'forbidden_operations: [gitea.nothing.here]'].join('\n'),
  'inline-secret': [...BASE, 'token: 0123456789abcdef0123456789abcdef01234567'].join('\n'),
  conflict: [...BASE, '<<<<<<< HEAD', '  - gitea.read', '=======', '>>>>>>> other'].join('\n'),
  'not-yaml': '{{{ nope',
  'many-mistakes': [...BASE, 'repositories: 7', 'colour: red', 'branches: { x: y }', 'integrity: 3'].join('\n'),
};

/** Inline profiles for decide: good ones, and every broken shape as data. */
const INLINE: unknown[] = [
  { profile_name: 't', allowed_operations: ['gitea.read'] },
  { profile_name: 't', allowed_operations: ['gitea.*'], forbidden_operations: ['gitea.pr.merge'] },
  { profile_name: 't', allowed_operations: ['gitea.read', 'gitea.repo.commit'], repositories: ['acme/*'] },
  { profile_name: 't', allowed_operations: ['gitea.read'], repositories: 'acme/widgets' },
  { profile_name: 't', allowed_operations: ['gitea.read'], repositories: { read: 'x' } },
  { profile_name: 't', allowed_operations: 'gitea.read' },
  { profile_name: 't', allowed_operations: ['gitea.read'], colour: 'red' },
  { profile_name: 'T!', allowed_operations: ['gitea.read'] },
  {
    profile_name: 't',
    allowed_operations: ['gitea.read'],
    authenticated_username: 'a',
    authenticated_username_from_env: 'B',
  },
  {
    profile_name: 't',
    allowed_operations: ['gitea.branch.push', 'gitea.read'],
    branches: { 'gitea.branch.push': ['feature/*'] },
    paths: { write: { deny: ['secret/**'] } },
  },
  'not an object',
  null,
];

// Written before any test: every test below reads them.
const broken = Object.entries(BROKEN).map(([name, text]) => {
  const file = join(dir.path, `${name}.yaml`);
  writeFileSync(file, `${text}\n`);
  return file;
});

describe('the installed bundle and the sources answer identically', () => {
  test(`decide --batch: ${REQUESTS} generated requests over every profile, good and broken, file and inline`, async () => {
    const profiles = [...yamlFiles(profilesDir), ...broken, 'gitea-reviewer', 'no/such/profile.yaml'];
    const policy = loadPolicySet();
    const names = [
      ...policy.vocabulary.operations.keys(),
      ...policy.vocabulary.aliases.keys(),
      'gitea.*',
      'gitea.pr.*',
      'gitea.nothing.here',
      'GITEA.READ',
      '',
    ];
    const entries = loadCatalog().entries;
    const random = prng(24);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
    const maybe = (p: number) => random() < p;
    const values = {
      owner: ['acme', 'erin', 'Acme', ''],
      repo: ['widgets', 'gadgets', 'notes', 'x/y'],
      branch: ['main', 'dev', 'feature/a', 'release/1.0', 'Main'],
      path: ['src/a.js', '.gitea/workflows/ci.yml', 'CODEOWNERS', 'docs/x.md', '../up'],
      event: ['APPROVED', 'REQUEST_CHANGES', 'COMMENT', 'PENDING', 'MAYBE'],
    };
    const lines: string[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const profile = maybe(0.15) ? pick(INLINE) : pick(profiles);
      let request: Record<string, unknown>;
      if (maybe(0.35)) {
        request = { profile, operation: pick(names) };
        if (maybe(0.5))
          request.targets = maybe(0.9)
            ? {
                repositories: maybe(0.5) ? [`${pick(values.owner)}/${pick(values.repo)}`] : [],
                ...(maybe(0.5) ? { branches: [pick(values.branch)] } : {}),
                ...(maybe(0.4) ? { paths: [pick(values.path)] } : {}),
              }
            : { repositories: 'not-a-list' };
      } else {
        const entry = pick(entries);
        const args: Record<string, unknown> = {};
        if (entry.path.includes('{owner}')) args.owner = pick(values.owner);
        if (entry.path.includes('{repo}')) args.repo = pick(values.repo);
        if (entry.path.includes('{branch}')) args.branch = pick(values.branch);
        if (entry.path.includes('{filepath}')) args.filepath = pick(values.path);
        if (entry.path.includes('{index}')) args.index = 1 + Math.floor(random() * 9);
        if (maybe(0.1)) args.sudo = 'bob';
        const body: Record<string, unknown> = {};
        if (maybe(0.5)) body.branch = pick(values.branch);
        if (maybe(0.3)) body.new_branch = pick(values.branch);
        if (maybe(0.3)) body.base = pick(values.branch);
        if (maybe(0.3)) body.event = pick(values.event);
        if (maybe(0.2)) body.name = pick(values.repo);
        if (maybe(0.2)) body.state = pick(['open', 'closed', 'merged']);
        if (maybe(0.2)) body.delete_branch_after_merge = maybe(0.5);
        if (maybe(0.2)) body.files = [{ path: pick(values.path), operation: 'create' }];
        if (Object.keys(body).length > 0) args.body = body;
        request = { profile, operation_id: maybe(0.97) ? entry.operationId : 'noSuchOperation', arguments: args };
      }
      lines.push(maybe(0.003) ? '{not json' : JSON.stringify(request));
    }
    const { bundle, sources } = await both(['decide', '--batch'], `${lines.join('\n')}\n`);
    assert.equal(bundle.code, 0, bundle.stderr);
    assert.equal(sources.code, 0, sources.stderr);
    const fromBundle = bundle.stdout.trimEnd().split('\n');
    const fromSources = sources.stdout.trimEnd().split('\n');
    assert.equal(fromBundle.length, REQUESTS);
    assert.equal(fromSources.length, REQUESTS);
    const differ = fromBundle.flatMap((line, i) =>
      line === fromSources[i] ? [] : [{ request: lines[i], bundle: line, sources: fromSources[i] }],
    );
    assert.deepEqual(differ.slice(0, 3), [], `${differ.length} of ${REQUESTS} answers differ`);
    // The generator reached both outcomes and the inline profile refusals.
    const reasons = new Set(fromBundle.map((line) => (JSON.parse(line) as { reason: string }).reason));
    for (const reason of [
      'allowed',
      'not_allowed',
      'invalid_profile',
      'invalid_request',
      'forbidden',
      'unknown_operation',
    ])
      assert.ok(reasons.has(reason), `no answer with reason ${reason}: ${[...reasons].join(', ')}`);
  });

  test('the minimal inline profile of the issue is allowed by both', async () => {
    const line = JSON.stringify({
      profile: { profile_name: 't', allowed_operations: ['gitea.read'] },
      operation: 'gitea.read',
    });
    const { bundle, sources } = await both(['decide', '--batch'], `${line}\n`);
    assert.equal(bundle.stdout, sources.stdout);
    assert.equal(JSON.parse(bundle.stdout).effect, 'allow', bundle.stdout);
  });

  test('explain: a table of profiles, good and broken, against operations and tool calls with arguments', async () => {
    const profiles = ['gitea-author', 'gitea-merger', join(dir.path, 'repositories-text.yaml'), 'no/such/profile.yaml'];
    const questions: string[][] = [
      ['--operation', 'gitea.read'],
      ['--operation', 'gitea.nothing.here'],
      [
        '--tool',
        'gitea_branches_create',
        '--args',
        JSON.stringify({ owner: 'acme', repo: 'widgets', body: { new_branch_name: 'main' } }),
      ],
      [
        '--tool',
        'gitea_branches_rename',
        '--args',
        JSON.stringify({ owner: 'acme', repo: 'widgets', branch: 'dev', body: { name: 'main' } }),
      ],
      [
        '--tool',
        'gitea_repos_edit',
        '--args',
        JSON.stringify({ owner: 'acme', repo: 'widgets', body: { name: 'elsewhere' } }),
      ],
      ['--tool', 'gitea_no_such_tool'],
    ];
    const table = profiles.flatMap((profile) =>
      questions.map((question) => ['explain', '--profile', profile, ...question]),
    );
    const codes = new Set<number | null>();
    // A few at a time: two cores are shared by every lane.
    for (let i = 0; i < table.length; i += 4) {
      const answers = await Promise.all(table.slice(i, i + 4).map((args) => both(args)));
      answers.forEach(({ bundle, sources }, k) => {
        const args = (table[i + k] as string[]).join(' ');
        assert.equal(bundle.stdout, sources.stdout, args);
        assert.equal(bundle.stderr, sources.stderr, args);
        assert.equal(bundle.code, sources.code, args);
        codes.add(bundle.code);
      });
    }
    assert.deepEqual([...codes].sort(), [0, 1, 2], 'the table reaches allow, deny and unusable input');
  });

  const checked = new Map<string, Awaited<ReturnType<typeof both>>>();
  const allFiles = () => [...yamlFiles(profilesDir), ...broken];
  for (const format of ['text', 'json', 'sarif']) {
    test(`check --format ${format}: every profile and every broken one reported alike, exit codes too`, async () => {
      const answers = await both(['check', '--format', format, ...allFiles()]);
      checked.set(format, answers);
      assert.equal(answers.bundle.stdout, answers.sources.stdout);
      assert.equal(answers.bundle.code, answers.sources.code);
      assert.equal(answers.bundle.code, 1, 'the broken profiles are findings');
    });
  }

  test('a person sees one finding per mistake, each naming the keyword, path and fields involved', () => {
    const expected: Record<string, Array<[string, string, string[]]>> = {
      'repositories-text': [['type', '/repositories', []]],
      'repositories-number': [['type', '/repositories/0', []]],
      'repositories-read-text': [['type', '/repositories/read', []]],
      'repositories-typo': [['additionalProperties', '/repositories/wrtie', ['wrtie']]],
      'both-logins': [['oneOf', '/', ['authenticated_username', 'authenticated_username_from_env']]],
      'no-login': [['oneOf', '/', ['authenticated_username', 'authenticated_username_from_env']]],
      'no-role': [['required', '/', ['role']]],
      'many-mistakes': [
        ['additionalProperties', '/colour', ['colour']],
        ['type', '/repositories', []],
        ['type', '/branches/x', []],
        ['type', '/integrity', []],
      ],
    };
    const json = checked.get('json');
    assert.ok(json, 'check --format json ran');
    const findings = (
      JSON.parse(json.bundle.stdout) as {
        findings: Array<{ file: string; code: string; schema?: { keyword: string; path: string; fields: string[] } }>;
      }
    ).findings;
    for (const [name, mistakes] of Object.entries(expected)) {
      const shown = findings
        .filter((f) => f.code === 'schema' && f.file.endsWith(`${name}.yaml`))
        .map((f) => [f.schema?.keyword, f.schema?.path, f.schema?.fields]);
      assert.deepEqual(shown.sort(), [...mistakes].sort(), name);
    }
  });
});
