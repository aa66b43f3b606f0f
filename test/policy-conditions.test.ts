import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { decide, decideCall, type DecideContext } from '../src/policy/decide.js';
import { policyChecks } from '../src/policy/checks.js';
import { buildConditionSet, checkConditions, type ArgumentTest, type ConditionSet } from '../src/policy/conditions.js';
import { jsonPathProblem } from '../src/policy/schema-paths.js';
import { catalogByOperationId } from '../src/catalog/load.js';
import { inline, policy } from './policy-helpers.js';

const context: DecideContext = { vocabulary: policy.vocabulary, checks: policyChecks(policy) };
const any = inline({ allowed_operations: ['gitea.*'] });
const pr = (base: string) => ({ owner: 'acme', repo: 'widgets', body: { base, head: 'feature/x', title: 't' } });

describe('argument tests', () => {
  const args = { owner: 'acme', body: { base: 'main', draft: false, files: [{ path: 'a' }, { path: 'b/c' }] } };
  const cases: [string, ArgumentTest, 'holds' | 'fails' | 'missing'][] = [
    ['equals holds', { path: '$.body.base', equals: 'main' }, 'holds'],
    ['equals fails', { path: '$.body.base', equals: 'dev' }, 'fails'],
    ['equals false (not absent)', { path: '$.body.draft', equals: false }, 'holds'],
    ['in', { path: '$.body.base', in: ['main', 'master'] }, 'holds'],
    ['matches every value', { path: '$.body.files[*].path', matches: '**' }, 'holds'],
    ['matches fails on one value', { path: '$.body.files[*].path', matches: 'b/*' }, 'fails'],
    ['present', { path: '$.owner', present: true }, 'holds'],
    ['absent', { path: '$.body.nope', absent: true }, 'holds'],
    ['JSONPath finds nothing', { path: '$.body.head', equals: 'x' }, 'missing'],
  ];
  const set = (test: ArgumentTest) =>
    buildConditionSet('conditions.yaml', [
      { id: 'c', operation_ids: ['op'], require: [test], code: 'force_push_refused', message: 'c', line: 3 },
    ]);
  for (const [name, argumentTest, outcome] of cases) {
    test(name, () => {
      const failed = checkConditions(set(argumentTest), 'op', args, any.scopes);
      const expected = { holds: [], fails: ['force_push_refused'], missing: ['target_unreadable'] }[outcome];
      assert.deepEqual(
        failed.map((f) => f.code),
        expected,
      );
    });
  }
});

describe('conditions shipped in policies/conditions.yaml', () => {
  const cases: [string, ReturnType<typeof inline>, string, unknown, 'allow' | 'deny', string[]][] = [
    ['PR into main without a branch scope', any, 'repoCreatePullRequest', pr('main'), 'allow', []],
    [
      'PR into main with main in the branch scope',
      inline({ allowed_operations: ['gitea.*'], branches: { 'gitea.pr.create': ['main'] } }),
      'repoCreatePullRequest',
      pr('main'),
      'allow',
      [],
    ],
    [
      'PR into main outside the branch scope',
      inline({ allowed_operations: ['gitea.*'], branches: { 'gitea.pr.create': ['dev'] } }),
      'repoCreatePullRequest',
      pr('main'),
      'deny',
      ['branch_out_of_scope'],
    ],
    [
      'PR needs gitea.pr.create first',
      inline({ allowed_operations: ['gitea.read'] }),
      'repoCreatePullRequest',
      pr('main'),
      'deny',
      [],
    ],
    [
      'force_push through the contents API',
      any,
      'repoCreateFile',
      {
        owner: 'acme',
        repo: 'widgets',
        filepath: 'a',
        body: { content: 'eA==', branch: 'feature/x', force_push: true },
      },
      'deny',
      ['force_push_refused'],
    ],
  ];
  for (const [name, profile, operationId, args, expected, failed] of cases) {
    test(name, () => {
      const decision = decideCall(profile, { operationId, arguments: args }, policy.operationMap, context);
      assert.equal(decision.effect, expected, JSON.stringify(decision.failed));
      assert.deepEqual([...new Set(decision.failed.map((f) => f.code))], failed);
      if (failed.length > 0) assert.match(decision.determining.file, /conditions\.yaml|<inline>/);
    });
  }

  test('a release that is not a draft needs gitea.release.publish', () => {
    const drafts = inline({ allowed_operations: ['gitea.release.create', 'gitea.release.edit'] });
    const release = (draft?: boolean) => ({
      owner: 'acme',
      repo: 'widgets',
      body: { tag_name: 'v1', ...(draft === undefined ? {} : { draft }) },
    });
    assert.equal(
      decideCall(drafts, { operationId: 'repoCreateRelease', arguments: release(true) }, policy.operationMap, context)
        .effect,
      'allow',
    );
    for (const draft of [false, undefined]) {
      const decision = decideCall(
        drafts,
        { operationId: 'repoCreateRelease', arguments: release(draft) },
        policy.operationMap,
        context,
      );
      assert.equal(decision.operation, 'gitea.release.publish');
      assert.equal(decision.effect, 'deny');
    }
  });

  test('an operation-only request on a scoped profile must state its targets', () => {
    const scoped = inline({ allowed_operations: ['gitea.read'], repositories: ['acme/widgets'] });
    assert.deepEqual(
      decide(scoped, { operations: ['gitea.read'] }, context).failed.map((f) => f.code),
      ['target_unreadable'],
    );
    assert.equal(decide(scoped, { operations: ['gitea.read'], targets: {} }, context).effect, 'allow');
    assert.equal(
      decide(scoped, { operations: ['gitea.read'], targets: { repositories: ['acme/gadgets'] } }, context).effect,
      'deny',
    );
  });
});

describe('JSONPaths are checked against input schemas', () => {
  const schema = (id: string) =>
    (catalogByOperationId().get(id) as { inputSchema: Record<string, unknown> }).inputSchema;
  const cases: [string, string, string, boolean][] = [
    ['body field', 'repoCreatePullRequest', '$.body.base', true],
    ['array items', 'repoChangeFiles', '$.body.files[*].path', true],
    ['path parameter', 'repoCreateFile', '$.filepath', true],
    ['no such field', 'repoCreatePullRequest', '$.body.bsae', false],
    ['filter expression', 'repoChangeFiles', '$.body.files[?(@.path)]', false],
    ['recursive descent', 'repoChangeFiles', '$..path', false],
  ];
  for (const [name, id, path, ok] of cases)
    test(name, () => assert.equal(jsonPathProblem(path, schema(id)) === null, ok));
});

describe('a JSONPath that cannot be evaluated is never read as "absent" or "does not apply"', () => {
  // Loading refuses filter expressions; this builds the set directly, as a future policy bug could.
  const filter = '$.body.files[?(@.path)]';
  const condition = (when: ArgumentTest[], require: ArgumentTest[]): ConditionSet =>
    buildConditionSet('conditions.yaml', [
      {
        id: 'probe',
        operation_ids: ['repoChangeFiles'],
        when,
        require,
        code: 'force_push_refused',
        message: 'the probe holds',
        line: 1,
      },
    ]);
  const args = {
    owner: 'acme',
    repo: 'widgets',
    body: { branch: 'feature/x', files: [{ path: 'a', operation: 'create' }] },
  };
  const cases: [string, ConditionSet][] = [
    ['in a when test', condition([{ path: filter, present: true }], [{ path: '$.body.branch', present: true }])],
    ['in a require test for absence', condition([], [{ path: filter, absent: true }])],
  ];
  for (const [name, set] of cases) {
    test(name, () => {
      assert.deepEqual(
        checkConditions(set, 'repoChangeFiles', args, any.scopes).map((f) => f.code),
        ['target_unreadable'],
      );
    });
  }
});
