// The token scopes of each catalog operation, derived from Gitea's route groups (routers/api/v1/api.go
// tokenRequiresScopes) by src/catalog/token-scopes.ts and written into tools.json: the rows below are
// read off Gitea's source by hand, one per kind of group, nested group and single route.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { catalogByOperationId, loadCatalog } from '../src/catalog/load.js';
import { minimalTokenScopes, missingTokenScopes, requiredTokenScopes, scopeHeld } from '../src/catalog/token-scopes.js';

const rows: Array<[string, string[] | null, string]> = [
  ['repoGetPullRequest', ['read:repository'], 'm.Group("/repos") repository group, GET'],
  ['repoMergePullRequest', ['write:repository'], 'the level follows the method: POST is write'],
  ['issueCreateComment', ['write:issue'], 'comments of an issue or pull request live in the issue group'],
  ['issueListLabels', ['read:issue'], 'labels are in the issue group'],
  ['issueGetMilestonesList', ['read:issue'], 'milestones are in the issue group'],
  ['issueSearchIssues', ['read:issue'], '/repos/issues/search is in the issue group'],
  ['notifyGetRepoList', ['read:notification'], '/repos/{o}/{r}/notifications: the notification group'],
  ['userGetCurrent', ['read:user'], 'GET /user'],
  ['userCurrentListRepos', ['read:user', 'read:repository'], '/user/repos: the user group and its own Repository'],
  ['createCurrentUserRepo', ['write:user', 'write:repository'], 'the same route, POST'],
  ['orgListCurrentUserOrgs', ['read:user', 'read:organization'], '/user/orgs: tokenRequiresScopes(User, Organization)'],
  ['userListRepos', ['read:user', 'read:repository'], '/users/{username}/repos'],
  ['orgGet', ['read:organization'], '/orgs/{org}'],
  ['orgGetTeam', ['read:organization'], '/teams/{teamid}'],
  ['adminCreateUser', ['write:admin'], '/admin'],
  ['getVersion', [], 'Misc (public accessible): no scope'],
  ['renderMarkdown', [], 'POST /markdown: Misc, no scope although it is a POST'],
  ['getGeneralAPISettings', [], '/settings/api: Misc'],
  ['topicSearch', ['read:repository'], '/topics/search: the repository scope'],
  ['getCurrentToken', [], 'GET /token: reqToken() only'],
  [
    'orgDeleteRepos',
    ['write:organization', 'write:repository'],
    'DELETE /orgs/{org}/repos adds Repository to its Combo',
  ],
  ['orgListRepos', ['read:organization'], 'GET of the same Combo: the organization group alone'],
  ['repoGetFileContentsPost', ['write:repository'], 'a POST that reads: the method decides the level'],
];

for (const [operationId, expected, why] of rows) {
  test(`token scopes of ${operationId}: ${why}`, () => {
    const entry = catalogByOperationId().get(operationId);
    assert.ok(entry, operationId);
    assert.deepEqual(entry.tokenScopes, expected);
    assert.deepEqual(requiredTokenScopes(entry.method, entry.path), expected);
  });
}

test('every operation of the pinned spec is placed in a route group', () => {
  const unplaced = loadCatalog()
    .entries.filter((e) => e.tokenScopes === null)
    .map((e) => `${e.method} ${e.path}`);
  assert.deepEqual(unplaced, []);
});

test('a held scope covers as Gitea hasScope does: all covers everything, write covers read', () => {
  assert.equal(scopeHeld(['all'], 'write:admin'), true);
  assert.equal(scopeHeld(['write:issue'], 'read:issue'), true);
  assert.equal(scopeHeld(['read:issue'], 'write:issue'), false);
  assert.equal(scopeHeld(['write:repository'], 'read:issue'), false);
  assert.deepEqual(missingTokenScopes(['read:user', 'write:repository'], ['read:user', 'write:issue']), [
    'write:issue',
  ]);
  assert.deepEqual(minimalTokenScopes(['read:issue', 'write:issue', 'read:user', 'write:repository']), [
    'write:issue',
    'write:repository',
    'read:user',
  ]);
  assert.deepEqual(minimalTokenScopes(['all', 'read:user']), ['all']);
});
