import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { decide, decideCall, type ConditionCheck } from '../src/policy/decide.js';
import { decideContextFor } from '../src/policy/checks.js';
import type { ProfileData } from '../src/policy/profile.js';
import { inline, policy } from './policy-helpers.js';
import { prng } from './support/prng.js';

const context = { vocabulary: policy.vocabulary };
const verdict = (data: ProfileData, operation: string, service?: string) =>
  decide(inline(data, service), { operations: [operation], ...(service ? { service } : {}) }, context);

describe('enforcement matrix', () => {
  const cases: [string, ProfileData, string, 'allow' | 'deny', string][] = [
    ['qualified allowed', { allowed_operations: ['gitea.pr.close'] }, 'gitea.pr.close', 'allow', 'allowed'],
    [
      'legacy allowed, qualified requested',
      { allowed_operations: ['approve'] },
      'gitea.pr.approve',
      'allow',
      'allowed',
    ],
    [
      'qualified allowed, legacy requested',
      { allowed_operations: ['gitea.pr.approve'] },
      'approve',
      'allow',
      'allowed',
    ],
    ['unknown request', { allowed_operations: ['gitea.*'] }, 'frobnicate', 'deny', 'unknown_operation'],
    ['ambiguous request', { allowed_operations: ['gitea.*'] }, 'pr.close', 'deny', 'ambiguous_operation'],
    ['cross-service request', { allowed_operations: ['gitea.*'] }, 'jenkins.read', 'deny', 'cross_service_operation'],
    [
      'forbidden legacy beats allowed qualified',
      { allowed_operations: ['gitea.pr.merge'], forbidden_operations: ['merge'] },
      'gitea.pr.merge',
      'deny',
      'forbidden',
    ],
    [
      'forbidden qualified beats allowed legacy',
      { allowed_operations: ['merge'], forbidden_operations: ['gitea.pr.merge'] },
      'merge',
      'deny',
      'forbidden',
    ],
    [
      'forbidden beats wildcard',
      { allowed_operations: ['gitea.*'], forbidden_operations: ['gitea.pr.merge'] },
      'gitea.pr.merge',
      'deny',
      'forbidden',
    ],
    [
      'un-normalizable forbidden entry denies everything',
      { allowed_operations: ['gitea.read'], forbidden_operations: ['pr.merge'] },
      'gitea.read',
      'deny',
      'forbidden_list_invalid',
    ],
    [
      'forbidden typo denies everything',
      { allowed_operations: ['gitea.read'], forbidden_operations: ['gitea.pr.mrege'] },
      'gitea.read',
      'deny',
      'forbidden_list_invalid',
    ],
    [
      'un-normalizable allowed entry grants nothing',
      { allowed_operations: ['pr.close'] },
      'gitea.pr.close',
      'deny',
      'empty_allowed_list',
    ],
    [
      'un-normalizable allowed entry does not block the rest',
      { allowed_operations: ['pr.close', 'gitea.read'] },
      'gitea.read',
      'allow',
      'allowed',
    ],
    ['empty allowed list', { allowed_operations: [] }, 'gitea.read', 'deny', 'empty_allowed_list'],
    ['missing allowed list', {}, 'gitea.read', 'deny', 'empty_allowed_list'],
    ['not allowed', { allowed_operations: ['gitea.read'] }, 'gitea.pr.close', 'deny', 'not_allowed'],
    [
      'duplicates after normalization',
      { allowed_operations: ['push', 'gitea.branch.push', 'branch.push'] },
      'push',
      'allow',
      'allowed',
    ],
    ['area wildcard', { allowed_operations: ['gitea.issue.*'] }, 'gitea.issue.close', 'allow', 'allowed'],
    [
      'area wildcard does not leak into other areas',
      { allowed_operations: ['gitea.issue.*'] },
      'gitea.pr.close',
      'deny',
      'not_allowed',
    ],
    [
      'wildcard never matches an unknown name',
      { allowed_operations: ['gitea.*'] },
      'gitea.pr.frobnicate',
      'deny',
      'unknown_operation',
    ],
    ['pattern in a request', { allowed_operations: ['gitea.*'] }, 'gitea.*', 'deny', 'invalid_pattern'],
    [
      'unsupported pattern grants nothing',
      { allowed_operations: ['gitea.pr.cl*'] },
      'gitea.pr.close',
      'deny',
      'empty_allowed_list',
    ],
    ['jenkins: a word namespaces', { allowed_operations: ['read'] }, 'read', 'allow', 'allowed'],
    ['jenkins: no gitea alias applies', { allowed_operations: ['jenkins.read'] }, 'approve', 'deny', 'not_allowed'],
  ];
  for (const [name, data, operation, expected, reason] of cases) {
    const service = name.startsWith('jenkins') ? 'jenkins' : undefined;
    test(name, () => {
      const decision = verdict(data, operation, service);
      assert.equal(decision.effect, expected);
      assert.equal(decision.reason, reason);
      if (expected === 'deny') assert.ok(decision.hint && decision.hint.length > 0, 'a denial carries a hint');
    });
  }

  test('every operation a call needs must be allowed', () => {
    const profile = inline({ allowed_operations: ['gitea.pr.merge'] });
    const decision = decide(profile, { operations: ['gitea.pr.merge', 'gitea.branch.delete'] }, context);
    assert.equal(decision.effect, 'deny');
    assert.deepEqual(decision.operations, ['gitea.pr.merge', 'gitea.branch.delete']);
    assert.match(decision.determining.rule, /gitea\.branch\.delete/);
  });

  test('the determining entry names file and line, also for a default deny', () => {
    const profile = inline({ allowed_operations: ['gitea.read'] });
    const withLines = { ...profile, file: 'profiles/x.yaml', allowedListLine: 7 };
    const denied = decide(withLines, { operations: ['gitea.pr.close'] }, context);
    assert.deepEqual(denied.determining, {
      file: 'profiles/x.yaml',
      line: 7,
      rule: 'default deny: gitea.pr.close is not in allowed_operations',
    });
    // The edit is for people (explain, decide); the agent's hint never tells it to edit a profile.
    assert.equal(
      denied.fix,
      'add gitea.pr.close to allowed_operations of profiles/x.yaml if this role should have it (gitea-warden diff shows the gain)',
    );
    assert.doesNotMatch(denied.hint ?? '', /allowed_operations|profiles\/x\.yaml|\badd\b/);
  });

  test('a profile compiled for one service never decides for another', () => {
    const decision = decide(
      inline({ allowed_operations: ['read'] }),
      { operations: ['read'], service: 'jenkins' },
      context,
    );
    assert.equal(decision.reason, 'service_mismatch');
  });

  test('condition checks can only turn an allow into a deny, with their failed conditions', () => {
    const outOfScope: ConditionCheck = () => [
      { code: 'repository_out_of_scope', message: 'acme/other is not in repositories.' },
    ];
    const profile = inline({ allowed_operations: ['gitea.read'] });
    const decision = decide(
      profile,
      { operations: ['gitea.read'], targets: { repository: 'acme/other' } },
      { ...context, checks: [outOfScope] },
    );
    assert.equal(decision.effect, 'deny');
    assert.equal(decision.reason, 'repository_out_of_scope');
    assert.equal(decision.failed[0]?.code, 'repository_out_of_scope');
  });
});

describe('guarded-only operations in a Gitea call', () => {
  const guarded = decideContextFor(policy, { guardedOnly: policy.guards.guarded_only });
  const merge = (body: Record<string, unknown>) => ({
    operationId: 'repoMergePullRequest',
    arguments: { owner: 'acme', repo: 'widgets', index: 3, body: { Do: 'merge', ...body } },
  });
  const cases: [string, ProfileData, Record<string, unknown>, string][] = [
    // The branch the merge would delete is not in its arguments: a scope check would say target_unreadable.
    [
      'a merge deleting its branch, by a profile allowing both',
      { allowed_operations: ['gitea.*'] },
      { delete_branch_after_merge: true },
      'guarded_tool_only',
    ],
    [
      'a merge deleting its branch, by a profile that may not delete',
      { allowed_operations: ['gitea.pr.merge'] },
      { delete_branch_after_merge: true },
      'guarded_tool_only',
    ],
    [
      'the profile forbids the merge itself',
      { allowed_operations: ['gitea.*'], forbidden_operations: ['gitea.pr.merge'] },
      { delete_branch_after_merge: true },
      'forbidden',
    ],
    ['a plain merge', { allowed_operations: ['gitea.pr.merge'] }, {}, 'allowed'],
  ];
  for (const [name, data, body, reason] of cases) {
    test(`${name}: ${reason}`, () => {
      const decision = decideCall(inline(data), merge(body), policy.operationMap, guarded);
      assert.equal(decision.reason, reason);
      if (reason === 'guarded_tool_only') {
        assert.equal(decision.effect, 'deny');
        assert.deepEqual(
          decision.failed.map((f) => f.code),
          ['guarded_tool_only'],
        );
        assert.match(
          decision.hint ?? '',
          /without the argument that asks for gitea\.branch\.delete.*gitea_cleanup_merged_pr_branch/,
        );
      }
    });
  }

  test('a request without a call (a guarded tool deciding its own operations) is not refused as guarded-only', () => {
    const decision = decide(
      inline({ allowed_operations: ['gitea.branch.delete'] }),
      { operations: ['gitea.branch.delete'], targets: { branches: ['feature/x'] } },
      guarded,
    );
    assert.equal(decision.effect, 'allow');
  });
});

// An independent model of the list decision, written from the rules rather than from the code: what
// one entry (or requested name) stands for in a service, or null when it does not normalize.
const vocabulary = policy.vocabulary;
const canonicalNames = [...vocabulary.operations.keys()];
function meaning(name: string, service: string, pattern: boolean): string[] | null {
  if (service !== 'gitea') {
    if (!/^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/.test(name)) return null;
    if (name.startsWith(`${service}.`)) return [name];
    return name.includes('.') ? null : [`${service}.${name}`];
  }
  if (vocabulary.operations.has(name)) return [name];
  const alias = vocabulary.aliases.get(name);
  if (alias !== undefined) return [alias];
  const area = pattern ? /^gitea\.(?:\*|([a-z0-9]+)\.\*)$/.exec(name) : null;
  const covered = area
    ? canonicalNames.filter((op) => op.startsWith(area[1] === undefined ? 'gitea.' : `gitea.${area[1]}.`))
    : [];
  return covered.length > 0 ? covered : null;
}
function modelAllows(
  data: { allowed_operations: string[]; forbidden_operations: string[] },
  request: string[],
  service: string,
): boolean {
  const requested = request.map((name) => meaning(name, service, false));
  const forbidden = data.forbidden_operations.map((entry) => meaning(entry, service, true));
  if (requested.length === 0 || requested.includes(null) || forbidden.includes(null)) return false;
  const allowed = new Set(data.allowed_operations.flatMap((entry) => meaning(entry, service, true) ?? []));
  const denied = new Set(forbidden.flat() as string[]);
  return (requested.flat() as string[]).every((op) => allowed.has(op) && !denied.has(op));
}

describe('property: random profiles and requests', () => {
  const areas = [...new Set(canonicalNames.map((name) => name.split('.')[1] as string))];
  const valid: Record<string, string[]> = {
    gitea: [...canonicalNames, ...vocabulary.aliases.keys(), 'gitea.*', ...areas.map((area) => `gitea.${area}.*`)],
    jenkins: ['read', 'build', 'deploy', 'jenkins.read', 'jenkins.build', 'jenkins.job.run'],
  };
  const invalid = [
    'frobnicate',
    'gitea.pr.nope',
    'gitea.nope.*',
    'gitea.pr.c*',
    '*',
    '',
    'Gitea.read',
    'gitea..read',
    'gitea.pr.merge ',
    ...canonicalNames.map((name) => name.replace(/^gitea\./, '')), // ambiguous for gitea: pr.close, issue.create, ...
    ...canonicalNames.map((name) => name.slice(0, -1)), // typos
    'jenkins.read',
    'github.pr.merge',
    'gitea.read',
    'gitea.pr.close', // cross-service, one way or the other
  ];
  const random = prng(20240611);
  const chance = (p: number) => random() < p;
  const one = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const name = (service: string, pValid: number) => (chance(pValid) ? one(valid[service] as string[]) : one(invalid));
  const names = (service: string, max: number, pValid: number) =>
    Array.from({ length: Math.floor(random() * (max + 1)) }, () => name(service, pValid));
  // Often request what an allowed entry grants (as canonical name or as written), so allows are common.
  const requested = (service: string, allowed: string[]) => {
    if (allowed.length === 0 || chance(0.4)) return name(service, 0.7);
    const entry = one(allowed);
    return chance(0.5) ? entry : one(meaning(entry, service, true) ?? [entry]);
  };
  const decideFor = (
    data: { allowed_operations: string[]; forbidden_operations: string[] },
    request: string[],
    service: string,
  ) => decide(inline(data, service), { operations: request, service }, context);

  test('5000 profiles: the decision matches the model, and adding a forbidden entry or removing an allowed one never turns a deny into an allow', () => {
    const reasons = new Map<string, number>();
    for (let i = 0; i < 5000; i++) {
      const service = chance(0.2) ? 'jenkins' : 'gitea';
      const data = { allowed_operations: names(service, 8, 0.8), forbidden_operations: names(service, 3, 0.9) };
      const request = Array.from({ length: 1 + Math.floor(random() * 3) }, () =>
        requested(service, data.allowed_operations),
      );
      const seen = JSON.stringify({ service, data, request });
      const before = decideFor(data, request, service);
      reasons.set(before.reason, (reasons.get(before.reason) ?? 0) + 1);
      assert.equal(before.effect, modelAllows(data, request, service) ? 'allow' : 'deny', `model disagrees: ${seen}`);
      if (before.effect === 'deny')
        assert.ok(before.hint && before.determining.file, `a denial names its entry and a hint: ${seen}`);

      const added = {
        ...data,
        forbidden_operations: [...data.forbidden_operations, chance(0.5) ? one(request) : name(service, 0.8)],
      };
      const removeAt = Math.floor(random() * data.allowed_operations.length);
      const removed = { ...data, allowed_operations: data.allowed_operations.filter((_, j) => j !== removeAt) };
      for (const [change, changed] of [
        ['adding a forbidden entry', added],
        ['removing an allowed entry', removed],
      ] as const) {
        const after = decideFor(changed, request, service);
        if (before.effect === 'deny')
          assert.equal(after.effect, 'deny', `${change} turned a deny into an allow: ${seen}`);
        assert.equal(
          after.effect,
          modelAllows(changed, request, service) ? 'allow' : 'deny',
          `model disagrees after ${change}: ${seen}`,
        );
      }
    }
    // The generator reaches every outcome, and allows often enough for the properties to mean something.
    for (const reason of [
      'allowed',
      'forbidden',
      'not_allowed',
      'empty_allowed_list',
      'forbidden_list_invalid',
      'unknown_operation',
      'ambiguous_operation',
      'cross_service_operation',
      'invalid_pattern',
    ]) {
      assert.ok(
        (reasons.get(reason) ?? 0) >= 25,
        `${reason} reached ${reasons.get(reason) ?? 0} times: ${JSON.stringify([...reasons])}`,
      );
    }
    assert.ok(
      (reasons.get('allowed') ?? 0) >= 750,
      `allowed ${reasons.get('allowed')} of 5000: ${JSON.stringify([...reasons])}`,
    );
  });
});
