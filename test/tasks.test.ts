// resolve_task_capability for every task in policies/tasks.yaml, in every reference role's namespace.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTaskCatalog } from '../src/policy-files/task-catalog.js';
import { readDocument } from '../src/shared/document.js';
import { policiesDir } from '../src/shared/paths.js';
import { loadPolicySet } from '../src/policy-files/policy-set.js';
import { loadReferenceProfiles } from '../src/policy-files/profile-files.js';
import { effectiveOperations } from '../src/policy/profile.js';
import { resolveTaskCapability, type TaskSession } from '../src/policy/tasks.js';

const catalog = loadTaskCatalog();

// What each reference namespace allows, from profiles/*.yaml: tasks.yaml and the profiles must agree.
const policy = loadPolicySet();
const allowedByRole = new Map(
  loadReferenceProfiles(policy).map((profile) => [
    profile.role as string,
    effectiveOperations(profile, policy.vocabulary),
  ]),
);

function session(role: string): TaskSession {
  const allowed = allowedByRole.get(role);
  return { role, profileName: `gitea-${role}`, isAllowed: (op) => allowed?.has(op) ?? false };
}

// The expected answer per task: the role that does it, and in that role's namespace the outcome.
const expected: Record<
  string,
  { role: string; own: 'allowed' | 'permission_not_allowed' | 'guarded_tool_only'; tool?: string }
> = {
  read_repository: { role: 'any', own: 'allowed' },
  create_issue: { role: 'issue-manager', own: 'allowed' },
  edit_issue: { role: 'issue-manager', own: 'allowed' },
  comment_issue: { role: 'issue-manager', own: 'allowed' },
  label_issue: { role: 'issue-manager', own: 'allowed' },
  close_issue: { role: 'issue-manager', own: 'allowed' },
  manage_labels: { role: 'issue-manager', own: 'allowed' },
  manage_milestones: { role: 'issue-manager', own: 'allowed' },
  create_branch: { role: 'author', own: 'allowed' },
  push_branch: { role: 'author', own: 'allowed' },
  commit_files: { role: 'author', own: 'allowed' },
  create_pr: { role: 'author', own: 'allowed' },
  edit_pr: { role: 'author', own: 'allowed' },
  update_pr_branch: { role: 'author', own: 'allowed' },
  reply_review_comment: { role: 'author', own: 'allowed' },
  close_pr: { role: 'author', own: 'allowed' },
  comment_pr: { role: 'reviewer', own: 'allowed' },
  review_pr: { role: 'reviewer', own: 'allowed' },
  approve_pr: { role: 'reviewer', own: 'allowed' },
  request_changes: { role: 'reviewer', own: 'allowed' },
  merge_pr: { role: 'merger', own: 'allowed' },
  reconcile_already_landed_pr: { role: 'reconciler', own: 'allowed', tool: 'gitea_reconcile_already_landed_pr' },
  cleanup_merged_pr_branch: { role: 'reconciler', own: 'allowed', tool: 'gitea_cleanup_merged_pr_branch' },
  delete_branch: { role: 'reconciler', own: 'guarded_tool_only', tool: 'gitea_cleanup_merged_pr_branch' },
  create_release: { role: 'owner', own: 'allowed' },
  publish_release: { role: 'owner', own: 'allowed' },
  create_tag: { role: 'owner', own: 'allowed' },
  manage_branch_protection: { role: 'owner', own: 'allowed' },
  edit_repository_settings: { role: 'owner', own: 'allowed' },
};

describe('resolveTaskCapability: every task in every reference namespace', () => {
  test('there is one reference profile per role', () => {
    assert.deepEqual([...allowedByRole.keys()].sort(), [
      'author',
      'issue-manager',
      'merger',
      'owner',
      'reconciler',
      'reviewer',
    ]);
  });

  test('the table covers exactly the tasks of policies/tasks.yaml', () => {
    assert.deepEqual(Object.keys(catalog.tasks).sort(), Object.keys(expected).sort());
  });

  for (const [task, want] of Object.entries(expected)) {
    for (const role of allowedByRole.keys()) {
      test(`${task} in gitea-${role}`, () => {
        const answer = resolveTaskCapability(catalog, task, session(role));
        const own = want.role === 'any' || want.role === role;
        const reason = want.own === 'guarded_tool_only' ? 'guarded_tool_only' : own ? want.own : 'role_mismatch';
        assert.equal(answer.reason, reason);
        assert.equal(answer.allowed_in_current_session, reason === 'allowed');
        assert.equal(answer.role, want.role);
        assert.equal(answer.use_namespace, own ? undefined : `gitea-${want.role}`);
        assert.equal(answer.tool, want.tool);
        assert.deepEqual(answer.permissions, catalog.tasks[task]?.permissions);
        if (reason !== 'allowed') assert.ok(answer.hint);
      });
    }
  }

  test('a task needing several permissions is refused when one is missing, naming it', () => {
    const partial: TaskSession = {
      role: 'reconciler',
      profileName: 'tight-reconciler',
      isAllowed: (op) => op === 'gitea.pr.close',
    };
    const answer = resolveTaskCapability(catalog, 'reconcile_already_landed_pr', partial);
    assert.equal(answer.allowed_in_current_session, false);
    assert.deepEqual(answer.missing_permissions, ['gitea.issue.comment']);
    assert.match(answer.hint ?? '', /tight-reconciler does not allow gitea\.issue\.comment/);
  });

  test('an unknown task fails closed and lists the known ones', () => {
    for (const task of ['force_push', '', 'toString', '__proto__']) {
      const answer = resolveTaskCapability(catalog, task, session('owner'));
      assert.equal(answer.reason, 'unknown_task');
      assert.equal(answer.allowed_in_current_session, false);
      assert.match(answer.hint ?? '', /Known tasks: .*cleanup_merged_pr_branch.*merge_pr/);
    }
  });

  test('a session without a role does only role-agnostic tasks', () => {
    const roleless: TaskSession = { role: null, profileName: 'custom', isAllowed: () => true };
    assert.equal(resolveTaskCapability(catalog, 'read_repository', roleless).allowed_in_current_session, true);
    assert.equal(resolveTaskCapability(catalog, 'merge_pr', roleless).use_namespace, 'gitea-merger');
  });
});

describe('tasks.yaml', () => {
  test('every permission is a canonical operation of policies/vocabulary.yaml', () => {
    const vocabulary = readDocument(join(policiesDir, 'vocabulary.yaml')).data as {
      operations: Record<string, unknown>;
    };
    for (const [task, definition] of Object.entries(catalog.tasks)) {
      for (const op of definition.permissions) assert.ok(Object.hasOwn(vocabulary.operations, op), `${task}: ${op}`);
    }
  });

  const bad: Array<[string, string, RegExp]> = [
    [
      'an unknown role',
      'tasks:\n  x: { role: admin, permissions: [gitea.read], meaning: m }\n',
      /\/tasks\/x\/role: must be one of/,
    ],
    [
      'a guarded-only task without its tool',
      'tasks:\n  x: { role: reconciler, permissions: [gitea.branch.delete], guarded_only: true, meaning: m }\n',
      /missing required field 'tool'/,
    ],
    ['no permissions', 'tasks:\n  x: { role: author, permissions: [], meaning: m }\n', /\/tasks\/x\/permissions/],
  ];
  for (const [name, text, message] of bad) {
    test(`the loader fails closed on ${name}`, (t) => {
      const dir = mkdtempSync(join(tmpdir(), 'warden-tasks-'));
      t.after(() => rmSync(dir, { recursive: true, force: true }));
      const file = join(dir, 'tasks.yaml');
      writeFileSync(file, text);
      assert.throws(() => loadTaskCatalog(file), message);
    });
  }
});
