// The identity stage of a call: a profile without its token is refused every call; a mutation runs
// only under the verified identity (checked again if it could not be checked before); reads do not
// need it. An operation the vocabulary does not know counts as a mutation.
import type { Decision } from '../../policy/decision.js';
import { tokenVariableOf } from '../../policy/profile.js';
import type { ReasonCode } from '../../policy/reasons.js';
import type { CallRecord } from './call-audit.js';
import { deniedRecord, type Outcome } from './outcome.js';
import type { Session } from '../session.js';
import { refusal } from './tool-result.js';

/** The refusal when the profile has no token (every call), or the decision mutates and the identity is not verified; null when the call may go on. */
export async function identityRefusal(
  session: Session,
  decision: Decision,
  target: CallRecord['target'],
): Promise<Outcome | null> {
  const tokenVariable = tokenVariableOf(session.profile);
  // One token source per profile: without it a read would go out anonymously, another identity.
  if (!session.client)
    return refused(
      decision,
      target,
      'token_missing',
      `${tokenVariable} is not set, so profile ${session.profile.name} has no Gitea token; every Gitea call is refused.`,
      `Set ${tokenVariable} to the token of ${session.profile.data.authenticated_username ?? 'the profile user'} and restart; no other variable is read.`,
    );
  if (!isMutating(session, decision)) return null;
  const status = await session.identity.ensure();
  if (status.state === 'verified') return null;
  const [reason, message, hint]: [ReasonCode, string, string] =
    status.state === 'mismatch'
      ? [
          'identity_mismatch',
          `The token belongs to ${status.login}, but profile ${session.profile.name} ` +
            `is for ${status.expected ?? 'an unnamed user'}; mutating calls are refused.`,
          `The namespace's operator must give it the token of ${status.expected ?? 'the profile user'} (env ${tokenVariable}).`,
        ]
      : status.cause === 'token_scope'
        ? [
            'token_scope_missing',
            `${status.detail} Mutating calls are refused until GET /user confirms the profile's user.`,
            `Give the token in ${tokenVariable} the read:user scope as well as the scopes of its operations (README: token scopes per profile).`,
          ]
        : [
            'identity_unverified',
            `${status.detail} Mutating calls are refused until GET /user confirms the profile's user.`,
            `Set ${tokenVariable} to a valid token and check GITEA_URL.`,
          ];
  return refused(decision, target, reason, message, hint);
}

function refused(
  decision: Decision,
  target: CallRecord['target'],
  reason: ReasonCode,
  message: string,
  hint: string,
): Outcome {
  return {
    result: refusal(reason, message, { operation: decision.operation, operations: decision.operations, hint }),
    record: deniedRecord(decision.operation, reason, target),
  };
}

function isMutating(session: Session, decision: Decision): boolean {
  return decision.operations.some((op) => session.policy.vocabulary.operations.get(op)?.risk !== 'read');
}
