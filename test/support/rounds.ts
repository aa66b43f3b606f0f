// The rounds of a call as a client that can ask its person sends them, for tests that drive the
// pipeline directly (answerToolCall): the first round, and the retry with the person's answer and
// the state the first round returned.
import { ANSWER_KEY, type CallRound } from '../../src/server/confirm/round.js';
import { answerToolCall } from '../../src/server/call/pipeline.js';
import type { CallToolResult } from '../../src/server/sdk.js';
import type { Namespace } from '../../src/server/session.js';

/** A client that declared elicitation (form, and URL mode when `url`), on its first round. */
export function askingRound(url = false): CallRound {
  return { canAsk: { form: true, url }, inputResponses: undefined, requestState: undefined };
}

/** The retry of `asked` (an answer with `ask.state`) carrying `response` (an ElicitResult; undefined: none). */
export function answering(
  asked: { ask?: { state: string } },
  response: unknown,
  round: CallRound = askingRound(),
): CallRound {
  return {
    ...round,
    requestState: asked.ask?.state,
    inputResponses: response === undefined ? {} : { [ANSWER_KEY]: response },
  };
}

/** The same retry carrying another state (altered, forged, expired). */
export function withState(round: CallRound, requestState: string): CallRound {
  return { ...round, requestState };
}

export const YES = { action: 'accept', content: { [ANSWER_KEY]: true } };

/**
 * One tools/call by a client whose person says yes to every question: the first round, then, when the
 * call asks, the retry with YES. For tests whose subject is not the confirmation itself.
 */
export async function callConfirmed(namespace: Namespace, name: string, args: unknown): Promise<CallToolResult> {
  const asked = await answerToolCall(namespace, name, args, askingRound());
  return asked.ask ? (await answerToolCall(namespace, name, args, answering(asked, YES))).result : asked.result;
}
