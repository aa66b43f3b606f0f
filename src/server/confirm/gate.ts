// Where the pipeline meets the confirm stage: a generated tool's call once the guards and the taint
// passed (stage 'confirm' of CALL_STAGES), and a guarded action between its judge and its write
// (the WriteGate of src/gitea/reconcile.ts). A call no rule names goes on untouched.
import type { AuditEvidence } from '../../audit/event.js';
import type { ReconcileReport, WriteGate } from '../../gitea/reconcile.js';
import { requiredConfirmation } from '../../policy/confirmations.js';
import type { BuiltinTool } from '../builtin/builtin-tool.js';
import type { CallContext, GiteaCallContext } from '../call/call-context.js';
import { deniedRecord, type Outcome } from '../call/outcome.js';
import { refusal } from '../call/tool-result.js';
import type { CallRound } from './round.js';
import { confirmStage, type Gate } from './stage.js';
import { pendingGiteaCall, pendingGuardedAction } from './subject.js';

/** A generated tool's call whose operations passed every earlier stage. */
export async function confirmGiteaCall(
  call: GiteaCallContext,
  operations: readonly string[],
  round: CallRound,
): Promise<Gate> {
  const requirement = requiredConfirmation(call.session.confirm.settings, { operations, tool: call.entry.name });
  if (!requirement) return { go: true, evidence: {} };
  const pending = await pendingGiteaCall(call, requirement);
  if (!pending.ok) return factMissing(call, requirement.rule.operation, pending.detail);
  return confirmStage(call, pending.value, round);
}

/** The gate a guarded action passes before its write, and what it decided (the outcome when it held). */
export interface GuardedGate {
  gate: WriteGate | undefined;
  /** Set when the gate held the write: the question to ask, or the refusal. */
  held(): Outcome | null;
  /** What the audit keeps of the confirmation that let the write happen. */
  evidence(): AuditEvidence;
}

export function guardedGate(call: CallContext, tool: BuiltinTool, round: CallRound): GuardedGate {
  const requirement = requiredConfirmation(call.session.confirm.settings, {
    operations: tool.operations,
    tool: tool.name,
  });
  let held: Outcome | null = null;
  let evidence: AuditEvidence = {};
  const gate: WriteGate | undefined = requirement
    ? async (facts: ReconcileReport['evidence']) => {
        const pending = await pendingGuardedAction(call, tool, requirement, facts);
        const decided = pending.ok
          ? await confirmStage(call, pending.value, round)
          : factMissing(call, requirement.rule.operation, pending.detail);
        if (decided.go) evidence = decided.evidence;
        else held = decided.outcome;
        return decided.go;
      }
    : undefined;
  return { gate, held: () => held, evidence: () => evidence };
}

function factMissing(call: CallContext, operation: string, detail: string): Gate {
  return {
    go: false,
    outcome: {
      result: refusal(
        'fact_unavailable',
        `The confirmation cannot show what will happen: ${detail} Nothing reached Gitea.`,
        {
          operation,
          hint: 'Check the repository, the pull request and the token, then retry.',
        },
      ),
      record: deniedRecord(operation, 'fact_unavailable', call.target),
    },
  };
}
