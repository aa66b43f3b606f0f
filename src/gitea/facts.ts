// The fact gatherers: live GETs whose answers the guards judge. Every failure (network, non-200,
// a field missing or of the wrong type, a pagination bound reached) becomes a missing fact, which
// the guards treat as a denial. Facts come from Gitea only, never from the caller's arguments.
import type { CallFacts, CallGuard } from '../policy/guards/call-guards.js';
import type { BranchFacts, CompareFacts, OpenPullHead, PullFacts, ReviewFact } from '../policy/guards/facts.js';
import type { FactBounds } from '../policy/guards/settings.js';
import type { Fact } from '../policy/guards/verdict.js';
import { encodePathValue } from './encode.js';
import { isRecord } from './errors.js';
import type { FactReader } from './types.js';

export interface PullRef {
  owner: string;
  repo: string;
  index: number;
}

export interface CallFactsRequest {
  owner: string;
  repo: string;
  /** The pull request number from the call's arguments; null when the call names none. */
  index: number | null;
  /** The session's verified login (GET /user, or the sudo user); null when unverified. */
  identity: string | null;
  expectedHeadSha: string | null;
  /** The call's own read of the pull request (made once, shared with its live targets); read here when absent. */
  pull?: Promise<Fact<PullFacts>>;
}

function missing<T>(detail: string): Fact<T> {
  return { ok: false, detail };
}

function present<T>(value: T): Fact<T> {
  return { ok: true, value };
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function field(value: unknown, ...keys: string[]): unknown {
  return keys.reduce<unknown>((at, key) => (isRecord(at) ? at[key] : undefined), value);
}

/** `/repos/{owner}/{repo}` plus encoded extra segments, or null when a value cannot be a path segment. */
export function repoPath(owner: string, repo: string, ...rest: Array<string | { branch: string }>): string | null {
  const parts = [encodePathValue('owner', owner, false), encodePathValue('repo', repo, false)];
  const tail = rest.map((part) => (typeof part === 'string' ? part : encodePathValue('branch', part.branch, true)));
  const encoded: string[] = [];
  for (const part of [...parts, ...tail]) {
    if (typeof part === 'string') encoded.push(part);
    else if (part.ok) encoded.push(part.value);
    else return null;
  }
  return `/repos/${encoded.join('/')}`;
}

/** One GET that must answer 200 (or 403, read as null, where the caller has a fallback for it). */
async function read(
  reader: FactReader,
  what: string,
  path: string | null,
  query?: Record<string, string | number>,
  options: { forbiddenAsNull?: boolean } = {},
): Promise<Fact<unknown>> {
  if (path === null) return missing(`${what} was not read: a name in its path is not valid.`);
  try {
    const result = await reader.get(path, query);
    if (result.status === 200) return present(result.data);
    if (result.status === 403 && options.forbiddenAsNull) return present(null);
    return missing(`${what} could not be read (HTTP ${result.status}${result.status === 404 ? ', not found' : ''}).`);
  } catch {
    return missing(`${what} could not be read (Gitea did not answer).`);
  }
}

/** Every page, until an empty one; reaching the bound first is a missing fact. */
async function readAllPages(reader: FactReader, what: string, path: string | null, query: Record<string, string>, bounds: FactBounds): Promise<Fact<unknown[]>> {
  const items: unknown[] = [];
  for (let page = 1; page <= bounds.max_pages; page++) {
    const answer = await read(reader, `${what} (page ${page})`, path, { ...query, page, limit: bounds.page_size });
    if (!answer.ok) return answer;
    if (!Array.isArray(answer.value)) return missing(`${what} (page ${page}) is not a list.`);
    if (answer.value.length === 0) return present(items);
    items.push(...answer.value);
  }
  return missing(`${what} has more than ${bounds.max_pages} pages of ${bounds.page_size}; not judged from a partial list.`);
}

/** Parses each item; one malformed item makes the whole list a missing fact. */
function parseEach<T>(what: string, items: Fact<unknown[]>, parse: (item: unknown) => T | null): Fact<T[]> {
  if (!items.ok) return items;
  const parsed = items.value.map(parse);
  return parsed.every((item): item is T => item !== null) ? present(parsed) : missing(`${what} has an entry Gitea described incompletely.`);
}

export function parsePull(data: unknown): PullFacts | null {
  const number = field(data, 'number');
  const state = text(field(data, 'state'));
  const merged = field(data, 'merged');
  const headSha = text(field(data, 'head', 'sha'));
  const headRef = text(field(data, 'head', 'ref'));
  const baseRef = text(field(data, 'base', 'ref'));
  if (typeof number !== 'number' || state === null || typeof merged !== 'boolean' || !headSha || !headRef || !baseRef) return null;
  return {
    number,
    author: text(field(data, 'user', 'login')),
    state,
    merged,
    headSha,
    headRef,
    headRepo: text(field(data, 'head', 'repo', 'full_name')),
    baseRef,
  };
}

export async function readPull(reader: FactReader, ref: PullRef): Promise<Fact<PullFacts>> {
  const what = `Pull request #${ref.index} of ${ref.owner}/${ref.repo}`;
  const answer = await read(reader, what, repoPath(ref.owner, ref.repo, 'pulls', String(ref.index)));
  if (!answer.ok) return answer;
  const pull = parsePull(answer.value);
  return pull ? present(pull) : missing(`${what} lacks its number, state, merged flag, head or base.`);
}

/** Whether issue #index is a pull request (Gitea's issue carries `pull_request` then); unreadable is a missing fact. */
export async function readIsPullRequest(reader: FactReader, ref: PullRef): Promise<Fact<boolean>> {
  const what = `Issue #${ref.index} of ${ref.owner}/${ref.repo}`;
  const answer = await read(reader, what, repoPath(ref.owner, ref.repo, 'issues', String(ref.index)));
  if (!answer.ok) return answer;
  if (typeof field(answer.value, 'number') !== 'number') return missing(`${what} lacks its number.`);
  const pull = field(answer.value, 'pull_request');
  return present(pull !== null && pull !== undefined);
}

function parseReview(data: unknown): ReviewFact | null {
  const state = text(field(data, 'state'));
  if (state === null) return null;
  const flag = (key: string): boolean => field(data, key) !== false; // not reported counts against the approval
  return { reviewer: text(field(data, 'user', 'login')), state, commitId: text(field(data, 'commit_id')), stale: flag('stale'), dismissed: flag('dismissed') };
}

export async function readReviews(reader: FactReader, ref: PullRef, bounds: FactBounds): Promise<Fact<ReviewFact[]>> {
  const what = `The reviews of pull request #${ref.index}`;
  const pages = await readAllPages(reader, what, repoPath(ref.owner, ref.repo, 'pulls', String(ref.index), 'reviews'), {}, bounds);
  return parseEach(what, pages, parseReview);
}

export async function readBranch(reader: FactReader, owner: string, repo: string, branch: string): Promise<Fact<BranchFacts>> {
  const what = `Branch ${branch} of ${owner}/${repo}`;
  const answer = await read(reader, what, repoPath(owner, repo, 'branches', { branch }));
  if (!answer.ok) return answer;
  const name = text(field(answer.value, 'name'));
  const sha = text(field(answer.value, 'commit', 'id'));
  const isProtected = field(answer.value, 'protected');
  if (name === null || sha === null || typeof isProtected !== 'boolean') return missing(`${what} lacks its name, commit or protected flag.`);
  return present({ name, sha, protected: isProtected });
}

/**
 * The rule names (patterns) of the repository's branch protections. Gitea lists them to repository
 * admins only: a 403 gives null, and the guard then relies on the branch's own `protected` flag, which
 * Gitea computes from the same rules. Any other failure is a missing fact.
 */
export async function readProtectionRules(reader: FactReader, owner: string, repo: string): Promise<Fact<string[] | null>> {
  const what = `The branch protections of ${owner}/${repo}`;
  const answer = await read(reader, what, repoPath(owner, repo, 'branch_protections'), undefined, { forbiddenAsNull: true });
  if (!answer.ok || answer.value === null) return answer as Fact<null>;
  if (!Array.isArray(answer.value)) return missing(`${what} are not a list.`);
  return parseEach(what, present(answer.value), (rule) => text(field(rule, 'rule_name')) ?? text(field(rule, 'branch_name')));
}

/** Commits of `head` not reachable from `base` (base...head); both are SHAs. */
export async function readCompare(reader: FactReader, owner: string, repo: string, base: string, head: string): Promise<Fact<CompareFacts>> {
  const what = `The compare ${base}...${head}`;
  const answer = await read(reader, what, repoPath(owner, repo, 'compare', `${encodeURIComponent(base)}...${encodeURIComponent(head)}`));
  if (!answer.ok) return answer;
  const total = field(answer.value, 'total_commits');
  if (typeof total !== 'number' || !Number.isInteger(total) || total < 0) return missing(`${what} lacks total_commits.`);
  return present({ base, head, aheadBy: total });
}

export async function readOpenPullHeads(reader: FactReader, owner: string, repo: string, bounds: FactBounds): Promise<Fact<OpenPullHead[]>> {
  const what = `The open pull requests of ${owner}/${repo}`;
  const pages = await readAllPages(reader, what, repoPath(owner, repo, 'pulls'), { state: 'open' }, bounds);
  return parseEach(what, pages, (item) => {
    const number = field(item, 'number');
    const headRef = text(field(item, 'head', 'ref'));
    return typeof number === 'number' && headRef ? { number, headRef, headRepo: text(field(item, 'head', 'repo', 'full_name')) } : null;
  });
}

/** The PR's target branch fetched now, and the compare of its tip with the PR head. */
export async function readLanding(reader: FactReader, owner: string, repo: string, pull: Fact<PullFacts>): Promise<{ target: Fact<BranchFacts>; compare: Fact<CompareFacts> }> {
  if (!pull.ok) {
    const unknown = missing<never>('Not read: the pull request itself is unknown.');
    return { target: unknown, compare: unknown };
  }
  const target = await readBranch(reader, owner, repo, pull.value.baseRef);
  const compare = target.ok
    ? await readCompare(reader, owner, repo, target.value.sha, pull.value.headSha)
    : missing<CompareFacts>('Not compared: the target branch is unknown.');
  return { target, compare };
}

/** The facts the self-review and merge guards judge, for the guards a call needs. */
export async function gatherCallFacts(reader: FactReader, guards: readonly CallGuard[], request: CallFactsRequest, bounds: FactBounds): Promise<CallFacts> {
  const identity = request.identity ? present(request.identity) : missing<string>("The session's Gitea identity is not verified.");
  if (request.index === null) {
    const unnamed = 'The call names no pull request number to read.';
    return { identity, pull: missing(unnamed), reviews: missing(unnamed), expectedHeadSha: request.expectedHeadSha };
  }
  const ref = { owner: request.owner, repo: request.repo, index: request.index };
  const [pull, reviews] = await Promise.all([request.pull ?? readPull(reader, ref), guards.includes('merge') ? readReviews(reader, ref, bounds) : undefined]);
  return { identity, pull, ...(reviews ? { reviews } : {}), expectedHeadSha: request.expectedHeadSha };
}
