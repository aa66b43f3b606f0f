// gitea-warden diff sees every widening: a table of one change per field of the profile (and of the
// multi-identity config around it), each compared in both directions; the fields table covers the
// whole schema; scopes compare by what their patterns match (checked against micromatch itself); and
// the command names the file and line of each change in text, JSON and SARIF, failing on a gain.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import micromatch from 'micromatch';
import { loadCatalog } from '../src/catalog/load.js';
import { run as diffCommand } from '../src/cli/diff.js';
import { parseDocumentText } from '../src/shared/document.js';
import { packageRoot } from '../src/shared/paths.js';
import {
  CONFIG_FIELDS,
  PROFILE_FIELDS,
  diffProfiles,
  type AccessChange,
  type ConfigFacts,
  type DiffSide,
} from '../src/policy/diff.js';
import { covers, globAutomaton } from '../src/policy/pattern-cover.js';
import { compileProfile, type ProfileData } from '../src/policy/profile.js';
import { possiblePrimaries } from '../src/server/tool-registry.js';
import { capture, policy } from './policy-helpers.js';
import { prng } from './support/prng.js';
import { tempDir } from './support/namespace.js';

const BASE = `profile_name: p
role: author
authenticated_username: bob
token_source_name: GITEA_AUTHOR_TOKEN
audit_label: p
authenticated_users: [bob]
authenticated_teams: [acme/devs]
toolsets: [repos]
allowed_operations: [gitea.read, gitea.pr.create, gitea.branch.push]
forbidden_operations: [gitea.pr.merge]
can_approve_prs: false
can_merge_prs: false
can_push_branches: true
can_mutate_issues: false
can_author_impl_prs: true
repositories: [acme/*]
branches:
  gitea.branch.push: [feature/*]
paths:
  read:
    deny: [secrets/**]
  write:
    allow: [src/**]
    deny: [CODEOWNERS]
budgets:
  - { operations: [gitea.pr.create], max: 5, per: 1h }
confirmations:
  operations: [gitea.repo.delete]
  approver: four_eyes
  approvers: [dave]
  approver_teams: [acme/leads]
confirmation_fallback: none
integrity:
  min_level: write
  below: withhold
  trusted_users: [carol]
  blocked_users: [mallory]
  after_untrusted: same_repository_only
`;

const toolsetOperations = new Map<string, Set<string>>();
for (const entry of loadCatalog().entries) {
  const set = toolsetOperations.get(entry.domain) ?? new Set<string>();
  for (const op of possiblePrimaries(policy.operationMap, entry.operationId)) set.add(op);
  toolsetOperations.set(entry.domain, set);
}
const context = { vocabulary: policy.vocabulary, toolsetOperations };

function side(text: string, file: string, config: ConfigFacts | null = null): DiffSide {
  const doc = parseDocumentText(text, file);
  return {
    profile: compileProfile(
      { data: doc.data as ProfileData, file, lineOf: (path) => doc.lineOf(path) },
      policy.vocabulary,
    ),
    config,
  };
}

function changes(before: string, after: string): AccessChange[] {
  const diff = diffProfiles(side(before, 'old.yaml'), side(after, 'new.yaml'), context);
  return [...diff.gained, ...diff.lost];
}

const edit = (from: string | RegExp, to: string) => (text: string) => {
  const next = text.replace(from, to);
  assert.notEqual(next, text, `the edit ${String(from)} applies to the base profile`);
  return next;
};

type Way = 'gain' | 'loss';
/** A change to the base profile, the field it must be reported under, and what it is forward and reversed. */
const WIDENINGS: Array<{ name: string; change: (text: string) => string; field: string; forward: Way; back: Way }> = [
  { name: 'role changed', change: edit('role: author', 'role: owner'), field: 'role', forward: 'gain', back: 'gain' },
  {
    name: "authenticated_username switched to the site admin's",
    change: edit('authenticated_username: bob', 'authenticated_username: admin'),
    field: 'authenticated_username',
    forward: 'gain',
    back: 'gain',
  },
  {
    name: 'login read from a variable instead',
    change: edit('authenticated_username: bob', 'authenticated_username_from_env: GITEA_LOGIN'),
    field: 'authenticated_username',
    forward: 'gain',
    back: 'gain',
  },
  {
    name: "token_source_name switched to the owner's variable",
    change: edit('GITEA_AUTHOR_TOKEN', 'GITEA_OWNER_TOKEN'),
    field: 'token_source_name',
    forward: 'gain',
    back: 'gain',
  },
  {
    name: 'another person may sign in',
    change: edit('authenticated_users: [bob]', 'authenticated_users: [bob, eve]'),
    field: 'authenticated_users',
    forward: 'gain',
    back: 'loss',
  },
  {
    name: "another team's members may sign in",
    change: edit('authenticated_teams: [acme/devs]', 'authenticated_teams: [acme/devs, acme/contractors]'),
    field: 'authenticated_teams',
    forward: 'gain',
    back: 'loss',
  },
  {
    name: 'an operation allowed',
    change: edit('gitea.branch.push]', 'gitea.branch.push, gitea.issue.create]'),
    field: 'operations',
    forward: 'gain',
    back: 'loss',
  },
  {
    name: 'an allowed operation forbidden',
    change: edit('forbidden_operations: [gitea.pr.merge]', 'forbidden_operations: [gitea.pr.merge, gitea.pr.create]'),
    field: 'operations',
    forward: 'loss',
    back: 'gain',
  },
  {
    name: 'a toolset that reaches allowed operations',
    change: edit('toolsets: [repos]', 'toolsets: [repos, pulls]'),
    field: 'toolsets',
    forward: 'gain',
    back: 'loss',
  },
  {
    name: 'toolsets removed: every domain listed',
    change: edit('toolsets: [repos]\n', ''),
    field: 'toolsets',
    forward: 'gain',
    back: 'loss',
  },
  {
    name: 'another repository owner',
    change: edit('repositories: [acme/*]', 'repositories: [acme/*, evil/*]'),
    field: 'repositories.write',
    forward: 'gain',
    back: 'loss',
  },
  {
    name: '[acme/*] narrowed to [acme/widgets]',
    change: edit('repositories: [acme/*]', 'repositories: [acme/widgets]'),
    field: 'repositories.write',
    forward: 'loss',
    back: 'gain',
  },
  {
    name: 'the repository restriction lifted',
    change: edit('repositories: [acme/*]\n', ''),
    field: 'repositories.read',
    forward: 'gain',
    back: 'loss',
  },
  {
    name: 'writes only: repositories split into read and write',
    change: edit('repositories: [acme/*]', 'repositories:\n  read: [acme/*, public/*]\n  write: [acme/*]'),
    field: 'repositories.read',
    forward: 'gain',
    back: 'loss',
  },
  {
    name: 'a branch pattern reaching deeper',
    change: edit('[feature/*]', '[feature/**]'),
    field: 'branches.gitea.branch.push',
    forward: 'gain',
    back: 'loss',
  },
  {
    name: 'main added to the branches',
    change: edit('[feature/*]', '[feature/*, main]'),
    field: 'branches.gitea.branch.push',
    forward: 'gain',
    back: 'loss',
  },
  {
    name: 'a read deny removed',
    change: edit('    deny: [secrets/**]\n', '    deny: []\n'),
    field: 'paths.read.deny',
    forward: 'gain',
    back: 'loss',
  },
  {
    name: 'the write allow widened to everything',
    change: edit('allow: [src/**]', 'allow: ["**"]'),
    field: 'paths.write.allow',
    forward: 'gain',
    back: 'loss',
  },
  {
    name: 'a budget raised',
    change: edit('max: 5, per: 1h', 'max: 50, per: 1h'),
    field: 'budgets',
    forward: 'gain',
    back: 'loss',
  },
  {
    name: 'a budget split into shorter windows that add up to more',
    change: edit('max: 5, per: 1h', 'max: 1, per: 10m'),
    field: 'budgets',
    forward: 'gain',
    back: 'gain',
  },
  {
    name: 'the budgets removed',
    change: edit('budgets:\n  - { operations: [gitea.pr.create], max: 5, per: 1h }\n', ''),
    field: 'budgets',
    forward: 'gain',
    back: 'loss',
  },
  {
    name: 'a confirmed operation dropped',
    change: edit('operations: [gitea.repo.delete]', 'operations: [gitea.issue.close]'),
    field: 'confirmations.operations',
    forward: 'gain',
    back: 'gain',
  },
  {
    name: 'four_eyes -> at_client',
    change: edit('approver: four_eyes', 'approver: at_client'),
    field: 'confirmations.approver',
    forward: 'gain',
    back: 'loss',
  },
  {
    name: 'an approver added',
    change: edit('approvers: [dave]', 'approvers: [dave, mallory]'),
    field: 'confirmations.approvers',
    forward: 'gain',
    back: 'loss',
  },
  {
    name: 'an approver team added',
    change: edit('approver_teams: [acme/leads]', 'approver_teams: [acme/leads, acme/everyone]'),
    field: 'confirmations.approver_teams',
    forward: 'gain',
    back: 'loss',
  },
  {
    name: 'confirmation_fallback: none -> phrase',
    change: edit('confirmation_fallback: none', 'confirmation_fallback: phrase'),
    field: 'confirmation_fallback',
    forward: 'gain',
    back: 'loss',
  },
  {
    name: 'integrity floor lowered',
    change: edit('min_level: write', 'min_level: read'),
    field: 'integrity.min_level',
    forward: 'gain',
    back: 'loss',
  },
  {
    name: 'below: withhold -> fence',
    change: edit('below: withhold', 'below: fence'),
    field: 'integrity.below',
    forward: 'gain',
    back: 'loss',
  },
  {
    name: 'a name added to trusted_users',
    change: edit('trusted_users: [carol]', 'trusted_users: [carol, admin]'),
    field: 'integrity.trusted_users',
    forward: 'gain',
    back: 'loss',
  },
  {
    name: 'a name removed from blocked_users',
    change: edit('blocked_users: [mallory]', 'blocked_users: []'),
    field: 'integrity.blocked_users',
    forward: 'gain',
    back: 'loss',
  },
  {
    name: 'after_untrusted -> allow',
    change: edit('after_untrusted: same_repository_only', 'after_untrusted: allow'),
    field: 'integrity.after_untrusted',
    forward: 'gain',
    back: 'loss',
  },
];

/** Changes of fields that grant nothing: no change in access either way. */
const NEUTRAL: Array<{ name: string; change: (text: string) => string }> = [
  { name: 'profile_name', change: edit('profile_name: p', 'profile_name: q') },
  { name: 'audit_label', change: edit('audit_label: p', 'audit_label: q') },
  { name: 'a capability claim', change: edit('can_push_branches: true', 'can_push_branches: false') },
  { name: 'repositories in another case', change: edit('[acme/*]', '[ACME/*]') },
  { name: 'repositories spelled with braces', change: edit('[acme/*]', '["acme/{widgets,*}"]') },
  { name: 'a covered pattern added', change: edit('[feature/*]', '[feature/*, feature/x]') },
  { name: 'a deny in another case', change: edit('[CODEOWNERS]', '[codeowners]') },
  {
    name: 'a budget spelled with a pattern of the same reach',
    change: edit('operations: [gitea.pr.create]', 'operations: ["gitea.pr.create"]'),
  },
  { name: 'a toolset whose operations the profile may not perform', change: edit('[repos]', '[repos, admin]') },
];

describe('diff: every widening field, both directions', () => {
  for (const row of WIDENINGS) {
    test(`${row.name}: ${row.forward} forward, ${row.back} back`, () => {
      const widened = row.change(BASE);
      const forward = changes(BASE, widened).filter((c) => c.field === row.field);
      assert.ok(forward.length > 0, `${row.field} is reported: ${JSON.stringify(changes(BASE, widened))}`);
      assert.ok(
        forward.some((c) => c.direction === row.forward),
        `forward is a ${row.forward}: ${JSON.stringify(forward)}`,
      );
      const back = changes(widened, BASE).filter((c) => c.field === row.field);
      assert.ok(
        back.some((c) => c.direction === row.back),
        `back is a ${row.back}: ${JSON.stringify(back)}`,
      );
      for (const c of [...forward, ...back].filter((x) => x.direction === 'gain'))
        assert.equal(c.file, 'new.yaml', 'a change is located in the newer version');
    });
  }

  test('a gain points at the line of the newer file that says it', () => {
    const widened = edit('trusted_users: [carol]', 'trusted_users: [carol, admin]')(BASE);
    const [gain] = changes(BASE, widened).filter((c) => c.direction === 'gain');
    assert.equal(gain?.file, 'new.yaml');
    assert.match(widened.split('\n')[(gain?.line ?? 0) - 1] ?? '', /trusted_users: \[carol, admin\]/);
  });

  test('the whole integrity block deleted: floor, fence and taint rule are gains', () => {
    const stripped = BASE.slice(0, BASE.indexOf('integrity:'));
    const found = changes(BASE, stripped);
    const gains = found.filter((c) => c.direction === 'gain').map((c) => c.field);
    for (const field of [
      'integrity.min_level',
      'integrity.below',
      'integrity.after_untrusted',
      'integrity.blocked_users',
    ])
      assert.ok(gains.includes(field), `${field}: ${JSON.stringify(found)}`);
    // The reverse adds the block: each of those is a loss.
    const back = changes(stripped, BASE)
      .filter((c) => c.direction === 'loss')
      .map((c) => c.field);
    for (const field of ['integrity.min_level', 'integrity.after_untrusted', 'integrity.blocked_users'])
      assert.ok(back.includes(field), field);
  });

  for (const row of NEUTRAL) {
    test(`${row.name}: no change in access`, () => {
      assert.deepEqual(changes(BASE, row.change(BASE)), []);
      assert.deepEqual(changes(row.change(BASE), BASE), []);
    });
  }

  test('every field the table compares has a row above (a lane adding a field adds its widening)', () => {
    const compared = Object.entries(PROFILE_FIELDS)
      .filter(([, rule]) => rule.compare !== 'neutral')
      .map(([field]) => field);
    const tested = new Set(WIDENINGS.map((row) => row.field.replace(/^(repositories|branches|paths)\..*$/, '$1')));
    tested.add('allowed_operations'); // reported as `operations`
    assert.deepEqual(
      compared.filter((field) => !tested.has(field)),
      [],
    );
  });

  test('config: runtime switching turned on and another Gitea are gains', () => {
    const facts = (runtimeSwitching: boolean, baseUrl: string | null): ConfigFacts => ({
      file: 'config.yaml',
      runtimeSwitching,
      runtimeSwitchingLine: 1,
      baseUrl,
      baseUrlLine: 5,
    });
    const diff = (a: ConfigFacts, b: ConfigFacts) =>
      diffProfiles(side(BASE, 'config.yaml', a), side(BASE, 'config.yaml', b), context);
    const on = diff(facts(false, null), facts(true, null));
    assert.deepEqual(
      on.gained.map((c) => [c.field, c.line]),
      [['allow_runtime_switching', 1]],
    );
    assert.deepEqual(
      diff(facts(true, null), facts(false, null)).lost.map((c) => c.field),
      ['allow_runtime_switching'],
    );
    const moved = diff(facts(false, 'https://gitea.example.com'), facts(false, 'https://evil.example.com'));
    assert.deepEqual(
      moved.gained.map((c) => c.field),
      ['base_url'],
    );
  });
});

describe('diff: the fields table covers the schemas', () => {
  const schema = (name: string) =>
    JSON.parse(readFileSync(join(packageRoot, 'policies', `${name}.schema.json`), 'utf8')) as {
      properties: Record<string, { properties?: Record<string, unknown> }>;
    };

  test('every profile field (a block field by field) has a row', () => {
    const fields = Object.entries(schema('profile').properties).flatMap(([name, property]) =>
      name === 'integrity' || (property.properties && !['paths'].includes(name) && !(name in PROFILE_FIELDS))
        ? Object.keys(property.properties ?? {}).map((sub) => `${name}.${sub}`)
        : [name],
    );
    assert.deepEqual(
      fields.filter((field) => !(field in PROFILE_FIELDS)),
      [],
    );
  });

  test('every field of a multi-identity config has a row', () => {
    const config = schema('config');
    const gitea = (
      config.properties.environments as unknown as {
        additionalProperties: { properties: { services: { properties: { gitea: { properties: object } } } } };
      }
    ).additionalProperties.properties.services.properties.gitea.properties;
    const fields = [...Object.keys(config.properties), ...Object.keys(gitea)];
    assert.deepEqual(
      fields.filter((field) => !(field in CONFIG_FIELDS)),
      [],
    );
  });

  test('a field no row knows is a gain: the gate fails closed', () => {
    const before = side(BASE, 'old.yaml');
    const after = side(BASE, 'new.yaml');
    const extended = { ...after, profile: { ...after.profile, data: { ...after.profile.data, x_future: [1] } } };
    const diff = diffProfiles(before, extended, context);
    assert.deepEqual(
      diff.gained.map((c) => c.field),
      ['x_future'],
    );
  });
});

describe('pattern cover: what micromatch matches, on the values a scope sees', () => {
  const atoms = ['a', 'b', '.', '-', '*', '?', '[ab]', '[!a]', '[^a]', '{a,b}', 'a*', 'A', '[A-C]', '+(a|b)'];
  const chars = ['a', 'b', '.', '-', 'A', 'B', '!', 'z'];
  const segments = (length: number): string[] =>
    length === 0 ? [''] : segments(length - 1).flatMap((s) => chars.map((c) => s + c));
  const names = [1, 2].flatMap(segments).filter((s) => s !== '.' && s !== '..');
  const values = [...names, ...names.slice(0, 40).flatMap((a) => names.map((b) => `${a}/${b}`))];
  for (const a of ['a', 'b.', 'z'])
    for (const b of ['a', '.b']) for (const c of ['a', 'bA']) values.push(`${a}/${b}/${c}`);

  test('covers() never claims a cover micromatch disproves, and agrees on single values', () => {
    const random = prng(26);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const segment = () => Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(atoms)).join('');
    const pattern = () =>
      Array.from({ length: 1 + Math.floor(random() * 3) }, () => (random() < 0.2 ? '**' : segment())).join('/');
    let claimed = 0;
    for (const nocase of [false, true]) {
      for (let i = 0; i < 600; i += 1) {
        const p = pattern();
        const q = random() < 0.5 ? pattern() : random() < 0.5 ? p.replace(/[ab]/, '*') : '**';
        if (!globAutomaton(p, nocase) || !globAutomaton(q, nocase)) continue;
        const [mp, mq] = [micromatch.matcher(p, { dot: true, nocase }), micromatch.matcher(q, { dot: true, nocase })];
        if (covers([q], p, 'path', nocase)) {
          claimed += 1;
          const witness = values.find((v) => mp(v) && !mq(v));
          assert.equal(witness, undefined, `${p} is not covered by ${q} (nocase ${nocase}): ${witness}`);
        }
        // A value is a pattern that matches itself only: covered exactly when micromatch matches it.
        const value = pick(values);
        if (!/[?*[\]{}()!+@]/.test(value))
          assert.equal(covers([p], value, 'path', nocase), mp(value), `${p} ~ ${value}`);
      }
    }
    assert.ok(claimed > 100, `enough covers checked: ${claimed}`);
  });

  const table: Array<[string[], string, 'repository' | 'branch' | 'path', boolean]> = [
    [['acme/*'], 'acme/widgets', 'repository', true],
    [['acme/widgets'], 'acme/*', 'repository', false],
    [['*/*'], 'acme/*', 'repository', true],
    [['**'], 'acme/widgets', 'repository', true],
    [['acme/widgets', 'acme/gadgets'], 'acme/{widgets,gadgets}', 'repository', true],
    [['feature/*'], 'feature/**', 'branch', false],
    [['feature/**'], 'feature/*', 'branch', true],
    [['src/**'], 'src/a/b.ts', 'path', true],
    [['src/*.ts'], 'src/**/*.ts', 'path', false],
    [['!(x)'], 'y', 'path', false],
  ];
  for (const [cover, pattern, kind, expected] of table) {
    test(`${JSON.stringify(cover)} ${expected ? 'covers' : 'does not cover'} ${pattern}`, () => {
      assert.equal(covers(cover, pattern, kind, kind === 'repository'), expected);
    });
  }
});

describe('gitea-warden diff: each change on a line naming the file, in text, JSON and SARIF', () => {
  const dir = tempDir('warden-diff-');
  const before = join(dir.path, 'before.yaml');
  const after = join(dir.path, 'after.yaml');
  const text = BASE.replace('role: author', 'role: owner').replace('forbidden_operations: [gitea.pr.merge]\n', '');
  writeFileSync(before, text);
  writeFileSync(
    after,
    text
      .replace('trusted_users: [carol]', 'trusted_users: [carol, admin]')
      .replace('below: withhold', 'below: fence')
      .replace('authenticated_username: bob', 'authenticated_username: admin')
      .replace('repositories: [acme/*]', 'repositories: [acme/widgets]'),
  );

  test('text: one line per change, each naming after.yaml and its line; exit 1 on a gain', async () => {
    const result = await capture(diffCommand, [before, after]);
    assert.equal(result.code, 1, result.stderr);
    const lines = result.stdout.trim().split('\n');
    for (const line of lines) assert.match(line, new RegExp(`^${after.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    assert.match(result.stdout, /after\.yaml:\d+: gain integrity\.trusted_users: \+ admin/);
    assert.match(result.stdout, /after\.yaml:\d+: gain integrity\.below: withhold -> fence/);
    assert.match(result.stdout, /after\.yaml:\d+: gain authenticated_username: acts as admin instead of bob/);
    assert.match(result.stdout, /after\.yaml:\d+: loss repositories\.write: - acme\/\*/);
    assert.match(result.stdout, /after\.yaml: 3 gained, 2 lost\n$/);
    assert.equal((await capture(diffCommand, ['--allow-gain', before, after])).code, 0);
  });

  test('json and sarif carry the same changes with file and line', async () => {
    const json = JSON.parse((await capture(diffCommand, ['--format', 'json', before, after])).stdout) as {
      gained: AccessChange[];
      lost: AccessChange[];
    };
    assert.deepEqual(json.gained.map((c) => c.field).sort(), [
      'authenticated_username',
      'integrity.below',
      'integrity.trusted_users',
    ]);
    assert.ok(json.gained.every((c) => c.file.endsWith('after.yaml') && typeof c.line === 'number'));
    const sarif = JSON.parse((await capture(diffCommand, ['--format', 'sarif', before, after])).stdout);
    const results = sarif.runs[0].results as Array<{ ruleId: string; level: string; locations: unknown[] }>;
    assert.equal(results.filter((r) => r.ruleId === 'access_gained' && r.level === 'error').length, 3);
    assert.equal(results.filter((r) => r.ruleId === 'access_lost').length, 2);
    for (const r of results) {
      const location = (r.locations[0] as { physicalLocation: { artifactLocation: { uri: string }; region?: object } })
        .physicalLocation;
      assert.ok(location.artifactLocation.uri.endsWith('after.yaml'));
      assert.ok(location.region, 'a region (line) for each change');
    }
  });

  test('no change: exit 0, and the line names the file', async () => {
    const result = await capture(diffCommand, [before, before]);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /before\.yaml: no change in access\n$/);
    dir.dispose();
  });
});
