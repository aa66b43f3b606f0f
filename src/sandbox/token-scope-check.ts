// Token scopes as Gitea checks them before any handler runs (routers/api/v1/api.go
// tokenRequiresScopes): the route's scopes come from the one derivation of Gitea's route groups,
// src/catalog/token-scopes.ts, and a token lacking any of them gets Gitea's 403. Basic auth carries
// no token scope.
import { missingTokenScopes, requiredTokenScopes } from '../catalog/token-scopes.js';
import { ApiError } from './api-errors.js';

/** Gitea's tokenRequiresScopes: 403 naming the required scopes and the token's (its %v formatting), else nothing. */
export function requireTokenScopes(tokenScopes: readonly string[] | null, method: string, path: string): void {
  if (tokenScopes === null) return;
  const required = requiredTokenScopes(method, path) ?? [];
  if (missingTokenScopes(tokenScopes, required).length === 0) return;
  throw new ApiError(
    403,
    `token does not have at least one of required scope(s), required=[${required.join(' ')}], token scope=${tokenScopes.join(',')}`,
  );
}
