// The two audit events of one tool call: a write-ahead event before anything reaches Gitea, and a
// result event, linked by call_id. Every call writes both, failed and invalid calls included. What the
// caller wrote (tool name, argument names, target) passes the session's redaction: a name or an owner
// can hold a secret as well as a value can.
import { randomUUID } from 'node:crypto';
import {
  argumentNames,
  type AuditBudget,
  type AuditEvidence,
  type AuditIntegrity,
  type AuditStatus,
  type AuditTarget,
} from '../../audit/event.js';
import type { Redactor } from '../../gitea/redact.js';
import type { Effect } from '../../policy/decision.js';
import type { ReasonCode } from '../../policy/reasons.js';
import type { Session } from '../session.js';
import { sessionRedactor } from '../session-redactor.js';
import { isObject } from './call-context.js';

/** What the result event says about the call's outcome. */
export interface CallRecord {
  operation: string | null;
  decision: Effect | null;
  reason: ReasonCode | null;
  target: AuditTarget | null;
  status: AuditStatus;
  httpStatus: number | null;
  /** Guarded tools: the judged facts (no secrets). */
  evidence?: AuditEvidence;
  /** Integrity labels: the withheld and fenced items, the item that tainted the session. */
  integrity?: AuditIntegrity;
  /** The call budgets that counted the call, or the one that refused it. */
  budgets?: AuditBudget[];
}

export class CallAudit {
  readonly callId = randomUUID();
  private writeAheadDone = false;
  private readonly redactor: Redactor;
  private readonly tool: string;
  private names: string[];

  constructor(
    private readonly session: Session,
    tool: string,
    args: unknown,
  ) {
    this.redactor = sessionRedactor(session);
    this.tool = this.redactor.text(tool);
    this.names = isObject(args) ? argumentNames(args).map((name) => this.redactor.text(name)) : [];
  }

  /** The call is another's (gitea_call_operation): record its argument names; only before the write-ahead. */
  callsWith(args: Record<string, unknown>): void {
    if (this.writeAheadDone) throw new Error('the write-ahead event is already written');
    this.names = argumentNames(args).map((name) => this.redactor.text(name));
  }

  /** Writes the write-ahead event once; false when it could not be made durable (refuse the call). */
  async writeAhead(operation: string | null, target: AuditTarget | null): Promise<boolean> {
    if (this.writeAheadDone) return true;
    this.writeAheadDone = await this.append(
      { operation, decision: null, reason: null, target, status: 'pending', httpStatus: null },
      'write_ahead',
    );
    return this.writeAheadDone;
  }

  /** Writes the result event (and the write-ahead event first, for calls refused before it). */
  async result(record: CallRecord): Promise<void> {
    if (!(await this.writeAhead(record.operation, record.target))) return;
    // Too late to refuse (the call ran); the write-ahead event stays as the trace, and the operator is told.
    if (!(await this.append(record, 'result')))
      this.session.logger.error(
        { tool: this.tool, call_id: this.callId },
        'the audit result event could not be written',
      );
  }

  private append(record: CallRecord, phase: 'write_ahead' | 'result'): Promise<boolean> {
    const { profile } = this.session;
    return this.session.audit.append({
      phase,
      call_id: this.callId,
      profile: profile.name ?? profile.file,
      audit_label: profile.data.audit_label ?? null,
      login: this.session.identity.login(),
      tool: this.tool,
      operation: record.operation,
      decision: record.decision,
      reason: record.reason,
      target: record.target && this.redactedTarget(record.target),
      status: record.status,
      http_status: record.httpStatus,
      argument_names: this.names,
      ...(record.evidence && phase === 'result' ? { evidence: record.evidence } : {}),
      ...(record.integrity && phase === 'result'
        ? { integrity: this.redactor.value(record.integrity) as AuditIntegrity }
        : {}),
      ...(record.budgets?.length && phase === 'result' ? { budgets: record.budgets } : {}),
    });
  }

  private redactedTarget(target: AuditTarget): AuditTarget {
    const text = (value: string | null) => (value === null ? null : this.redactor.text(value));
    return { owner: text(target.owner), repo: text(target.repo), index: target.index };
  }
}
