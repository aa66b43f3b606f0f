// Two stages of integrity (docs/integrity.md). "taint", before execution: a session that has read
// content below its profile's floor writes only where that content came from. "label", after the
// result scope: every item a person wrote is labelled with its author's standing, items below the
// floor are withheld or fenced, and what the session read is remembered for the taint.
import type { AuditIntegrity } from '../../audit/event.js';
import type { ExecutionResult, IntegrityBlock, SuccessPayload } from '../../gitea/envelope.js';
import type { Decision } from '../../policy/decision.js';
import { afterRead, CLEAN, judgeTaint, type ItemLabel, type TaintState } from '../../policy/integrity.js';
import { labelAnswer } from '../integrity-labels.js';
import type { GiteaCallContext } from './context.js';

/** What this namespace has read so far; survives a profile switch (the agent's context does too). */
export class TaintTracker {
  private state: TaintState = CLEAN;
  private readonly people = new Map<string, TaintTracker>();

  /** Per-user OAuth: each signed-in person's agent has its own session, so its own taint. */
  forPerson(login: string): TaintTracker {
    const key = login.toLowerCase();
    let tracker = this.people.get(key);
    if (!tracker) {
      tracker = new TaintTracker();
      this.people.set(key, tracker);
    }
    return tracker;
  }

  get current(): TaintState {
    return this.state;
  }

  record(repositories: readonly (string | null)[], untrusted: readonly ItemLabel[]): void {
    this.state = afterRead(this.state, repositories, untrusted);
  }
}

/** A call whose operations are all reads (risk class read in policies/vocabulary.yaml). */
export function isRead(call: GiteaCallContext, operations: readonly string[]): boolean {
  const { vocabulary } = call.session.policy;
  return (
    operations.length > 0 && operations.every((operation) => vocabulary.operations.get(operation)?.risk === 'read')
  );
}

/** Stage "taint": an allowed write becomes a denial when untrusted content was read and the write leaves its repository. */
export function applyTaint(call: GiteaCallContext, decision: Decision): Decision {
  if (decision.effect === 'deny' || isRead(call, decision.operations)) return decision;
  const { profile, taint } = call.session;
  const verdict = judgeTaint(profile.integrity, taint.current, { repository: repositoryOf(call) });
  if (verdict === null) return decision;
  const origin = taint.current.source?.repository ?? 'that repository';
  return {
    ...decision,
    effect: 'deny',
    reason: verdict.code,
    failed: [{ code: verdict.code, message: verdict.message }],
    determining: {
      file: profile.file,
      line: profile.lineOf(['integrity', 'after_untrusted']),
      rule: 'integrity.after_untrusted: same_repository_only',
    },
    hint: `Untrusted content decides nothing here: write only to ${origin}, in a session that has read no other repository, or start a fresh namespace.`,
  };
}

/** Stage "label": the answer with its items labelled and held back; null integrity when it carries none. */
export async function labelExecuted(
  call: GiteaCallContext,
  operations: readonly string[],
  executed: ExecutionResult,
): Promise<{ executed: ExecutionResult; integrity: AuditIntegrity | null }> {
  if (executed.isError) return { executed, integrity: null };
  const { session, entry, args } = call;
  const { payload } = executed;
  const { integrity: catalog } = session.policy;
  const labelled = await labelAnswer({
    catalog,
    settings: session.profile.integrity,
    entry,
    args,
    data: payload.data,
    reader: session.client,
  });
  const read = isRead(call, operations);
  const itemRepositories = labelled?.labels.map((label) => label.repository) ?? [];
  const before = session.taint.current.source;
  session.taint.record(read ? [repositoryOf(call), ...itemRepositories] : [], labelled?.untrusted ?? []);
  if (labelled === null || labelled.labels.length === 0) return { executed, integrity: null };
  const settings = session.profile.integrity;
  const block: IntegrityBlock = {
    floor: settings.minLevel,
    below: settings.below,
    lowest: labelled.lowest,
    withheld: labelled.labels.filter((label) => label.text === 'withheld').length,
    fenced: labelled.labels.filter((label) => label.text === 'fenced').length,
    items: labelled.labels,
  };
  const { data: _replaced, ...frame } = payload;
  const labelledPayload: SuccessPayload = { ...frame, integrity: block, data: labelled.data };
  const tainted = before === null ? session.taint.current.source : null;
  const integrity: AuditIntegrity = {
    lowest: labelled.lowest,
    withheld: idsOf(labelled.labels, 'withheld'),
    fenced: idsOf(labelled.labels, 'fenced'),
    ...(tainted ? { tainted_by: taintOf(tainted) } : {}),
  };
  return { executed: { isError: false, payload: labelledPayload }, integrity };
}

/** The audit trail of a taint refusal: the item that tainted the session. */
export function taintEvidence(call: GiteaCallContext): AuditIntegrity | null {
  const source = call.session.taint.current.source;
  return source ? { lowest: null, withheld: [], fenced: [], tainted_by: taintOf(source) } : null;
}

function taintOf(label: ItemLabel): NonNullable<AuditIntegrity['tainted_by']> {
  return { type: label.type, id: label.id, author: label.author, repository: label.repository, level: label.level };
}

function idsOf(labels: readonly ItemLabel[], text: ItemLabel['text']): Array<number | string | null> {
  return labels.filter((label) => label.text === text).map((label) => label.id);
}

function repositoryOf(call: GiteaCallContext): string | null {
  const target = call.target;
  return target?.owner && target.repo ? `${target.owner}/${target.repo}` : null;
}
