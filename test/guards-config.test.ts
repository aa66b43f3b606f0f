// policies/guards.yaml loads and validates with the policy set (read once, beside the files it
// belongs with); a bad or unreadable file fails closed with file:line and path.
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DocumentError } from '../src/shared/document.js';
import { cleanupPatterns, loadPolicySet } from '../src/policy-files/policy-set.js';
import { policiesDir } from '../src/shared/paths.js';

const GOOD = `merge: { require_head_sha: true, require_independent_approval: true }
cleanup: { preserved_refs: ['evidence/**'] }
facts: { page_size: 50, max_pages: 20 }
profiles:
  gitea-merger: { merge: { require_independent_approval: false } }
guarded_only: { gitea.branch.delete: { tool: gitea_cleanup_merged_pr_branch } }
call_guards: { self_review: [gitea.pr.approve, gitea.pr.request_changes], merge: [gitea.pr.merge, gitea.pr.force_merge] }
verdict_head: { repoCreatePullReview: commit_id }
sudo: { mutations_allowed: [] }
`;

/** A copy of policies/ whose guards.yaml holds `text` (or is missing); returns the guards file. */
function policiesWithGuards(t: TestContext, text: string | null): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'warden-guards-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(policiesDir, dir, { recursive: true });
  const file = join(dir, 'guards.yaml');
  if (text === null) rmSync(file);
  else writeFileSync(file, text);
  return { dir, file };
}

describe('guards.yaml loader', () => {
  test('the shipped policies protect main, master, dev (targets.yaml) and keep evidence refs (guards.yaml)', () => {
    const policy = loadPolicySet();
    const config = policy.guards;
    assert.deepEqual(cleanupPatterns(policy).protected_branches, ['main', 'master', 'dev']);
    assert.equal(policy.scopePolicy.protectedBranches.field, 'protected_branches');
    assert.match(policy.scopePolicy.targetsFile, /targets\.yaml$/);
    assert.ok(config.cleanup.preserved_refs.includes('evidence/**'));
    assert.deepEqual(config.merge, { require_head_sha: true, require_independent_approval: true });
    assert.deepEqual(config.call_guards, {
      self_review: ['gitea.pr.approve', 'gitea.pr.request_changes'],
      merge: ['gitea.pr.merge', 'gitea.pr.force_merge', 'gitea.pr.mark_manually_merged'],
    });
  });

  test('a good guards.yaml loads with the policy set; its call_guards keep their lines', (t) => {
    const { dir } = policiesWithGuards(t, GOOD);
    const policy = loadPolicySet(dir);
    assert.deepEqual(policy.guards.cleanup.preserved_refs, ['evidence/**']);
    assert.deepEqual(
      policy.callGuards.entries.map((e) => `${e.guard} ${e.operation} ${e.line}`),
      [
        'self_review gitea.pr.approve 7',
        'self_review gitea.pr.request_changes 7',
        'merge gitea.pr.merge 7',
        'merge gitea.pr.force_merge 7',
      ],
    );
  });

  const bad: Array<[string, string, RegExp]> = [
    [
      'a setting turned into a string',
      GOOD.replace('require_head_sha: true', "require_head_sha: 'no'"),
      /:1: schema: \/merge\/require_head_sha: must be true or false/,
    ],
    ['an unknown field', `${GOOD}self_review: off\n`, /\/self_review: unknown field/],
    ['a missing section', GOOD.replace(/^cleanup:.*\n/m, ''), /missing required field 'cleanup'/],
    [
      'a call guard with no operations',
      GOOD.replace('merge: [gitea.pr.merge, gitea.pr.force_merge]', 'merge: []'),
      /\/call_guards\/merge/,
    ],
    [
      'protected branches left in guards.yaml',
      GOOD.replace('cleanup: { preserved_refs', 'cleanup: { protected_branches: [main], preserved_refs'),
      /\/cleanup\/protected_branches: unknown field/,
    ],
    [
      'an unknown override',
      GOOD.replace('require_independent_approval: false', 'skip_self_merge: true'),
      /:5: schema: \/profiles\/gitea-merger\/merge\/skip_self_merge: unknown field/,
    ],
    ['a page bound of zero', GOOD.replace('max_pages: 20', 'max_pages: 0'), /\/facts\/max_pages/],
    ['YAML that does not parse', 'merge: [unclosed\n', /not valid YAML/],
  ];
  for (const [name, text, message] of bad) {
    test(`fails closed on ${name}`, (t) => {
      const { dir } = policiesWithGuards(t, text);
      assert.throws(
        () => loadPolicySet(dir),
        (error: unknown) =>
          error instanceof DocumentError && /guards\.yaml/.test(error.message) && message.test(error.message),
      );
    });
  }

  test('a bad value is named by its path, never echoed', (t) => {
    const { dir } = policiesWithGuards(t, GOOD.replace('max_pages: 20', 'max_pages: s3cr3t-value'));
    assert.throws(
      () => loadPolicySet(dir),
      (error: unknown) =>
        error instanceof Error && /\/facts\/max_pages/.test(error.message) && !error.message.includes('s3cr3t'),
    );
  });

  test('a guarded_only entry outside the vocabulary fails the load at its line: it would guard nothing', (t) => {
    const { dir } = policiesWithGuards(t, GOOD.replace('gitea.branch.delete:', 'gitea.branch.delet:'));
    assert.throws(
      () => loadPolicySet(dir),
      (error: unknown) =>
        error instanceof DocumentError &&
        /guards\.yaml:6: unknown_operation: guarded_only names gitea\.branch\.delet\b/.test(error.message),
    );
  });

  test('a call_guards operation outside the vocabulary fails the load at its line: the guard would never judge it', (t) => {
    const { dir } = policiesWithGuards(t, GOOD.replace('merge: [gitea.pr.merge,', 'merge: [gitea.pr.merg,'));
    assert.throws(
      () => loadPolicySet(dir),
      (error: unknown) =>
        error instanceof DocumentError &&
        /guards\.yaml:7: unknown_operation: call_guards\.merge names gitea\.pr\.merg\b/.test(error.message),
    );
  });

  test('an unreadable file fails closed', (t) => {
    const { dir } = policiesWithGuards(t, null);
    assert.throws(() => loadPolicySet(dir), /guards\.yaml: unreadable: cannot read file \(ENOENT\)/);
  });
});
