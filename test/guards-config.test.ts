// policies/guards.yaml loads and validates; a bad or unreadable file fails closed with file:line and path.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadGuardsConfig } from '../src/policy-files/guards-settings.js';
import { DocumentError } from '../src/shared/document.js';
import { loadPolicySet } from '../src/policy-files/policy-set.js';

const { vocabulary } = loadPolicySet();

const GOOD = `merge: { require_head_sha: true, require_independent_approval: true }
cleanup: { protected_branches: [main], preserved_refs: ['evidence/**'] }
facts: { page_size: 50, max_pages: 20 }
profiles:
  gitea-merger: { merge: { require_independent_approval: false } }
guarded_only: { gitea.branch.delete: { tool: gitea_cleanup_merged_pr_branch } }
`;

describe('guards.yaml loader', () => {
  test('the shipped policies/guards.yaml protects main, master, dev and keeps evidence refs', () => {
    const config = loadGuardsConfig(vocabulary);
    assert.deepEqual(config.cleanup.protected_branches, ['main', 'master', 'dev']);
    assert.ok(config.cleanup.preserved_refs.includes('evidence/**'));
    assert.deepEqual(config.merge, { require_head_sha: true, require_independent_approval: true });
  });

  const bad: Array<[string, string, RegExp]> = [
    ['a setting turned into a string', GOOD.replace('require_head_sha: true', "require_head_sha: 'no'"), /:1: schema: \/merge\/require_head_sha: must be boolean/],
    ['an unknown field', `${GOOD}self_review: off\n`, /\/self_review: unknown field/],
    ['a missing section', GOOD.replace(/^cleanup:.*\n/m, ''), /missing required field 'cleanup'/],
    ['an unknown override', GOOD.replace('require_independent_approval: false', 'skip_self_merge: true'), /:5: schema: \/profiles\/gitea-merger\/merge\/skip_self_merge: unknown field/],
    ['a page bound of zero', GOOD.replace('max_pages: 20', 'max_pages: 0'), /\/facts\/max_pages/],
    ['YAML that does not parse', 'merge: [unclosed\n', /not valid YAML/],
  ];
  for (const [name, text, message] of bad) {
    test(`fails closed on ${name}`, (t) => {
      const dir = mkdtempSync(join(tmpdir(), 'warden-guards-'));
      t.after(() => rmSync(dir, { recursive: true, force: true }));
      const file = join(dir, 'guards.yaml');
      writeFileSync(file, text);
      assert.throws(() => loadGuardsConfig(vocabulary, file), (error: unknown) => error instanceof DocumentError && message.test(error.message));
    });
  }

  test('a bad value is named by its path, never echoed', (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'warden-guards-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'guards.yaml');
    writeFileSync(file, GOOD.replace('max_pages: 20', 'max_pages: s3cr3t-value'));
    assert.throws(() => loadGuardsConfig(vocabulary, file), (error: unknown) => error instanceof Error && !error.message.includes('s3cr3t'));
  });

  test('a guarded_only entry outside the vocabulary fails the load at its line: it would guard nothing', (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'warden-guards-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'guards.yaml');
    writeFileSync(file, GOOD.replace('gitea.branch.delete:', 'gitea.branch.delet:'));
    assert.throws(() => loadGuardsConfig(vocabulary, file), (error: unknown) => error instanceof DocumentError && /guards\.yaml:6: unknown_operation: guarded_only names gitea\.branch\.delet\b/.test(error.message));
  });

  test('an unreadable file fails closed', () => {
    assert.throws(() => loadGuardsConfig(vocabulary, join(tmpdir(), 'warden-no-such-dir', 'guards.yaml')), /cannot read file \(ENOENT\)/);
  });
});
