// reveal_secrets: the values a result hides (a fresh credential, what pattern masking found) are shown
// in clear only after a person confirmed the exact operation, with each value's fingerprint in the
// question. The option is the caller's (a model can set it); the answer is the person's. The values
// wait in the sealed state (encrypted: the client cannot read them), which is spent once; declined,
// the result stays as it was, masked. Without the option the result says how to ask.
import type { AuditEvidence } from '../../audit/event.js';
import type { SuccessPayload } from '../../gitea/envelope.js';
import { hiddenIn, REVEAL_OPTION, revealIn, secretsNote, type HiddenValue } from '../../gitea/reveal.js';
import { compareBinding, judgeAnswer, type ConfirmBinding } from '../../policy/confirmations.js';
import type { ReasonCode } from '../../policy/reasons.js';
import type { CallRecord } from '../call/call-audit.js';
import type { GiteaCallContext } from '../call/call-context.js';
import { deniedRecord, type Outcome } from '../call/outcome.js';
import { refusal, toolResult } from '../call/tool-result.js';
import { argumentsDigest, newStateId, type ConfirmState } from './request-state.js';
import { ANSWER_KEY, type CallRound, type InputAsk } from './round.js';
import { principalOf } from './subject.js';

/** The call option, taken off the arguments before they are validated (it never reaches Gitea). */
export function takeRevealOption(args: unknown): { args: unknown; reveal: boolean } {
  if (args === null || typeof args !== 'object' || Array.isArray(args) || !(REVEAL_OPTION in args))
    return { args, reveal: false };
  const { [REVEAL_OPTION]: option, ...rest } = args as Record<string, unknown>;
  return { args: rest, reveal: option === true };
}

function binding(call: GiteaCallContext, operation: string): ConfirmBinding {
  const { target } = call;
  return {
    principal: principalOf(call),
    operation,
    tool: call.entry.name,
    arguments: argumentsDigest(call.args),
    repository: target?.owner != null && target.repo != null ? `${target.owner}/${target.repo}`.toLowerCase() : null,
    pullRequest: null,
    repositoryId: null,
    headSha: null,
    baseRef: null,
    branchSha: null,
  };
}

/**
 * After execution, a successful result that hides values: with reveal_secrets and a client that can ask,
 * the question; otherwise the result as it is, its `secrets` note saying how to see them.
 */
export function offerReveal(
  call: GiteaCallContext,
  operation: string,
  payload: SuccessPayload,
  hidden: readonly HiddenValue[],
  outcome: Outcome,
  wanted: boolean,
  round: CallRound,
): Outcome {
  const present = hiddenIn(payload.data, hidden);
  if (present.length === 0) return outcome;
  const canAsk = round.canAsk.form;
  // The executor's note, counted again: scope filtering and integrity labels may have removed some values.
  const note = payload.secrets ?? secretsNote(present, false, call.entry.annotations.readOnly);
  const shownPayload: SuccessPayload = {
    ...payload,
    ...(note
      ? {
          secrets: {
            ...note,
            hidden: present.length,
            shown: present.map((v) => v.shown),
            ...(wanted && !canAsk
              ? {
                  how_to_see:
                    'reveal_secrets needs a person to confirm, and this client cannot ask: it declared no elicitation capability. ' +
                    'Use a client with elicitation (docs/confirmations.md).',
                }
              : {}),
          },
        }
      : {}),
  };
  const masked: Outcome = { ...outcome, result: toolResult(shownPayload, false) };
  if (!wanted || !canAsk) return masked;
  const { session } = call;
  const runtime = session.confirm;
  const now = runtime.now();
  const state: ConfirmState = {
    v: 1,
    kind: 'reveal',
    id: newStateId(),
    binding: binding(call, operation),
    approver: 'at_client',
    approval: null,
    issuedAt: now,
    expiresAt: now + runtime.settings.expiresAfterMs,
    reveal: { payload: shownPayload as unknown as Record<string, unknown>, values: present.map((v) => ({ ...v })) },
  };
  const minutes = Math.max(1, Math.round(runtime.settings.expiresAfterMs / 60_000));
  const lines = [
    `Show ${present.length} hidden value${present.length === 1 ? '' : 's'} of this result to the agent, in clear?`,
    '',
    `Operation: ${operation}, through ${call.entry.name}`,
    `Gitea request: ${payload.request.method} ${payload.request.path} (HTTP ${payload.status})`,
    'Values, as the agent sees them now (each with its fingerprint):',
    ...present.map((v) => `  ${v.shown}`),
    `Acts as: ${session.identity.login() ?? 'an unverified identity'} (namespace ${session.profile.name ?? session.profile.file})`,
    '',
    `The agent, and the model behind it, will see these values. Nothing is shown unless ` +
      `you confirm; your answer holds for ${minutes} minute${minutes === 1 ? '' : 's'}.`,
  ];
  const ask: InputAsk = {
    requests: {
      [ANSWER_KEY]: {
        mode: 'form',
        message: lines.join('\n'),
        requestedSchema: {
          type: 'object',
          properties: {
            [ANSWER_KEY]: {
              type: 'boolean',
              title: 'Show in clear',
              description: `Yes: show ${present.length} secret value${present.length === 1 ? '' : 's'} of ${operation} to the agent`,
              default: false,
            },
          },
          required: [ANSWER_KEY],
        },
      },
    },
    state: runtime.states.seal(state),
  };
  const record: CallRecord = {
    ...outcome.record,
    evidence: { ...outcome.record.evidence, reveal: 'asked', hidden_values: present.length, confirmation: state.id },
  };
  return { result: masked.result, record, ask };
}

/**
 * The retry of a call whose result waits for a reveal: answered from the sealed state, never by running
 * the call again. Null when the round carries no reveal state (the call then runs as usual).
 */
export async function resumeReveal(
  call: GiteaCallContext,
  operation: string,
  round: CallRound,
): Promise<Outcome | null> {
  if (round.requestState === undefined) return null;
  const runtime = call.session.confirm;
  const opened = runtime.states.open(round.requestState);
  if (!opened.ok || opened.state.kind !== 'reveal' || !opened.state.reveal) return null;
  const { state } = opened;
  const { payload, values } = opened.state.reveal;
  const stop = (reason: ReasonCode, message: string): Outcome => ({
    result: refusal(reason, message, {
      operation,
      hint: 'Call again with reveal_secrets: true: the person is asked anew.',
    }),
    record: deniedRecord(operation, reason, call.target),
  });
  const verdict = compareBinding(state.binding, binding(call, operation));
  if (verdict.kind !== 'same')
    return stop('confirmation_transplanted', 'The confirmation was given for another call. Nothing is shown.');
  if (runtime.now() > state.expiresAt)
    return stop('confirmation_expired', 'The confirmation expired. Nothing is shown.');
  let store;
  try {
    store = await runtime.store();
  } catch {
    return stop('confirmation_unavailable', 'The shared state store cannot be reached. Nothing is shown.');
  }
  const answer = judgeAnswer(round.inputResponses?.[ANSWER_KEY]);
  if (!(await store.spend(state.id, answer.kind === 'confirmed' ? 'used' : 'declined', state.expiresAt)))
    return stop('confirmation_replayed', 'This confirmation was used or declined already. Nothing is shown.');
  const record = (reason: ReasonCode, evidence: AuditEvidence): CallRecord => ({
    operation,
    decision: 'allow',
    reason,
    target: call.target,
    status: 'ok',
    httpStatus: typeof payload.status === 'number' ? payload.status : null,
    evidence: { ...evidence, confirmation: state.id },
  });
  if (answer.kind !== 'confirmed') {
    // The call ran already: its result stands, masked, and says the person declined.
    const secrets = {
      ...(payload.secrets as Record<string, unknown>),
      how_to_see: 'The person declined to show these values.',
    };
    return {
      result: toolResult({ ...payload, secrets }, false),
      record: record('confirmation_declined', { reveal: 'declined' }),
    };
  }
  const { secrets: _note, ...rest } = payload;
  const clear = { ...rest, revealed: values.map((v) => v.fingerprint), data: revealIn(payload.data, values) };
  return {
    result: toolResult(clear, false),
    record: record('secrets_revealed', { reveal: 'confirmed_by:at_client', hidden_values: values.length }),
  };
}
