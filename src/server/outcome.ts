// What a pipeline step hands back when it ends the call: the tool result and the record its result
// audit event is written from. The server's own refusals (before or instead of Gitea) are built here.
import { relative } from 'node:path';
import type { JsonSchema } from '../catalog/types.js';
import { validationErrors } from '../shared/document.js';
import { packageRoot } from '../shared/paths.js';
import type { Decision } from '../policy/decision.js';
import type { CallRecord } from './call-audit.js';
import type { CallToolResult } from './sdk.js';
import { refusal, toolResult } from './tool-result.js';

export interface Outcome {
  result: CallToolResult;
  record: CallRecord;
}

/** The refusal of a denied decision: reason, operations, the determining entry (file:line) and the hint. */
export function denied(decision: Decision, target: CallRecord['target']): Outcome {
  const { file, line, rule } = decision.determining;
  const shown = file.startsWith('<') ? file : relative(packageRoot, file);
  const result = refusal('policy_denied', `Denied by policy: ${decision.reason}.`, {
    reason: decision.reason,
    operation: decision.operation,
    operations: decision.operations,
    determining: { file: shown, line, rule, entry: line === null ? shown : `${shown}:${line}` },
    failed: decision.failed,
    hint: decision.hint ?? null,
  });
  return { result, record: { operation: decision.operation, decision: 'deny', reason: decision.reason, target, status: 'denied', httpStatus: null } };
}

/** Schema errors as JSON paths and messages; never the offending value. */
export function invalidArguments(schema: JsonSchema, args: unknown, target: CallRecord['target']): Outcome | null {
  const errors = validationErrors(schema, args);
  if (errors.length === 0) return null;
  const result = toolResult({ error: { kind: 'invalid_arguments', message: 'The arguments do not match the tool input schema.', errors }, request: null }, true);
  return { result, record: errorRecord('invalid_arguments', target) };
}

export function invalidShape(args: unknown): Outcome {
  const errors = [{ path: '/', message: `must be object, not ${Array.isArray(args) ? 'array' : typeof args}` }];
  return { result: toolResult({ error: { kind: 'invalid_arguments', message: 'The arguments must be an object.', errors }, request: null }, true), record: errorRecord('invalid_arguments', null) };
}

export function auditUnavailable(operation: string | null, target: CallRecord['target']): Outcome {
  const result = refusal('audit_unavailable', 'The audit log cannot be written, so no call is carried out.', {
    hint: 'Check AUDIT_LOG: the file and its directory must be writable; see the server log, then restart.',
  });
  return { result, record: { ...errorRecord('audit_unavailable', target), operation } };
}

export function errorRecord(reason: string, target: CallRecord['target']): CallRecord {
  return { operation: null, decision: null, reason, target, status: 'error', httpStatus: null };
}
