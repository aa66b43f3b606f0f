// The ConditionChecks decide() runs after the operation lists allowed a request: resource scopes and
// argument conditions. Both read the call (operationId + validated arguments); a request without a
// call must state its targets (`{}` for none) or a scoped profile denies it.
import type { ConditionCheck, DecideContext } from './decide.js';
import type { GuardedOnly } from './guards/guard-settings.js';
import type { HolderIndex } from './hints.js';
import type { FailedCondition } from './decision.js';
import { checkConditions, type ConditionSet } from './conditions.js';
import { accessOf, checkScopes, type CompiledScopes, type ScopePolicy } from './scopes.js';
import { readTargets, suppliedTargets, withSupplied, type TargetMap } from './targets.js';
import type { Vocabulary } from './vocabulary.js';
import { sudoFailures, type SudoRule } from './guards/sudo.js';

/** What the checks need from the loaded policies (a PolicySet fits). */
export interface CheckPolicy {
  vocabulary: Vocabulary;
  targets: TargetMap;
  scopePolicy: ScopePolicy;
  conditions: ConditionSet;
  sudoRule: SudoRule;
}

export function scopeChecks(policy: CheckPolicy): ConditionCheck[] {
  return [
    (profile, request, operations) => {
      const supplied = suppliedTargets(request.targets);
      if (!request.call) {
        if (supplied)
          return checkScopes(
            profile,
            supplied,
            operations,
            accessOf(operations, policy.vocabulary),
            policy.scopePolicy,
          );
        return hasScopes(profile.scopes) ? [noTargets()] : [];
      }
      const read = readTargets(policy.targets.byOperationId.get(request.call.operationId), request.call.arguments);
      return checkScopes(
        profile,
        withSupplied(read, supplied),
        operations,
        accessOf(operations, policy.vocabulary),
        policy.scopePolicy,
        request.liveBranches,
      );
    },
  ];
}

export function conditionChecks(policy: CheckPolicy): ConditionCheck[] {
  return [
    (profile, request) =>
      request.call
        ? checkConditions(policy.conditions, request.call.operationId, request.call.arguments, profile.scopes)
        : [],
  ];
}

/** Sudo never makes two people: a mutation under sudo is refused unless guards.yaml lists it. */
export function sudoChecks(policy: CheckPolicy): ConditionCheck[] {
  return [(_profile, _request, operations) => sudoFailures(operations, policy.vocabulary, policy.sudoRule)];
}

/** Every check the policies define, in order: sudo, scopes, then conditions. */
export function policyChecks(policy: CheckPolicy): ConditionCheck[] {
  return [...sudoChecks(policy), ...scopeChecks(policy), ...conditionChecks(policy)];
}

function hasScopes(scopes: CompiledScopes): boolean {
  return (
    scopes.repositories.read !== null ||
    scopes.repositories.write !== null ||
    scopes.branches.size > 0 ||
    scopes.brokenBranchKeys.length > 0 ||
    Object.values(scopes.paths).some((side) => side.allow !== null || side.deny !== null)
  );
}

function noTargets(): FailedCondition {
  return {
    code: 'target_unreadable',
    message:
      'this request names no call and no targets, and the profile has resource scopes; decide a call (operationId + arguments) or state its targets',
  };
}

/** The one decide() context the server and the policy commands build: vocabulary, hint holders, every check, guarded-only operations. */
export function decideContextFor(
  policy: CheckPolicy,
  extras: { holders?: HolderIndex | undefined; guardedOnly?: GuardedOnly | undefined },
): DecideContext {
  return {
    vocabulary: policy.vocabulary,
    checks: policyChecks(policy),
    ...(extras.holders ? { holders: extras.holders } : {}),
    ...(extras.guardedOnly ? { guardedOnly: extras.guardedOnly } : {}),
  };
}
