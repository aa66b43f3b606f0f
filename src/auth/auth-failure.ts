// The OAuth errors this server answers with (RFC 6749 4.1.2.1 and 5.2, RFC 6750 3.1, RFC 7591 3.2.2,
// RFC 8707 2), as values; src/transports/oauth-routes.ts turns them into HTTP answers.
export type AuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'invalid_scope'
  | 'invalid_target'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'access_denied'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_client_metadata'
  | 'invalid_redirect_uri'
  | 'temporarily_unavailable'
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

/** The HTTP status of each error at the token, registration and revocation endpoints and the MCP path. */
export function statusOf(code: AuthErrorCode): number {
  switch (code) {
    case 'invalid_client':
    case 'invalid_token':
      return 401;
    case 'insufficient_scope':
      return 403;
    case 'temporarily_unavailable':
      return 503;
    case 'server_error':
      return 500;
    default:
      return 400;
  }
}
