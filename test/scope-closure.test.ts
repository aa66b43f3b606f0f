// Repository scopes closed over the whole catalog: the list of operations that can reach a repository
// they do not name is derived from the pinned spec here (not read from the generated catalog), and every
// one of them must be filtered, opaque or named through argument targets in policies/targets.yaml. The
// next spec upgrade cannot open a hole silently: a new such operation fails this test until it is placed.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCatalog } from '../src/catalog/load.js';
import { reachOf, REACH_RULE_OPERATIONS, type RepositoryReach } from '../src/catalog/reach.js';
import { readDocument } from '../src/shared/document.js';
import { policiesDir } from '../src/shared/paths.js';
import { checkPolicies } from '../src/policy-files/policy-set.js';
import { reachGaps } from '../src/policy-files/target-policies.js';
import { tempDir } from './support/namespace.js';
import { loadSpec } from './support/spec-contract.js';

const spec = loadSpec();
const targets = readDocument(join(policiesDir, 'targets.yaml')).data as {
  operations: Record<string, { repository?: unknown[] }>;
  unnamed_repositories: { filtered: string[]; opaque: string[] };
};

/** operationId -> reach, derived from the spec itself. */
const derived = new Map<string, RepositoryReach>(
  Object.values(spec.paths)
    .flatMap((methods) => Object.values(methods))
    .filter((operation) => typeof operation.operationId === 'string')
    .map((operation) => [operation.operationId as string, reachOf(spec as never, operation as never)]),
);
const reaching = [...derived].filter(([, reach]) => reach.unnamed !== null).map(([id]) => id);

describe('every operation that can reach another repository is filtered or opaque', () => {
  test('the spec holds 485 operations, each classified', () => {
    assert.equal(derived.size, 485);
    const inPath = [...derived.values()].filter((reach) => reach.inPath).length;
    assert.ok(
      inPath > 250 && reaching.length > 60,
      `${inPath} name their repository in the path, ${reaching.length} reach unnamed ones`,
    );
  });

  test('the routes an attacker tried first are among them', () => {
    const expected = [
      'userGetStopWatches',
      'userCurrentTrackedTimes',
      'getUserWorkflowRuns',
      'getUserWorkflowJobs',
      'getOrgWorkflowRuns',
      'getOrgWorkflowJobs',
      'listAdminWorkflowRuns',
      'listPackages',
      'getPackage',
      'notifyGetList',
      'orgListActivityFeeds',
      'orgListRepos',
      'orgListTeamRepos',
      'issueSearchIssues',
      'repoGetByID',
      'listForks',
    ];
    assert.deepEqual(
      expected.filter((id) => !reaching.includes(id)),
      [],
    );
    assert.deepEqual(derived.get('renderMarkdown')?.fields, ['$.body.Context']);
    assert.deepEqual(derived.get('issueCreateIssueDependencies')?.fields, ['$.body.owner', '$.body.repo']);
  });

  test('policies/targets.yaml leaves no gap: each is filtered, opaque, or names its repositories through arguments', () => {
    const gaps = reachGaps(derived, targets);
    assert.deepEqual(
      gaps.map((gap) => `${gap.operationId}: ${gap.problem}`),
      [],
    );
    const { filtered, opaque } = targets.unnamed_repositories;
    for (const id of reaching) {
      const how = filtered.includes(id)
        ? 'filtered'
        : opaque.includes(id)
          ? 'opaque'
          : targets.operations[id]?.repository
            ? 'named'
            : 'open';
      assert.notEqual(how, 'open', id);
    }
  });

  test('the check would fail on an operation dropped from the lists', () => {
    const { filtered, opaque } = targets.unnamed_repositories;
    const without = (list: string[], id: string) => list.filter((entry) => entry !== id);
    const dropped = {
      ...targets,
      unnamed_repositories: {
        filtered: without(filtered, 'userGetStopWatches'),
        opaque: without(opaque, 'orgCreateHook'),
      },
    };
    assert.deepEqual(
      reachGaps(derived, dropped)
        .map((gap) => gap.operationId)
        .sort(),
      ['orgCreateHook', 'userGetStopWatches'],
    );
    const unnamedField = { ...targets, operations: { ...targets.operations, renderMarkdown: { repository: [] } } };
    assert.deepEqual(
      reachGaps(derived, unnamedField).map((gap) => gap.field),
      ['$.body.Context'],
    );
  });

  test('the lists name nothing that cannot reach a repository, and every reach rule names an operation of the spec', () => {
    const { filtered, opaque } = targets.unnamed_repositories;
    const stale = [...filtered, ...opaque].filter(
      (id) => derived.get(id)?.unnamed === null && derived.get(id)?.fields.length === 0,
    );
    assert.deepEqual(stale, []);
    assert.deepEqual(
      REACH_RULE_OPERATIONS.filter((id) => !derived.has(id)),
      [],
    );
    assert.deepEqual(
      filtered.filter((id) => opaque.includes(id)),
      [],
    );
  });

  test('the generated catalog carries the same classification', () => {
    for (const entry of loadCatalog().entries)
      assert.deepEqual(entry.reach, derived.get(entry.operationId), entry.operationId);
  });

  test('gitea-warden check reports the policies clean, and names the file and line of an operation left open', () => {
    assert.deepEqual(
      checkPolicies().filter((finding) => finding.code === 'unscoped_reach'),
      [],
    );
    const dir = tempDir('warden-reach-policies-');
    try {
      cpSync(policiesDir, dir.path, { recursive: true });
      const file = join(dir.path, 'targets.yaml');
      writeFileSync(file, readFileSync(file, 'utf8').replace(/^    - orgCreateHook\n/m, ''));
      const findings = checkPolicies(dir.path).filter((finding) => finding.code === 'unscoped_reach');
      assert.equal(findings.length, 1, JSON.stringify(findings));
      assert.equal(findings[0]?.file, file);
      assert.ok((findings[0]?.line ?? 0) > 0);
      assert.match(
        findings[0]?.message ?? '',
        /^orgCreateHook can reach repositories it does not name \(an organization webhook/,
      );
      assert.match(findings[0]?.fix ?? '', /unnamed_repositories\.filtered or \.opaque/);
    } finally {
      dir.dispose();
    }
  });
});
