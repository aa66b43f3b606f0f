// Results pass back through the policy layer: the result of an operation that can reach repositories
// it does not name (policies/targets.yaml unnamed_repositories.filtered) is cut down to the profile's
// repositories.read scope, so an agent never sees a repository it may not touch. The pagination says
// how many items were removed, so a short page is not read as the end of the list. A result that
// cannot be filtered is withheld, never passed whole. Objects of other repositories nested in the
// answer of an operation that names its own (nested_repositories) are reduced to null, and said so.
import type { ExecutionResult, SuccessPayload } from '../../gitea/envelope.js';
import { filterToReadScope, reduceNested } from '../../policy/scope-views.js';
import type { CallToolResult } from '../sdk.js';
import type { Session } from '../session.js';
import type { ReasonCode } from '../../policy/reasons.js';
import { refusal } from './tool-result.js';

export type ScopedResult =
  | { withheld: false; executed: ExecutionResult }
  | { withheld: true; result: CallToolResult; reason: ReasonCode; httpStatus: number };

/** The executed result as the profile may see it; errors, other operations and unscoped profiles pass unchanged. */
export function applyResultScope(session: Session, operationId: string, executed: ExecutionResult): ScopedResult {
  const nested = session.policy.nestedRepositories.get(operationId);
  if (!executed.isError && nested) return reduceNestedObjects(session, nested, executed.payload);
  if (executed.isError || !session.policy.scopeFiltered.has(operationId)) return { withheld: false, executed };
  const { payload } = executed;
  const filtered = filterToReadScope(session.profile, operationId, payload.data);
  if (!filtered.ok) {
    const result = refusal('result_withheld', `Withheld by policy: ${filtered.message}.`, {
      reason: filtered.code,
      hint: `Check repositories in ${session.profile.file} with gitea-warden check.`,
    });
    return { withheld: true, result, reason: filtered.code, httpStatus: payload.status };
  }
  if (filtered.removed === 0) return { withheld: false, executed };
  const scoped: SuccessPayload & { scope_filtered: string } = {
    ...payload,
    pagination: payload.pagination ? { ...payload.pagination, removed_by_scope: filtered.removed } : null,
    scope_filtered: `${filtered.removed} items outside this profile's repository scope were removed from this page; more may follow on the next page`,
    data: filtered.data,
  };
  return { withheld: false, executed: { isError: false, payload: scoped } };
}

function reduceNestedObjects(
  session: Session,
  rules: Parameters<typeof reduceNested>[1],
  payload: SuccessPayload,
): ScopedResult {
  const reduced = reduceNested(session.profile, rules, payload.data);
  if (!reduced.ok) {
    const result = refusal('result_withheld', `Withheld by policy: ${reduced.message}.`, {
      reason: reduced.code,
      hint: `Check repositories in ${session.profile.file} with gitea-warden check.`,
    });
    return { withheld: true, result, reason: reduced.code, httpStatus: payload.status };
  }
  if (reduced.reduced.length === 0) return { withheld: false, executed: { isError: false, payload } };
  const scoped: SuccessPayload & { scope_reduced: string } = {
    ...payload,
    scope_reduced: `objects of repositories outside this profile's repository scope were set to null: ${reduced.reduced.join(', ')}`,
    data: reduced.data,
  };
  return { withheld: false, executed: { isError: false, payload: scoped } };
}
