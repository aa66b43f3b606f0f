import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run as check } from '../src/cli/check.js';
import { run as explain } from '../src/cli/explain.js';
import { run as diff } from '../src/cli/diff.js';
import { run as migrate } from '../src/cli/migrate.js';
import { BatchDecider, decideLines, MAX_REQUEST_LINE_CHARS } from '../src/cli/decide.js';
import { loadProfile } from '../src/policy-files/profile-files.js';
import { capture, policy } from './policy-helpers.js';

const fixtures = 'test/fixtures/profiles';
const temp = mkdtempSync(join(tmpdir(), 'warden-policy-'));
after(() => rmSync(temp, { recursive: true, force: true }));

describe('gitea-warden check', () => {
  test('the reference profiles and policies are clean', async () => {
    const result = await capture(check, []);
    assert.equal(result.code, 0, result.stdout);
  });

  const expected: [string, string, number | null][] = [
    ['bad-schema.yaml', 'schema', 6],
    ['bad-unknown.yaml', 'unknown_operation', 7],
    ['bad-ambiguous.yaml', 'ambiguous_operation', 7],
    ['bad-legacy.yaml', 'legacy_alias', 7],
    ['bad-overlap.yaml', 'allowed_forbidden_overlap', 7],
    ['bad-forbidden-typo.yaml', 'unnormalizable_forbidden', 8],
    ['bad-role-merger.yaml', 'role_invariant', 8],
    ['bad-role-author.yaml', 'role_invariant', 8],
    ['bad-role-reviewer.yaml', 'role_invariant', 8],
    ['bad-role-reconciler.yaml', 'role_invariant', 9],
    ['bad-capability.yaml', 'capability_contradiction', 8],
    ['bad-credential.yaml', 'inline_credential', 6],
    ['bad-token-field.json', 'inline_credential', 6],
    ['bad-conflict.yaml', 'merge_conflict', 6],
    ['bad-duplicate.yaml', 'duplicate_operation', 8],
  ];
  for (const [file, code, line] of expected) {
    test(`${file}: ${code} at line ${line}`, async () => {
      const result = await capture(check, [join(fixtures, file)]);
      assert.equal(result.code, 1);
      assert.ok(
        result.stdout.includes(`${fixtures}/${file}:${line}: `) && result.stdout.includes(` ${code}: `),
        result.stdout,
      );
    });
  }

  test('credential values never appear in the output', async () => {
    const result = await capture(check, [
      join(fixtures, 'bad-credential.yaml'),
      join(fixtures, 'bad-token-field.json'),
    ]);
    assert.ok(!result.stdout.includes('0123456789abcdef') && !result.stdout.includes('not-an-env-name'));
  });

  test('json and sarif name file, line and rule', async () => {
    const json = JSON.parse(
      (await capture(check, ['--format', 'json', join(fixtures, 'bad-role-merger.yaml')])).stdout,
    );
    assert.deepEqual(
      json.findings.map((f: { code: string; line: number }) => [f.code, f.line]),
      [['role_invariant', 8]],
    );
    const sarif = JSON.parse(
      (await capture(check, ['--format', 'sarif', join(fixtures, 'bad-role-merger.yaml')])).stdout,
    );
    assert.equal(sarif.version, '2.1.0');
    const result = sarif.runs[0].results[0];
    assert.equal(result.ruleId, 'role_invariant');
    assert.deepEqual(result.locations[0].physicalLocation, {
      artifactLocation: { uri: `${fixtures}/bad-role-merger.yaml` },
      region: { startLine: 8 },
    });
    assert.ok(sarif.runs[0].tool.driver.rules.some((r: { id: string }) => r.id === 'role_invariant'));
  });

  test('every finding says how to fix it (schema and syntax findings included)', async () => {
    const dir = mkdtempSync(join(temp, 'unfixed-'));
    writeFileSync(join(dir, 'broken-syntax.yaml'), 'profile_name: x\nrole: [\n');
    writeFileSync(join(dir, 'missing-fields.yaml'), 'profile_name: x\nallowed_operations: [gitea.read]\n');
    const result = await capture(check, ['--format', 'json', fixtures, dir]);
    const findings: { code: string; fix?: string }[] = JSON.parse(result.stdout).findings;
    for (const code of ['schema', 'parse_error'])
      assert.ok(
        findings.some((f) => f.code === code),
        `no ${code} finding to look at`,
      );
    assert.deepEqual(
      findings.filter((f) => !f.fix).map((f) => f.code),
      [],
    );
    assert.ok(
      findings.some((f) => f.fix === 'add role; policies/profile.schema.json describes it'),
      JSON.stringify(findings),
    );
  });

  test('unusable input exits 2', async () => {
    assert.equal((await capture(check, [join(temp, 'missing.yaml')])).code, 2);
    assert.equal((await capture(check, [temp])).code, 2);
  });

  test('guards.yaml and tasks.yaml are linted with the other policies, at file:line', async () => {
    const dir = join(temp, 'policies-copy');
    cpSync('policies', dir, { recursive: true });
    writeFileSync(join(dir, 'guards.yaml'), `${readFileSync(join(dir, 'guards.yaml'), 'utf8')}\nstray_setting: true\n`);
    writeFileSync(join(dir, 'tasks.yaml'), `${readFileSync(join(dir, 'tasks.yaml'), 'utf8')}\n<<<<<<< HEAD\n`);
    const result = await capture(check, [dir]);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /guards\.yaml:\d+: error schema: \/stray_setting: unknown field/);
    assert.match(result.stdout, /tasks\.yaml:\d+: error merge_conflict/);
    // Each file is read and linted once: the finding appears once, with nothing hiding a second load.
    assert.equal(result.stdout.match(/error schema: \/stray_setting/g)?.length, 1, result.stdout);
  });

  test('a multi-identity config is checked and its identities load by key, name or alias', async () => {
    assert.equal((await capture(check, [join(fixtures, 'config-good.yaml')])).code, 0);
    for (const name of ['reconciler', 'dev-reconciler', 'prgs-reconciler']) {
      assert.equal(loadProfile(`${fixtures}/config-good.yaml#${name}`, policy).name, 'dev-reconciler');
    }
    assert.throws(() => loadProfile(`${fixtures}/config-good.yaml`, policy), /2 profiles match/);
  });
});

describe('gitea-warden decide --batch', () => {
  test('one answer line per request, in order; bad lines get invalid_request and processing continues', async () => {
    const requests = [
      { profile: 'profiles/gitea-reconciler.yaml', operation: 'gitea.pr.close' },
      'this is not json',
      {
        profile: 'profiles/gitea-merger.yaml',
        operation_id: 'repoMergePullRequest',
        arguments: { owner: 'a', repo: 'b', index: 3, body: { Do: 'merge', force_merge: true } },
      },
      {
        profile: { allowed_operations: ['gitea.pr.*'], forbidden_operations: ['approve'] },
        operation: 'gitea.pr.approve',
      },
      {
        profile: 'profiles/gitea-reviewer.yaml',
        operation_id: 'repoCreatePullReview',
        arguments: { owner: 'a', repo: 'b', index: 3, body: { event: 'APPROVED' } },
      },
      { profile: 'profiles/gitea-reconciler.yaml', operation: 'pr.close' },
      { operation: 'gitea.read' },
      { profile: 'profiles/missing.yaml', operation: 'gitea.read' },
    ];
    const input = Readable.from(requests.map((r) => `${typeof r === 'string' ? r : JSON.stringify(r)}\n`));
    const lines: string[] = [];
    await decideLines(input, (line) => lines.push(line), new BatchDecider(policy, { vocabulary: policy.vocabulary }));
    const answers = lines.map((line) => JSON.parse(line));
    assert.deepEqual(
      answers.map((a) => [a.effect, a.reason]),
      [
        ['allow', 'allowed'],
        ['deny', 'invalid_request'],
        ['deny', 'forbidden'],
        ['deny', 'forbidden'],
        ['allow', 'allowed'],
        ['deny', 'ambiguous_operation'],
        ['deny', 'invalid_request'],
        ['deny', 'invalid_profile'],
      ],
    );
    assert.deepEqual(answers[2].operations, ['gitea.pr.merge', 'gitea.pr.force_merge']);
    const closeLine =
      readFileSync('profiles/gitea-reconciler.yaml', 'utf8')
        .split('\n')
        .findIndex((l) => l.trim() === '- gitea.pr.close') + 1;
    assert.deepEqual(answers[0].determining, {
      file: 'profiles/gitea-reconciler.yaml',
      line: closeLine,
      rule: 'allowed_operations: gitea.pr.close',
    });
  });
});

describe('gitea-warden decide --batch on malformed input', () => {
  const scoped = 'profiles/examples/gitea-author-widgets.yaml';
  const cases: [string, string, RegExp][] = [
    ['not JSON', '{"profile": ', /not valid JSON/],
    ['deeply nested JSON', `${'['.repeat(100_000)}${']'.repeat(100_000)}`, /a request is an object/],
    [
      'a line over the limit',
      JSON.stringify({ profile: scoped, operation: 'x'.repeat(MAX_REQUEST_LINE_CHARS) }),
      /longer than \d+ characters/,
    ],
    [
      'a target list holding a non-string',
      JSON.stringify({ profile: scoped, operation: 'gitea.read', targets: { repositories: [null] } }),
      /lists of strings/,
    ],
    [
      'a target kind that is not a list',
      JSON.stringify({ profile: scoped, operation: 'gitea.read', targets: { repositories: 'acme/widgets' } }),
      /lists of strings/,
    ],
    [
      'an unknown target kind',
      JSON.stringify({ profile: scoped, operation: 'gitea.read', targets: { repository: ['evil/x'] } }),
      /lists of strings/,
    ],
  ];
  for (const [what, line, reason] of cases) {
    test(`${what}: invalid_request with the reason, and the next line is still answered`, async () => {
      const next = JSON.stringify({ profile: 'profiles/gitea-reviewer.yaml', operation: 'gitea.read' });
      const lines: string[] = [];
      await decideLines(
        Readable.from([`${line}\r\n`, `${next}\n`]),
        (answer) => lines.push(answer),
        new BatchDecider(policy, { vocabulary: policy.vocabulary }),
      );
      const answers = lines.map((answer) => JSON.parse(answer));
      assert.deepEqual(
        answers.map((a) => [a.effect, a.reason]),
        [
          ['deny', 'invalid_request'],
          ['allow', 'allowed'],
        ],
      );
      assert.match(answers[0].hint, reason);
      assert.ok(lines[0]!.length < 1000, 'the answer does not echo the request');
    });
  }
});

test('decide --batch: an inline profile with a malformed scope is refused, not read as unscoped', async () => {
  const requests = [
    {
      profile: { allowed_operations: ['gitea.read'], repositories: 'acme/widgets' },
      operation: 'gitea.read',
      targets: { repositories: ['evil/x'] },
    },
    {
      profile: { allowed_operations: ['gitea.read'], branches: { 'gitea.read': 'main' } },
      operation: 'gitea.read',
      targets: {},
    },
    {
      profile: { allowed_operations: ['gitea.read'], repositories: ['acme/widgets'] },
      operation: 'gitea.read',
      targets: { repositories: ['acme/widgets'] },
    },
  ];
  const lines: string[] = [];
  await decideLines(
    Readable.from(requests.map((r) => `${JSON.stringify(r)}\n`)),
    (line) => lines.push(line),
    new BatchDecider(policy, { vocabulary: policy.vocabulary }),
  );
  const answers = lines.map((line) => JSON.parse(line));
  assert.deepEqual(
    answers.map((a) => [a.effect, a.reason]),
    [
      ['deny', 'invalid_profile'],
      ['deny', 'invalid_profile'],
      ['allow', 'allowed'],
    ],
  );
  assert.match(answers[0].determining.rule, /\/repositories: must be a list or an object \(fields: read, write\)/);
});

describe('gitea-warden explain', () => {
  test('a denial names the verdict, operation, determining file:line and the namespace that holds it', async () => {
    const result = await capture(explain, ['--profile', 'profiles/gitea-reconciler.yaml', '--operation', 'approve']);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /^DENY/);
    assert.match(result.stdout, /operations:\s+gitea\.pr\.approve/);
    assert.match(result.stdout, /profiles\/gitea-reconciler\.yaml:\d+\s+forbidden_operations: gitea\.pr\.approve/);
    assert.match(result.stdout, /gitea-reviewer namespace/);
  });

  test('a catalog tool with arguments maps through the operation rules', async () => {
    const args = JSON.stringify({ owner: 'a', repo: 'b', index: 1, body: { state: 'closed' } });
    const result = await capture(explain, [
      '--profile',
      'profiles/gitea-reconciler.yaml',
      '--tool',
      'gitea_pulls_edit',
      '--args',
      args,
    ]);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /^ALLOW/);
    assert.match(result.stdout, /gitea\.pr\.close/);
  });

  test('a profile can be named as serve names it: gitea-reviewer is profiles/gitea-reviewer.yaml', async () => {
    const byName = await capture(explain, ['--profile', 'gitea-reviewer', '--operation', 'merge']);
    const byFile = await capture(explain, ['--profile', 'profiles/gitea-reviewer.yaml', '--operation', 'merge']);
    assert.equal(byName.code, 1, byName.stderr);
    assert.equal(byName.stdout, byFile.stdout);
    const missing = await capture(explain, ['--profile', 'gitea-nobody', '--operation', 'merge']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /gitea-nobody\.yaml/);
  });

  test('the raw branch delete is refused as the server refuses it: guarded-only, naming the guarded tool', async () => {
    const args = JSON.stringify({ owner: 'acme', repo: 'widgets', branch: 'feature/old-docs' });
    const result = await capture(explain, [
      '--profile',
      'profiles/gitea-reconciler.yaml',
      '--tool',
      'gitea_branches_delete',
      '--args',
      args,
    ]);
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(result.stdout, /^DENY/);
    assert.match(result.stdout, /guarded_tool_only/);
    assert.match(result.stdout, /gitea_cleanup_merged_pr_branch/);
  });
});

describe('gitea-warden diff', () => {
  const write = (name: string, allowed: string[], forbidden: string[] = []) => {
    const file = join(temp, name);
    writeFileSync(
      file,
      JSON.stringify({
        profile_name: 'x',
        role: 'author',
        authenticated_username: 'alice',
        token_source_name: 'T',
        allowed_operations: allowed,
        forbidden_operations: forbidden,
      }),
    );
    return file;
  };

  test('an unknown --format is unusable input (exit 2), not text by default', async () => {
    const result = await capture(diff, [
      '--format',
      'xml',
      'profiles/gitea-reviewer.yaml',
      'profiles/gitea-merger.yaml',
    ]);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /unknown format 'xml' \(text, json or sarif\)/);
  });

  test('exit 1 on gained access (after normalization and wildcards), unless --allow-gain', async () => {
    const before = write('old.json', ['read', 'push']);
    const after = write('new.json', ['gitea.read', 'gitea.branch.push', 'gitea.wiki.*']);
    const result = await capture(diff, ['--format', 'json', before, after]);
    assert.equal(result.code, 1);
    const changes = JSON.parse(result.stdout) as { gained: Array<{ change: string }>; lost: unknown[] };
    assert.deepEqual(
      changes.gained.map((c) => c.change),
      ['+ gitea.wiki.delete', '+ gitea.wiki.edit'],
    );
    assert.deepEqual(changes.lost, []);
    assert.equal((await capture(diff, ['--allow-gain', before, after])).code, 0);
  });

  test('a forbidden change counts; losing access alone exits 0', async () => {
    const before = write('a.json', ['gitea.read', 'gitea.branch.push']);
    const after = write('b.json', ['gitea.read', 'gitea.branch.push'], ['push']);
    const result = await capture(diff, ['--format', 'json', before, after]);
    assert.equal(result.code, 0);
    const changes = JSON.parse(result.stdout) as { gained: unknown[]; lost: Array<{ change: string }> };
    assert.deepEqual(changes.gained, []);
    assert.deepEqual(
      changes.lost.map((c) => c.change),
      ['- gitea.branch.push'],
    );
  });
});

describe('gitea-warden migrate', () => {
  const legacy = `# legacy reconciler profile
profile_name: legacy-reconciler
role: reconciler
authenticated_username: dave
token_source_name: GITEA_RECONCILER_TOKEN
allowed_operations:
  - read          # everything readable
  - pr.close
  - issue.close
forbidden_operations: [approve, merge, review, pr.create, push, commit]
`;

  test('dry run prints canonical names, keeps comments and leaves the file alone', async () => {
    const file = join(temp, 'legacy.yaml');
    writeFileSync(file, legacy);
    const result = await capture(migrate, ['-i', file]);
    assert.equal(result.code, 0, result.stderr);
    // Only the legacy names change: comments, their alignment and the flow list's layout stay as written.
    assert.equal(
      result.stdout,
      legacy
        .replace('- read          #', '- gitea.read          #')
        .replace('- pr.close', '- gitea.pr.close')
        .replace('- issue.close', '- gitea.issue.close')
        .replace(
          '[approve, merge, review, pr.create, push, commit]',
          '[gitea.pr.approve, gitea.pr.merge, gitea.pr.review, gitea.pr.create, gitea.branch.push, gitea.repo.commit]',
        ),
    );
    assert.equal(readFileSync(file, 'utf8'), legacy);
  });

  test('a JSON profile stays JSON, quotes and all', async () => {
    const file = join(temp, 'legacy.json');
    writeFileSync(
      file,
      '{\n  "profile_name": "j",\n  "role": "reviewer",\n  "authenticated_username": "bob",\n  "token_source_name": "T",\n  "allowed_operations": ["read", "approve"]\n}\n',
    );
    const result = await capture(migrate, ['-i', file]);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout).allowed_operations, ['gitea.read', 'gitea.pr.approve']);
    assert.match(result.stdout, /"allowed_operations": \["gitea\.read", "gitea\.pr\.approve"\]/);
  });

  test('-w writes after a backup, and the result checks clean', async () => {
    const file = join(temp, 'legacy-w.yaml');
    writeFileSync(file, legacy);
    const backup = join(temp, 'legacy-w.backup');
    const result = await capture(migrate, ['-i', file, '-w', '--backup', backup]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(readFileSync(backup, 'utf8'), legacy);
    assert.equal((await capture(check, [file])).code, 0);
  });

  test('-w -o writes the result to OUT and leaves the input as it was, backed up', async () => {
    const file = join(temp, 'legacy-o.yaml');
    const out = join(temp, 'legacy-o.out.yaml');
    writeFileSync(file, legacy);
    const dryRun = await capture(migrate, ['-i', file]);
    const result = await capture(migrate, ['-i', file, '-o', out, '-w']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(readFileSync(out, 'utf8'), dryRun.stdout);
    assert.equal(readFileSync(file, 'utf8'), legacy);
    assert.equal(readFileSync(`${file}.bak`, 'utf8'), legacy);
    assert.equal((await capture(check, [out])).code, 0);
  });

  test('-o writes elsewhere; an entry with no replacement is reported and blocks writing', async () => {
    const file = join(temp, 'typo.yaml');
    copyFileSync(join(fixtures, 'bad-forbidden-typo.yaml'), file);
    const result = await capture(migrate, ['-i', file, '-w', '-o', join(temp, 'out.yaml')]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /no canonical replacement/);
  });
});
