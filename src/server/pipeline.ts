// tools/call, in this order: look the tool up (filters applied), validate the arguments, map to
// canonical operations, write the write-ahead audit event, decide against the profile, check the
// identity for mutations, run the live-fact guards, execute, write the result event. Built-in tools
// that reach Gitea (gitea_api_request) hand their call back into the same steps; guarded built-in
// writes run in guarded-action.ts. A call takes the namespace's session once, at its start, and keeps it.
import type { CatalogEntry } from '../catalog/types.js';
import { execute } from '../gitea/executor.js';
import { gatherCallFacts } from '../gitea/facts.js';
import type { FactReader } from '../gitea/types.js';
import { decideMappedCall } from '../policy/decide.js';
import type { Decision } from '../policy/decision.js';
import { callGuardsFor, judgeCall } from '../policy/guards/call-guards.js';
import { mergeSettingsFor } from '../policy/guards/settings.js';
import { applyGuardVerdict } from '../policy/guards/verdict.js';
import { mapCall } from '../policy/operation-map.js';
import { CallAudit, isObject, targetOf, type CallRecord } from './call-audit.js';
import { runGuardedAction } from './guarded-action.js';
import { identityRefusal } from './identity-gate.js';
import { withLivePullRequestOperations } from './live-operations.js';
import { livePullTargets } from './live-targets.js';
import { auditUnavailable, denied, errorRecord, invalidArguments, invalidShape, type Outcome } from './outcome.js';
import { applyResultScope } from './result-scope.js';
import { ErrorCode, McpError, type CallToolResult } from './sdk.js';
import type { Namespace, Session } from './session.js';
import { refusal, toolResult } from './tool-result.js';

const INTERNAL_ERROR = 'The server failed unexpectedly while handling this call; it may not have reached Gitea. See the server log.';

/** Handles one tools/call; an unknown tool is a protocol error (McpError InvalidParams), audited all the same. */
export async function handleToolCall(namespace: Namespace, name: string, args: unknown): Promise<CallToolResult> {
  const { session } = namespace;
  const audit = new CallAudit(session, name, args);
  let outcome: Outcome | 'unknown_tool';
  try {
    outcome = await runTool(session, namespace, name, args ?? {}, audit);
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

async function runTool(session: Session, namespace: Namespace, name: string, args: unknown, audit: CallAudit): Promise<Outcome | 'unknown_tool'> {
  const tool = session.registry.get(name);
  if (!tool) return 'unknown_tool';
  const invalid = invalidArguments(tool.definition.inputSchema, args, targetOf(args));
  if (invalid || !isObject(args)) return invalid ?? invalidShape(args);
  if (tool.kind === 'gitea') return runGiteaCall(session, tool.entry, args, audit);
  const target = targetOf(args);
  if (!(await audit.writeAhead(tool.tool.operations[0] ?? null, target))) return auditUnavailable(null, target);
  const answer = await tool.tool.handler(args, session, namespace);
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
    ...(a.evidence ? { evidence: a.evidence } : {}),
  };
  return { result: toolResult(answer.payload, answer.isError), record };
}

/** Steps 3 to 9 for one Gitea operation with schema-valid arguments. */
async function runGiteaCall(session: Session, entry: CatalogEntry, args: Record<string, unknown>, audit: CallAudit): Promise<Outcome> {
  const target = targetOf(args);
  const mappedByArguments = mapCall(session.policy.operationMap, entry.operationId, args);
  const operation = mappedByArguments.ok ? (mappedByArguments.operations[0] ?? null) : null;
  if (!(await audit.writeAhead(operation, target))) return auditUnavailable(operation, target);
  const mapped = await withLivePullRequestOperations(session, mappedByArguments, args);
  const live = mapped.ok ? await livePullTargets(session, mapped.operations, args) : null;
  const call = { operationId: entry.operationId, arguments: args, ...(live ? { targets: live } : {}) };
  let decision = decideMappedCall(session.profile, call, mapped, session.policy.operationMap, session.decideContext);
  if (decision.decision === 'deny') return denied(decision, target);
  const refused = await identityRefusal(session, decision, target);
  if (refused) return refused;
  decision = await applyGuards(session, decision, args);
  if (decision.decision === 'deny') return denied(decision, target);
  const scoped = applyResultScope(session, entry.operationId, await execute(entry, args, { identity: session.gitea, login: session.identity.login() }, session.executorOptions));
  if (scoped.withheld) return { result: scoped.result, record: { operation: decision.operation, decision: 'deny', reason: scoped.reason, target, status: 'denied', httpStatus: scoped.httpStatus } };
  const { executed } = scoped;
  const httpStatus = executed.isError ? executed.payload.error.status : executed.payload.status;
  const record: CallRecord = { operation: decision.operation, decision: 'allow', reason: decision.reason, target, status: executed.isError ? 'error' : 'ok', httpStatus };
  return { result: toolResult(executed.payload, executed.isError), record };
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
    session.policy.guards.facts,
  );
  return applyGuardVerdict(decision, judgeCall(guards, facts, mergeSettingsFor(session.policy.guards, session.profile.name ?? '')));
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}
