// casbin given the same rules as policy lines of a deny-override model: one enforcer per profile,
// operationIds grouped under their canonical operation with g, argument conditions as eval()'d
// expressions over a flat context (arguments, session login, pull request author).
import { newEnforcer, newModelFromString, type Enforcer } from 'casbin';
import type { Scalar } from '../../src/policy/argument-match.js';
import { flatContext, mergeOperations, profileKey, type BenchRequest, type Workload } from '../workload.js';
import type { Engine } from './engine.js';
import { translateProfile, type Condition, type RuleSet } from './rules.js';

export const CASBIN_MODEL = `
[request_definition]
r = sub, act, ctx

[policy_definition]
p = sub, act, cond, eft

[role_definition]
g = _, _

[policy_effect]
e = some(where (p.eft == allow)) && !some(where (p.eft == deny))

[matchers]
m = (p.sub == "*" || r.sub == p.sub) && (p.act == "*" || g(r.act, p.act)) && eval(p.cond)
`;

export async function createCasbinEngine(workload: Workload): Promise<Engine> {
  const enforcers = new Map<string, Enforcer>();
  for (const profile of workload.profiles) {
    enforcers.set(
      profileKey(profile),
      await casbinEnforcer(translateProfile(profile, workload.operationMap, mergeOperations(workload))),
    );
  }
  return {
    name: 'casbin (deny-override)',
    prepare({ profile, call, facts }: BenchRequest) {
      const enforcer = enforcers.get(profileKey(profile)) as Enforcer;
      const sub = profileKey(profile);
      const context = {
        ...flatContext(call.arguments, workload.argumentPaths),
        ...(facts ? { login: facts.login, author: facts.author } : {}),
      };
      return () => enforcer.enforceSync(sub, call.operationId, context);
    },
  };
}

export async function casbinEnforcer(ruleSet: RuleSet): Promise<Enforcer> {
  const enforcer = await newEnforcer(newModelFromString(CASBIN_MODEL));
  await enforcer.addPolicies(casbinPolicies(ruleSet));
  await enforcer.addGroupingPolicies([...ruleSet.parents].map(([operationId, group]) => [operationId, group]));
  return enforcer;
}

export function casbinPolicies(ruleSet: RuleSet): string[][] {
  return ruleSet.rules.flatMap((rule) => {
    const sub = rule.principal ?? '*';
    const eft = rule.effect === 'permit' ? 'allow' : 'deny';
    const cond = rule.when.length === 0 ? 'true' : rule.when.map(casbinCondition).join(' && ');
    const acts =
      rule.target.kind === 'any'
        ? ['*']
        : rule.target.kind === 'action'
          ? [rule.target.operationId]
          : rule.target.names;
    return acts.map((act) => [sub, act, cond, eft]);
  });
}

function casbinCondition(condition: Condition): string {
  switch (condition.kind) {
    case 'equals':
      return `r_ctx.${condition.key} === ${literal(condition.value)}`;
    case 'present':
      return `r_ctx.${condition.key} !== undefined`;
    case 'oneOf':
      return `(${condition.values.map((v) => `r_ctx.${condition.key} === ${literal(v)}`).join(' || ')})`;
    case 'not':
      return `!(${casbinCondition(condition.condition)})`;
    case 'selfAuthor':
      return '(r_ctx.author !== undefined && r_ctx.author === r_ctx.login)';
  }
}

function literal(value: Scalar): string {
  return typeof value === 'string' ? `'${value.replaceAll("'", "\\'")}'` : String(value);
}
