// The one place that builds decide()'s context for this server: vocabulary, hint holders and the
// condition checks. Resource-scope checks (and any later check) are added here, and only here.
import type { PolicySet } from '../config/policies.js';
import { policyChecks } from '../policy/checks.js';
import type { DecideContext } from '../policy/decide.js';
import type { HolderIndex } from '../policy/hints.js';

export function decideContextFor(policy: PolicySet, holders: HolderIndex | undefined): DecideContext {
  return { vocabulary: policy.vocabulary, ...(holders ? { holders } : {}), checks: policyChecks(policy) };
}
