// Conditions on a call's arguments, from policies/conditions.yaml: for the listed operationIds, when
// every `when` test holds, every `require` test must hold too. Each test reads the arguments through
// a JSONPath and checks every value found; a required value that cannot be found fails the condition.
import micromatch from 'micromatch';
import type { Scalar } from './argument-match.js';
import type { DeterminingEntry, FailedCondition } from './decision.js';
import { firstMatch } from './scope-patterns.js';
import type { CompiledScopes } from './scopes.js';
import { readPath } from './targets.js';
import type { ReasonCode } from './reasons.js';

export interface ArgumentTest {
  path: string;
  equals?: Scalar;
  in?: Scalar[];
  /** A glob (micromatch) every value must match. */
  matches?: string;
  present?: true;
  absent?: true;
  /** The values must lie in the profile's branch scope of this canonical operation (no scope: any). */
  in_branch_scope?: string;
}

export interface PolicyCondition {
  id: string;
  operation_ids: string[];
  when?: ArgumentTest[];
  require: ArgumentTest[];
  /** Code of the FailedCondition; the loader refuses one reasons.ts does not list. */
  code: ReasonCode;
  message: string;
  /** policies/conditions.yaml line of the condition. */
  line: number | null;
}

export interface ConditionSet {
  file: string;
  byOperationId: ReadonlyMap<string, readonly PolicyCondition[]>;
}

export function buildConditionSet(file: string, conditions: readonly PolicyCondition[]): ConditionSet {
  const byOperationId = new Map<string, PolicyCondition[]>();
  for (const condition of conditions) {
    for (const id of condition.operation_ids) byOperationId.set(id, [...(byOperationId.get(id) ?? []), condition]);
  }
  return { file, byOperationId };
}

/** `unreadable`: the path could not be evaluated, which never counts as absent or as not applying. */
type Outcome = 'holds' | 'fails' | 'missing' | 'unreadable';

/** Every condition of the operation that applies to these arguments and does not hold. */
export function checkConditions(
  set: ConditionSet,
  operationId: string,
  args: unknown,
  scopes: CompiledScopes,
): FailedCondition[] {
  return (set.byOperationId.get(operationId) ?? []).flatMap((condition): FailedCondition[] => {
    const entry: DeterminingEntry = { file: set.file, line: condition.line, rule: `condition ${condition.id}` };
    const applies = (condition.when ?? []).map((test) => ({ test, outcome: evaluate(test, args, scopes) }));
    const unknown = applies.find(({ outcome }) => outcome === 'unreadable');
    if (unknown)
      return [
        {
          code: 'target_unreadable',
          message: `${condition.id}: ${unknown.test.path} cannot be evaluated, so whether ${condition.message} cannot be told`,
          entry,
        },
      ];
    if (!applies.every(({ outcome }) => outcome === 'holds')) return [];
    for (const test of condition.require) {
      const outcome = evaluate(test, args, scopes);
      if (outcome === 'missing' || outcome === 'unreadable')
        return [
          {
            code: 'target_unreadable',
            message: `${condition.id}: ${test.path} cannot be read from the arguments, and ${condition.message}`,
            entry,
          },
        ];
      if (outcome === 'fails') return [{ code: condition.code, message: condition.message, entry }];
    }
    return [];
  });
}

export function evaluate(test: ArgumentTest, args: unknown, scopes: CompiledScopes): Outcome {
  const values = readPath(args, test.path);
  if (values === null) return 'unreadable';
  if (test.present) return values.length > 0 ? 'holds' : 'missing';
  if (test.absent) return values.length === 0 ? 'holds' : 'fails';
  if (values.length === 0) return 'missing';
  return values.every((value) => valueHolds(test, value, scopes)) ? 'holds' : 'fails';
}

function valueHolds(test: ArgumentTest, value: unknown, scopes: CompiledScopes): boolean {
  if (test.equals !== undefined && value !== test.equals) return false;
  if (test.in !== undefined && !test.in.some((candidate) => candidate === value)) return false;
  if (
    test.matches !== undefined &&
    !(typeof value === 'string' && micromatch.isMatch(value, test.matches, { dot: true }))
  )
    return false;
  if (test.in_branch_scope !== undefined) {
    const scope = scopes.branches.get(test.in_branch_scope);
    if (scope && !(typeof value === 'string' && scope.broken.length === 0 && firstMatch(scope, value))) return false;
  }
  return true;
}
