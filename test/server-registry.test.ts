// The tool registry: filters (TOOLSETS, READ_ONLY, DISABLED_TOOLS) and profile visibility.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { validationErrors } from '../src/shared/document.js';
import { loadCatalog } from '../src/catalog/load.js';
import { loadPolicySet } from '../src/policy-files/policy-set.js';
import { loadProfile } from '../src/policy-files/profile-files.js';
import { builtinTools } from '../src/server/builtin/builtin-tools.js';
import { profileReference, registryFor } from '../src/server/namespace.js';
import { possiblePrimaries, ToolRegistryError } from '../src/server/tool-registry.js';

const policy = loadPolicySet();
const entries = loadCatalog().entries;
interface Filters {
  toolsets: string[] | null;
  readOnly: boolean;
  disabledTools: string[];
  listDeniedTools: boolean;
  toolMode: 'auto' | 'static' | 'discovery';
}
const defaults: Filters = {
  toolsets: null,
  readOnly: false,
  disabledTools: [],
  listDeniedTools: false,
  toolMode: 'static',
};

function names(profile: string, settings: Partial<Filters> = {}): string[] {
  const compiled = loadProfile(profileReference({ profile, config: null }), policy);
  return registryFor({ ...defaults, ...settings }, policy, compiled, entries, builtinTools())
    .definitions()
    .map((t) => t.name);
}

describe('profile visibility', () => {
  const table: Array<[string, string, boolean]> = [
    ['gitea-reviewer', 'gitea_pulls_create_review', true],
    ['gitea-reviewer', 'gitea_pulls_merge', false],
    ['gitea-merger', 'gitea_pulls_merge', true],
    ['gitea-merger', 'gitea_pulls_create_review', false],
    ['gitea-author', 'gitea_pulls_edit', true],
    // guarded_only (policies/guards.yaml): no profile lists the raw branch delete, the owner included.
    ['gitea-owner', 'gitea_branches_delete', false],
    ['gitea-reconciler', 'gitea_branches_delete', false],
    ['gitea-reconciler', 'gitea_cleanup_merged_pr_branch', true],
    ['gitea-reconciler', 'gitea_reconcile_already_landed_pr', true],
    ['gitea-owner', 'gitea_cleanup_merged_pr_branch', false],
    ['gitea-author', 'gitea_reconcile_already_landed_pr', false],
    ['gitea-author', 'gitea_resolve_task_capability', true],
    ['gitea-reviewer', 'gitea_branches_delete', false],
  ];
  for (const [profile, tool, listed] of table) {
    test(`${profile} ${listed ? 'lists' : 'does not list'} ${tool}`, () =>
      assert.equal(names(profile).includes(tool), listed));
  }

  test('a mapping lists under any of its possible primaries', () => {
    assert.deepEqual(possiblePrimaries(policy.operationMap, 'repoCreatePullReview').sort(), [
      'gitea.pr.approve',
      'gitea.pr.request_changes',
      'gitea.pr.review',
    ]);
    assert.deepEqual(possiblePrimaries(policy.operationMap, 'noSuchOperation'), []);
  });
});

describe('filters', () => {
  test('TOOLSETS=all serves every domain the profile can use; the profile toolsets are the default', () => {
    const all = names('gitea-author', { toolsets: ['all'] });
    assert.ok(all.length > names('gitea-author').length);
    assert.ok(all.includes('gitea_users_get_current'));
    assert.ok(!names('gitea-author').includes('gitea_users_get_current'));
  });

  test('READ_ONLY drops every writing tool, built-ins included', () => {
    const list = names('gitea-author', { readOnly: true });
    assert.ok(!list.includes('gitea_comments_create'));
    assert.ok(!list.includes('gitea_api_request'));
    assert.ok(list.includes('gitea_whoami'));
  });

  test('DISABLED_TOOLS removes tools; an unknown name or domain is an error', () => {
    assert.ok(!names('gitea-author', { disabledTools: ['gitea_api_request'] }).includes('gitea_api_request'));
    assert.throws(() => names('gitea-author', { disabledTools: ['gitea_nope'] }), ToolRegistryError);
    assert.throws(() => names('gitea-author', { toolsets: ['nope'] }), ToolRegistryError);
  });

  test('LIST_DENIED_TOOLS lists what the profile can never use', () => {
    assert.ok(names('gitea-author', { listDeniedTools: true }).includes('gitea_pulls_merge'));
  });
});

describe('built-in tool inputs', () => {
  // A guarded tool is no looser about names than the generated tools it stands beside.
  const byName = new Map(builtinTools().map((tool) => [tool.name, tool]));
  const good = { owner: 'acme', repo: 'widgets', pr_number: 2 };
  const cases: [string, Record<string, unknown>, boolean][] = [
    ['a valid pull request', good, true],
    ['owner ..', { ...good, owner: '..' }, false],
    ['owner with a slash', { ...good, owner: 'acme/x' }, false],
    ['repo with a space', { ...good, repo: 'wid gets' }, false],
    ['pull request 0', { ...good, pr_number: 0 }, false],
  ];
  for (const tool of ['gitea_reconcile_already_landed_pr', 'gitea_cleanup_merged_pr_branch']) {
    for (const [name, args, valid] of cases) {
      test(`${tool}: ${name} is ${valid ? 'accepted' : 'refused'}`, () => {
        const extra =
          tool === 'gitea_cleanup_merged_pr_branch'
            ? { branch: 'feature/x', confirmation: 'CLEANUP MERGED PR 2 BRANCH feature/x' }
            : {};
        const schema = byName.get(tool)?.inputSchema;
        assert.ok(schema);
        assert.equal(validationErrors(schema, { ...args, ...extra }).length === 0, valid);
      });
    }
  }
});
