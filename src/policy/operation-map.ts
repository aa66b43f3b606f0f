// Maps one Gitea call (operationId + arguments) to the canonical operations it needs, from the data in
// policies/operations.yaml. A primary operation, refined by argument rules, plus every extra permission
// a widening argument asks for. Values the rules do not know fail closed.
import { matches, valueAt, type ArgumentCondition, type Scalar } from './argument-match.js';

export interface MapRule {
  when: ArgumentCondition;
  /** Replaces the primary operation; the first matching rule with `operation` wins. */
  operation?: string;
  /** An extra operation the call needs as well. */
  also?: string;
}

export interface KnownValues {
  path: string;
  values: Scalar[];
  /** The argument must be present. */
  required?: boolean;
}

export interface OperationMapping {
  operationId: string;
  operation: string;
  known: KnownValues[];
  rules: MapRule[];
  /** policies/operations.yaml line of the operationId in `map:`. */
  line: number | null;
}

export interface OperationMap {
  file: string;
  byOperationId: ReadonlyMap<string, OperationMapping>;
  globalRules: MapRule[];
  /** Issue operation -> the pull request operation it also needs when the issue is a pull request. */
  onPullRequests: ReadonlyMap<string, string>;
}

export type MappedCall =
  | { ok: true; operations: string[]; rule: string; line: number | null }
  | {
      ok: false;
      reason: 'unknown_operation_id' | 'unknown_argument_value' | 'missing_argument';
      message: string;
      line: number | null;
      hint: string;
    };

export function mapCall(map: OperationMap, operationId: string, args: unknown): MappedCall {
  const mapping = map.byOperationId.get(operationId);
  if (!mapping) {
    return {
      ok: false,
      reason: 'unknown_operation_id',
      message: `operationId '${operationId}' is not in the operation map`,
      line: null,
      hint: `use an operationId of the pinned Gitea spec; every one is listed in ${map.file}`,
    };
  }
  const unknownValue = checkKnownValues(mapping, args, map.file);
  if (unknownValue) return unknownValue;
  const primaryRule = mapping.rules.find((rule) => rule.operation !== undefined && matches(rule.when, args));
  const primary = primaryRule?.operation ?? mapping.operation;
  const extras = [...mapping.rules, ...map.globalRules]
    .filter((rule) => rule.also !== undefined && matches(rule.when, args))
    .map((rule) => rule.also as string);
  const operations = [...new Set([primary, ...extras])];
  return { ok: true, operations, rule: describeMapping(mapping, primaryRule, extras), line: mapping.line };
}

/** The pull request operations a mapped call also needs if the issue it names is a pull request; none: no live fact is needed. */
export function pullRequestOperations(map: OperationMap, mapped: Extract<MappedCall, { ok: true }>): string[] {
  return mapped.operations.flatMap((operation) => {
    const pull = map.onPullRequests.get(operation);
    return pull === undefined ? [] : [pull];
  });
}

/** The mapped call, needing `extra` operations as well (each once). */
export function withOperations(
  mapped: Extract<MappedCall, { ok: true }>,
  extra: readonly string[],
): Extract<MappedCall, { ok: true }> {
  const operations = [...new Set([...mapped.operations, ...extra])];
  return operations.length === mapped.operations.length
    ? mapped
    : { ...mapped, operations, rule: `${mapped.rule}; the issue is a pull request: also ${extra.join(', ')}` };
}

function checkKnownValues(mapping: OperationMapping, args: unknown, file: string): MappedCall | null {
  for (const known of mapping.known) {
    const value = valueAt(args, known.path);
    const expected = known.values.map(String).join(', ');
    if (value === undefined) {
      if (!known.required) continue;
      return {
        ok: false,
        reason: 'missing_argument',
        message: `${mapping.operationId} needs ${known.path} to decide which operation it is`,
        line: mapping.line,
        hint: `set ${known.path} to one of: ${expected}`,
      };
    }
    if (!known.values.some((candidate) => candidate === value)) {
      return {
        ok: false,
        reason: 'unknown_argument_value',
        message: `${mapping.operationId}: the value of ${known.path} is not one the policy knows`,
        line: mapping.line,
        hint: `set ${known.path} to one of: ${expected} (see ${file})`,
      };
    }
  }
  return null;
}

function describeMapping(mapping: OperationMapping, primaryRule: MapRule | undefined, extras: string[]): string {
  const base = primaryRule
    ? `${mapping.operationId} with ${conditionText(primaryRule.when)} -> ${primaryRule.operation}`
    : `${mapping.operationId} -> ${mapping.operation}`;
  return extras.length === 0 ? base : `${base} (+ ${extras.join(', ')})`;
}

export function conditionText(when: ArgumentCondition): string {
  return when.present !== undefined
    ? `${when.path} ${when.present ? 'present' : 'absent'}`
    : `${when.path} = ${String(when.equals)}`;
}
