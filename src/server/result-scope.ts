// Results pass back through the policy layer: a repository listing (policies/targets.yaml
// result_filters) is cut down to the profile's repositories.read scope, so an agent never sees a
// repository it may not touch. A listing that cannot be filtered is withheld, never passed whole.
import type { ExecutionResult, SuccessPayload } from '../gitea/envelope.js';
import { filterRepositoryListing } from '../policy/scope-views.js';
import type { CallToolResult } from './sdk.js';
import type { Session } from './session.js';
import { refusal } from './tool-result.js';

export type ScopedResult =
  | { withheld: false; executed: ExecutionResult }
  | { withheld: true; result: CallToolResult; reason: string; httpStatus: number };

/** The executed result as the profile may see it; errors and unscoped profiles pass unchanged. */
export function applyResultScope(session: Session, operationId: string, executed: ExecutionResult): ScopedResult {
  if (executed.isError) return { withheld: false, executed };
  const { payload } = executed;
  const filtered = filterRepositoryListing(session.profile, operationId, payload.data, session.policy.repositoryListings);
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
    scope_filtered: `${filtered.removed} repositories outside this profile's scope were removed`,
    data: filtered.data,
  };
  return { withheld: false, executed: { isError: false, payload: scoped } };
}
