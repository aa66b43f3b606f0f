// The confirm stage: a call that policies/confirmations.yaml or the profile marks goes on only once a
// person confirmed exactly it. The first round asks (input_required: a form for the person at the
// client, or a link to the approval page for a signed-in or second person) and returns a sealed state
// bound to the call and the live facts shown; the retry brings the answer and the state back. The
// state must open, belong to this very call, be unexpired and unspent; then a decline is a refusal, a
// change of the facts (a push, a retarget) voids it and the person is asked again, and a confirmation
// is spent, in the shared store, before anything reaches Gitea.
import type { AuditEvidence } from '../../audit/event.js';
import type { ConfirmationStore } from '../../auth/confirmation-store.js';
import {
  compareBinding,
  confirmationQuestion,
  describeChanges,
  judgeAnswer,
  type ConfirmQuestion,
} from '../../policy/confirmations.js';
import type { ReasonCode } from '../../policy/reasons.js';
import type { CallContext } from '../call/call-context.js';
import { deniedRecord, type Outcome } from '../call/outcome.js';
import { refusal } from '../call/tool-result.js';
import { newStateId, type ConfirmState } from './request-state.js';
import { ANSWER_KEY, type AskRequest, type CallRound, type InputAsk } from './round.js';
import type { PendingCall } from './subject.js';

/** Go on (with what the audit records of the confirmation), or end the call with this outcome. */
export type Gate = { go: true; evidence: AuditEvidence } | { go: false; outcome: Outcome };

/** What a person who cannot be asked is told to enable, by the mode a question needs. */
const ENABLE_ELICITATION = {
  form:
    'Use an MCP client that supports elicitation and has it enabled: Claude Code, VS Code (GitHub Copilot Chat) and Cursor ' +
    'ask their person in a dialog (docs/confirmations.md).',
  url:
    'Use an MCP client that supports URL-mode elicitation (it opens the approval page for its person), or ask the operator ' +
    'for approver: at_client (docs/confirmations.md).',
} as const;

export async function confirmStage(call: CallContext, pending: PendingCall, round: CallRound): Promise<Gate> {
  const stop = refuser(call, pending);
  const { session } = call;
  const runtime = session.confirm;
  if (round.requestState !== undefined) {
    const opened = runtime.states.open(round.requestState);
    if (!opened.ok) {
      session.logger.warn({ tool: pending.binding.tool }, 'a confirmation state that does not open was presented');
      return stop(
        'confirmation_invalid',
        `The confirmation does not belong to this server: ${opened.why}. Nothing reached Gitea.`,
        'Call again without it: the person is asked anew.',
      );
    }
    return resume(call, pending, round, opened.state);
  }
  const url = pending.requirement.approver !== 'at_client';
  if (!(url ? round.canAsk.url : round.canAsk.form)) return unaskable(call, pending, url);
  return ask(call, pending, null);
}

/** A retry: the state opened; is it this call's, in time, unspent, and what did the person answer? */
async function resume(call: CallContext, pending: PendingCall, round: CallRound, state: ConfirmState): Promise<Gate> {
  const stop = refuser(call, pending);
  const runtime = call.session.confirm;
  const verdict = compareBinding(state.binding, pending.binding);
  if (state.kind !== 'confirm' || verdict.kind === 'transplanted') {
    call.session.logger.warn({ tool: pending.binding.tool }, 'a confirmation of another call was presented');
    const fields = verdict.kind === 'transplanted' ? verdict.fields.join(', ') : 'kind';
    return stop(
      'confirmation_transplanted',
      `The confirmation was given for another call (its ${fields} differ). Nothing reached Gitea.`,
      'Call again without it: the person is asked about this call.',
    );
  }
  if (runtime.now() > state.expiresAt)
    return stop(
      'confirmation_expired',
      'The confirmation expired before it was answered. Nothing reached Gitea.',
      'Call again: the person is asked anew.',
    );
  const store = await storeOf(call);
  if (!store) return unavailableStore(call, pending);
  const replayed = (): Gate =>
    stop(
      'confirmation_replayed',
      'This confirmation was used or declined already; each answers one call, once. Nothing reached Gitea.',
      'Call again without it: the person is asked anew.',
    );
  if (verdict.kind === 'changed') {
    if (!(await store.spend(state.id, 'void', state.expiresAt))) return replayed();
    return ask(call, pending, `The earlier answer no longer applies: ${describeChanges(verdict.changes)}.`);
  }
  if (state.approver === 'at_client') {
    const answer = judgeAnswer(round.inputResponses?.[ANSWER_KEY]);
    if (answer.kind === 'missing') {
      // A retry without its answer: asked again, and the unanswered state never counts after that.
      if (!(await store.spend(state.id, 'reissued', state.expiresAt))) return replayed();
      return ask(call, pending, null);
    }
    if (!(await store.spend(state.id, answer.kind === 'confirmed' ? 'used' : 'declined', state.expiresAt)))
      return replayed();
    if (answer.kind === 'declined')
      return stop(
        'confirmation_declined',
        `The person ${answer.how === 'unchecked' ? 'did not tick the confirmation' : answer.how}. Nothing reached Gitea.`,
        'Do not retry unless the person asks for it.',
      );
    return { go: true, evidence: { confirmed_by: 'at_client', confirmation: state.id } };
  }
  const answer = judgeAnswer(round.inputResponses?.[ANSWER_KEY], '');
  if (answer.kind === 'declined') {
    if (!(await store.spend(state.id, 'declined', state.expiresAt))) return replayed();
    return stop(
      'confirmation_declined',
      `The person ${answer.how}. Nothing reached Gitea.`,
      'Do not retry unless the person asks for it.',
    );
  }
  const approval = state.approval === null ? undefined : await store.getApproval(state.approval);
  if (!approval)
    return stop(
      'confirmation_invalid',
      'The approval this confirmation waits for is unknown to the state store. Nothing reached Gitea.',
      'Call again: the person is asked anew.',
    );
  if (approval.status === 'rejected') {
    if (!(await store.spend(state.id, 'rejected', state.expiresAt))) return replayed();
    return stop(
      'confirmation_rejected',
      `${approval.approverLogin ?? 'The approver'} rejected the call on the confirmation page. Nothing reached Gitea.`,
      'Do not retry unless the approver asks for it.',
    );
  }
  // Not decided yet: the same page, the same state; the person may still be signing in.
  if (approval.status !== 'approved') return waiting(call, pending, state, approval.id);
  if (!(await store.spend(state.id, 'used', state.expiresAt))) return replayed();
  return {
    go: true,
    evidence: { confirmed_by: `${state.approver}:${approval.approverLogin ?? ''}`, confirmation: state.id },
  };
}

/** The first round (or a new question after a void one): mint a state bound to the call, and ask. */
async function ask(call: CallContext, pending: PendingCall, why: string | null): Promise<Gate> {
  const { session } = call;
  const runtime = session.confirm;
  const now = runtime.now();
  const question = confirmationQuestion(pending.subject, runtime.settings.expiresAfterMs);
  const state: ConfirmState = {
    v: 1,
    kind: 'confirm',
    id: newStateId(),
    binding: pending.binding,
    approver: pending.requirement.approver,
    approval: null,
    issuedAt: now,
    expiresAt: now + runtime.settings.expiresAfterMs,
  };
  if (state.approver === 'at_client')
    return asking(
      call,
      pending,
      { ...state },
      formRequest(question, why),
      why === null ? 'confirmation_asked' : 'confirmation_void',
    );
  const base = runtime.pageBase;
  const store = await storeOf(call);
  if (base === null || !store) return base === null ? unaskable(call, pending, true) : unavailableStore(call, pending);
  const rule = runtime.settings.approverRule;
  const caller = session.signedIn?.login.toLowerCase();
  state.approval = newStateId();
  await store.putApproval({
    id: state.approval,
    namespace: session.profile.name ?? session.profile.file,
    question: { title: question.title, lines: question.lines },
    approvers: [...rule.approvers],
    approverTeams: [...rule.teams],
    excluded: [...rule.excluded, ...(state.approver === 'four_eyes' && caller ? [caller] : [])],
    expiresAt: state.expiresAt,
  });
  return asking(
    call,
    pending,
    state,
    urlRequest(question, base, state.approval, state.approver, why),
    why === null ? 'confirmation_asked' : 'confirmation_void',
  );
}

/** The approval page has no decision yet: the same link again, with the same state. */
function waiting(call: CallContext, pending: PendingCall, state: ConfirmState, approval: string): Gate {
  const runtime = call.session.confirm;
  const question = confirmationQuestion(pending.subject, runtime.settings.expiresAfterMs);
  const base = runtime.pageBase;
  if (base === null) return unaskable(call, pending, true);
  const request = urlRequest(question, base, approval, state.approver, 'Nobody has decided on the approval page yet.');
  return asking(call, pending, state, request, 'confirmation_asked');
}

function asking(
  call: CallContext,
  pending: PendingCall,
  state: ConfirmState,
  request: AskRequest,
  reason: ReasonCode,
): Gate {
  const sealed = call.session.confirm.states.seal(state);
  const ask: InputAsk = { requests: { [ANSWER_KEY]: request }, state: sealed };
  const operation = pending.requirement.rule.operation;
  const unaskableResult = refusal(
    'confirmation_unavailable',
    'This call waits for a person to confirm it, and the transport cannot ask.',
    {
      operation,
      hint: ENABLE_ELICITATION[request.mode],
    },
  );
  return {
    go: false,
    outcome: {
      result: unaskableResult,
      record: {
        operation,
        decision: 'allow',
        reason,
        target: call.target,
        status: 'asked',
        httpStatus: null,
        evidence: { confirmation: state.id, approver: state.approver },
      },
      ask,
    },
  };
}

function formRequest(question: ConfirmQuestion, why: string | null): AskRequest {
  return {
    mode: 'form',
    message: why === null ? question.message : `${why}\n\n${question.message}`,
    requestedSchema: {
      type: 'object',
      properties: {
        [ANSWER_KEY]: {
          type: 'boolean',
          title: 'Confirm',
          description: `Yes: ${question.title}`,
          default: false,
        },
      },
      required: [ANSWER_KEY],
    },
  };
}

function urlRequest(
  question: ConfirmQuestion,
  base: string,
  approval: string,
  approver: ConfirmState['approver'],
  why: string | null,
): AskRequest {
  const who =
    approver === 'four_eyes'
      ? 'A second person (not the account this agent acts as) approves it'
      : 'A person the profile names approves it';
  return {
    mode: 'url',
    message: [
      ...(why === null ? [] : [why, '']),
      `${question.title}?`,
      `${who} on the confirmation page after signing in with Gitea; the call goes on only after that.`,
    ].join('\n'),
    url: `${base}/confirm/${encodeURIComponent(approval)}`,
  };
}

/** A client that cannot ask its person: refused, unless the profile keeps the tool's typed phrase. */
function unaskable(call: CallContext, pending: PendingCall, url: boolean): Gate {
  const stop = refuser(call, pending);
  const { settings } = call.session.confirm;
  if (settings.fallback === 'phrase' && pending.phrase !== null) {
    const { expected, given } = pending.phrase;
    if (given === expected) return { go: true, evidence: { confirmed_by: 'phrase' } };
    return stop(
      'confirmation_mismatch',
      `The client cannot ask its person, and the typed confirmation is not exactly "${expected}". Nothing reached Gitea.`,
      `Pass confirmation: "${expected}" (confirmation_fallback: phrase), or use a client with elicitation.`,
    );
  }
  const mode = url ? 'url' : 'form';
  const page = url && call.session.confirm.pageBase === null;
  return stop(
    'confirmation_unavailable',
    page
      ? 'This call needs the approval of a signed-in person, and this server serves no confirmation page (it needs MCP_TRANSPORT=http). Nothing reached Gitea.'
      : `This call needs a person to confirm it, and the client cannot ask: it declared no elicitation capability (${mode} mode). Nothing reached Gitea.`,
    page ? 'Serve this namespace over HTTP (docs/confirmations.md).' : ENABLE_ELICITATION[mode],
  );
}

function unavailableStore(call: CallContext, pending: PendingCall): Gate {
  return refuser(call, pending)(
    'confirmation_unavailable',
    'The shared state store, where confirmations are spent, cannot be reached, so no confirmation can be asked or taken. Nothing reached Gitea.',
    'Check OAUTH_STORE and the database, then retry (docs/confirmations.md).',
  );
}

async function storeOf(call: CallContext): Promise<ConfirmationStore | null> {
  try {
    return await call.session.confirm.store();
  } catch (error) {
    call.session.logger.error(
      { error: error instanceof Error ? ((error as NodeJS.ErrnoException).code ?? error.name) : 'error' },
      'the state store for confirmations cannot be opened',
    );
    return null;
  }
}

function refuser(call: CallContext, pending: PendingCall) {
  const operation = pending.requirement.rule.operation;
  return (reason: ReasonCode, message: string, hint: string): Gate => ({
    go: false,
    outcome: {
      result: refusal(reason, message, { operation, hint }),
      record: deniedRecord(operation, reason, call.target),
    },
  });
}
