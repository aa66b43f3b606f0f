import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { loadCatalog } from '../src/catalog/load.js';
import { buildRouteTable, matchRoute } from '../src/catalog/routes.js';
import type { CatalogEntry } from '../src/catalog/types.js';

const table = buildRouteTable(loadCatalog().entries);

describe('route table', () => {
  const matches: Array<[string, string, string, Record<string, string | number>]> = [
    ['POST', '/repos/acme/widgets/pulls/3/merge', 'repoMergePullRequest', { owner: 'acme', repo: 'widgets', index: 3 }],
    [
      'POST',
      '/api/v1/repos/acme/widgets/pulls/3/merge',
      'repoMergePullRequest',
      { owner: 'acme', repo: 'widgets', index: 3 },
    ],
    [
      'GET',
      '/repos/acme/widgets/branches/feature/x',
      'repoGetBranch',
      { owner: 'acme', repo: 'widgets', branch: 'feature/x' },
    ],
    ['GET', '/repos/acme/widgets/pulls/pinned', 'repoListPinnedPullRequests', { owner: 'acme', repo: 'widgets' }],
    ['GET', '/repos/acme/widgets/pulls/7', 'repoGetPullRequest', { owner: 'acme', repo: 'widgets', index: 7 }],
    [
      'GET',
      '/repos/acme/widgets/pulls/7.diff',
      'repoDownloadPullDiffOrPatch',
      { owner: 'acme', repo: 'widgets', index: 7, diffType: 'diff' },
    ],
    [
      'GET',
      '/repos/acme/widgets/pulls/main/feature/x',
      'repoGetPullRequestByBaseHead',
      { owner: 'acme', repo: 'widgets', base: 'main', head: 'feature/x' },
    ],
    [
      'GET',
      '/repos/acme/widgets/pulls/main/commits',
      'repoGetPullRequestByBaseHead',
      { owner: 'acme', repo: 'widgets', base: 'main', head: 'commits' },
    ],
    [
      'GET',
      '/repos/acme/widgets/pulls/7/commits',
      'repoGetPullRequestCommits',
      { owner: 'acme', repo: 'widgets', index: 7 },
    ],
    [
      'GET',
      '/repos/acme/widgets/commits/release/1.0/status',
      'repoGetCombinedStatusByRef',
      { owner: 'acme', repo: 'widgets', ref: 'release/1.0' },
    ],
    [
      'GET',
      '/repos/acme/widgets/commits/abc123/pull',
      'repoGetCommitPullRequest',
      { owner: 'acme', repo: 'widgets', sha: 'abc123' },
    ],
    [
      'GET',
      '/repos/acme/widgets/contents/docs/a/b.md',
      'repoGetContents',
      { owner: 'acme', repo: 'widgets', filepath: 'docs/a/b.md' },
    ],
    [
      'GET',
      '/repos/acme/widgets/releases/tags/v1.0',
      'repoGetReleaseByTag',
      { owner: 'acme', repo: 'widgets', tag: 'v1.0' },
    ],
    [
      'GET',
      '/repos/acme/widgets/git/commits/abc.patch',
      'repoDownloadCommitDiffOrPatch',
      { owner: 'acme', repo: 'widgets', sha: 'abc', diffType: 'patch' },
    ],
    [
      'GET',
      '/repos/acme/widgets/git/commits/abc.txt',
      'repoGetSingleCommit',
      { owner: 'acme', repo: 'widgets', sha: 'abc.txt' },
    ],
    ['GET', '/repos/acme/widgets/hooks/git', 'repoListGitHooks', { owner: 'acme', repo: 'widgets' }],
    ['GET', '/repos/acme/widgets/hooks/5', 'repoGetHook', { owner: 'acme', repo: 'widgets', id: 5 }],
    ['GET', '/repos/search', 'repoSearch', {}],
    ['GET', '/repos/issues/search', 'issueSearchIssues', {}],
    ['GET', '/repos/acme/widgets', 'repoGet', { owner: 'acme', repo: 'widgets' }],
  ];

  for (const [method, path, operationId, pathParams] of matches) {
    test(`${method} ${path} -> ${operationId}`, () => {
      const found = matchRoute(table, method, path);
      assert.ok(found.ok, JSON.stringify(found));
      assert.equal(found.entry.operationId, operationId);
      assert.deepEqual(found.pathParams, pathParams);
    });
  }

  const failures: Array<[string, string, string]> = [
    ['DELETE', '/repos/acme/widgets/compare/main...feature/x', 'method_not_allowed'],
    ['PUT', '/repos/acme/widgets/pulls/3/merge', 'method_not_allowed'],
    ['GET', '/repos/acme/widgets/issues/three', 'no_route'],
    ['GET', '/nothing/here', 'no_route'],
    ['GET', '/repos/acme/widgets/contents/../secrets', 'bad_path'],
    ['GET', '/repos/acme/widgets/contents/a%2Fb', 'bad_path'],
    ['GET', '/repos/acme//widgets', 'bad_path'],
    ['GET', '/repos/acme/widgets/\u0000', 'bad_path'],
    ['GET', '/repos/acme/widgets/', 'bad_path'],
    ['GET', 'repos/acme/widgets', 'bad_path'],
    ['GET', '/repos/acme/widgets/issues?state=open', 'bad_path'],
  ];

  for (const [method, path, reason] of failures) {
    test(`${method} ${JSON.stringify(path)} fails with ${reason}`, () => {
      const found = matchRoute(table, method, path);
      assert.equal(found.ok, false);
      assert.equal(!found.ok && found.reason, reason);
    });
  }

  // No template shadows another: a concrete path built from each operation's own template (literal
  // segments kept, parameters given plain values of their type) routes back to that operation.
  test('every operation is reached by a path of its own template', () => {
    const sample = (entry: CatalogEntry, name: string): string => {
      const schema = entry.parameters.path.find((p) => p.name === name)?.schema ?? {};
      if (schema.type === 'integer') return '7';
      if (Array.isArray(schema.enum)) return String(schema.enum[0]);
      return 'sample';
    };
    const misrouted = loadCatalog().entries.flatMap((entry) => {
      const path = entry.path.replace(/\{([^}]+)\}/g, (_, name: string) => sample(entry, name));
      const found = matchRoute(table, entry.method, path);
      return found.ok && found.entry.operationId === entry.operationId
        ? []
        : [`${entry.method} ${path}: ${found.ok ? found.entry.operationId : found.reason}`];
    });
    assert.deepEqual(misrouted, []);
  });

  test('method_not_allowed names the methods the route has', () => {
    const found = matchRoute(table, 'PUT', '/repos/acme/widgets/pulls/3/merge');
    assert.ok(!found.ok && found.reason === 'method_not_allowed');
    assert.deepEqual([...found.allowed].sort(), ['DELETE', 'GET', 'POST']);
  });
});
