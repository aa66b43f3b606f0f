// The OAuth errors this server answers with (RFC 6749 5.2, RFC 6750 3.1, RFC 8707 2), as values
// the HTTP layer turns into the SDK's error responses.
export type AuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'invalid_target'
  | 'invalid_token'
  | 'access_denied'
  | 'server_error';

export class AuthFailure extends Error {
  override name = 'AuthFailure';
  constructor(
    readonly code: AuthErrorCode,
    message: string,
  ) {
    super(message);
  }
}
