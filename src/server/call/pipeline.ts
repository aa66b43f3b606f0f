// tools/call, stage by stage, in the order CALL_STAGES lists them (a test keeps this list equal to it):
//   1 look-up      the tool by name, the namespace's filters applied     ../tool-registry.ts
//   2 validate     the arguments against the tool's input schema         validate.ts
//   3 context      what the call names and its live reads, made once     call-context.ts
//   4 map          the canonical operations of the operationId and args  ../../policy/operation-map.ts
//   5 write-ahead  the audit event before anything reaches Gitea         call-audit.ts
//   6 decide       the profile's lists, scopes and conditions            ../../policy/decide.ts
//   7 identity     a mutation runs only under the verified identity      identity-gate.ts
//   8 live         operations and branch targets only Gitea can tell     live.ts
//   9 guards       self-review and merge guards over live facts          live-guards.ts
//  10 taint        after untrusted content, writes stay where it was     integrity-stages.ts
//  11 confirm      a person confirms what policy marks (input_required)  ../confirm/gate.ts
//  12 budget       the profile's call budgets, counted in the store      budget.ts
//  13 execute      the Gitea request, bounded and redacted               ../../gitea/executor.ts
//  14 scope        the result cut down to the profile's repositories     result-scope.ts
//  15 label        who wrote each item; below the floor held back        integrity-stages.ts
//  16 result       the audit event of the outcome                        call-audit.ts
// Built-in tools run stages 1 to 3 and 5, then answer themselves, hand a Gitea call back into stages
// 2 to 16 (gitea_api_request), or run a guarded write (guarded-action.ts, whose confirm stage sits
// between its judge and its write). gitea_call_operation names its call before stage 5, so the
// handed-back call writes its own write-ahead event. A call takes the namespace's session once, at its
// start, and keeps it. A call that waits for a person ends with a question (`ask`) instead of a result;
// the client retries it with the answer and the sealed state, and it runs every stage again. Each stage from 5 on runs in a child span of
// the call's span when tracing is on (src/telemetry/tracing.ts: nothing at all when it is off); the
// call's end records its metrics and, for a refusal or an error, a log line with the audit's call_id.
import type { CatalogEntry } from '../../catalog/types.js';
import { execute } from '../../gitea/executor.js';
import type { AuditEvidence, AuditIntegrity } from '../../audit/event.js';
import { decideMappedCall } from '../../policy/decide.js';
import type { Decision } from '../../policy/decision.js';
import { didYouMean } from '../../policy/nearest.js';
import { mapCall, type MappedCall } from '../../policy/operation-map.js';
import type { ReasonCode } from '../../policy/reasons.js';
import { callDuration, calls, secondsSince } from '../../telemetry/instruments.js';
import { annotateSpan, startCallSpan, traceStage, type TraceCarrier } from '../../telemetry/tracing.js';
import { ProtocolError, ProtocolErrorCode, type CallToolResult } from '../sdk.js';
import type { Namespace, Session } from '../session.js';
import { noteScopeRefusal, tokenScopeRefusal } from '../token-scope-filter.js';
import { CallAudit, type CallRecord } from './call-audit.js';
import { peekBudgets, takeBudgets } from './budget.js';
import { callContext, callTargetOf, isObject, type CallTarget, type GiteaCallContext } from './call-context.js';
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
import { applyTaint, labelExecuted, taintEvidence } from './integrity-stages.js';
import { refusal, toolResult } from './tool-result.js';
import { invalidArguments, invalidShape } from './validate.js';
import { confirmGiteaCall } from '../confirm/gate.js';
import { offerReveal, resumeReveal, takeRevealOption } from '../confirm/reveal-round.js';
import { FIRST_ROUND, type CallRound, type InputAsk } from '../confirm/round.js';
import { sessionRedactor } from '../session-redactor.js';

/** The stages of a tools/call in the order they run, and the module of each; the header above lists them. */
export const CALL_STAGES: ReadonlyArray<{ stage: string; does: string; module: string }> = [
  { stage: 'look-up', does: "the tool by name, the namespace's filters applied", module: '../tool-registry.ts' },
  { stage: 'validate', does: "the arguments against the tool's input schema", module: 'validate.ts' },
  { stage: 'context', does: 'what the call names and its live reads, made once', module: 'call-context.ts' },
  {
    stage: 'map',
    does: 'the canonical operations of the operationId and args',
    module: '../../policy/operation-map.ts',
  },
  { stage: 'write-ahead', does: 'the audit event before anything reaches Gitea', module: 'call-audit.ts' },
  { stage: 'decide', does: "the profile's lists, scopes and conditions", module: '../../policy/decide.ts' },
  { stage: 'identity', does: 'a mutation runs only under the verified identity', module: 'identity-gate.ts' },
  { stage: 'live', does: 'operations and branch targets only Gitea can tell', module: 'live.ts' },
  { stage: 'guards', does: 'self-review and merge guards over live facts', module: 'live-guards.ts' },
  { stage: 'taint', does: 'after untrusted content, writes stay where it was', module: 'integrity-stages.ts' },
  { stage: 'confirm', does: 'a person confirms what policy marks (input_required)', module: '../confirm/gate.ts' },
  { stage: 'budget', does: "the profile's call budgets, counted in the store", module: 'budget.ts' },
  { stage: 'execute', does: 'the Gitea request, bounded and redacted', module: '../../gitea/executor.ts' },
  { stage: 'scope', does: "the result cut down to the profile's repositories", module: 'result-scope.ts' },
  { stage: 'label', does: 'who wrote each item; below the floor held back', module: 'integrity-stages.ts' },
  { stage: 'result', does: 'the audit event of the outcome', module: 'call-audit.ts' },
];

const TAINT_UNRECORDED =
  'Withheld: the store of what this session read did not take this read, so it could not hold later writes back. See the server log.';

const INTERNAL_ERROR =
  'The server failed unexpectedly while handling this call; it may not have reached Gitea. See the server log.';

/** What the transport knows of one tools/call beyond its name and arguments. */
export interface CallMeta {
  /** The request's `params._meta`: a `traceparent` there continues the client's trace. */
  carrier?: TraceCarrier | undefined;
  /** The JSON-RPC id, for the span (jsonrpc.request.id). */
  requestId?: string | number | undefined;
  /** `pipe` for stdio, `tcp` for HTTP (network.transport). */
  transport?: 'pipe' | 'tcp';
  protocolVersion?: string | undefined;
}

/** A tools/call's answer: its result, or the question the call waits on (the transport returns `ask` then). */
export interface ToolCallAnswer {
  result: CallToolResult;
  ask?: InputAsk;
}

/** One tools/call from a client that can ask its person nothing: a call that needs a person is refused. */
export async function handleToolCall(
  namespace: Namespace,
  name: string,
  args: unknown,
  meta: CallMeta = {},
): Promise<CallToolResult> {
  return (await answerToolCall(namespace, name, args, FIRST_ROUND, meta)).result;
}

/**
 * Handles one tools/call (one round of it: `round` carries what the client can ask and its answers);
 * an unknown tool is a protocol error (ProtocolError InvalidParams), audited all the same.
 */
export async function answerToolCall(
  namespace: Namespace,
  name: string,
  args: unknown,
  round: CallRound,
  meta: CallMeta = {},
): Promise<ToolCallAnswer> {
  const { session } = namespace;
  const started = performance.now();
  const audit = new CallAudit(session, name, args);
  const target = callTargetOf(args);
  // A name no tool has is the caller's text: it names neither the span nor a metric.
  const tool = session.registry.get(name) ? name : null;
  const span = startCallSpan({
    method: 'tools/call',
    tool: tool ?? '',
    carrier: meta.carrier,
    attributes: {
      'mcp.method.name': 'tools/call',
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': tool,
      'jsonrpc.request.id': meta.requestId === undefined ? null : String(meta.requestId),
      'network.transport': meta.transport,
      'mcp.protocol.version': meta.protocolVersion,
      'gitea_warden.namespace': namespaceName(session),
      'gitea_warden.call_id': audit.callId,
    },
  });
  const outcome = await span.run(async () => {
    let ran: Outcome | 'unknown_tool';
    try {
      const { args: plain, reveal } = takeRevealOption(args ?? {});
      ran = await runTool(session, namespace, name, plain, target, audit, { round, reveal });
    } catch (error) {
      // The error's name only: a message may quote arguments or Gitea's answer.
      session.logger.error(
        { tool: name, call_id: audit.callId, trace_id: span.traceId ?? undefined, error: errorName(error) },
        'tool call failed unexpectedly',
      );
      ran = { result: refusal('internal_error', INTERNAL_ERROR), record: errorRecord('internal_error', target) };
    }
    await traceStage('result', () =>
      audit.result(ran === 'unknown_tool' ? errorRecord('unknown_tool', null) : ran.record),
    );
    return ran;
  });
  const record = outcome === 'unknown_tool' ? errorRecord('unknown_tool', null) : outcome.record;
  const errorType =
    outcome === 'unknown_tool' ? String(ProtocolErrorCode.InvalidParams) : outcome.result.isError ? 'tool_error' : null;
  const namespaceLabel = namespaceName(session);
  calls.record(1, {
    namespace: namespaceLabel,
    operation: record.operation ?? '',
    decision: record.decision ?? '',
    reason: record.reason ?? '',
  });
  callDuration.record(secondsSince(started), {
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': tool ?? '',
    'error.type': errorType ?? '',
  });
  span.end({
    errorType,
    attributes: {
      'gitea_warden.operation': record.operation,
      'gitea_warden.decision': record.decision,
      'gitea_warden.reason': record.reason,
      'gitea_warden.status': record.status,
      ...(outcome === 'unknown_tool' ? { 'rpc.response.status_code': String(ProtocolErrorCode.InvalidParams) } : {}),
    },
  });
  logCall(session, record, {
    call_id: audit.callId,
    trace_id: span.traceId ?? undefined,
    tool: tool ?? undefined,
    duration_ms: Math.round((performance.now() - started) * 100) / 100,
  });
  if (outcome === 'unknown_tool') {
    // Suggests only tools this namespace lists: a hidden tool stays hidden.
    const listed = session.registry.tools.map((t) => t.definition.name);
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}${didYouMean(name, listed)}`);
  }
  // The question quotes Gitea (a title, a branch name): it passes the same redaction as a result.
  return outcome.ask ? { result: outcome.result, ask: redactedAsk(session, outcome.ask) } : { result: outcome.result };
}

function redactedAsk(session: Session, ask: InputAsk): InputAsk {
  const redactor = sessionRedactor(session);
  const requests = Object.fromEntries(
    Object.entries(ask.requests).map(([key, request]) => [
      key,
      { ...request, message: redactor.text(request.message) },
    ]),
  );
  return { ...ask, requests };
}

/**
 * One line per refused or failed call at info (every call at debug), carrying the audit event's
 * call_id and the trace's id: from a log line to the audit line and the trace. Names and codes only.
 */
function logCall(session: Session, record: CallRecord, fields: Record<string, string | number | undefined>): void {
  const quiet = record.status === 'ok';
  if (quiet && !session.logger.isLevelEnabled('debug')) return;
  const line = {
    ...fields,
    operation: record.operation,
    decision: record.decision,
    reason: record.reason,
    status: record.status,
    http_status: record.httpStatus,
  };
  if (quiet) session.logger.debug(line, 'tool call');
  else session.logger.info(line, `tool call ${record.status === 'denied' ? 'refused' : 'failed'}`);
}

function namespaceName(session: Session): string {
  return session.profile.name ?? session.profile.file;
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : 'non-error';
}

async function runTool(
  session: Session,
  namespace: Namespace,
  name: string,
  args: unknown,
  target: CallTarget | null,
  audit: CallAudit,
  asking: Asking,
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
  if (tool.kind === 'gitea') return runGiteaCall(giteaCallContext(session, tool.entry, args, target), audit, asking);
  const call = callContext(session, args, target);
  // A tool that only names another call (gitea_call_operation) is resolved before anything is written.
  const resolved = tool.tool.resolvesFirst ? await tool.tool.handler(call, namespace) : null;
  if (!resolved && !(await audit.writeAhead(tool.tool.operations[0] ?? null, target)))
    return auditUnavailable(null, target, session.audit.failureHint());
  const answer = resolved ?? (await tool.tool.handler(call, namespace));
  if (answer.kind === 'guarded_action') return runGuardedAction(call, tool.tool, answer, asking.round);
  if (answer.kind === 'gitea_call') {
    // Resolved first, the audit events name the handed-back call's arguments, as its own tool's would.
    if (resolved) audit.callsWith(answer.args);
    // The reconstructed arguments name their own target and must pass the generated tool's own schema.
    const inner = callTargetOf(answer.args);
    const handed = takeRevealOption(answer.args);
    const handedArgs = handed.args as Record<string, unknown>;
    const reveal = asking.reveal || handed.reveal;
    return (
      invalidArguments(answer.entry.inputSchema, handedArgs, inner) ??
      runGiteaCall(giteaCallContext(session, answer.entry, handedArgs, inner), audit, { ...asking, reveal })
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

/** What the client can ask and answered, and whether the call asks for its hidden values (reveal_secrets). */
interface Asking {
  round: CallRound;
  reveal: boolean;
}

/** Stages 5 to 16 for one Gitea operation with schema-valid arguments. */
async function runGiteaCall(call: GiteaCallContext, audit: CallAudit, asking: Asking): Promise<Outcome> {
  const { round } = asking;
  const { session, entry, target } = call;
  const operation = call.mapped.ok ? (call.mapped.operations[0] ?? null) : null;
  annotateSpan({ 'gitea_warden.operation': operation });
  if (!(await traceStage('write-ahead', () => audit.writeAhead(operation, target))))
    return auditUnavailable(operation, target, session.audit.failureHint());
  // Live facts only add operations and targets, so a call its arguments already deny reads nothing
  // live (a target only Gitea can tell is unreadable until then), and nothing is read under a missing
  // or wrong identity.
  const byArguments = traceStage('decide', () =>
    judged(
      decideMappedCall(
        session.profile,
        { operationId: entry.operationId, arguments: call.args },
        call.mapped,
        session.policy.operationMap,
        session.decideContext,
      ),
    ),
  );
  if (byArguments.effect === 'deny' && byArguments.reason !== 'target_unreadable') return denied(byArguments, target);
  const noScope = tokenScopeRefusal(session, entry, byArguments, target);
  if (noScope) return noScope;
  const refused = await traceStage('identity', () => identityRefusal(session, byArguments, target));
  if (refused) return refused;
  // The retry of a call whose result waits for a reveal is answered from its state: it never runs twice.
  const revealed = await resumeReveal(call, byArguments.operation ?? call.entry.operationId, round);
  if (revealed) return revealed;
  const { liveOps, live, liveBranches } = await traceStage('live', async () => {
    const liveOps = await liveOperations(call, call.mapped);
    const { mapped } = liveOps;
    const live = mapped.ok ? await liveTargets(call, mapped.operations) : null;
    const liveBranches = mapped.ok ? await liveBranchProtection(call, mapped.operations, live) : null;
    return { liveOps, live, liveBranches };
  });
  const request = {
    operationId: entry.operationId,
    arguments: call.args,
    ...(live ? { targets: live.targets } : {}),
    ...(liveBranches ? { liveBranches } : {}),
  };
  const decideWith = (operations: MappedCall) =>
    decideMappedCall(session.profile, request, operations, session.policy.operationMap, session.decideContext);
  let decision = traceStage('decide', () =>
    judged(
      withLiveTargetNotes(
        withLiveOperationsFact(decideWith(liveOps.mapped), liveOps, () => decideWith(call.mapped)),
        live,
      ),
    ),
  );
  if (decision.effect === 'deny') return denied(decision, target);
  decision = await traceStage('guards', async () => judged(await applyLiveGuards(call, decision)));
  if (decision.effect === 'deny') return denied(decision, target);
  const tainted = await traceStage('taint', () => applyTaint(call, decision));
  decision = judged(tainted.decision);
  if (decision.effect === 'deny') return withIntegrity(denied(decision, target), taintEvidence(tainted.source));
  const allowed = decision;
  const confirmed = await traceStage('confirm', () => confirmGiteaCall(call, allowed.operations, round));
  // A question the budget would refuse anyway is not put to anyone.
  if (!confirmed.go && confirmed.outcome.ask) return (await peekBudgets(session, allowed, target)) ?? confirmed.outcome;
  if (!confirmed.go) return confirmed.outcome;
  const budget = await traceStage('budget', () => takeBudgets(session, allowed, target));
  if (budget.kind === 'refused') return budget.outcome;
  const args = await executedArguments(call, decision);
  const outcome = await executeCall(call, decision, args, confirmed.evidence, asking);
  return budget.budgets.length > 0 ? { ...outcome, record: { ...outcome.record, budgets: budget.budgets } } : outcome;
}

/** The decision, noted on the stage's span. */
function judged(decision: Decision): Decision {
  annotateSpan({
    'gitea_warden.decision': decision.effect,
    'gitea_warden.reason': decision.reason,
    'gitea_warden.operation': decision.operation,
  });
  return decision;
}

async function executeCall(
  call: GiteaCallContext,
  decision: Decision,
  args: Readonly<Record<string, unknown>>,
  confirmation: AuditEvidence,
  asking: Asking,
): Promise<Outcome> {
  const { session, entry, target } = call;
  const { operation, reason } = decision;
  const executed = await traceStage('execute', () =>
    execute(entry, args, { identity: session.gitea, login: session.identity.login() }, session.executorOptions),
  );
  noteScopeRefusal(session, executed.isError ? executed.payload.error : null);
  const scoped = traceStage('scope', () => applyResultScope(session, entry.operationId, executed));
  if (scoped.withheld)
    return { result: scoped.result, record: deniedRecord(operation, scoped.reason, target, scoped.httpStatus) };
  const labelled = await traceStage('label', () => labelExecuted(call, decision.operations, scoped.executed));
  const { isError, payload } = labelled.executed;
  const httpStatus = isError ? payload.error.status : payload.status;
  if (!labelled.recorded) {
    // What was read could not be recorded, so it would not hold the next write back: the answer is withheld.
    const result = refusal('taint_store_unavailable', TAINT_UNRECORDED);
    return { result, record: deniedRecord(operation, 'taint_store_unavailable', target, httpStatus) };
  }
  const record: CallRecord = {
    operation,
    decision: 'allow',
    reason,
    target,
    status: isError ? 'error' : 'ok',
    httpStatus,
    ...(Object.keys(confirmation).length > 0 ? { evidence: confirmation } : {}),
  };
  const outcome = withIntegrity({ result: toolResult(payload, isError), record }, labelled.integrity);
  const hidden = executed.isError ? undefined : executed.hidden;
  if (isError || !hidden) return outcome;
  return offerReveal(call, operation ?? entry.operationId, payload, hidden, outcome, asking.reveal, asking.round);
}

function withIntegrity(outcome: Outcome, integrity: AuditIntegrity | null): Outcome {
  return integrity ? { ...outcome, record: { ...outcome.record, integrity } } : outcome;
}
