// One compiled profile and the operation map, restated as engine-neutral permit/forbid rules, so Cedar
// and casbin are handed the same policy gitea-warden decides with. Each engine renders these rules in
// its own language (engines/cedar.ts, engines/casbin.ts).
//
// The translation: an operationId is an action whose parent is its canonical operation (an action
// group). Allowed operations are permitted and forbidden ones forbidden, per group. An argument rule
// that replaces the operation makes the operationId its own action with one permit/forbid per choice.
// An argument rule that asks for an extra operation forbids the call when that operation is not
// allowed. Unknown or missing argument values are forbidden for everyone, and so is a merge of one's
// own pull request.
import type { ArgumentCondition, Scalar } from '../../src/policy/argument-match.js';
import type { OperationMap, OperationMapping } from '../../src/policy/operation-map.js';
import type { CompiledProfile } from '../../src/policy/profile.js';
import { contextKey, profileKey } from '../workload.js';

export type Condition =
  | { kind: 'equals'; key: string; value: Scalar }
  | { kind: 'present'; key: string }
  | { kind: 'oneOf'; key: string; values: Scalar[] }
  | { kind: 'not'; condition: Condition }
  /** The pull request author is the session login (resource author vs context login). */
  | { kind: 'selfAuthor' };

export type RuleTarget =
  { kind: 'groups'; names: string[] } | { kind: 'action'; operationId: string } | { kind: 'any' };

export interface Rule {
  effect: 'permit' | 'forbid';
  /** null: every principal. */
  principal: string | null;
  target: RuleTarget;
  /** All must hold. */
  when: Condition[];
}

export interface RuleSet {
  principal: string;
  rules: Rule[];
  /** operationId -> its canonical operation (action group); absent for operationIds that are their own action. */
  parents: Map<string, string>;
}

export function translateProfile(
  profile: CompiledProfile,
  map: OperationMap,
  mergeOperations: readonly string[],
): RuleSet {
  const principal = profileKey(profile);
  const effective = (op: string): boolean =>
    profile.brokenForbidden.length === 0 && profile.allowed.has(op) && !profile.forbidden.has(op);
  const rules: Rule[] = [];
  const parents = new Map<string, string>();
  const rule = (
    effect: Rule['effect'],
    target: RuleTarget,
    when: Condition[] = [],
    who: string | null = principal,
  ): void => {
    rules.push({ effect, principal: who, target, when });
  };
  if (profile.brokenForbidden.length > 0) rule('forbid', { kind: 'any' });
  rule('permit', { kind: 'groups', names: [...profile.allowed].sort() });
  if (profile.forbidden.size > 0) rule('forbid', { kind: 'groups', names: [...profile.forbidden].sort() });
  for (const mapping of map.byOperationId.values()) {
    const action: RuleTarget = { kind: 'action', operationId: mapping.operationId };
    const choices = primaryChoices(mapping);
    if (choices.length === 1) parents.set(mapping.operationId, mapping.operation);
    else {
      for (const choice of choices) {
        if (profile.allowed.has(choice.operation)) rule('permit', action, choice.when);
        if (profile.forbidden.has(choice.operation)) rule('forbid', action, choice.when);
        // An action with several primary operations has no parent group, so the self-merge forbid is its own.
        if (mergeOperations.includes(choice.operation))
          rule('forbid', action, [...choice.when, { kind: 'selfAuthor' }], null);
      }
    }
    for (const extra of mapping.rules)
      if (extra.also !== undefined && !effective(extra.also)) rule('forbid', action, [condition(extra.when)]);
    for (const known of mapping.known) {
      const key = contextKey(known.path);
      rule(
        'forbid',
        action,
        [
          { kind: 'present', key },
          { kind: 'not', condition: { kind: 'oneOf', key, values: known.values } },
        ],
        null,
      );
      if (known.required) rule('forbid', action, [{ kind: 'not', condition: { kind: 'present', key } }], null);
    }
  }
  for (const extra of map.globalRules)
    if (extra.also !== undefined && !effective(extra.also)) rule('forbid', { kind: 'any' }, [condition(extra.when)]);
  rule('forbid', { kind: 'groups', names: [...mergeOperations] }, [{ kind: 'selfAuthor' }], null);
  return { principal, rules, parents };
}

/** Which operation a call of this mapping needs first: the first matching replacing rule, else the default. */
function primaryChoices(mapping: OperationMapping): { operation: string; when: Condition[] }[] {
  const replacing = mapping.rules.filter((r) => r.operation !== undefined);
  if (replacing.length === 0) return [{ operation: mapping.operation, when: [] }];
  const earlierFailed = (index: number): Condition[] =>
    replacing.slice(0, index).map((r) => ({ kind: 'not', condition: condition(r.when) }));
  return [
    ...replacing.map((r, index) => ({
      operation: r.operation as string,
      when: [...earlierFailed(index), condition(r.when)],
    })),
    { operation: mapping.operation, when: earlierFailed(replacing.length) },
  ];
}

function condition(when: ArgumentCondition): Condition {
  const key = contextKey(when.path);
  if (when.present !== undefined)
    return when.present ? { kind: 'present', key } : { kind: 'not', condition: { kind: 'present', key } };
  return { kind: 'equals', key, value: when.equals as Scalar };
}
