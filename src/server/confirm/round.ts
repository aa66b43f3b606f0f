// What travels between the transport and the confirm stage, free of the MCP SDK: what the client can
// show its person and what it answered (a round), and what the stage asks for (the 2026-07-28
// input_required result; src/server/mcp-server.ts asks a 2025 stdio client with elicitation/create).

/** The client and this round of the call, as the transport saw them. */
export interface CallRound {
  /** What the client declared it can show a person (2025: at initialize; 2026-07-28: with the request). */
  readonly canAsk: { readonly form: boolean; readonly url: boolean };
  /** The answers to the previous round's input requests, keyed as they were asked; absent on a first round. */
  readonly inputResponses: Readonly<Record<string, unknown>> | undefined;
  /** The requestState the previous round returned, as the client echoed it: untrusted until opened. */
  readonly requestState: string | undefined;
}

/** A round of a call made inside the server (tests, the demo): no client to ask, no answer. */
export const FIRST_ROUND: CallRound = {
  canAsk: { form: false, url: false },
  inputResponses: undefined,
  requestState: undefined,
};

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

/** The key of the one question in `requests` and of its answer in `inputResponses`. */
export const ANSWER_KEY = 'confirm';
