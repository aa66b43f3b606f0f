// Matches a raw API request (method + path below /api/v1) to its catalog entry, the way Gitea's
// router would: literal segments beat parameters, wildcard parameters take one or more segments.
import type { CatalogEntry, HttpMethod } from './types.js';

type SegmentMatcher =
  | { kind: 'literal'; text: string }
  | { kind: 'param'; name: string }
  | { kind: 'wildcard'; name: string }
  /** A segment mixing text and parameters, e.g. `{index}.{diffType}`. */
  | { kind: 'compound'; regex: RegExp; names: string[] };

/** Lower ranks are more specific; a template's rank vector orders the table. */
const RANK: Record<SegmentMatcher['kind'], number> = { literal: 0, compound: 1, param: 2, wildcard: 3 };

export interface Route {
  template: string;
  segments: SegmentMatcher[];
  byMethod: Map<HttpMethod, CatalogEntry>;
}

export interface RouteTable {
  /** Most specific first, so the first template that matches wins. */
  routes: Route[];
}

export type RouteMatch =
  | { ok: true; entry: CatalogEntry; pathParams: Record<string, string | number> }
  | { ok: false; reason: 'bad_path'; detail: string }
  | { ok: false; reason: 'no_route'; detail: string }
  | { ok: false; reason: 'method_not_allowed'; detail: string; allowed: HttpMethod[] };

const API_PREFIX = '/api/v1';

export function buildRouteTable(entries: readonly CatalogEntry[]): RouteTable {
  const byTemplate = new Map<string, Route>();
  for (const entry of entries) {
    let route = byTemplate.get(entry.path);
    if (!route) {
      route = { template: entry.path, segments: compileTemplate(entry), byMethod: new Map() };
      byTemplate.set(entry.path, route);
    }
    route.byMethod.set(entry.method, entry);
  }
  const routes = [...byTemplate.values()].sort(compareSpecificity);
  return { routes };
}

function compileTemplate(entry: CatalogEntry): SegmentMatcher[] {
  const wildcards = new Set(entry.parameters.path.filter((p) => p.wildcard).map((p) => p.name));
  return entry.path
    .split('/')
    .slice(1)
    .map((segment): SegmentMatcher => {
      const whole = /^\{([^}]+)\}$/.exec(segment);
      if (whole?.[1]) return { kind: wildcards.has(whole[1]) ? 'wildcard' : 'param', name: whole[1] };
      if (!segment.includes('{')) return { kind: 'literal', text: segment };
      const names: string[] = [];
      const source = segment.replace(/\{([^}]+)\}|[^{]+/g, (part, name: string | undefined) => {
        if (!name) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(name);
        return '([^/]+?)';
      });
      return { kind: 'compound', regex: new RegExp(`^${source}$`), names };
    });
}

function compareSpecificity(a: Route, b: Route): number {
  const length = Math.max(a.segments.length, b.segments.length);
  for (let i = 0; i < length; i++) {
    const ra = a.segments[i] ? RANK[a.segments[i]!.kind] : -1;
    const rb = b.segments[i] ? RANK[b.segments[i]!.kind] : -1;
    if (ra !== rb) return ra - rb;
  }
  return a.template.localeCompare(b.template);
}

export function matchRoute(table: RouteTable, method: string, rawPath: string): RouteMatch {
  const parsed = splitPath(rawPath);
  if (!parsed.ok) return parsed;
  for (const route of table.routes) {
    const raw = matchSegments(route.segments, parsed.segments);
    if (!raw) continue;
    const entry = [...route.byMethod.values()][0];
    if (!entry || !convertParams(entry, raw)) continue;
    const chosen = route.byMethod.get(method.toUpperCase() as HttpMethod);
    if (!chosen) {
      const allowed = [...route.byMethod.keys()];
      return {
        ok: false,
        reason: 'method_not_allowed',
        detail: `${route.template} allows ${allowed.join(', ')}`,
        allowed,
      };
    }
    const pathParams = convertParams(chosen, raw);
    if (pathParams) return { ok: true, entry: chosen, pathParams };
  }
  return { ok: false, reason: 'no_route', detail: 'no Gitea API operation has this path' };
}

type SplitPath = { ok: true; segments: string[] } | { ok: false; reason: 'bad_path'; detail: string };

function splitPath(rawPath: string): SplitPath {
  const bad = (detail: string): SplitPath => ({ ok: false, reason: 'bad_path', detail });
  if (/[\u0000-\u001f\u007f]/.test(rawPath)) return bad('path contains a control character');
  if (rawPath.includes('%')) return bad('path must not be percent-encoded');
  if (/[?#\\]/.test(rawPath)) return bad('path must not contain ?, # or \\; pass query parameters separately');
  if (!rawPath.startsWith('/')) return bad('path must start with /');
  const path =
    rawPath === API_PREFIX || rawPath.startsWith(`${API_PREFIX}/`) ? rawPath.slice(API_PREFIX.length) : rawPath;
  const segments = path.split('/').slice(1);
  if (segments.some((s) => s === '')) return bad('path has an empty segment');
  if (segments.some((s) => s === '.' || s === '..')) return bad('path has a . or .. segment');
  return { ok: true, segments };
}

/** Raw parameter values when the template matches all segments; wildcards backtrack. */
function matchSegments(
  matchers: readonly SegmentMatcher[],
  segments: readonly string[],
): Record<string, string> | null {
  const [matcher, ...restMatchers] = matchers;
  if (!matcher) return segments.length === 0 ? {} : null;
  if (matcher.kind === 'wildcard') {
    for (let take = segments.length - restMatchers.length; take >= 1; take--) {
      const rest = matchSegments(restMatchers, segments.slice(take));
      if (rest) return { [matcher.name]: segments.slice(0, take).join('/'), ...rest };
    }
    return null;
  }
  const [segment, ...restSegments] = segments;
  if (segment === undefined) return null;
  const own = matchOne(matcher, segment);
  if (!own) return null;
  const rest = matchSegments(restMatchers, restSegments);
  return rest ? { ...own, ...rest } : null;
}

function matchOne(
  matcher: Exclude<SegmentMatcher, { kind: 'wildcard' }>,
  segment: string,
): Record<string, string> | null {
  if (matcher.kind === 'literal') return matcher.text === segment ? {} : null;
  if (matcher.kind === 'param') return { [matcher.name]: segment };
  const found = matcher.regex.exec(segment);
  if (!found) return null;
  return Object.fromEntries(matcher.names.map((name, i) => [name, found[i + 1] ?? '']));
}

/** Typed values per the parameter schemas, or null when a value does not fit (then the route does not match). */
function convertParams(entry: CatalogEntry, raw: Record<string, string>): Record<string, string | number> | null {
  const out: Record<string, string | number> = {};
  for (const param of entry.parameters.path) {
    const value = raw[param.name];
    if (value === undefined) return null;
    const schema = param.schema;
    if (schema.type === 'integer') {
      if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) return null;
      out[param.name] = Number(value);
      continue;
    }
    if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return null;
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) return null;
    out[param.name] = value;
  }
  return out;
}

const tables = new WeakMap<readonly CatalogEntry[], RouteTable>();

/** The route table of these entries, built on first use (only the raw tool needs it, so start-up does not). */
export function routeTableOf(entries: readonly CatalogEntry[]): RouteTable {
  let table = tables.get(entries);
  if (!table) {
    table = buildRouteTable(entries);
    tables.set(entries, table);
  }
  return table;
}
