// What travels between the transport and the confirm stage, free of the MCP SDK: what the client can
// show its person and what it answered (a round), and what the stage asks for (the 2026-07-28
// input_required result; the SDK's legacy shim turns it into elicitation/create for 2025 clients).

/** The client and this round of the call, as the transport saw them. */
export interface ConfirmRound {
  /** The elicitation modes the client declared (2025: at initialize; 2026-07-28: with the request). */
  elicitation: { form: boolean; url: boolean };
  /** The state the client echoed (requestState), when this call is a retry with answers. */
  state: string | null;
  /** The answers, keyed as the server asked (inputResponses, or the legacy shim's collected answers). */
  responses: Readonly<Record<string, unknown>>;
}

/** A call from a client that can ask nothing, and carries no answer. */
export const NO_ROUND: ConfirmRound = { elicitation: { form: false, url: false }, state: null, responses: {} };

/** The one form field a confirmation asks for: a box the person ticks. */
export interface ConfirmFormSchema {
  type: 'object';
  properties: Record<string, { type: 'boolean'; title: string; description: string; default: boolean }>;
  required: string[];
}

export type AskRequest =
  { mode: 'form'; message: string; requestedSchema: ConfirmFormSchema } | { mode: 'url'; message: string; url: string };

/** The call waits for these answers: the client asks its person, then retries the call with them and `state`. */
export interface InputAsk {
  requests: Record<string, AskRequest>;
  state: string;
}

/** The key of the one question in `requests` and of its answer in `responses`. */
export const ANSWER_KEY = 'confirm';
