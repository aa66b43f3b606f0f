// The resources a call touches, read from its validated arguments through the JSONPath expressions
// declared per operation in policies/targets.yaml. Never from free text: a target the expressions
// cannot read is recorded as unreadable, and any scope that needs it denies.
import { JSONPath } from 'jsonpath-plus';

export type TargetKind = 'repository' | 'branch' | 'paths';

/**
 * Where a repository lives in the arguments: its owner and its name (both required, unless `optional`:
 * then an absent name names none, as a repository edit that renames nothing); a URL path
 * `/{owner}/{repo}/...` (Gitea's markup `Context`: absent or empty names none); an id the arguments
 * cannot turn into a name (absent or 0 names none; any other value is unreadable); or the head of a
 * compare `base...[owner[/name]:]head`, which names another repository when it names another owner
 * (parseCompareInfo: that owner's fork, or the parent it owns; only the server can tell its name, so
 * offline it is unreadable).
 */
export type RepositorySource =
  | { owner: string; name: string; optional?: boolean }
  | { url_path: string }
  | { id: string }
  | { compare_head: string; owner: string };

/** `opaque`: the call touches this kind of resource but does not name it in its arguments. */
export type Opaque = 'opaque';

export interface TargetSpec {
  /** Every repository the call touches; empty: none (user, org, admin, search). */
  repositories: readonly RepositorySource[] | Opaque;
  /** JSONPaths tried in order; the first that finds a value names the branch. */
  branch?: readonly string[] | Opaque;
  /** JSONPaths each naming a branch the call touches (a rename names its old and its new name). */
  branches?: readonly string[];
  /**
   * JSONPaths naming branch names the call creates without any Gitea hook (a rename's new name): Gitea
   * does not protect them itself, so the server judges them by Gitea's protection rules, read live.
   */
  newBranches?: readonly string[];
  /** JSONPaths whose values together are every file path the call reads or writes. */
  paths?: readonly string[] | Opaque;
  /** policies/targets.yaml line of the entry (null for a default). */
  line: number | null;
}

/**
 * A call that points a ref of the repository at existing commits (policies/targets.yaml ref_moves):
 * it writes what those commits bring, judged by the files they change against `onto`.
 */
export interface RefMoveSpec {
  /** JSONPaths tried in order naming the source ref (none found: the default branch), or the fork's upstream branch. */
  source: readonly string[] | 'upstream';
  /** The branch the commits are judged against: the default branch, or JSONPaths naming one (none found: the default branch). */
  onto: readonly string[] | 'default_branch';
  line: number | null;
}

/** A ref move as one call names it; null fields are the default branch (or the upstream's branch). */
export interface RefMove {
  source: string | null;
  upstream: boolean;
  onto: string | null;
}

export interface TargetMap {
  file: string;
  byOperationId: ReadonlyMap<string, TargetSpec>;
  refMoves: ReadonlyMap<string, RefMoveSpec>;
}

export interface Targets {
  repositories?: string[];
  branches?: string[];
  paths?: string[];
  /** Kinds the call touches whose values could not be read. */
  unreadable?: TargetKind[];
}

/**
 * Every value the JSONPath finds; null when it cannot be evaluated (script evaluation is off, so a
 * filter expression throws). Null is never "nothing found": callers treat it as unreadable.
 */
export function readPath(args: unknown, path: string): unknown[] | null {
  if (args === null || typeof args !== 'object') return [];
  const direct = readNamedSteps(args, path);
  if (direct !== undefined) return direct;
  try {
    return JSONPath({ path, json: args as object, eval: false, wrap: true }) as unknown[];
  } catch {
    return null;
  }
}

/** `$.a.b`: only property names, the shape nearly every policy path has. */
const NAMED_STEPS = /^\$(?:\.[A-Za-z_][A-Za-z0-9_]*)+$/;

/**
 * What JSONPath finds for a path of property names, read directly: evaluating it through JSONPath
 * cost more than the rest of a decision. undefined leaves the path to JSONPath: other syntax, or a
 * step into a value that is not an object (whose semantics stay JSONPath's). A test compares both.
 */
function readNamedSteps(args: object, path: string): unknown[] | undefined {
  if (!NAMED_STEPS.test(path)) return undefined;
  let value: unknown = args;
  for (const step of path.slice(2).split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    if (!Object.hasOwn(value, step)) return [];
    value = (value as Record<string, unknown>)[step];
  }
  return [value];
}

export function readTargets(spec: TargetSpec | undefined, args: unknown): Targets {
  if (!spec) return {};
  const targets: Targets = {};
  const unreadable: TargetKind[] = [];
  if (spec.repositories === 'opaque') unreadable.push('repository');
  else if (spec.repositories.length > 0) {
    const names = spec.repositories.flatMap((source) => repositoryName(args, source));
    if (names.every((name): name is string => name !== null)) {
      if (names.length > 0) targets.repositories = names;
    } else unreadable.push('repository');
  }
  if (spec.branch !== undefined) {
    const candidates = spec.branch === 'opaque' ? [] : spec.branch.map((path) => single(args, path));
    // The first path that names a branch wins, unless an earlier one could not be evaluated.
    const branch = candidates.includes(undefined) ? undefined : candidates.find((value) => value !== null);
    if (branch) targets.branches = [branch];
    else unreadable.push('branch');
  }
  if (spec.branches !== undefined) {
    const named = spec.branches.map((path) => single(args, path));
    if (named.every((value): value is string => typeof value === 'string' && value !== ''))
      targets.branches = [...new Set([...(targets.branches ?? []), ...named])];
    else if (!unreadable.includes('branch')) unreadable.push('branch');
  }
  if (spec.paths !== undefined) {
    const read = spec.paths === 'opaque' ? [null] : spec.paths.map((path) => readPath(args, path));
    const values = read.every((found): found is unknown[] => found !== null) ? read.flat() : [];
    if (values.length > 0 && values.every((value): value is string => typeof value === 'string'))
      targets.paths = values;
    else unreadable.push('paths');
  }
  return unreadable.length > 0 ? { ...targets, unreadable } : targets;
}

/** Targets read from arguments, with those a caller supplied from live facts (e.g. a merge's base branch). */
export function withSupplied(read: Targets, supplied: Targets | undefined): Targets {
  if (!supplied) return read;
  const merged: Targets = { ...read };
  for (const [key, kind] of TARGET_KINDS) {
    const values = supplied[key];
    if (values === undefined) continue;
    merged[key] = [...new Set([...(read[key] ?? []), ...values])];
    merged.unreadable = (merged.unreadable ?? []).filter((entry) => entry !== kind);
  }
  const unreadable = [...new Set([...(merged.unreadable ?? []), ...(supplied.unreadable ?? [])])];
  if (unreadable.length > 0) merged.unreadable = unreadable;
  else delete merged.unreadable;
  return merged;
}

const TARGET_KINDS = [
  ['repositories', 'repository'],
  ['branches', 'branch'],
  ['paths', 'paths'],
] as const;

/** The Targets fields of a caller-supplied record; a field that is present but not a list of strings is unreadable (it denies where a scope needs it). */
export function suppliedTargets(record: Readonly<Record<string, unknown>> | undefined): Targets | undefined {
  if (!record) return undefined;
  const targets: Targets = {};
  const unreadable: TargetKind[] = [];
  for (const [key, kind] of TARGET_KINDS) {
    const value = record[key];
    if (value === undefined) continue;
    if (Array.isArray(value) && value.every((item) => typeof item === 'string')) targets[key] = value;
    else unreadable.push(kind);
  }
  return unreadable.length > 0 ? { ...targets, unreadable } : targets;
}

/** The branch names a call creates without Gitea's hook (TargetSpec.newBranches) that its arguments name. */
export function newBranchNames(spec: TargetSpec | undefined, args: unknown): string[] {
  return (spec?.newBranches ?? []).map((path) => single(args, path)).filter((v): v is string => !!v);
}

/** The source and destination a ref move names in these arguments, or 'unreadable'. */
export function readRefMove(spec: RefMoveSpec, args: unknown): RefMove | 'unreadable' {
  const first = (paths: readonly string[]): string | null | 'unreadable' => {
    for (const path of paths) {
      const value = single(args, path);
      if (value === undefined) return 'unreadable';
      if (value) return value;
    }
    return null;
  };
  const onto = spec.onto === 'default_branch' ? null : first(spec.onto);
  const source = spec.source === 'upstream' ? null : first(spec.source);
  if (onto === 'unreadable' || source === 'unreadable') return 'unreadable';
  return { source, upstream: spec.source === 'upstream', onto };
}

/**
 * The head side of a compare's `basehead`, as parseCompareInfo splits it: `base...head`, `base..head`
 * or just `head`; a head `owner:ref` names that owner's repository (unless it is the path's owner),
 * `owner/name:ref` names that repository.
 */
export type CompareHead = { kind: 'same' } | { kind: 'repository'; name: string } | { kind: 'owner'; owner: string };

export function compareHeadOf(basehead: string, pathOwner: string): CompareHead | null {
  const separator = basehead.includes('...') ? '...' : basehead.includes('..') ? '..' : null;
  const head = separator ? basehead.slice(basehead.indexOf(separator) + separator.length) : basehead;
  const parts = head.split(':');
  if (parts.length === 1) return { kind: 'same' };
  if (parts.length !== 2 || !parts[0]) return null;
  const who = parts[0];
  if (who.includes('/')) {
    const [owner, name, ...rest] = who.split('/');
    return owner && name && rest.length === 0 ? { kind: 'repository', name: `${owner}/${name}` } : null;
  }
  return who.toLowerCase() === pathOwner.toLowerCase() ? { kind: 'same' } : { kind: 'owner', owner: who };
}

/** The repository a source names: [] when it names none, [null] when it cannot be read. */
function repositoryName(args: unknown, source: RepositorySource): Array<string | null> {
  if ('compare_head' in source) {
    const basehead = single(args, source.compare_head);
    const owner = single(args, source.owner);
    if (basehead === undefined || basehead === null || typeof owner !== 'string') return [null];
    const head = compareHeadOf(basehead, owner);
    return head === null || head.kind === 'owner' ? [null] : head.kind === 'repository' ? [head.name] : [];
  }
  if ('id' in source) {
    const found = readPath(args, source.id);
    if (found === null || found.length > 1) return [null];
    return found.length === 0 || found[0] === 0 || found[0] === '0' || found[0] === null ? [] : [null];
  }
  if ('url_path' in source) {
    const found = readPath(args, source.url_path);
    if (found === null || found.length > 1) return [null];
    const [value] = found;
    if (value === undefined || value === null || value === '') return [];
    return [typeof value === 'string' ? urlPathRepository(value) : null];
  }
  const owner = single(args, source.owner);
  const name = single(args, source.name);
  if (source.optional && name === null && readPath(args, source.name)?.length === 0) return [];
  return [owner == null || name == null ? null : `${owner}/${name}`];
}

/**
 * `owner/repo` from the first two segments of a URL path, as Gitea's RenderMarkup splits its
 * urlPathContext (one leading slash trimmed); null when they do not name one.
 */
function urlPathRepository(value: string): string | null {
  const [owner, repo] = value.replace(/^\//, '').split('/');
  return owner && repo ? `${owner}/${repo}` : null;
}

/** The one string the path names; null when it names none or several; undefined when it cannot be evaluated. */
function single(args: unknown, path: string): string | null | undefined {
  const found = readPath(args, path);
  if (found === null) return undefined;
  const [value, ...more] = found;
  return typeof value === 'string' && more.length === 0 ? value : null;
}
