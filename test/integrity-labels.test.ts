// The shell of the labels (src/server/integrity-labels.ts, src/gitea/standing.ts) over a scripted
// Gitea: which facts it reads, in which order, how many, and that a refusal is never guessed upward.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCatalog } from '../src/catalog/load.js';
import type { FactReader, ReadResult } from '../src/gitea/gitea-identity.js';
import { compileIntegrity, type IntegrityData } from '../src/policy/integrity.js';
import { loadPolicySet } from '../src/policy-files/policy-set.js';
import { labelAnswer } from '../src/server/integrity-labels.js';

const catalog = loadPolicySet().integrity;
const entry = (operationId: string) =>
  loadCatalog().entries.find((e) => e.operationId === operationId) ?? assert.fail(operationId);

/** A Gitea that answers from a table of paths, 404 for the rest, and remembers what it was asked. */
function gitea(answers: Record<string, ReadResult>): FactReader & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    get(path: string) {
      asked.push(path);
      return Promise.resolve(answers[path] ?? { status: 404, data: { message: 'not found' } });
    },
  };
}

const issues = (authors: string[]) =>
  authors.map((login, n) => ({ number: n + 1, user: { login }, title: 't', body: `by ${login}` }));
const args = { owner: 'acme', repo: 'widgets' };
const settings = (data: IntegrityData) => compileIntegrity({ min_level: 'write', below: 'withhold', ...data });

describe('the facts the labels read', () => {
  test('a token Gitea refuses in a repository is not asked there again; the named organisation answers instead', async () => {
    const reader = gitea({
      '/repos/acme/widgets/collaborators/bob/permission': { status: 403, data: { message: 'forbidden' } },
      '/users/bob/orgs/acme/permissions': { status: 200, data: { can_write: true, can_read: true } },
      '/users/carol/orgs/acme/permissions': { status: 200, data: { can_read: true } },
    });
    const labelled = await labelAnswer({
      catalog,
      settings: settings({ trusted_orgs: ['acme'] }),
      entry: entry('issueListIssues'),
      args,
      data: issues(['bob', 'carol']),
      reader,
      self: null,
    });
    assert.deepEqual(reader.asked, [
      '/repos/acme/widgets/collaborators/bob/permission',
      '/repos/acme/widgets/collaborators/carol/permission',
      '/users/bob/orgs/acme/permissions',
      '/users/carol/orgs/acme/permissions',
    ]);
    assert.deepEqual(
      labelled?.labels.map((l) => [l.author, l.level, l.text]),
      [
        ['bob', 'write', 'shown'],
        ['carol', 'read', 'withheld'],
      ],
    );
  });

  test("an outsider's own repository: neither its permission nor its owner is asked, only the named organisation", async () => {
    const reader = gitea({ '/users/mallory/orgs/acme/permissions': { status: 200, data: {} } });
    const labelled = await labelAnswer({
      catalog,
      settings: settings({ trusted_orgs: ['acme'] }),
      entry: entry('issueListIssues'),
      args: { owner: 'mallory', repo: 'trap' },
      data: issues(['mallory']),
      reader,
      self: null,
    });
    assert.deepEqual(reader.asked, ['/users/mallory/orgs/acme/permissions']);
    assert.deepEqual(
      labelled?.labels.map((l) => [l.level, l.text, l.outside_domain]),
      [['none', 'withheld', true]],
    );
  });

  test('a trusted team is asked only for whoever is still below the floor, its id once', async () => {
    const reader = gitea({
      '/repos/acme/widgets/collaborators/bob/permission': { status: 200, data: { permission: 'write' } },
      '/repos/acme/widgets/collaborators/dave/permission': { status: 200, data: { permission: 'read' } },
      '/repos/acme/widgets/collaborators/eve/permission': { status: 200, data: { permission: 'read' } },
      '/orgs/acme/teams': { status: 200, data: [{ id: 7, name: 'Release' }] },
      '/teams/7/members/dave': { status: 200, data: { login: 'dave' } },
    });
    const labelled = await labelAnswer({
      catalog,
      settings: settings({ trusted_orgs: ['acme'], trusted_teams: ['acme/Release'] }),
      entry: entry('issueListIssues'),
      args,
      data: issues(['bob', 'dave', 'eve']),
      reader,
      self: null,
    });
    assert.deepEqual(
      labelled?.labels.map((l) => [l.author, l.level]),
      [
        ['bob', 'write'],
        ['dave', 'trusted'],
        ['eve', 'read'],
      ],
    );
    assert.equal(reader.asked.filter((path) => path.startsWith('/orgs/acme/teams')).length, 1);
    assert.ok(!reader.asked.includes('/teams/7/members/bob'), 'bob already passes');
    assert.ok(reader.asked.includes('/teams/7/members/eve'));
  });

  test('at most max_lookups facts per call; the rest are unknown, never guessed', async () => {
    const authors = Array.from({ length: catalog.maxLookups + 10 }, (_, n) => `user${n}`);
    const answers: Record<string, ReadResult> = {};
    for (const login of authors)
      answers[`/repos/acme/widgets/collaborators/${login}/permission`] = { status: 200, data: { permission: 'admin' } };
    const reader = gitea(answers);
    const labelled = await labelAnswer({
      catalog,
      settings: settings({ trusted_orgs: ['acme'] }),
      entry: entry('issueListIssues'),
      args,
      data: issues(authors),
      reader,
      self: null,
    });
    assert.equal(reader.asked.length, catalog.maxLookups);
    const levels = labelled?.labels.map((l) => l.level) ?? [];
    assert.equal(levels.filter((level) => level === 'admin').length, catalog.maxLookups);
    assert.equal(levels.filter((level) => level === 'unknown').length, 10);
  });

  test('without a token nothing is read and every author is unknown; the namespace’s own identity is trusted', async () => {
    const labelled = await labelAnswer({
      catalog,
      settings: settings({ trusted_orgs: ['acme'] }),
      entry: entry('issueListIssues'),
      args,
      data: issues(['bob', 'alice']),
      reader: null,
      self: 'alice',
    });
    assert.deepEqual(
      labelled?.labels.map((l) => [l.author, l.level]),
      [
        ['bob', 'unknown'],
        ['alice', 'trusted'],
      ],
    );
  });

  test('a compare against a fork’s branch is never read as a branch of this repository', async () => {
    const reader = gitea({ '/repos/acme/widgets/branches/feature': { status: 200, data: { name: 'feature' } } });
    const commit = {
      sha: 'abc',
      author: { login: 'bob' },
      commit: { message: 'm', verification: { verified: false } },
    };
    const run = (basehead: string) =>
      labelAnswer({
        catalog,
        settings: settings({ trusted_orgs: ['acme'] }),
        entry: entry('repoCompareDiff'),
        args: { ...args, basehead },
        data: { total_commits: 1, commits: [commit] },
        reader,
        self: null,
      });
    assert.equal((await run('main...feature'))?.labels[0]?.level, 'write', 'a branch of this repository');
    assert.equal((await run('main...mallory:feature'))?.labels[0]?.level, 'unknown', "a fork's branch");
    assert.ok(!reader.asked.includes('/repos/acme/widgets/branches/mallory%3Afeature'));
  });
});
