// A guarded built-in write (cleanup_merged_pr_branch, reconcile_already_landed_pr): role, decision and
// identity as for any call, then the action gathers live facts, judges them and writes only if every
// check passed. Its report quotes Gitea (refs, check details, failures), so what it returns and what
// the audit keeps pass the executor's secret redaction first.
import type { ReconcileReport } from '../../gitea/reconcile.js';
import { HttpGiteaWriter } from '../../gitea/writer.js';
import { decide, deny } from '../../policy/decide.js';
import type { Decision } from '../../policy/decision.js';
import type { ReasonCode } from '../../policy/reasons.js';
import { applyGuardVerdict } from '../../policy/guards/verdict.js';
import type { AuditEvidence } from '../../audit/event.js';
import type { BuiltinOutcome, BuiltinTool } from '../builtin/builtin-tool.js';
import type { CallRecord } from './call-audit.js';
import type { CallContext } from './call-context.js';
import { identityRefusal } from './identity-gate.js';
import { takeBudgets } from './budget.js';
import { denied, type Outcome } from './outcome.js';
import { sessionRedactor } from '../session-redactor.js';
import type { Session } from '../session.js';
import { toolResult } from './tool-result.js';
import { guardedGate } from '../confirm/gate.js';
import type { CallRound } from '../confirm/round.js';

export type GuardedAction = Extract<BuiltinOutcome, { kind: 'guarded_action' }>;

export async function runGuardedAction(
  call: CallContext,
  tool: BuiltinTool,
  action: GuardedAction,
  round: CallRound,
): Promise<Outcome> {
  const { session, target } = call;
  const decision = decideGuardedAction(session, tool, action);
  if (decision.effect === 'deny') return denied(decision, target);
  const refused = await identityRefusal(session, decision, target);
  if (refused) return refused;
  if (!session.client)
    return denied(
      deny(
        decision.operation,
        decision.operations,
        'identity_unverified',
        decision.determining,
        'Configure the profile token.',
      ),
      target,
    );
  // Counted before the action (its checks and its write are one step), given back when its checks refused
  // or its write waits for a person (nothing reached Gitea then).
  const budget = await takeBudgets(session, decision, target);
  if (budget.kind === 'refused') return budget.outcome;
  // Between the judge and the write, a person confirms (the confirm stage), when policy asks for one.
  const confirm = guardedGate(call, tool, round);
  const report = await action.act({
    reader: session.client,
    writer: new HttpGiteaWriter(session.client),
    ...(confirm.gate ? { gate: confirm.gate } : {}),
  });
  if (report.action === 'refused' || report.action === 'held') await budget.release();
  const redactor = sessionRedactor(session);
  const held = report.action === 'held' ? confirm.held() : null;
  if (held) {
    const evidence = { ...auditEvidence(report), ...held.record.evidence };
    return {
      ...held,
      result: toolResult(redactor.value(held.result.structuredContent) as Record<string, unknown>, true),
      record: { ...held.record, evidence: redactor.value(evidence) as AuditEvidence },
    };
  }
  const outcome = reportOutcome(decision, action, report, target);
  return {
    result: toolResult(
      redactor.value(outcome.result.structuredContent) as Record<string, unknown>,
      outcome.result.isError === true,
    ),
    record: {
      ...outcome.record,
      evidence: redactor.value({ ...auditEvidence(report), ...confirm.evidence() }) as AuditEvidence,
      ...(budget.budgets.length > 0 && report.action !== 'refused' ? { budgets: budget.budgets } : {}),
    },
  };
}

/** The tool's role first (a reconciler tool in another namespace is a role mismatch), then the profile's lists and scopes. */
function decideGuardedAction(session: Session, tool: BuiltinTool, action: GuardedAction): Decision {
  if (tool.role !== undefined && session.profile.role !== tool.role) {
    return deny(
      action.operations[0] ?? null,
      [...action.operations],
      'role_mismatch',
      { file: session.profile.file, line: null, rule: `role: ${session.profile.role ?? 'none'}` },
      `${tool.name} is ${tool.role} work; use the gitea-${tool.role} namespace.`,
    );
  }
  return decide(
    session.profile,
    { operations: [...action.operations], targets: action.targets },
    session.decideContext,
  );
}

/** The result and record of a report: refused (a denial with the report), failed (Gitea refused the write) or done. */
function reportOutcome(
  decision: Decision,
  action: GuardedAction,
  report: ReconcileReport,
  target: CallRecord['target'],
): Outcome {
  const allowed = (status: CallRecord['status'], reason: ReasonCode): CallRecord => ({
    operation: decision.operation,
    decision: 'allow',
    reason,
    target,
    status,
    httpStatus: null,
  });
  if (report.action === 'refused') {
    const refused = denied(applyGuardVerdict(decision, { guard: action.guard, checks: report.checks }), target);
    const payload = { ...(refused.result.structuredContent as Record<string, unknown>) };
    payload.error = { ...(payload.error as Record<string, unknown>), report };
    return { result: toolResult(payload, true), record: refused.record };
  }
  if (report.action === 'failed') {
    const error = {
      kind: 'action_failed',
      message: report.failure ?? 'The Gitea write failed.',
      report,
      hint: 'Every check passed but Gitea refused the write; see the report and retry.',
    };
    return { result: toolResult({ error, request: null }, true), record: allowed('error', 'action_failed') };
  }
  // The gate holds a write only with the outcome it decided on (runGuardedAction returns that).
  if (report.action === 'held') throw new Error('a guarded write was held without a confirmation outcome');
  return {
    result: toolResult({ action: report.action, checks: report.checks, evidence: report.evidence }, false),
    record: allowed('ok', report.action),
  };
}

/** The report's evidence for the audit event: SHAs, refs, numbers and the codes of failed checks. */
function auditEvidence(report: ReconcileReport): AuditEvidence {
  const failed = report.checks.filter((c) => !c.passed).map((c) => c.code);
  return { ...report.evidence, action: report.action, failed_checks: failed.join(',') };
}
