// What a pipeline step hands back when it ends the call: the tool result and the record its result
// audit event is written from. The server's own refusals (before or instead of Gitea) are built here.
import { shownPath } from '../../shared/paths.js';
import { withShownFiles, type Decision } from '../../policy/decision.js';
import type { ReasonCode } from '../../policy/reasons.js';
import type { CallRecord } from './call-audit.js';
import type { CallToolResult } from '../sdk.js';
import type { InputAsk } from '../confirm/round.js';
import { refusal } from './tool-result.js';

export interface Outcome {
  result: CallToolResult;
  record: CallRecord;
  /**
   * The call waits for a person (the confirm stage): the transport returns this instead of `result`,
   * which says what a client that cannot ask would be told.
   */
  ask?: InputAsk;
}

/** The refusal of a denied decision: reason, operations, the determining entry (file:line) and the hint. */
export function denied(decision: Decision, target: CallRecord['target']): Outcome {
  const shownDecision = withShownFiles(decision, shownPath);
  const { file: shown, line, rule } = shownDecision.determining;
  const result = refusal('policy_denied', `Denied by policy: ${decision.reason}.`, {
    reason: decision.reason,
    operation: decision.operation,
    operations: decision.operations,
    determining: { file: shown, line, rule, entry: line === null ? shown : `${shown}:${line}` },
    failed: shownDecision.failed,
    hint: shownDecision.hint ?? null,
  });
  return { result, record: deniedRecord(decision.operation, decision.reason, target) };
}

/** `hint`: the audit sink's cause and fix (a path and an error code, nothing secret). */
export function auditUnavailable(operation: string | null, target: CallRecord['target'], hint: string): Outcome {
  const result = refusal('audit_unavailable', 'The audit log cannot be written, so no call is carried out.', { hint });
  return { result, record: { ...errorRecord('audit_unavailable', target), operation } };
}

/** The result record of every denial: by policy, identity, a guard, a withheld result or a built-in tool. */
export function deniedRecord(
  operation: string | null,
  reason: ReasonCode | null,
  target: CallRecord['target'],
  httpStatus: number | null = null,
): CallRecord {
  return { operation, decision: 'deny', reason, target, status: 'denied', httpStatus };
}

export function errorRecord(reason: ReasonCode, target: CallRecord['target']): CallRecord {
  return { operation: null, decision: null, reason, target, status: 'error', httpStatus: null };
}
