// tools/call, stage by stage, in the order CALL_STAGES lists them (a test keeps this list equal to it):
//   1 look-up      the tool by name, the namespace's filters applied     ../tool-registry.ts
//   2 validate     the arguments against the tool's input schema         validate.ts
//   3 context      what the call names and its live reads, made once     context.ts
//   4 map          the canonical operations of the operationId and args  ../../policy/operation-map.ts
//   5 write-ahead  the audit event before anything reaches Gitea         audit.ts
//   6 decide       the profile's lists, scopes and conditions            ../../policy/decide.ts
//   7 identity     a mutation runs only under the verified identity      identity-gate.ts
//   8 live         operations and branch targets only Gitea can tell     live.ts
//   9 guards       self-review and merge guards over live facts          live-guards.ts
//  10 taint        after untrusted content, writes stay where it was     integrity.ts
//  11 execute      the Gitea request, bounded and redacted               ../../gitea/executor.ts
//  12 scope        the result cut down to the profile's repositories     result-scope.ts
//  13 label        who wrote each item; below the floor held back        integrity.ts
//  14 result       the audit event of the outcome                        audit.ts
// Built-in tools run stages 1 to 3 and 5, then answer themselves, hand a Gitea call back into stages
// 2 to 14 (gitea_api_request), or run a guarded write (guarded-action.ts). gitea_call_operation names
// its call before stage 5, so the handed-back call writes its own write-ahead event. A call takes the
// namespace's session once, at its start, and keeps it.
import type { CatalogEntry } from '../../catalog/types.js';
import { execute } from '../../gitea/executor.js';
import type { AuditIntegrity } from '../../audit/event.js';
import { decideMappedCall } from '../../policy/decide.js';
import type { Decision } from '../../policy/decision.js';
import { didYouMean } from '../../policy/nearest.js';
import { mapCall, type MappedCall } from '../../policy/operation-map.js';
import type { ReasonCode } from '../../policy/reasons.js';
import { ErrorCode, McpError, type CallToolResult } from '../sdk.js';
import type { Namespace, Session } from '../session.js';
import { CallAudit, type CallRecord } from './audit.js';
import { callContext, callTargetOf, isObject, type CallTarget, type GiteaCallContext } from './context.js';
import { runGuardedAction } from './guarded-action.js';
import { identityRefusal } from './identity-gate.js';
import {
  liveBranchProtection,
  liveOperations,
  liveTargets,
  withLiveOperationsFact,
  withLiveTargetNotes,
} from './live.js';
import { applyLiveGuards, executedArguments } from './live-guards.js';
import { auditUnavailable, denied, deniedRecord, errorRecord, type Outcome } from './outcome.js';
import { applyResultScope } from './result-scope.js';
import { applyTaint, labelExecuted, taintEvidence } from './integrity.js';
import { refusal, toolResult } from './tool-result.js';
import { invalidArguments, invalidShape } from './validate.js';

/** The stages of a tools/call in the order they run, and the module of each; the header above lists them. */
export const CALL_STAGES: ReadonlyArray<{ stage: string; does: string; module: string }> = [
  { stage: 'look-up', does: "the tool by name, the namespace's filters applied", module: '../tool-registry.ts' },
  { stage: 'validate', does: "the arguments against the tool's input schema", module: 'validate.ts' },
  { stage: 'context', does: 'what the call names and its live reads, made once', module: 'context.ts' },
  {
    stage: 'map',
    does: 'the canonical operations of the operationId and args',
    module: '../../policy/operation-map.ts',
  },
  { stage: 'write-ahead', does: 'the audit event before anything reaches Gitea', module: 'audit.ts' },
  { stage: 'decide', does: "the profile's lists, scopes and conditions", module: '../../policy/decide.ts' },
  { stage: 'identity', does: 'a mutation runs only under the verified identity', module: 'identity-gate.ts' },
  { stage: 'live', does: 'operations and branch targets only Gitea can tell', module: 'live.ts' },
  { stage: 'guards', does: 'self-review and merge guards over live facts', module: 'live-guards.ts' },
  { stage: 'taint', does: 'after untrusted content, writes stay where it was', module: 'integrity.ts' },
  { stage: 'execute', does: 'the Gitea request, bounded and redacted', module: '../../gitea/executor.ts' },
  { stage: 'scope', does: "the result cut down to the profile's repositories", module: 'result-scope.ts' },
  { stage: 'label', does: 'who wrote each item; below the floor held back', module: 'integrity.ts' },
  { stage: 'result', does: 'the audit event of the outcome', module: 'audit.ts' },
];

const INTERNAL_ERROR =
  'The server failed unexpectedly while handling this call; it may not have reached Gitea. See the server log.';

/** Handles one tools/call; an unknown tool is a protocol error (McpError InvalidParams), audited all the same. */
export async function handleToolCall(namespace: Namespace, name: string, args: unknown): Promise<CallToolResult> {
  const { session } = namespace;
  const audit = new CallAudit(session, name, args);
  const target = callTargetOf(args);
  let outcome: Outcome | 'unknown_tool';
  try {
    outcome = await runTool(session, namespace, name, args ?? {}, target, audit);
  } catch (error) {
    // The error's name only: a message may quote arguments or Gitea's answer.
    session.logger.error(
      { tool: name, call_id: audit.callId, error: error instanceof Error ? error.name : 'non-error' },
      'tool call failed unexpectedly',
    );
    outcome = { result: refusal('internal_error', INTERNAL_ERROR), record: errorRecord('internal_error', target) };
  }
  if (outcome === 'unknown_tool') {
    await audit.result(errorRecord('unknown_tool', null));
    // Suggests only tools this namespace lists: a hidden tool stays hidden.
    const listed = session.registry.tools.map((tool) => tool.definition.name);
    throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}${didYouMean(name, listed)}`);
  }
  await audit.result(outcome.record);
  return outcome.result;
}

async function runTool(
  session: Session,
  namespace: Namespace,
  name: string,
  args: unknown,
  target: CallTarget | null,
  audit: CallAudit,
): Promise<Outcome | 'unknown_tool'> {
  const tool = session.registry.get(name);
  if (!tool) return 'unknown_tool';
  // A generated tool lists a lean schema (../tool-definitions.ts); its calls are validated against the full one.
  const invalid = invalidArguments(
    tool.kind === 'gitea' ? tool.entry.inputSchema : tool.definition.inputSchema,
    args,
    target,
  );
  if (invalid || !isObject(args)) return invalid ?? invalidShape(args);
  if (tool.kind === 'gitea') return runGiteaCall(giteaCallContext(session, tool.entry, args, target), audit);
  const call = callContext(session, args, target);
  // A tool that only names another call (gitea_call_operation) is resolved before anything is written.
  const resolved = tool.tool.resolvesFirst ? await tool.tool.handler(call, namespace) : null;
  if (!resolved && !(await audit.writeAhead(tool.tool.operations[0] ?? null, target)))
    return auditUnavailable(null, target, session.audit.failureHint());
  const answer = resolved ?? (await tool.tool.handler(call, namespace));
  if (answer.kind === 'guarded_action') return runGuardedAction(call, tool.tool, answer);
  if (answer.kind === 'gitea_call') {
    // Resolved first, the audit events name the handed-back call's arguments, as its own tool's would.
    if (resolved) audit.callsWith(answer.args);
    // The reconstructed arguments name their own target and must pass the generated tool's own schema.
    const inner = callTargetOf(answer.args);
    return (
      invalidArguments(answer.entry.inputSchema, answer.args, inner) ??
      runGiteaCall(giteaCallContext(session, answer.entry, answer.args, inner), audit)
    );
  }
  const { audit: a } = answer;
  const shown = a.target ?? target;
  const record: CallRecord =
    answer.isError && a.decision === 'deny'
      ? deniedRecord(a.operation, a.reason, shown, a.httpStatus ?? null)
      : {
          operation: a.operation,
          decision: a.decision,
          reason: a.reason,
          target: shown,
          status: answer.isError ? 'error' : 'ok',
          httpStatus: a.httpStatus ?? null,
        };
  return {
    result: toolResult(answer.payload, answer.isError),
    record: a.evidence ? { ...record, evidence: a.evidence } : record,
  };
}

function giteaCallContext(
  session: Session,
  entry: CatalogEntry,
  args: Record<string, unknown>,
  target: CallTarget | null,
): GiteaCallContext {
  return {
    ...callContext(session, args, target),
    entry,
    mapped: mapCall(session.policy.operationMap, entry.operationId, args),
  };
}

/** Stages 5 to 13 for one Gitea operation with schema-valid arguments. */
async function runGiteaCall(call: GiteaCallContext, audit: CallAudit): Promise<Outcome> {
  const { session, entry, target } = call;
  const operation = call.mapped.ok ? (call.mapped.operations[0] ?? null) : null;
  if (!(await audit.writeAhead(operation, target)))
    return auditUnavailable(operation, target, session.audit.failureHint());
  // Live facts only add operations and targets, so a call its arguments already deny reads nothing
  // live (a target only Gitea can tell is unreadable until then), and nothing is read under a missing
  // or wrong identity.
  const byArguments = decideMappedCall(
    session.profile,
    { operationId: entry.operationId, arguments: call.args },
    call.mapped,
    session.policy.operationMap,
    session.decideContext,
  );
  if (byArguments.effect === 'deny' && byArguments.reason !== 'target_unreadable') return denied(byArguments, target);
  const refused = await identityRefusal(session, byArguments, target);
  if (refused) return refused;
  const liveOps = await liveOperations(call, call.mapped);
  const { mapped } = liveOps;
  const live = mapped.ok ? await liveTargets(call, mapped.operations) : null;
  const liveBranches = mapped.ok ? await liveBranchProtection(call, mapped.operations, live) : null;
  const request = {
    operationId: entry.operationId,
    arguments: call.args,
    ...(live ? { targets: live.targets } : {}),
    ...(liveBranches ? { liveBranches } : {}),
  };
  const decideWith = (operations: MappedCall) =>
    decideMappedCall(session.profile, request, operations, session.policy.operationMap, session.decideContext);
  let decision = withLiveTargetNotes(
    withLiveOperationsFact(decideWith(mapped), liveOps, () => decideWith(call.mapped)),
    live,
  );
  if (decision.effect === 'deny') return denied(decision, target);
  decision = await applyLiveGuards(call, decision);
  if (decision.effect === 'deny') return denied(decision, target);
  decision = applyTaint(call, decision);
  if (decision.effect === 'deny') return withIntegrity(denied(decision, target), taintEvidence(call));
  return executeCall(call, decision, await executedArguments(call, decision));
}

async function executeCall(
  call: GiteaCallContext,
  decision: Decision,
  args: Readonly<Record<string, unknown>>,
): Promise<Outcome> {
  const { session, entry, target } = call;
  const { operation, reason } = decision;
  const executed = await execute(
    entry,
    args,
    { identity: session.gitea, login: session.identity.login() },
    session.executorOptions,
  );
  const scoped = applyResultScope(session, entry.operationId, executed);
  if (scoped.withheld)
    return { result: scoped.result, record: deniedRecord(operation, scoped.reason, target, scoped.httpStatus) };
  const labelled = await labelExecuted(call, decision.operations, scoped.executed);
  const { isError, payload } = labelled.executed;
  const httpStatus = isError ? payload.error.status : payload.status;
  const record: CallRecord = {
    operation,
    decision: 'allow',
    reason,
    target,
    status: isError ? 'error' : 'ok',
    httpStatus,
  };
  const outcome: Outcome = { result: toolResult(payload, isError), record };
  return withIntegrity(outcome, labelled.integrity);
}

function withIntegrity(outcome: Outcome, integrity: AuditIntegrity | null): Outcome {
  return integrity ? { ...outcome, record: { ...outcome.record, integrity } } : outcome;
}
