// Per-user OAuth: one call's session for the person whose token it carries. Their Gitea token, a
// client for it and their login (read from Gitea when the token was issued) replace the profile's
// identity; profile, registry, policy and audit log stay the namespace's. Built per request, so a
// call in flight keeps one identity whatever other people's calls do.
import { GiteaHttpClient } from '../gitea/http.js';
import { IdentityVerifier } from './identity.js';
import type { Namespace, Session } from './session.js';
import { TokenScopeState } from './token-scope-filter.js';

export interface SignedInCaller {
  login: string;
  giteaToken: string;
  /** The grant's Gitea token scopes: what this person's calls list and may make. */
  scopes: readonly string[];
}

export function sessionForCaller(base: Session, caller: SignedInCaller): Session {
  const gitea = { baseUrl: base.gitea.baseUrl, token: caller.giteaToken, expectedLogin: caller.login };
  const client = new GiteaHttpClient(gitea, { timeoutMs: base.settings.timeoutMs });
  const identity = IdentityVerifier.signedIn(client, caller.login);
  return {
    ...base,
    gitea,
    client,
    identity,
    registry: base.registry.withTokenScopes(new TokenScopeState(caller.scopes, 'oauth_grant')),
    signedIn: { login: caller.login },
    taint: base.taint.forPerson(caller.login),
  };
}

/** A namespace of one call: its session is the caller's and is never replaced. */
export function namespaceForCaller(namespace: Namespace, caller: SignedInCaller): Namespace {
  return { session: sessionForCaller(namespace.session, caller) };
}
