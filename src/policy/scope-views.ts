// What the server shows and filters from a profile's scopes: a plain description for gitea_whoami,
// and results that span repositories cut down to the repositories the profile may read, so an agent
// never sees a repository it may not touch.
import type { PatternList } from './scope-patterns.js';
import { firstMatch } from './scope-patterns.js';
import type { CompiledScopes } from './scopes.js';
import { itemRepositories } from './item-repositories.js';

export interface ScopeDescription {
  /** Patterns, or 'any' when the profile does not restrict them. */
  repositories: { read: string[] | 'any'; write: string[] | 'any' };
  branches: Record<string, string[]>;
  paths: { read: { allow: string[] | 'any'; deny: string[] }; write: { allow: string[] | 'any'; deny: string[] } };
}

export function describeScopes(profile: { scopes: CompiledScopes }): ScopeDescription {
  const { scopes } = profile;
  const written = (list: PatternList | null): string[] =>
    list ? [...list.patterns, ...list.broken].map((p) => p.written) : [];
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

export type ScopedResult =
  | { ok: true; data: unknown; removed: number }
  | { ok: false; code: 'malformed_pattern' | 'unfilterable_result' | 'repository_out_of_scope'; message: string };

/** Where Gitea's list envelopes keep their items (search results, Actions runs, tasks and jobs). */
const ENVELOPE_LISTS = ['data', 'workflow_runs', 'jobs'] as const;

/**
 * A result of an operation of policies/targets.yaml unnamed_repositories.filtered, with only what the
 * profile's read scope holds: a list (an array, or the items of Gitea's list envelopes) loses every
 * item that belongs to a repository outside the scope or to none that can be told (item-repositories.ts);
 * a single object outside the scope is withheld. Profiles without a read scope see the result unchanged.
 */
export function filterToReadScope(
  profile: { scopes: CompiledScopes },
  operationId: string,
  data: unknown,
): ScopedResult {
  const scope = profile.scopes.repositories.read;
  if (!scope) return { ok: true, data, removed: 0 };
  if (scope.broken.length > 0)
    return {
      ok: false,
      code: 'malformed_pattern',
      message: `${scope.field} holds a malformed pattern; results that span repositories are withheld until it is fixed`,
    };
  const keep = (items: unknown[]): unknown[] => items.filter((item) => inScope(scope, item));
  if (Array.isArray(data)) {
    const kept = keep(data);
    return { ok: true, data: kept, removed: data.length - kept.length };
  }
  if (data === null || typeof data !== 'object')
    return {
      ok: false,
      code: 'unfilterable_result',
      message: `the result of ${operationId} is not one this server can filter; it is withheld`,
    };
  const record = data as Record<string, unknown>;
  const list = ENVELOPE_LISTS.find((key) => Array.isArray(record[key]));
  if (list) {
    const items = record[list] as unknown[];
    const kept = keep(items);
    return { ok: true, data: { ...record, [list]: kept }, removed: items.length - kept.length };
  }
  if (inScope(scope, data)) return { ok: true, data, removed: 0 };
  return {
    ok: false,
    code: 'repository_out_of_scope',
    message: `the result of ${operationId} belongs to a repository outside ${scope.field}, or to none this server can tell`,
  };
}

function inScope(scope: PatternList, item: unknown): boolean {
  const names = itemRepositories(item);
  return names !== null && names.every((name) => firstMatch(scope, name) !== undefined);
}

/**
 * policies/targets.yaml nested_repositories: in the answer of an operation that names its repository,
 * `object` (a path below each item `items` selects: `$` the answer, `$[*]` each element) may belong to
 * another repository; when it does and that repository is outside the read scope, every field of
 * `reduce` is set to null.
 */
export interface NestedRule {
  items: '$' | '$[*]';
  object: string;
  reduce: readonly string[];
}

export type ReducedResult =
  { ok: true; data: unknown; reduced: string[] } | { ok: false; code: 'malformed_pattern'; message: string };

/**
 * The answer with each nested object of a repository outside the profile's repositories.read scope (or
 * of none that can be told) reduced to null, and the paths of what was. Without a read scope nothing is.
 */
export function reduceNested(
  profile: { scopes: CompiledScopes },
  rules: readonly NestedRule[],
  data: unknown,
): ReducedResult {
  const scope = profile.scopes.repositories.read;
  if (!scope) return { ok: true, data, reduced: [] };
  if (scope.broken.length > 0)
    return {
      ok: false,
      code: 'malformed_pattern',
      message: `${scope.field} holds a malformed pattern; answers that embed other repositories are withheld until it is fixed`,
    };
  const reduced: string[] = [];
  const copy = structuredClone(data);
  for (const rule of rules) {
    const items =
      rule.items === '$' ? [[copy, '']] : Array.isArray(copy) ? copy.map((item, i) => [item, `[${i}]`]) : [];
    for (const [item, at] of items as Array<[unknown, string]>) {
      const nested = pathValue(item, rule.object);
      if (nested === undefined || nested === null) continue;
      if (inScope(scope, nested)) continue;
      for (const field of rule.reduce) if (setNull(item, field)) reduced.push(`${at}${at ? '.' : ''}${field}`);
    }
  }
  return { ok: true, data: copy, reduced };
}

function pathValue(item: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((at, key) => (isRecord(at) ? at[key] : undefined), item);
}

function setNull(item: unknown, path: string): boolean {
  const keys = path.split('.');
  const last = keys.pop() as string;
  const holder = keys.length === 0 ? item : pathValue(item, keys.join('.'));
  if (!isRecord(holder) || !(last in holder) || holder[last] === null) return false;
  holder[last] = null;
  return true;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
