// Stable error kinds and the error payload the model reads. Gitea's status codes map to kinds;
// the executor's own refusals (bad arguments, oversized bodies, timeouts) use the same shape.

export type ErrorKind =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'validation'
  | 'rate_limited'
  | 'upstream_error'
  | 'timeout'
  | 'payload_too_large'
  | 'secret_blocked'
  | 'download_uninspectable'
  | 'network_error'
  | 'redirect_refused';

export interface ErrorBody {
  /** HTTP status from Gitea, or null when no answer was received or the call was refused before sending. */
  status: number | null;
  kind: ErrorKind;
  message: string;
  hint?: string;
}

export const MAX_ERROR_MESSAGE_CHARS = 500;

const KIND_BY_STATUS: Readonly<Record<number, ErrorKind>> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  422: 'validation',
  429: 'rate_limited',
};

const HINT_BY_KIND: Partial<Record<ErrorKind, string>> = {
  unauthorized: 'The token was rejected; check that it is valid and not expired.',
  forbidden: 'The token lacks a scope or permission for this operation.',
  not_found: 'Check owner, repository and identifiers; private resources also answer 404 without access.',
  validation: 'Gitea rejected the arguments; correct the fields named in the message.',
  rate_limited: 'Gitea is rate limiting; wait before retrying.',
  upstream_error: 'Gitea failed to handle the request; retrying later may help.',
  timeout: 'Gitea was too slow; retry later, or ask for less (a lower limit, a narrower filter).',
  network_error: 'Gitea could not be reached; check that it is running and the base URL is right.',
  payload_too_large: 'Ask for less: a lower limit, a narrower filter, or a smaller file.',
  redirect_refused: 'Redirects are not followed; check the Gitea base URL (scheme, host, sub-path).',
};

export function kindForStatus(status: number): ErrorKind {
  if (status >= 300 && status < 400) return 'redirect_refused';
  return KIND_BY_STATUS[status] ?? 'upstream_error';
}

export function errorBody(status: number | null, kind: ErrorKind, message: string, hint?: string): ErrorBody {
  const chosenHint = hint ?? HINT_BY_KIND[kind];
  return { status, kind, message, ...(chosenHint ? { hint: chosenHint } : {}) };
}

const SCOPE_REFUSAL = /token does not have at least one of required scope\(s\)(?::|, required=)\s*\[([^\]]*)\]/;

/**
 * The scopes a 403 says the token lacks, from Gitea's tokenRequiresScopes message ("token does not
 * have at least one of required scope(s), required=[read:user], token scope=..."; older releases:
 * "...scope(s): [read:user]"); null when the answer is no scope refusal.
 */
export function missingScopes(status: number, data: unknown): string[] | null {
  if (status !== 403 || !isRecord(data) || typeof data.message !== 'string') return null;
  const match = SCOPE_REFUSAL.exec(data.message);
  return match ? (match[1] ?? '').split(/[\s,]+/).filter(Boolean) : null;
}

/** Gitea answers errors as `{"message": ..., "url": ...}`; anything else is shown as text. */
export function giteaErrorMessage(status: number, data: unknown): string {
  if (isRecord(data) && typeof data.message === 'string' && data.message.trim() !== '') {
    const details = Array.isArray(data.errors) ? data.errors.filter((e) => typeof e === 'string') : [];
    return [data.message, ...details].join('; ');
  }
  if (typeof data === 'string' && data.trim() !== '') return data.trim();
  return `Gitea answered HTTP ${status}`;
}

const AUTHORIZATION_TEXT = /\b(authorization|x-gitea-otp)(["']?\s*[:=]\s*\[?\s*["']?)[^\r\n"',;]*/gi;

/** Error texts sometimes quote request headers (Go prints a header map as `"Authorization":["token …"]`); whatever follows such a header name goes. */
export function stripHeaderText(message: string): string {
  return message.replace(AUTHORIZATION_TEXT, '$1$2[REDACTED]');
}

/** Applied after redaction, so a cut never leaves half a secret that exact matching would miss. */
export function truncateMessage(message: string): string {
  return message.length <= MAX_ERROR_MESSAGE_CHARS ? message : `${message.slice(0, MAX_ERROR_MESSAGE_CHARS)}…`;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
