// OAuth2 access tokens acting on the API, as Gitea's services/auth/oauth2.go CheckOAuthAccessToken:
// the token must be an unexpired access token whose grant still exists (a revoked grant ends it).
// Its scope is the grant's, reduced only by additional scopes (GrantAdditionalScopes).
import type { Account, OAuth2Grant, SandboxState } from './model.js';

/** The account an OAuth2 access token acts as, with the token's scopes; undefined when it is not a live one. */
export function oauthAccessToken(
  state: SandboxState,
  value: string,
): { account: Account; scopes: string[] } | undefined {
  const grant = liveAccessGrant(state, value);
  const account = grant ? state.account(grant.user) : undefined;
  return grant && account ? { account, scopes: grantAdditionalScopes(grant.scope) } : undefined;
}

export function liveAccessGrant(state: SandboxState, value: string): OAuth2Grant | undefined {
  const token = state.oauth2Tokens.get(value);
  if (!token || token.kind !== 'access' || token.expiresAt < Date.now()) return undefined;
  return state.oauth2Grants.find((g) => g.id === token.grantId);
}

/** Gitea's GrantAdditionalScopes: OIDC scopes aside, listed API scopes reduce the token; none means all. */
export function grantAdditionalScopes(scope: string): string[] {
  const oidc = new Set(['openid', 'profile', 'email', 'groups']);
  const api = scope.split(' ').filter((s) => s !== '' && !oidc.has(s));
  return api.length > 0 ? api : ['all'];
}
