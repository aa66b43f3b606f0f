// Path templates as Gitea routes them: `{param}` is one segment, except the parameters Gitea
// serves with a wildcard (file paths, branch names, `base...head`), which take the rest of the path.
// A segment mixing text and parameters (`{index}.{diffType}`) is more specific than a lone parameter,
// so pulls/7.diff is that (unserved) operation, not pull request "7.diff".
import { loadCatalog } from '../catalog/load.js';
import type { Route } from './context.js';

interface Template {
  method: string;
  path: string;
  segments: string[];
  wildcard: boolean;
  literals: number;
}

const wildcardParams = new Set(['{filepath}', '{basehead}', '{branch}']);

function isWildcard(segments: string[]): boolean {
  const last = segments[segments.length - 1] ?? '';
  return wildcardParams.has(last) || (last === '{name}' && segments[segments.length - 2] === 'branch_protections');
}

const isParam = (segment: string): boolean => /^\{[^}]+\}$/.test(segment);
const isCompound = (segment: string): boolean => segment.includes('{') && !isParam(segment);

/** A compound segment as a regex: its text literal, each parameter one or more characters. */
function compoundPattern(segment: string): RegExp {
  const source = segment.replace(/\{[^}]+\}|[^{]+/g, (part) =>
    part.startsWith('{') ? '(.+?)' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
  );
  return new RegExp(`^${source}$`);
}

function compile(method: string, path: string): Template {
  const segments = path.split('/').filter((s) => s !== '');
  const literals = segments.filter((s) => !s.includes('{')).length + segments.filter(isCompound).length / 2;
  return { method, path, segments, wildcard: isWildcard(segments), literals };
}

/** Path parameters when `segments` (decoded) fit the template, else null. */
function matchTemplate(template: Template, segments: string[]): Record<string, string> | null {
  const fixed = template.wildcard ? template.segments.length - 1 : template.segments.length;
  if (template.wildcard ? segments.length <= fixed : segments.length !== fixed) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < fixed; i++) {
    const part = template.segments[i] as string;
    const value = segments[i] as string;
    if (isParam(part)) params[part.slice(1, -1)] = value;
    else if (isCompound(part) ? !compoundPattern(part).test(value) : part !== value) return null;
  }
  if (template.wildcard) {
    const last = template.segments[fixed] as string;
    params[last.slice(1, -1)] = segments.slice(fixed).join('/');
  }
  return params;
}

const byPrecedence = (a: Template, b: Template): number =>
  b.literals - a.literals || Number(a.wildcard) - Number(b.wildcard);

export type RouteMatch =
  | { kind: 'served'; route: Route; params: Record<string, string> }
  | { kind: 'unserved'; method: string; path: string }
  | { kind: 'unknown' };

export class Router {
  private readonly served: Array<{ template: Template; route: Route }>;
  private readonly known: Template[];

  constructor(routes: Route[]) {
    this.served = routes.map((route) => ({ template: compile(route.method, route.path), route }));
    this.served.sort((a, b) => byPrecedence(a.template, b.template));
    // The catalog holds every operation of the pinned spec, so the spec is never read at run time.
    this.known = loadCatalog().entries.map((entry) => compile(entry.method, entry.path));
    this.known.sort(byPrecedence);
  }

  /** `apiPath` is below /api/v1, still percent-encoded. */
  match(method: string, apiPath: string): RouteMatch {
    let segments: string[];
    try {
      segments = apiPath
        .split('/')
        .filter((s) => s !== '')
        .map(decodeURIComponent);
    } catch {
      return { kind: 'unknown' };
    }
    const known = this.known.find((t) => t.method === method && matchTemplate(t, segments) !== null);
    for (const { template, route } of this.served) {
      if (template.method !== method) continue;
      const params = matchTemplate(template, segments);
      // A more literal Gitea route wins, as in Gitea's router (issues/comments is not issue "comments").
      if (params && !(known && known.literals > template.literals)) return { kind: 'served', route, params };
    }
    return known ? { kind: 'unserved', method, path: known.path } : { kind: 'unknown' };
  }
}
