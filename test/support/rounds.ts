// The rounds of a call as a client that can ask its person sends them, for tests that drive the
// pipeline directly (answerToolCall): the first round, and the retry with the person's answer and
// the state the first round returned.
import { ANSWER_KEY, type CallRound } from '../../src/server/confirm/round.js';

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
