// tools/call, in this order: look the tool up (filters applied), validate the arguments, map to
// canonical operations, write the write-ahead audit event, decide against the profile, check the
// identity for mutations, run the live-fact guards, execute, write the result event. Built-in tools
// that reach Gitea (gitea_api_request) hand their call back into the same steps.
import { relative } from 'node:path';
import type { CatalogEntry } from '../catalog/types.js';
import { validationErrors } from '../config/document.js';
import { packageRoot } from '../config/paths.js';
import { execute } from '../gitea/executor.js';
import type { ReconcileReport } from '../gitea/reconcile.js';
import { HttpGiteaWriter } from '../gitea/writer.js';
import { gatherCallFacts } from '../gitea/facts.js';
import type { FactReader } from '../gitea/types.js';
import { decide, decideMappedCall, deny } from '../policy/decide.js';
import type { Decision } from '../policy/decision.js';
import { callGuardsFor, judgeCall } from '../policy/guards/call-guards.js';
import { mergeSettingsFor } from '../policy/guards/settings.js';
import { applyGuardVerdict } from '../policy/guards/verdict.js';
import { mapCall } from '../policy/operation-map.js';
import type { BuiltinOutcome, BuiltinTool } from './builtin/types.js';
import { CallAudit, isObject, targetOf, type CallRecord } from './call-audit.js';
import { liveMergeTargets } from './live-targets.js';
import { applyResultScope } from './result-scope.js';
import { ErrorCode, McpError, type CallToolResult } from './sdk.js';
import type { Session } from './session.js';
import { refusal, toolResult } from './tool-result.js';
import type { JsonSchema } from '../catalog/types.js';

type GuardedAction = Extract<BuiltinOutcome, { kind: 'guarded_action' }>;

interface Outcome {
  result: CallToolResult;
  record: CallRecord;
}

const INTERNAL_ERROR = 'The server failed unexpectedly while handling this call; it may not have reached Gitea. See the server log.';

/** Handles one tools/call; an unknown tool is a protocol error (McpError InvalidParams), audited all the same. */
export async function handleToolCall(session: Session, name: string, args: unknown): Promise<CallToolResult> {
  const audit = new CallAudit(session, name, args);
  let outcome: Outcome | 'unknown_tool';
  try {
    outcome = await runTool(session, name, args ?? {}, audit);
  } catch (error) {
    // The error's name only: a message may quote arguments or Gitea's answer.
    session.logger.error({ tool: name, call_id: audit.callId, error: error instanceof Error ? error.name : 'non-error' }, 'tool call failed unexpectedly');
    outcome = { result: refusal('internal_error', INTERNAL_ERROR), record: errorRecord('internal_error', targetOf(args)) };
  }
  if (outcome === 'unknown_tool') {
    await audit.result(errorRecord('unknown_tool', null));
    throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
  }
  await audit.result(outcome.record);
  return outcome.result;
}

async function runTool(session: Session, name: string, args: unknown, audit: CallAudit): Promise<Outcome | 'unknown_tool'> {
  const tool = session.registry.get(name);
  if (!tool) return 'unknown_tool';
  const invalid = invalidArguments(tool.definition.inputSchema, args, targetOf(args));
  if (invalid || !isObject(args)) return invalid ?? invalidShape(args);
  if (tool.kind === 'gitea') return runGiteaCall(session, tool.entry, args, audit);
  const target = targetOf(args);
  if (!(await audit.writeAhead(tool.tool.operations[0] ?? null, target))) return auditUnavailable(null, target);
  const answer = await tool.tool.handler(args, session);
  if (answer.kind === 'guarded_action') return runGuardedAction(session, tool.tool, answer, target);
  if (answer.kind === 'gitea_call') {
    // The reconstructed arguments must pass the generated tool's own schema.
    return invalidArguments(answer.entry.inputSchema, answer.args, targetOf(answer.args)) ?? runGiteaCall(session, answer.entry, answer.args, audit);
  }
  const { audit: a } = answer;
  const record: CallRecord = {
    operation: a.operation,
    decision: a.decision,
    reason: a.reason,
    target: a.target ?? target,
    status: answer.isError ? (a.decision === 'deny' ? 'denied' : 'error') : 'ok',
    httpStatus: a.httpStatus ?? null,
  };
  return { result: toolResult(answer.payload, answer.isError), record };
}

/** Steps 3 to 7 for one Gitea operation with schema-valid arguments. */
async function runGiteaCall(session: Session, entry: CatalogEntry, args: Record<string, unknown>, audit: CallAudit): Promise<Outcome> {
  const target = targetOf(args);
  const mapped = mapCall(session.policy.operationMap, entry.operationId, args);
  const operation = mapped.ok ? (mapped.operations[0] ?? null) : null;
  if (!(await audit.writeAhead(operation, target))) return auditUnavailable(operation, target);
  const live = mapped.ok ? await liveMergeTargets(session, mapped.operations, args) : null;
  const call = { operationId: entry.operationId, arguments: args, ...(live ? { targets: live } : {}) };
  let decision = decideMappedCall(session.profile, call, mapped, session.policy.operationMap, session.decideContext);
  if (decision.decision === 'deny') return denied(decision, target);
  const identityRefusal = await checkIdentity(session, decision, target);
  if (identityRefusal) return identityRefusal;
  decision = await applyGuards(session, decision, args);
  if (decision.decision === 'deny') return denied(decision, target);
  const scoped = applyResultScope(session, entry.operationId, await execute(entry, args, { identity: session.gitea, login: session.identity.login() }, session.executorOptions));
  if (scoped.withheld) return { result: scoped.result, record: { operation: decision.operation, decision: 'deny', reason: scoped.reason, target, status: 'denied', httpStatus: scoped.httpStatus } };
  const { executed } = scoped;
  const httpStatus = executed.isError ? executed.payload.error.status : executed.payload.status;
  const record: CallRecord = { operation: decision.operation, decision: 'allow', reason: decision.reason, target, status: executed.isError ? 'error' : 'ok', httpStatus };
  return { result: toolResult(executed.payload, executed.isError), record };
}

/** A guarded built-in write: role, decision and identity as for any call, then the action judges live facts itself. */
async function runGuardedAction(session: Session, tool: BuiltinTool, action: GuardedAction, target: CallRecord['target']): Promise<Outcome> {
  const decision = tool.role !== undefined && session.profile.role !== tool.role
    ? deny(action.operations[0] ?? null, [...action.operations], 'role_mismatch', { file: session.profile.file, line: null, rule: `role: ${session.profile.role ?? 'none'}` },
      `${tool.name} is ${tool.role} work; use the gitea-${tool.role} namespace.`)
    : decide(session.profile, { operations: [...action.operations], targets: action.targets }, session.decideContext);
  if (decision.decision === 'deny') return denied(decision, target);
  const identityRefusal = await checkIdentity(session, decision, target);
  if (identityRefusal) return identityRefusal;
  if (!session.client) return denied(deny(decision.operation, decision.operations, 'identity_unverified', decision.determining, 'Configure the profile token.'), target);
  const report = await action.act({ reader: session.client, writer: new HttpGiteaWriter(session.client) });
  const record = (status: CallRecord['status'], reason: string, effect: 'allow' | 'deny'): CallRecord =>
    ({ operation: decision.operation, decision: effect, reason, target, status, httpStatus: null, evidence: auditEvidence(report) });
  if (report.action === 'refused') {
    const refused = denied(applyGuardVerdict(decision, { guard: action.guard, checks: report.checks }), target);
    const payload = { ...(refused.result.structuredContent as Record<string, unknown>) };
    payload.error = { ...(payload.error as Record<string, unknown>), report };
    return { result: toolResult(payload, true), record: record('denied', refused.record.reason ?? 'refused', 'deny') };
  }
  if (report.action === 'failed') {
    const error = { kind: 'action_failed', message: report.failure ?? 'The Gitea write failed.', report, hint: 'Every check passed but Gitea refused the write; see the report and retry.' };
    return { result: toolResult({ error, request: null }, true), record: record('error', 'action_failed', 'allow') };
  }
  return { result: toolResult({ action: report.action, checks: report.checks, evidence: report.evidence }, false), record: record('ok', report.action, 'allow') };
}

/** The report's evidence for the audit event: SHAs, refs, numbers and the codes of failed checks; nothing secret. */
function auditEvidence(report: ReconcileReport): Record<string, string | number | boolean | null> {
  const failed = report.checks.filter((c) => !c.passed).map((c) => c.code);
  return { ...report.evidence, action: report.action, failed_checks: failed.join(',') };
}

/** Mutations need the verified identity (checked again if it could not be checked before); reads do not. */
async function checkIdentity(session: Session, decision: Decision, target: CallRecord['target']): Promise<Outcome | null> {
  if (!isMutating(session, decision)) return null;
  const status = await session.identity.ensure();
  if (status.state === 'verified') return null;
  const [reason, message] =
    status.state === 'mismatch'
      ? ['identity_mismatch', `The token belongs to ${status.login}, but profile ${session.profile.name} is for ${status.expected ?? 'an unnamed user'}; mutating calls are refused.`]
      : ['identity_unverified', `${status.detail} Mutating calls are refused until GET /user confirms the profile's user.`];
  const hint = status.state === 'mismatch'
    ? `Give this namespace the token of ${status.expected ?? 'the profile user'} (env ${session.profile.data.token_source_name ?? 'GITEA_TOKEN'}), or fix authenticated_username.`
    : `Set ${session.profile.data.token_source_name ?? 'GITEA_TOKEN'} to a valid token and check GITEA_URL.`;
  return {
    result: refusal(reason, message, { operation: decision.operation, operations: decision.operations, hint }),
    record: { operation: decision.operation, decision: 'deny', reason, target, status: 'denied', httpStatus: null },
  };
}

function isMutating(session: Session, decision: Decision): boolean {
  return decision.operations.some((op) => session.policy.vocabulary.operations.get(op)?.risk !== 'read');
}

/** The live-fact guards the decision's operations need, judged over facts read now; a passed decision may become a denial. */
async function applyGuards(session: Session, decision: Decision, args: Record<string, unknown>): Promise<Decision> {
  const guards = callGuardsFor(decision.operations);
  if (guards.length === 0) return decision;
  // Without a token every fact is missing, which the guards judge as a denial.
  const reader: FactReader = session.client ?? { get: () => Promise.reject(new Error('no Gitea token')) };
  const body = isObject(args.body) ? args.body : {};
  const sudo = typeof args.sudo === 'string' && args.sudo !== '' ? args.sudo : null;
  const facts = await gatherCallFacts(
    reader,
    guards,
    {
      owner: String(args.owner ?? ''),
      repo: String(args.repo ?? ''),
      index: typeof args.index === 'number' ? args.index : null,
      identity: sudo ?? session.identity.login(),
      expectedHeadSha: stringOrNull(body.head_commit_id) ?? stringOrNull(body.commit_id),
    },
    session.guards.facts,
  );
  return applyGuardVerdict(decision, judgeCall(guards, facts, mergeSettingsFor(session.guards, session.profile.name ?? '')));
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** The refusal of a denied decision: reason, operations, the determining entry (file:line) and the hint. */
function denied(decision: Decision, target: CallRecord['target']): Outcome {
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
function invalidArguments(schema: JsonSchema, args: unknown, target: CallRecord['target']): Outcome | null {
  const errors = validationErrors(schema, args);
  if (errors.length === 0) return null;
  const result = toolResult({ error: { kind: 'invalid_arguments', message: 'The arguments do not match the tool input schema.', errors }, request: null }, true);
  return { result, record: { ...errorRecord('invalid_arguments', target) } };
}

function invalidShape(args: unknown): Outcome {
  const errors = [{ path: '/', message: `must be object, not ${Array.isArray(args) ? 'array' : typeof args}` }];
  return { result: toolResult({ error: { kind: 'invalid_arguments', message: 'The arguments must be an object.', errors }, request: null }, true), record: errorRecord('invalid_arguments', null) };
}

function auditUnavailable(operation: string | null, target: CallRecord['target']): Outcome {
  const result = refusal('audit_unavailable', 'The audit log cannot be written, so no call is carried out.', {
    hint: 'Check AUDIT_LOG: the file and its directory must be writable; see the server log, then restart.',
  });
  return { result, record: { ...errorRecord('audit_unavailable', target), operation } };
}

function errorRecord(reason: string, target: CallRecord['target']): CallRecord {
  return { operation: null, decision: null, reason, target, status: 'error', httpStatus: null };
}
