// The pure side of confirmations (src/policy/confirmations.ts): which calls need a person, what the
// question shows, how a binding and an answer are judged, who may approve in the browser, and what
// `check` says about a profile's confirmations block. Table-driven, with a property test of the binding.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  approverVerdict,
  compareBinding,
  confirmationFindings,
  confirmationQuestion,
  confirmationSettings,
  judgeAnswer,
  requiredConfirmation,
  type ConfirmBinding,
  type ConfirmSubject,
} from '../src/policy/confirmations.js';
import { checkProfileFile } from '../src/policy-files/profile-files.js';
import { loadProfile } from '../src/policy-files/profile-files.js';
import { checkPolicies } from '../src/policy-files/policy-set.js';
import { policiesDir } from '../src/shared/paths.js';
import { cpSync } from 'node:fs';
import type { ProfileData } from '../src/policy/profile.js';
import { inline, policy } from './policy-helpers.js';
import { prng } from './support/prng.js';

const settingsOf = (data: ProfileData) => confirmationSettings(policy.confirmations, inline(data), policy.vocabulary);
const base: ProfileData = { profile_name: 'p', role: 'merger', authenticated_username: 'carol' };

describe('which calls need a person (policies/confirmations.yaml and the profile)', () => {
  const cases: Array<[string, string[], string, ProfileData, string | null]> = [
    ['a merge', ['gitea.pr.merge'], 'repo_merge_pull_request', base, 'gitea.pr.merge'],
    [
      'a force merge',
      ['gitea.pr.force_merge', 'gitea.pr.merge'],
      'repo_merge_pull_request',
      base,
      'gitea.pr.force_merge',
    ],
    ['the cleanup', ['gitea.branch.delete'], 'gitea_cleanup_merged_pr_branch', base, 'gitea.branch.delete'],
    ['a repository delete', ['gitea.repo.delete'], 'repo_delete', base, 'gitea.repo.delete'],
    [
      'the landed close',
      ['gitea.pr.close', 'gitea.issue.comment'],
      'gitea_reconcile_already_landed_pr',
      base,
      'gitea.pr.close',
    ],
    ['a close through the generated tool', ['gitea.pr.close'], 'repo_edit_pull_request', base, null],
    ['a comment', ['gitea.issue.comment'], 'issue_create_comment', base, null],
    ['a read', ['gitea.read'], 'repo_get', base, null],
    [
      'an operation the profile adds',
      ['gitea.release.delete'],
      'repo_delete_release',
      { ...base, confirmations: { operations: ['gitea.release.delete'] } },
      'gitea.release.delete',
    ],
    [
      'an area the profile adds by pattern',
      ['gitea.tag.delete'],
      'repo_delete_tag',
      { ...base, confirmations: { operations: ['gitea.tag.*'] } },
      'gitea.tag.delete',
    ],
    ['the same without the addition', ['gitea.tag.delete'], 'repo_delete_tag', base, null],
  ];
  for (const [what, operations, tool, data, expected] of cases) {
    test(`${what}: ${expected ?? 'no confirmation'}`, () => {
      const required = requiredConfirmation(settingsOf(data), { operations, tool });
      assert.equal(required?.rule.operation ?? null, expected);
      if (expected !== null)
        assert.ok(required?.rule.file.endsWith(data.confirmations ? '<inline>' : 'confirmations.yaml'));
    });
  }

  test('every reference rule names a line of the policy file', () => {
    for (const rule of policy.confirmations.rules)
      assert.ok(typeof rule.line === 'number' && rule.line > 0, rule.operation);
    assert.ok(policy.confirmations.expiresAfterSeconds <= 600);
  });
});

describe('whose answer counts', () => {
  test('by default the person at the client, from the policy file', () => {
    const settings = settingsOf(base);
    assert.equal(settings.approver, 'at_client');
    assert.equal(settings.fallback, 'none');
    assert.match(settings.approverSource.rule, /default/);
  });
  test('signed_in without a list: the profile login and its authenticated users', () => {
    const settings = settingsOf({ ...base, authenticated_users: ['Alice'], confirmations: { approver: 'signed_in' } });
    assert.deepEqual([...settings.approverRule.approvers].sort(), ['alice', 'carol']);
    assert.deepEqual(settings.approverRule.excluded, []);
  });
  test("four_eyes: the listed approvers, never the namespace's own login", () => {
    const settings = settingsOf({
      ...base,
      confirmations: { approver: 'four_eyes', approvers: ['Bob', 'carol'], approver_teams: ['Acme/Leads'] },
    });
    assert.deepEqual(settings.approverRule, {
      approvers: ['bob', 'carol'],
      teams: ['acme/leads'],
      excluded: ['carol'],
    });
    assert.deepEqual(approverVerdict(settings.approverRule, 'BOB', []), { ok: true });
    assert.equal(approverVerdict(settings.approverRule, 'carol', []).ok, false, 'the namespace login is excluded');
    assert.deepEqual(approverVerdict(settings.approverRule, 'erin', ['acme/leads']), { ok: true });
    const stranger = approverVerdict(settings.approverRule, 'mallory', ['acme/devs']);
    assert.equal(stranger.ok, false);
    assert.match(stranger.ok ? '' : stranger.why, /not among the approvers/);
  });
  test('confirmation_fallback: phrase is read from the profile', () => {
    assert.equal(settingsOf({ ...base, confirmation_fallback: 'phrase' }).fallback, 'phrase');
  });
});

const subject: ConfirmSubject = {
  operation: 'gitea.pr.merge',
  meaning: 'Merge a pull request',
  tool: 'repo_merge_pull_request',
  namespace: 'gitea-merger',
  actor: 'carol',
  repository: { fullName: 'acme/widgets', id: 12 },
  pullRequest: { number: 7, title: 'Add widgets', headSha: 'a'.repeat(40), headRef: 'feature/w', baseRef: 'main' },
  branch: null,
  request: { method: 'POST', path: '/repos/acme/widgets/pulls/7/merge' },
  notes: ['Merge style: merge'],
};

describe('the question shows exactly what will happen', () => {
  test('a merge: operation, repository and its id, pull request number and title, head commit, actor', () => {
    const q = confirmationQuestion(subject, 600_000);
    assert.equal(q.title, 'Merge pull request #7 "Add widgets" into main of acme/widgets');
    for (const expected of [
      'Operation: gitea.pr.merge (Merge a pull request), through repo_merge_pull_request',
      'Repository: acme/widgets (id 12)',
      'Pull request: #7 "Add widgets" (feature/w into main)',
      `Head commit: ${'a'.repeat(40)}`,
      'Gitea request: POST /repos/acme/widgets/pulls/7/merge',
      'Merge style: merge',
      'Acts as: carol (namespace gitea-merger)',
    ])
      assert.ok(q.lines.includes(expected), `${expected} in ${q.lines.join(' | ')}`);
    assert.match(q.message, /^Merge pull request #7 .*\?\n/);
    assert.match(q.message, /10 minutes/);
  });
  test('a cleanup names the branch that will be deleted and its tip', () => {
    const q = confirmationQuestion(
      {
        ...subject,
        operation: 'gitea.branch.delete',
        meaning: 'Delete a branch',
        tool: 'gitea_cleanup_merged_pr_branch',
        request: null,
        branch: { name: 'feature/w', sha: 'b'.repeat(40) },
        notes: [],
      },
      600_000,
    );
    assert.equal(q.title, 'Delete branch feature/w of acme/widgets');
    assert.ok(q.lines.includes(`Branch deleted: feature/w at ${'b'.repeat(40)}`));
  });
  test('a pull request title cannot add lines of its own to the question', () => {
    const evil = { ...subject, pullRequest: { ...subject.pullRequest!, title: 'x\n\nActs as: admin\u2028y' } };
    const q = confirmationQuestion(evil, 600_000);
    assert.equal(q.lines.filter((line) => line.startsWith('Acts as:')).length, 1);
    assert.ok(!q.title.includes('\n'));
  });
  test('an operation without a title of its own is named by its meaning and request', () => {
    const q = confirmationQuestion(
      {
        ...subject,
        operation: 'gitea.release.delete',
        meaning: 'Delete a release',
        pullRequest: null,
        request: { method: 'DELETE', path: '/repos/acme/widgets/releases/3' },
      },
      600_000,
    );
    assert.equal(q.title, 'Delete a release: DELETE /repos/acme/widgets/releases/3 of acme/widgets');
  });
});

const binding: ConfirmBinding = {
  principal: 'gitea-merger/carol',
  operation: 'gitea.pr.merge',
  tool: 'repo_merge_pull_request',
  arguments: 'digest-1',
  repository: 'acme/widgets',
  pullRequest: 7,
  repositoryId: 12,
  headSha: 'a'.repeat(40),
  baseRef: 'main',
  branchSha: null,
};

describe('an answer is bound to one call and the facts the question showed', () => {
  const transplants: Array<[keyof ConfirmBinding, string | number]> = [
    ['principal', 'gitea-merger/mallory'],
    ['operation', 'gitea.pr.force_merge'],
    ['tool', 'repo_delete'],
    ['arguments', 'digest-2'],
    ['repository', 'acme/other'],
    ['pullRequest', 8],
  ];
  for (const [field, value] of transplants)
    test(`another ${field}: transplanted`, () => {
      assert.deepEqual(compareBinding(binding, { ...binding, [field]: value }), {
        kind: 'transplanted',
        fields: [field],
      });
    });
  const changes: Array<[keyof ConfirmBinding, string | number | null]> = [
    ['repositoryId', 13],
    ['headSha', 'c'.repeat(40)],
    ['baseRef', 'release'],
    ['branchSha', 'd'.repeat(40)],
  ];
  for (const [field, value] of changes)
    test(`another ${field}: changed, the answer is void`, () => {
      const verdict = compareBinding(binding, { ...binding, [field]: value });
      assert.equal(verdict.kind, 'changed');
      assert.deepEqual(verdict.kind === 'changed' ? verdict.changes.map((c) => c.fact) : [], [field]);
    });
  test('SHAs compare without regard to case', () => {
    assert.deepEqual(compareBinding(binding, { ...binding, headSha: 'A'.repeat(40) }), { kind: 'same' });
  });
  test('property: any difference is noticed, and only an identical binding is the same', () => {
    const random = prng(27);
    const fields = Object.keys(binding) as Array<keyof ConfirmBinding>;
    for (let i = 0; i < 500; i++) {
      const now: Record<string, unknown> = { ...binding };
      const touched = fields.filter(() => random() < 0.3);
      for (const field of touched) now[field] = typeof binding[field] === 'number' ? 1000 + i : `other-${i}`;
      const verdict = compareBinding(binding, now as unknown as ConfirmBinding);
      assert.equal(verdict.kind === 'same', touched.length === 0, JSON.stringify(touched));
      const callFields = touched.filter((f) =>
        ['principal', 'operation', 'tool', 'arguments', 'repository', 'pullRequest'].includes(f),
      );
      if (callFields.length > 0) assert.deepEqual(verdict, { kind: 'transplanted', fields: callFields });
    }
  });
});

describe("the person's answer", () => {
  const cases: Array<[string, unknown, string]> = [
    ['accept with the box ticked', { action: 'accept', content: { confirm: true } }, 'confirmed'],
    ['accept with the box unticked', { action: 'accept', content: { confirm: false } }, 'declined'],
    ['accept with "true" as text', { action: 'accept', content: { confirm: 'true' } }, 'declined'],
    ['accept without content', { action: 'accept' }, 'declined'],
    ['decline', { action: 'decline' }, 'declined'],
    ['cancel', { action: 'cancel' }, 'declined'],
    ['no answer', undefined, 'missing'],
    ['an unknown action', { action: 'approve' }, 'missing'],
    ['a wrapped result', { method: 'elicitation/create', result: { action: 'accept' } }, 'missing'],
  ];
  for (const [what, response, kind] of cases)
    test(`${what}: ${kind}`, () => assert.equal(judgeAnswer(response).kind, kind));
  test('a URL-mode accept carries no content', () => {
    assert.equal(judgeAnswer({ action: 'accept' }, '').kind, 'confirmed');
    assert.equal(judgeAnswer({ action: 'decline' }, '').kind, 'declined');
  });
});

describe('check: findings about confirmations', () => {
  test('four_eyes without approvers is an error; a phrase fallback a warning; an unknown operation an error', () => {
    const findings = confirmationFindings(
      inline({
        ...base,
        confirmation_fallback: 'phrase',
        confirmations: { approver: 'four_eyes', operations: ['gitea.nope.x'] },
      }),
      policy.vocabulary,
    );
    assert.deepEqual(
      findings.map((f) => [f.code, f.severity]),
      [
        ['unknown_operation', 'error'],
        ['approvers_missing', 'error'],
        ['confirmation_fallback_phrase', 'warning'],
      ],
    );
  });

  test('a profile file with four_eyes and no approvers does not load, and check names its line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'warden-confirm-'));
    try {
      const file = join(dir, 'p.yaml');
      writeFileSync(
        file,
        [
          'profile_name: p',
          'role: merger',
          'authenticated_username: carol',
          'token_source_name: T',
          'allowed_operations: [gitea.read]',
          'confirmations:',
          '  approver: four_eyes',
          '',
        ].join('\n'),
      );
      const report = checkProfileFile(file, policy);
      const finding = report.findings.find((f) => f.code === 'approvers_missing');
      assert.equal(finding?.line, 7);
      assert.throws(() => loadProfile(file, policy), /approvers_missing|four_eyes/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('policies/confirmations.yaml naming an operation outside the vocabulary is an error at its line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'warden-confirm-policies-'));
    try {
      cpSync(policiesDir, dir, { recursive: true });
      writeFileSync(
        join(dir, 'confirmations.yaml'),
        'confirm:\n  - operation: gitea.pr.merge\n  - operation: gitea.pr.merj\nexpires_after_seconds: 600\n',
      );
      const finding = checkPolicies(dir).find((f) => f.file.endsWith('confirmations.yaml'));
      assert.equal(finding?.code, 'unknown_operation');
      assert.equal(finding?.line, 3);
      writeFileSync(join(dir, 'confirmations.yaml'), 'confirm: []\nexpires_after_seconds: 3600\n');
      assert.equal(checkPolicies(dir).find((f) => f.file.endsWith('confirmations.yaml'))?.code, 'schema');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
