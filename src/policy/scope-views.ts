// What the server shows and filters from a profile's scopes: a plain description for gitea_whoami,
// and repository listings cut down to the repositories the profile may read, so an agent never sees
// a repository it may not touch.
import type { PatternList } from './scope-patterns.js';
import { firstMatch } from './scope-patterns.js';
import type { CompiledScopes } from './scopes.js';

export interface ScopeDescription {
  /** Patterns, or 'any' when the profile does not restrict them. */
  repositories: { read: string[] | 'any'; write: string[] | 'any' };
  branches: Record<string, string[]>;
  paths: { read: { allow: string[] | 'any'; deny: string[] }; write: { allow: string[] | 'any'; deny: string[] } };
}

export function describeScopes(profile: { scopes: CompiledScopes }): ScopeDescription {
  const { scopes } = profile;
  const written = (list: PatternList | null): string[] => (list ? [...list.patterns, ...list.broken].map((p) => p.written) : []);
  const orAny = (list: PatternList | null): string[] | 'any' => (list ? written(list) : 'any');
  return {
    repositories: { read: orAny(scopes.repositories.read), write: orAny(scopes.repositories.write) },
    branches: Object.fromEntries([...scopes.branches].map(([operation, list]) => [operation, written(list)])),
    paths: {
      read: { allow: orAny(scopes.paths.read.allow), deny: written(scopes.paths.read.deny) },
      write: { allow: orAny(scopes.paths.write.allow), deny: written(scopes.paths.write.deny) },
    },
  };
}

export type FilteredListing = { ok: true; data: unknown; removed: number } | { ok: false; code: 'malformed_pattern' | 'unfilterable_result'; message: string };

/**
 * A listing result with only the repositories in the profile's read scope. Handles an array of
 * Repository objects and the search shape `{ ok, data: [...] }`; an item without a string full_name
 * is removed. Operations not in `listings`, and profiles without a read scope, pass unchanged.
 */
export function filterRepositoryListing(profile: { scopes: CompiledScopes }, operationId: string, data: unknown, listings: ReadonlySet<string>): FilteredListing {
  const scope = profile.scopes.repositories.read;
  if (!listings.has(operationId) || !scope) return { ok: true, data, removed: 0 };
  if (scope.broken.length > 0) return { ok: false, code: 'malformed_pattern', message: `${scope.field} holds a malformed pattern; listings are withheld until it is fixed` };
  const keep = (items: unknown[]): unknown[] => items.filter((item) => inScope(scope, item));
  if (Array.isArray(data)) {
    const kept = keep(data);
    return { ok: true, data: kept, removed: data.length - kept.length };
  }
  if (data !== null && typeof data === 'object' && Array.isArray((data as { data?: unknown }).data)) {
    const items = (data as { data: unknown[] }).data;
    const kept = keep(items);
    return { ok: true, data: { ...data, data: kept }, removed: items.length - kept.length };
  }
  return { ok: false, code: 'unfilterable_result', message: `the result of ${operationId} is not a repository listing this server can filter; it is withheld` };
}

function inScope(scope: PatternList, item: unknown): boolean {
  const name = item !== null && typeof item === 'object' ? (item as { full_name?: unknown }).full_name : undefined;
  return typeof name === 'string' && firstMatch(scope, name) !== undefined;
}
