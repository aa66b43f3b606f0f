// Cedar (the Rust authorizer compiled to WebAssembly) given the same rules as Cedar policy text: one
// preparsed policy set per profile, asked through statefulIsAuthorized. Arguments travel as context,
// the pull request author as a resource attribute, the session login as context.
import {
  preparsePolicySet,
  statefulIsAuthorized,
  type EntityJson,
  type StatefulAuthorizationCall,
} from '@cedar-policy/cedar-wasm/nodejs';
import type { Scalar } from '../../src/policy/argument-match.js';
import { flatContext, mergeOperations, profileKey, type BenchRequest, type Workload } from '../workload.js';
import type { Engine } from './engine.js';
import { translateProfile, type Condition, type Rule, type RuleSet } from './rules.js';

export function createCedarEngine(workload: Workload): Engine {
  const ruleSets = new Map(
    workload.profiles.map((profile) => [
      profileKey(profile),
      translateProfile(profile, workload.operationMap, mergeOperations(workload)),
    ]),
  );
  for (const [key, ruleSet] of ruleSets) {
    const answer = preparsePolicySet(policySetId(key), { staticPolicies: cedarPolicyText(ruleSet) });
    if (answer.type !== 'success')
      throw new Error(`Cedar rejected the policies of ${key}: ${answer.errors.map((e) => e.message).join('; ')}`);
  }
  return {
    name: 'Cedar (wasm, preparsed)',
    prepare(request: BenchRequest) {
      const key = profileKey(request.profile);
      const call = cedarCall(request, ruleSets.get(key) as RuleSet, workload.argumentPaths);
      return () => {
        const answer = statefulIsAuthorized(call);
        if (answer.type !== 'success')
          throw new Error(`Cedar failed: ${answer.errors.map((e) => e.message).join('; ')}`);
        return answer.response.decision === 'allow';
      };
    },
  };
}

function policySetId(key: string): string {
  return `bench-${key}`;
}

function cedarCall(
  { profile, call, facts }: BenchRequest,
  ruleSet: RuleSet,
  paths: readonly string[],
): StatefulAuthorizationCall {
  const parent = ruleSet.parents.get(call.operationId);
  const action = { type: 'Action', id: call.operationId };
  const resource = facts ? { type: 'PullRequest', id: 'acme/widgets#7' } : { type: 'Repository', id: 'acme/widgets' };
  const entities: EntityJson[] = [
    { uid: action, attrs: {}, parents: parent ? [{ type: 'Action', id: parent }] : [] },
    { uid: resource, attrs: facts ? { author: facts.author } : {}, parents: [] },
  ];
  return {
    principal: { type: 'Profile', id: profileKey(profile) },
    action,
    resource,
    context: { ...flatContext(call.arguments, paths), ...(facts ? { login: facts.login } : {}) },
    preparsedPolicySetId: policySetId(profileKey(profile)),
    entities,
  };
}

export function cedarPolicyText(ruleSet: RuleSet): string {
  return ruleSet.rules
    .flatMap((rule) => {
      const action = cedarAction(rule);
      if (action === null) return [];
      const principal =
        rule.principal === null ? 'principal' : `principal == Profile::${JSON.stringify(rule.principal)}`;
      const when = rule.when.length === 0 ? '' : ` when { ${rule.when.map(cedarCondition).join(' && ')} }`;
      return [`${rule.effect}(${principal}, ${action}, resource)${when};`];
    })
    .join('\n');
}

function cedarAction(rule: Rule): string | null {
  const target = rule.target;
  if (target.kind === 'any') return 'action';
  if (target.kind === 'action') return `action == Action::${JSON.stringify(target.operationId)}`;
  if (target.names.length === 0) return null;
  return `action in [${target.names.map((name) => `Action::${JSON.stringify(name)}`).join(', ')}]`;
}

function cedarCondition(condition: Condition): string {
  switch (condition.kind) {
    case 'equals':
      return `(context has ${condition.key} && context.${condition.key} == ${literal(condition.value)})`;
    case 'present':
      return `context has ${condition.key}`;
    case 'oneOf':
      return `(context has ${condition.key} && (${condition.values.map((v) => `context.${condition.key} == ${literal(v)}`).join(' || ')}))`;
    case 'not':
      return `!(${cedarCondition(condition.condition)})`;
    case 'selfAuthor':
      return '(resource has author && context has login && resource.author == context.login)';
  }
}

function literal(value: Scalar): string {
  return JSON.stringify(value);
}
