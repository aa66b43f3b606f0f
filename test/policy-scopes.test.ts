import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { buildRouteTable, matchRoute } from '../src/catalog/routes.js';
import { loadCatalog } from '../src/catalog/load.js';
import { loadProfile } from '../src/policy-files/profile-files.js';
import { decide, decideCall, type DecideContext } from '../src/policy/decide.js';
import { policyChecks } from '../src/policy/checks.js';
import { scopeFindings } from '../src/policy/scope-findings.js';
import { describeScopes, filterToReadScope } from '../src/policy/scope-views.js';
import { diffProfiles } from '../src/policy/diff.js';
import type { ProfileData } from '../src/policy/profile.js';
import { JSONPath } from 'jsonpath-plus';
import { readPath } from '../src/policy/targets.js';
import { inline, policy } from './policy-helpers.js';
import { prng } from './support/prng.js';
import { loadSpec } from './support/spec-contract.js';

const context: DecideContext = { vocabulary: policy.vocabulary, checks: policyChecks(policy) };
const widgets = loadProfile('profiles/examples/gitea-author-widgets.yaml', policy);
const author = loadProfile('profiles/gitea-author.yaml', policy);
const owner = inline({ allowed_operations: ['gitea.*'] });
const scopedOwner = inline({ allowed_operations: ['gitea.*'], repositories: ['acme/widgets'] });
const call = (profile = widgets, operationId: string, args: unknown) =>
  decideCall(profile, { operationId, arguments: args }, policy.operationMap, context);
const codes = (decision: { failed: { code: string }[] }) => decision.failed.map((f) => f.code);
const file = (path: string, extra: Record<string, unknown> = {}) => ({
  owner: 'acme',
  repo: 'widgets',
  filepath: path,
  body: { content: 'eA==', branch: 'feature/x', ...extra },
});

describe('scopes: every route to a file', () => {
  const cases: [string, ReturnType<typeof inline>, string, unknown, 'allow' | 'deny', string[]][] = [
    ['in-scope commit on a feature branch', widgets, 'repoCreateFile', file('src/a.js'), 'allow', []],
    [
      'other repository (generated tool)',
      widgets,
      'repoCreateFile',
      { ...file('src/a.js'), repo: 'gadgets' },
      'deny',
      ['repository_out_of_scope'],
    ],
    [
      'other repository, read',
      widgets,
      'repoGetContents',
      { owner: 'acme', repo: 'gadgets', filepath: 'README.md' },
      'deny',
      ['repository_out_of_scope'],
    ],
    [
      'repository case variant is the same repository',
      widgets,
      'repoGetContents',
      { owner: 'ACME', repo: 'Widgets', filepath: 'README.md' },
      'allow',
      [],
    ],
    [
      'marking every notification read cannot be scoped',
      scopedOwner,
      'notifyReadList',
      {},
      'deny',
      ['target_unreadable'],
    ],
    [
      'an organization webhook sees every repository of the organization',
      owner,
      'orgCreateHook',
      { org: 'acme', body: {} },
      'allow',
      [],
    ],
    [
      'the same webhook for a repository-scoped profile',
      scopedOwner,
      'orgCreateHook',
      { org: 'acme', body: {} },
      'deny',
      ['target_unreadable'],
    ],
    [
      'markdown rendered in another repository',
      widgets,
      'renderMarkdown',
      { body: { Text: '#1', Context: '/acme/gadgets/src/branch/main' } },
      'deny',
      ['repository_out_of_scope'],
    ],
    [
      'markdown rendered in its own repository',
      widgets,
      'renderMarkdown',
      { body: { Text: '#1', Context: '/acme/widgets' } },
      'allow',
      [],
    ],
    ['markdown without a context', widgets, 'renderMarkdown', { body: { Text: '#1' } }, 'allow', []],
    [
      'markdown with a context naming no repository',
      widgets,
      'renderMarkdown',
      { body: { Text: '#1', Context: 'acme' } },
      'deny',
      ['target_unreadable'],
    ],
    [
      'a dependency on an issue of another repository',
      scopedOwner,
      'issueCreateIssueDependencies',
      { owner: 'acme', repo: 'widgets', index: 1, body: { owner: 'acme', repo: 'gadgets', index: 2 } },
      'deny',
      ['repository_out_of_scope'],
    ],
    [
      'a workflow from another repository, by id',
      widgets,
      'ActionsListWorkflowRuns',
      { owner: 'acme', repo: 'widgets', workflow_id: 'ci.yml', scoped_workflow_source_repo_id: 9 },
      'deny',
      ['target_unreadable'],
    ],
    [
      'a workflow of the repository itself',
      widgets,
      'ActionsListWorkflowRuns',
      { owner: 'acme', repo: 'widgets', workflow_id: 'ci.yml', scoped_workflow_source_repo_id: 0 },
      'allow',
      [],
    ],
    [
      'a transfer to another owner',
      scopedOwner,
      'repoTransfer',
      { owner: 'acme', repo: 'widgets', body: { new_owner: 'mallory' } },
      'deny',
      ['repository_out_of_scope'],
    ],
    [
      'notifications of one repository in scope',
      widgets,
      'notifyGetRepoList',
      { owner: 'acme', repo: 'widgets' },
      'allow',
      [],
    ],
    [
      'workflow file by the author',
      author,
      'repoCreateFile',
      file('.gitea/workflows/ci.yml'),
      'deny',
      ['path_not_allowed'],
    ],
    [
      'github workflow file by a profile without paths (protected for all)',
      owner,
      'repoCreateFile',
      file('.github/workflows/ci.yml'),
      'deny',
      ['path_not_allowed'],
    ],
    [
      'CODEOWNERS update',
      owner,
      'repoUpdateFile',
      { ...file('CODEOWNERS'), body: { content: 'eA==', sha: 'abc', branch: 'feature/x' } },
      'deny',
      ['path_not_allowed'],
    ],
    [
      'moving a workflow away (from_path)',
      author,
      'repoUpdateFile',
      {
        ...file('old.yml'),
        body: { content: 'eA==', sha: 'a', branch: 'feature/x', from_path: '.gitea/workflows/ci.yml' },
      },
      'deny',
      ['path_not_allowed'],
    ],
    [
      'multi-file change with one workflow file',
      author,
      'repoChangeFiles',
      {
        owner: 'acme',
        repo: 'widgets',
        body: {
          branch: 'feature/x',
          files: [
            { operation: 'create', path: 'src/a.js' },
            { operation: 'create', path: '.forgejo/workflows/x.yml' },
          ],
        },
      },
      'deny',
      ['path_not_allowed'],
    ],
    [
      'multi-file change, all ordinary',
      author,
      'repoChangeFiles',
      {
        owner: 'acme',
        repo: 'widgets',
        body: {
          branch: 'feature/x',
          files: [
            { operation: 'create', path: 'src/a.js' },
            { operation: 'update', path: 'docs/b.md' },
          ],
        },
      },
      'allow',
      [],
    ],
    ['path with ..', author, 'repoCreateFile', file('src/../.gitea/workflows/ci.yml'), 'deny', ['bad_target']],
    ['path with a leading /', author, 'repoCreateFile', file('/etc/passwd'), 'deny', ['bad_target']],
    [
      'diff patch: files not readable from arguments',
      author,
      'repoApplyDiffPatch',
      { owner: 'acme', repo: 'widgets', body: { branch: 'feature/x', content: 'diff' } },
      'deny',
      ['target_unreadable'],
    ],
    [
      'reading a workflow is fine',
      author,
      'repoGetContents',
      { owner: 'acme', repo: 'widgets', filepath: '.gitea/workflows/ci.yml' },
      'allow',
      [],
    ],
  ];
  for (const [name, profile, operationId, args, expected, failed] of cases) {
    test(name, () => {
      const decision = call(profile, operationId, args);
      assert.equal(decision.effect, expected, JSON.stringify(decision.failed));
      assert.deepEqual([...new Set(codes(decision))], failed);
    });
  }

  test('the raw tool resolves to the same operationId and arguments, and is denied the same way', () => {
    const match = matchRoute(
      buildRouteTable(loadCatalog().entries),
      'POST',
      '/repos/acme/gadgets/contents/.gitea/workflows/ci.yml',
    );
    assert.ok(match.ok);
    const decision = call(widgets, match.entry.operationId, {
      ...match.pathParams,
      body: { content: 'eA==', branch: 'feature/x' },
    });
    assert.equal(decision.effect, 'deny');
    assert.deepEqual(codes(decision), ['repository_out_of_scope', 'path_not_allowed']);
  });

  test('an allow pattern inside the protected area names it; ** does not', () => {
    const named = inline({
      allowed_operations: ['gitea.*'],
      paths: { write: { allow: ['.gitea/workflows/ci.yml', 'src/**'] } },
    });
    assert.equal(call(named, 'repoCreateFile', file('.gitea/workflows/ci.yml')).effect, 'allow');
    const broad = inline({ allowed_operations: ['gitea.*'], paths: { write: { allow: ['**'] } } });
    assert.deepEqual(codes(call(broad, 'repoCreateFile', file('.gitea/workflows/ci.yml'))), ['path_not_allowed']);
  });
});

describe('scopes: branches', () => {
  const cases: [string, ProfileData, string, unknown, 'allow' | 'deny', string[]][] = [
    [
      'push to protected main, whatever the profile',
      { allowed_operations: ['gitea.*'] },
      'repoUpdateBranch',
      { owner: 'acme', repo: 'widgets', branch: 'main', body: { new_commit_id: 'abc' } },
      'deny',
      ['protected_branch'],
    ],
    [
      'delete protected dev',
      { allowed_operations: ['gitea.*'] },
      'repoDeleteBranch',
      { owner: 'acme', repo: 'widgets', branch: 'dev' },
      'deny',
      ['protected_branch'],
    ],
    [
      'commit to main through the contents API',
      { allowed_operations: ['gitea.*'] },
      'repoCreateFile',
      { ...file('a.txt'), body: { content: 'eA==', branch: 'main' } },
      'deny',
      ['protected_branch'],
    ],
    [
      'commit without naming the branch',
      { allowed_operations: ['gitea.*'] },
      'repoCreateFile',
      { owner: 'acme', repo: 'widgets', filepath: 'a.txt', body: { content: 'eA==' } },
      'deny',
      ['target_unreadable'],
    ],
    [
      'new_branch is the branch written',
      { allowed_operations: ['gitea.*'] },
      'repoCreateFile',
      { ...file('a.txt'), body: { content: 'eA==', branch: 'main', new_branch: 'feature/y' } },
      'allow',
      [],
    ],
    [
      'push inside the branch scope',
      { allowed_operations: ['gitea.*'], branches: { 'gitea.branch.push': ['feature/*'] } },
      'repoUpdateBranch',
      { owner: 'acme', repo: 'widgets', branch: 'feature/a', body: { new_commit_id: 'abc' } },
      'allow',
      [],
    ],
    [
      'push outside the branch scope',
      { allowed_operations: ['gitea.*'], branches: { 'gitea.branch.push': ['feature/*'] } },
      'repoUpdateBranch',
      { owner: 'acme', repo: 'widgets', branch: 'release/1', body: { new_commit_id: 'abc' } },
      'deny',
      ['branch_out_of_scope'],
    ],
    [
      'malformed branch pattern denies',
      { allowed_operations: ['gitea.*'], branches: { 'gitea.branch.push': ['feature/[x'] } },
      'repoUpdateBranch',
      { owner: 'acme', repo: 'widgets', branch: 'feature/a', body: { new_commit_id: 'abc' } },
      'deny',
      ['malformed_pattern'],
    ],
    [
      'unknown branches key denies branch calls',
      { allowed_operations: ['gitea.*'], branches: { 'gitea.branch.psuh': ['feature/*'] } },
      'repoCreateBranch',
      { owner: 'acme', repo: 'widgets', body: { new_branch_name: 'feature/a' } },
      'deny',
      ['malformed_pattern'],
    ],
    [
      'unknown branches key denies a branch call that does not name its branch',
      { allowed_operations: ['gitea.*'], branches: { 'gitea.pr.creat': ['feature/*'] } },
      'repoCreatePullRequest',
      { owner: 'acme', repo: 'widgets', body: { head: 'feature/a', title: 't' } },
      'deny',
      ['malformed_pattern'],
    ],
    [
      'merge with a branch scope: base not in arguments',
      { allowed_operations: ['gitea.*'], branches: { 'gitea.pr.merge': ['main'] } },
      'repoMergePullRequest',
      { owner: 'acme', repo: 'widgets', index: 1, body: { Do: 'merge' } },
      'deny',
      ['target_unreadable'],
    ],
  ];
  for (const [name, data, operationId, args, expected, failed] of cases) {
    test(name, () => {
      const decision = call(inline(data), operationId, args);
      assert.equal(decision.effect, expected, JSON.stringify(decision.failed));
      assert.deepEqual([...new Set(codes(decision))], failed);
    });
  }

  test('a branch supplied from live facts satisfies the scope', () => {
    const merger = inline({ allowed_operations: ['gitea.*'], branches: { 'gitea.pr.merge': ['main'] } });
    const decision = decideCall(
      merger,
      {
        operationId: 'repoMergePullRequest',
        arguments: { owner: 'acme', repo: 'widgets', index: 1, body: { Do: 'merge' } },
        targets: { branches: ['main'] },
      },
      policy.operationMap,
      context,
    );
    assert.equal(decision.effect, 'allow');
  });
});

describe('scopes: repositories', () => {
  test('read and write lists apply by the risk of the operation', () => {
    const split = inline({
      allowed_operations: ['gitea.*'],
      repositories: { read: ['acme/*'], write: ['acme/widgets'] },
    });
    assert.equal(
      call(split, 'repoGetContents', { owner: 'acme', repo: 'gadgets', filepath: 'README.md' }).effect,
      'allow',
    );
    assert.deepEqual(codes(call(split, 'repoCreateFile', { ...file('a.txt'), repo: 'gadgets' })), [
      'repository_out_of_scope',
    ]);
  });

  test('operations without a repository are decided by the lists alone', () => {
    assert.equal(call(widgets, 'userGetCurrent', {}).effect, 'allow');
  });

  test('a malformed repository pattern denies', () => {
    const broken = inline({ allowed_operations: ['gitea.*'], repositories: ['acme/../x'] });
    assert.deepEqual(codes(call(broken, 'repoGetContents', { owner: 'acme', repo: 'widgets', filepath: 'a' })), [
      'malformed_pattern',
    ]);
  });

  test('results spanning repositories are filtered to the read scope, nested items included, unknown shapes withheld', () => {
    const filter = (data: unknown, profile = widgets) => filterToReadScope(profile, 'someListing', data);
    const repos = [{ full_name: 'acme/widgets' }, { full_name: 'acme/gadgets' }, { name: 'no-full-name' }];
    assert.deepEqual(filter(repos), { ok: true, data: [{ full_name: 'acme/widgets' }], removed: 2 });
    assert.deepEqual(filter({ ok: true, data: repos }), {
      ok: true,
      data: { ok: true, data: [{ full_name: 'acme/widgets' }] },
      removed: 2,
    });
    const issue = (repo: string) => ({
      id: 1,
      repository: { full_name: repo, owner: repo.split('/')[0], name: repo.split('/')[1] },
    });
    const items: Array<[string, unknown, boolean]> = [
      ['an issue in scope', issue('acme/widgets'), true],
      ['an issue of another repository', issue('acme/gadgets'), false],
      ['a tracked time on an issue of another repository', { id: 1, issue: issue('acme/gadgets') }, false],
      ['a tracked time on an issue in scope', { id: 1, issue: issue('acme/widgets') }, true],
      ['a stopwatch of another repository', { repo_owner_name: 'acme', repo_name: 'gadgets' }, false],
      ['a stopwatch in scope', { repo_owner_name: 'acme', repo_name: 'widgets' }, true],
      [
        'a notification whose subject lies elsewhere',
        { repository: { full_name: 'acme/widgets' }, subject: { url: 'http://h/api/v1/repos/acme/gadgets/issues/1' } },
        false,
      ],
      [
        'a notification in scope',
        { repository: { full_name: 'acme/widgets' }, subject: { url: 'http://h/api/v1/repos/acme/widgets/issues/1' } },
        true,
      ],
      ['a package linked to another repository', { id: 1, repository: { full_name: 'acme/gadgets' } }, false],
      ['a package linked to none', { id: 1, repository: null }, false],
      [
        'a workflow run of another repository',
        { id: 1, repository: { full_name: 'acme/gadgets' }, url: 'http://h/api/v1/repos/acme/gadgets/actions/runs/1' },
        false,
      ],
      [
        'a workflow run in scope from a fork elsewhere',
        { repository: { full_name: 'acme/widgets' }, head_repository: { full_name: 'mallory/widgets' } },
        false,
      ],
      [
        'a workflow job known only by its URL',
        {
          id: 1,
          url: 'http://h/api/v1/repos/acme/widgets/actions/jobs/1',
          run_url: 'http://h/api/v1/repos/acme/widgets/actions/runs/1',
        },
        true,
      ],
      [
        'a workflow job of another repository',
        { id: 1, url: 'http://h/api/v1/repos/acme/gadgets/actions/jobs/1' },
        false,
      ],
      ['an activity on another repository', { id: 1, repo: { full_name: 'acme/gadgets' } }, false],
      ['an item naming no repository', { id: 1 }, false],
      ['a repository object that cannot be read', { repository: { id: 3 } }, false],
    ];
    for (const [what, item, kept] of items) {
      assert.deepEqual(filter([item]), { ok: true, data: kept ? [item] : [], removed: kept ? 0 : 1 }, what);
    }
    const runs = { total_count: 2, workflow_runs: [issue('acme/widgets'), issue('acme/gadgets')] };
    assert.deepEqual(filter(runs), {
      ok: true,
      data: { total_count: 2, workflow_runs: [issue('acme/widgets')] },
      removed: 1,
    });
    assert.deepEqual(filter({ jobs: [{ url: 'http://h/api/v1/repos/acme/gadgets/actions/jobs/1' }] }), {
      ok: true,
      data: { jobs: [] },
      removed: 1,
    });
    assert.deepEqual(filter(issue('acme/widgets')), { ok: true, data: issue('acme/widgets'), removed: 0 });
    assert.equal((filter(issue('acme/gadgets')) as { code?: string }).code, 'repository_out_of_scope');
    assert.equal((filter('<p>html</p>') as { code?: string }).code, 'unfilterable_result');
    assert.deepEqual(filter(repos, author), { ok: true, data: repos, removed: 0 });
  });

  test('every operation of the pinned spec that answers with a list of repositories is filtered', () => {
    // A listing left out (listForks was) hands a repository-scoped profile every fork of its repository.
    const spec = loadSpec();
    const listsRepositories = (
      response: { $ref?: string; schema?: { type?: string; items?: { $ref?: string } } } | undefined,
    ): boolean => {
      const resolved = response?.$ref ? spec.responses[response.$ref.replace('#/responses/', '')] : response;
      const schema = resolved?.schema as { type?: string; items?: { $ref?: string } } | undefined;
      return schema?.type === 'array' && schema.items?.$ref === '#/definitions/Repository';
    };
    const listings = Object.values(spec.paths)
      .flatMap((methods) => Object.values(methods))
      .filter((operation) => operation.operationId && listsRepositories(operation.responses?.['200']))
      .map((operation) => operation.operationId as string);
    assert.ok(listings.length > 5);
    assert.deepEqual(
      listings.filter((id) => !policy.scopeFiltered.has(id)),
      [],
    );
  });

  test('describeScopes shows what whoami reports', () => {
    const description = describeScopes(widgets);
    assert.deepEqual(description.repositories, { read: ['acme/widgets'], write: ['acme/widgets'] });
    assert.deepEqual(description.branches['gitea.branch.push'], ['feature/*', 'fix/*']);
    assert.equal(describeScopes(author).repositories.read, 'any');
  });
});

describe('scope lint and diff', () => {
  test('check: malformed, empty, always-true and shadowed patterns', () => {
    const profile = inline({
      allowed_operations: ['gitea.read'],
      repositories: { read: ['*/*', 'acme/widgets'], write: [] },
      branches: { 'gitea.branch.push': ['feature/*', 'feature/a', 'x[y'] },
    });
    const found = scopeFindings(profile)
      .map((f) => `${f.severity}:${f.code}`)
      .sort();
    assert.deepEqual(found, [
      'error:malformed_pattern',
      'warning:always_true_pattern',
      'warning:empty_scope',
      'warning:shadowed_pattern',
      'warning:shadowed_pattern',
    ]);
  });

  test('diff: new repository pattern, removed path deny and widened branch list are gains', () => {
    const before = inline({
      allowed_operations: ['gitea.read'],
      repositories: ['acme/widgets'],
      branches: { 'gitea.branch.push': ['feature/*'] },
      paths: { write: { deny: ['CODEOWNERS'] } },
    });
    const after = inline({
      allowed_operations: ['gitea.read'],
      repositories: ['acme/widgets', 'acme/gadgets'],
      branches: { 'gitea.branch.push': ['feature/*', 'main'] },
    });
    const context = { vocabulary: policy.vocabulary, toolsetOperations: new Map() };
    const side = (profile: typeof before) => ({ profile, config: null });
    const gained = (a: typeof before, b: typeof before) =>
      diffProfiles(side(a), side(b), context)
        .gained.map((change) => `${change.field} ${change.change}`)
        .sort();
    assert.deepEqual(gained(before, after), [
      'branches.gitea.branch.push + main',
      'paths.write.deny - CODEOWNERS (no longer denied)',
      'repositories.read + acme/gadgets',
      'repositories.write + acme/gadgets',
    ]);
    assert.deepEqual(gained(after, before), []);
  });
});

describe('scopes: targets a caller states without a call', () => {
  const stated = (targets: Record<string, unknown>) =>
    decide(widgets, { operations: ['gitea.read'], targets }, context);
  const cases: [string, Record<string, unknown>, 'allow' | 'deny', string[]][] = [
    ['a repository in scope', { repositories: ['acme/widgets'] }, 'allow', []],
    ['a repository out of scope', { repositories: ['acme/gadgets'] }, 'deny', ['repository_out_of_scope']],
    // A malformed field is unreadable, never "no targets": a scoped profile must deny it.
    ['repositories as a bare string', { repositories: 'acme/gadgets' }, 'deny', ['target_unreadable']],
    ['repositories holding a non-string', { repositories: [null] }, 'deny', ['target_unreadable']],
    ['repositories as an object', { repositories: { name: 'acme/widgets' } }, 'deny', ['target_unreadable']],
  ];
  for (const [name, targets, expected, failed] of cases) {
    test(name, () => {
      const decision = stated(targets);
      assert.equal(decision.effect, expected);
      assert.deepEqual(codes(decision), failed);
    });
  }
});

describe('scopes: reading a target from the arguments', () => {
  // Paths of property names are read directly, the rest through JSONPath: both must find the same.
  const keys = ['owner', 'repo', 'body', 'name', 'files', 'length', 'constructor', '__proto__', '0'];
  function randomArgs(random: () => number, depth: number): unknown {
    const roll = random();
    if (depth > 2 || roll < 0.3) return [null, 'acme', '', 0, 7, true, 'x'.repeat(3)][Math.floor(random() * 7)];
    if (roll < 0.45) return Array.from({ length: Math.floor(random() * 3) }, () => randomArgs(random, depth + 1));
    const entries = Array.from({ length: Math.floor(random() * 4) }, () => [
      keys[Math.floor(random() * keys.length)],
      randomArgs(random, depth + 1),
    ]);
    // Through JSON, as arguments arrive: a `__proto__` key is then a plain own key.
    return JSON.parse(JSON.stringify(Object.fromEntries(entries))) as unknown;
  }

  test('a path of property names finds what JSONPath finds (property, 3000 cases)', () => {
    const random = prng(7243);
    let found = 0;
    for (let i = 0; i < 3000; i++) {
      const args = { owner: 'acme', ...(randomArgs(random, 0) as object) };
      const path = `$${Array.from({ length: 1 + Math.floor(random() * 3) }, () => `.${keys[Math.floor(random() * keys.length)]}`).join('')}`;
      const expected = JSONPath({ path, json: args, eval: false, wrap: true }) as unknown[];
      assert.deepEqual(readPath(args, path), expected, `${path} in ${JSON.stringify(args)}`);
      if (expected.length > 0) found++;
    }
    assert.ok(found > 150, `only ${found} paths found something`);
  });
});
