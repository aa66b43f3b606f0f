// Token scopes as Gitea checks them before any handler runs: each route group needs a scope
// category (routers/api/v1/api.go tokenRequiresScopes), at read level for GET and write level for
// POST/PUT/PATCH/DELETE (requiredScopeLevel); write:X includes read:X and `all` includes every
// category (models/auth/access_token_scope.go HasScope). Basic auth carries no token scope.
import { ApiError } from './errors.js';

export type ScopeCategory =
  'activitypub' | 'admin' | 'issue' | 'misc' | 'notification' | 'organization' | 'package' | 'repository' | 'user';

/** The scope categories a route (a spec path template) needs, each checked by its own route group. */
export function scopeCategories(path: string): ScopeCategory[] {
  if (path === '/version' || path.startsWith('/settings/')) return [];
  if (path === '/user/repos') return ['user', 'repository'];
  if (path === '/user' || path.startsWith('/user/')) return ['user'];
  if (/^\/users\/\{[^}]+\}\/repos$/.test(path)) return ['user', 'repository'];
  if (path.startsWith('/users/')) return ['user'];
  // The second /repos/{owner}/{repo} group (issues, labels, milestones) is the issue category.
  if (/^\/repos\/\{owner\}\/\{repo\}\/(issues|labels|milestones)(\/|$)/.test(path)) return ['issue'];
  if (path.startsWith('/repos/') || path.startsWith('/repositories/')) return ['repository'];
  if (path.startsWith('/orgs/') || path.startsWith('/teams/')) return ['organization'];
  if (path.startsWith('/admin/')) return ['admin'];
  if (path.startsWith('/notifications')) return ['notification'];
  if (path.startsWith('/packages/')) return ['package'];
  if (path.startsWith('/activitypub/')) return ['activitypub'];
  return ['misc'];
}

function hasScope(scopes: readonly string[], level: 'read' | 'write', category: ScopeCategory): boolean {
  return (
    scopes.includes('all') ||
    scopes.includes(`write:${category}`) ||
    (level === 'read' && scopes.includes(`read:${category}`))
  );
}

/** Gitea's tokenRequiresScopes: 403 naming the required scope and the token's, else nothing. */
export function requireTokenScopes(tokenScopes: readonly string[] | null, method: string, path: string): void {
  if (tokenScopes === null) return;
  const level = method === 'GET' || method === 'HEAD' ? 'read' : 'write';
  for (const category of scopeCategories(path)) {
    if (hasScope(tokenScopes, level, category)) continue;
    throw new ApiError(
      403,
      `token does not have at least one of required scope(s), required=[${level}:${category}], token scope=${tokenScopes.join(',')}`,
    );
  }
}
