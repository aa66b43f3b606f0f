// The fact gatherers: live GETs whose answers the guards judge. Every failure (network, non-200,
// a field missing or of the wrong type, a pagination bound reached) becomes a missing fact, which
// the guards treat as a denial. Facts come from Gitea only, never from the caller's arguments.
import type { CallFacts, CallGuard } from '../policy/guards/call-guards.js';
import type {
  BranchFacts,
  LandingFacts,
  OpenPull,
  PullFacts,
  RepositoryFacts,
  ReviewFact,
  TimelineEntry,
} from '../policy/guards/guard-facts.js';
import type { FactBounds } from '../policy/guards/guard-settings.js';
import type { Fact } from '../policy/guards/verdict.js';
import { encodePathValue } from './encode.js';
import { isRecord } from './errors.js';
import type { FactReader } from './gitea-identity.js';

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
  /** body.delete_branch_after_merge as passed; null when absent. */
  deleteBranch: boolean | null;
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
async function read(...args: Parameters<typeof readWithTotal>): Promise<Fact<unknown>> {
  const answer = await readWithTotal(...args);
  return answer.ok ? present(answer.value.data) : answer;
}

/** The same GET, with the list's X-Total-Count. */
async function readWithTotal(
  reader: FactReader,
  what: string,
  path: string | null,
  query?: Record<string, string | number>,
  options: { forbiddenAsNull?: boolean } = {},
): Promise<Fact<{ data: unknown; total: number | null }>> {
  if (path === null) return missing(`${what} was not read: a name in its path is not valid.`);
  try {
    const result = await reader.get(path, query);
    if (result.status === 200) return present({ data: result.data, total: result.totalCount ?? null });
    if (result.status === 403 && options.forbiddenAsNull) return present({ data: null, total: null });
    return missing(`${what} could not be read (HTTP ${result.status}${result.status === 404 ? ', not found' : ''}).`);
  } catch {
    return missing(`${what} could not be read (Gitea did not answer).`);
  }
}

/**
 * Every page of a list. Gitea's X-Total-Count counts items a page may then leave out (another
 * user's pending review), so a page can come back short or even empty before the end: the pages
 * the total implies are all read, and then one more that must be empty (Gitea may cap the page
 * size below the one asked for). Without the header, the first empty page ends the list.
 * Reaching the bound first is a missing fact.
 */
async function readAllPages(
  reader: FactReader,
  what: string,
  path: string | null,
  query: Record<string, string>,
  bounds: FactBounds,
): Promise<Fact<unknown[]>> {
  const items: unknown[] = [];
  let lastPage = 0;
  for (let page = 1; page <= bounds.max_pages; page++) {
    const answer = await readWithTotal(reader, `${what} (page ${page})`, path, {
      ...query,
      page,
      limit: bounds.page_size,
    });
    if (!answer.ok) return answer;
    const { data, total } = answer.value;
    if (!Array.isArray(data)) return missing(`${what} (page ${page}) is not a list.`);
    if (total !== null) lastPage = Math.max(lastPage, Math.ceil(total / bounds.page_size));
    if (data.length === 0 && page > lastPage) return present(items);
    items.push(...data);
  }
  return missing(
    `${what} has more than ${bounds.max_pages} pages of ${bounds.page_size}; not judged from a partial list.`,
  );
}

/** Parses each item; one malformed item makes the whole list a missing fact. */
function parseEach<T>(what: string, items: Fact<unknown[]>, parse: (item: unknown) => T | null): Fact<T[]> {
  if (!items.ok) return items;
  const parsed = items.value.map(parse);
  return parsed.every((item): item is T => item !== null)
    ? present(parsed)
    : missing(`${what} has an entry Gitea described incompletely.`);
}

/** A git object id (SHA-1 or SHA-256), never a ref name such as refs/pull/7/head. */
export function isCommitSha(value: string | null): value is string {
  return value !== null && /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i.test(value);
}

const PULL_REF = /^refs\/pull\/\d+\/head$/;

/**
 * The head branch of a pull request as convert.ToAPIPullRequest reports it: head.ref is the branch
 * while it exists and refs/pull/N/head once it is deleted; head.label keeps the branch name.
 */
function headBranch(data: unknown): { name: string; exists: boolean } | null {
  const ref = text(field(data, 'head', 'ref'));
  const label = text(field(data, 'head', 'label'));
  if (ref !== null && !PULL_REF.test(ref)) return { name: ref, exists: true };
  return label !== null ? { name: label, exists: false } : null;
}

export function parsePull(data: unknown): PullFacts | null {
  const number = field(data, 'number');
  const state = text(field(data, 'state'));
  const merged = field(data, 'merged');
  const headSha = text(field(data, 'head', 'sha'));
  const head = headBranch(data);
  const baseRef = text(field(data, 'base', 'ref'));
  // head.sha can read refs/pull/N/head (not a commit): no SHA, no fact.
  if (
    typeof number !== 'number' ||
    state === null ||
    typeof merged !== 'boolean' ||
    !isCommitSha(headSha) ||
    !head ||
    !baseRef
  )
    return null;
  return {
    number,
    author: text(field(data, 'user', 'login')),
    state,
    merged,
    headSha,
    headRef: head.name,
    headBranchExists: head.exists,
    headRepo: text(field(data, 'head', 'repo', 'full_name')),
    baseRef,
    baseRepo: text(field(data, 'base', 'repo', 'full_name')),
  };
}

export async function readPull(reader: FactReader, ref: PullRef): Promise<Fact<PullFacts>> {
  const what = `Pull request #${ref.index} of ${ref.owner}/${ref.repo}`;
  const answer = await read(reader, what, repoPath(ref.owner, ref.repo, 'pulls', String(ref.index)));
  if (!answer.ok) return answer;
  const pull = parsePull(answer.value);
  return pull
    ? present(pull)
    : missing(`${what} lacks its number, state, merged flag, head branch, head commit SHA or base.`);
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

/**
 * Whether comment `id` of owner/repo sits on a pull request: Gitea's comment routes load it with
 * GetCommentByID and check CanWriteIssuesOrPulls(comment.Issue.IsPull), ignoring any {index} the
 * route names (routers/api/v1/repo/issue_comment.go). ToAPIComment reports the issue side as
 * `pull_request_url` (Comment.PRURL: non-empty only on a pull request) and `issue_url` (only on an
 * issue). A 204 (a comment of another type) or neither field set tells nothing: a missing fact.
 */
export async function readCommentOnPullRequest(
  reader: FactReader,
  repository: { owner: string; repo: string },
  id: number,
): Promise<Fact<boolean>> {
  const what = `Comment ${id} of ${repository.owner}/${repository.repo}`;
  const answer = await read(
    reader,
    what,
    repoPath(repository.owner, repository.repo, 'issues', 'comments', String(id)),
  );
  if (!answer.ok) return answer;
  if (text(field(answer.value, 'pull_request_url')) !== null) return present(true);
  if (text(field(answer.value, 'issue_url')) !== null) return present(false);
  return missing(`${what} names neither its issue nor its pull request.`);
}

function parseReview(data: unknown): ReviewFact | null {
  const id = field(data, 'id');
  const state = text(field(data, 'state'));
  if (typeof id !== 'number' || state === null) return null;
  // Not reported counts against the approval: stale and dismissed as true, official as false.
  const flag = (key: string): boolean => field(data, key) !== false;
  return {
    id,
    reviewer: text(field(data, 'user', 'login')),
    state,
    commitId: text(field(data, 'commit_id')),
    stale: flag('stale'),
    dismissed: flag('dismissed'),
    official: field(data, 'official') === true,
  };
}

export async function readReviews(reader: FactReader, ref: PullRef, bounds: FactBounds): Promise<Fact<ReviewFact[]>> {
  const what = `The reviews of pull request #${ref.index}`;
  const pages = await readAllPages(
    reader,
    what,
    repoPath(ref.owner, ref.repo, 'pulls', String(ref.index), 'reviews'),
    {},
    bounds,
  );
  return parseEach(what, pages, parseReview);
}

/**
 * One timeline entry the merge guard reads (convert.ToTimelineComment): a pull_push's body is
 * issues_model.PushActionContent JSON whose last commit id is the head the push left; a
 * change_target_branch names old_ref and new_ref; a review names its review_id. null for an entry of
 * another type (skipped), and a malformed one of these three is a missing fact for the whole list.
 */
function parseTimelineEntry(data: unknown): TimelineEntry | null | 'malformed' {
  const type = text(field(data, 'type'));
  if (type === 'pull_push') {
    let content: unknown;
    try {
      content = JSON.parse(text(field(data, 'body')) ?? '');
    } catch {
      return 'malformed';
    }
    const ids = field(content, 'commit_ids');
    const last: unknown = Array.isArray(ids) ? ids[ids.length - 1] : null;
    return typeof last === 'string' && isCommitSha(last) ? { kind: 'push', head: last } : 'malformed';
  }
  if (type === 'change_target_branch') {
    const from = text(field(data, 'old_ref'));
    const to = text(field(data, 'new_ref'));
    return from !== null && to !== null ? { kind: 'retarget', from, to } : 'malformed';
  }
  if (type === 'review') {
    const id = field(data, 'review_id');
    return typeof id === 'number' && id > 0 ? { kind: 'review', reviewId: id } : 'malformed';
  }
  return type === null ? 'malformed' : null;
}

/**
 * The pull request's timeline (routers/api/v1/repo.ListIssueCommentsAndTimeline). Gitea cuts a page
 * and then leaves out code comments and cross-references the token cannot read, and its
 * X-Total-Count counts only what the page returned, so a page can come back empty before the end:
 * the list ends at two empty pages in a row. Past facts.max_pages it is a missing fact.
 */
export async function readTimeline(
  reader: FactReader,
  ref: PullRef,
  bounds: FactBounds,
): Promise<Fact<TimelineEntry[]>> {
  const what = `The timeline of pull request #${ref.index}`;
  const path = repoPath(ref.owner, ref.repo, 'issues', String(ref.index), 'timeline');
  const entries: TimelineEntry[] = [];
  // Two empty pages end the list; they are read past the bound, which counts the pages with entries.
  for (let page = 1, empty = 0; ; page++) {
    const answer = await read(reader, `${what} (page ${page})`, path, { page, limit: bounds.page_size });
    if (!answer.ok) return answer;
    if (!Array.isArray(answer.value)) return missing(`${what} (page ${page}) is not a list.`);
    if (answer.value.length === 0) {
      if (++empty === 2) return present(entries);
      continue;
    }
    if (page > bounds.max_pages)
      return missing(
        `${what} has more than ${bounds.max_pages} pages of ${bounds.page_size}; not judged from a partial list.`,
      );
    empty = 0;
    for (const item of answer.value) {
      const entry = parseTimelineEntry(item);
      if (entry === 'malformed') return missing(`${what} has an entry Gitea described incompletely.`);
      if (entry) entries.push(entry);
    }
  }
}

export async function readRepository(reader: FactReader, owner: string, repo: string): Promise<Fact<RepositoryFacts>> {
  const what = `Repository ${owner}/${repo}`;
  const answer = await read(reader, what, repoPath(owner, repo));
  if (!answer.ok) return answer;
  const fullName = text(field(answer.value, 'full_name'));
  const deletes = field(answer.value, 'default_delete_branch_after_merge');
  if (fullName === null || typeof deletes !== 'boolean')
    return missing(`${what} lacks its full_name or default_delete_branch_after_merge.`);
  return present({
    fullName,
    defaultDeleteBranchAfterMerge: deletes,
    parent: text(field(answer.value, 'parent', 'full_name')),
  });
}

export async function readBranch(
  reader: FactReader,
  owner: string,
  repo: string,
  branch: string,
): Promise<Fact<BranchFacts>> {
  const what = `Branch ${branch} of ${owner}/${repo}`;
  const answer = await read(reader, what, repoPath(owner, repo, 'branches', { branch }));
  if (!answer.ok) return answer;
  const name = text(field(answer.value, 'name'));
  const sha = text(field(answer.value, 'commit', 'id'));
  const isProtected = field(answer.value, 'protected');
  if (name === null || !isCommitSha(sha) || typeof isProtected !== 'boolean')
    return missing(`${what} lacks its name, commit or protected flag.`);
  return present({ name, sha, protected: isProtected });
}

/** The repository's default_branch (GET /repos/{owner}/{repo}), whatever it is named. */
export async function readDefaultBranch(reader: FactReader, owner: string, repo: string): Promise<Fact<string>> {
  const what = `The default branch of ${owner}/${repo}`;
  const answer = await read(reader, what, repoPath(owner, repo));
  if (!answer.ok) return answer;
  const name = text(field(answer.value, 'default_branch'));
  return name ? present(name) : missing(`${what} is not reported (default_branch).`);
}

/**
 * Gitea's `protected` flag of a branch (GET /repos/{owner}/{repo}/branches/{branch}), which Gitea
 * computes with GetFirstMatchProtectedBranchRule (plain rule names case-insensitively, glob rules by
 * gobwas/glob). A branch that does not exist yet (404) has no flag: not protected.
 */
export async function readBranchProtected(
  reader: FactReader,
  owner: string,
  repo: string,
  branch: string,
): Promise<Fact<boolean>> {
  const what = `Branch ${branch} of ${owner}/${repo}`;
  const path = repoPath(owner, repo, 'branches', { branch });
  if (path === null) return missing(`${what} was not read: a name in its path is not valid.`);
  try {
    const answer = await reader.get(path);
    if (answer.status === 404) return present(false);
    if (answer.status !== 200) return missing(`${what} could not be read (HTTP ${answer.status}).`);
    const flag = field(answer.data, 'protected');
    return typeof flag === 'boolean' ? present(flag) : missing(`${what} lacks its protected flag.`);
  } catch {
    return missing(`${what} could not be read (Gitea did not answer).`);
  }
}

/**
 * The rule names (patterns) of the repository's branch protections. Gitea lists them to repository
 * admins only: a 403 gives null, and the guard then relies on the branch's own `protected` flag, which
 * Gitea computes from the same rules. Any other failure is a missing fact.
 */
export async function readProtectionRules(
  reader: FactReader,
  owner: string,
  repo: string,
): Promise<Fact<string[] | null>> {
  const what = `The branch protections of ${owner}/${repo}`;
  const answer = await read(reader, what, repoPath(owner, repo, 'branch_protections'), undefined, {
    forbiddenAsNull: true,
  });
  if (!answer.ok || answer.value === null) return answer as Fact<null>;
  if (!Array.isArray(answer.value)) return missing(`${what} are not a list.`);
  return parseEach(
    what,
    present(answer.value),
    (rule) => text(field(rule, 'rule_name')) ?? text(field(rule, 'branch_name')),
  );
}

function parseCommitLink(data: unknown): { sha: string; parents: string[] } | null {
  const sha = text(field(data, 'sha'));
  const parents = field(data, 'parents');
  if (!isCommitSha(sha) || !Array.isArray(parents)) return null;
  const shas = parents.map((p) => text(field(p, 'sha')));
  return shas.every(isCommitSha) ? { sha, parents: shas } : null;
}

/** Compare commit...target: the commits the target has that the commit lacks, each with its parents (landed-check.ts). */
export async function readLandingEvidence(
  reader: FactReader,
  owner: string,
  repo: string,
  commit: string,
  target: string,
): Promise<Fact<LandingFacts>> {
  const what = `The compare ${commit}...${target}`;
  const answer = await read(
    reader,
    what,
    repoPath(owner, repo, 'compare', `${encodeURIComponent(commit)}...${encodeURIComponent(target)}`),
  );
  if (!answer.ok) return answer;
  const commits = field(answer.value, 'commits');
  if (!Array.isArray(commits)) return missing(`${what} lacks its commit list.`);
  const parsed = parseEach(what, present(commits), parseCommitLink);
  return parsed.ok ? present({ commit, target, commits: parsed.value }) : parsed;
}

function parseOpenPull(repo: string, item: unknown): OpenPull | null {
  const number = field(item, 'number');
  const head = headBranch(item);
  const baseRef = text(field(item, 'base', 'ref'));
  if (typeof number !== 'number' || !head || !baseRef) return null;
  return { number, repo, headRef: head.name, headRepo: text(field(item, 'head', 'repo', 'full_name')), baseRef };
}

async function readOpenPullsOf(reader: FactReader, fullName: string, bounds: FactBounds): Promise<Fact<OpenPull[]>> {
  const what = `The open pull requests of ${fullName}`;
  const [owner = '', repo = ''] = fullName.split('/', 2);
  const pages = await readAllPages(reader, what, repoPath(owner, repo, 'pulls'), { state: 'open' }, bounds);
  return parseEach(what, pages, (item) => parseOpenPull(fullName, item));
}

/**
 * The open pull requests that could use a branch of owner/repo, as far as the API shows them:
 * this repository's own (heads from anywhere, bases here), and those of its parent and its forks
 * (heads from here). Forks the token cannot see stay out of view (docs/gitea-semantics.md).
 */
export async function readOpenPulls(
  reader: FactReader,
  owner: string,
  repo: string,
  bounds: FactBounds,
): Promise<Fact<OpenPull[]>> {
  const repository = await readRepository(reader, owner, repo);
  if (!repository.ok) return repository;
  const forks = await readAllPages(reader, `The forks of ${owner}/${repo}`, repoPath(owner, repo, 'forks'), {}, bounds);
  const forkNames = parseEach(`The forks of ${owner}/${repo}`, forks, (item) => text(field(item, 'full_name')));
  if (!forkNames.ok) return forkNames;
  const self = repository.value.fullName;
  const others = [...new Set([repository.value.parent, ...forkNames.value].filter((n): n is string => n !== null))];
  const lists = await Promise.all([self, ...others].map((name) => readOpenPullsOf(reader, name, bounds)));
  const all: OpenPull[] = [];
  for (const list of lists) {
    if (!list.ok) return list;
    all.push(...list.value);
  }
  return present(all);
}

/** A ref move as the call names it (src/policy/targets.ts RefMove): null source or onto is the default branch. */
export interface RefMoveRead {
  owner: string;
  repo: string;
  source: string | null;
  upstream: boolean;
  onto: string | null;
}

/** What a ref move brings: the files its commits change against `onto`, and how that was read. */
export interface RefMoveFiles {
  files: string[];
  /** The compare that told it, e.g. `main@1a2b...3c4d` (for a denial to name). */
  compare: string;
}

/** Whether the branch exists (200) or not (404); anything else is a missing fact. */
async function branchExists(reader: FactReader, owner: string, repo: string, branch: string): Promise<Fact<boolean>> {
  const what = `Branch ${branch} of ${owner}/${repo}`;
  const path = repoPath(owner, repo, 'branches', { branch });
  if (path === null) return missing(`${what} was not read: a name in its path is not valid.`);
  try {
    const answer = await reader.get(path);
    if (answer.status === 200 || answer.status === 404) return present(answer.status === 200);
    return missing(`${what} could not be read (HTTP ${answer.status}).`);
  } catch {
    return missing(`${what} could not be read (Gitea did not answer).`);
  }
}

/** The first commit repoGetAllCommits lists for `ref` (GetCommit resolves any ref git does: branch, tag, sha, refs/pull/N/head). */
async function readRefCommit(reader: FactReader, owner: string, repo: string, ref: string): Promise<Fact<string>> {
  const what = `The commit ${ref} of ${owner}/${repo} names`;
  const answer = await read(reader, what, repoPath(owner, repo, 'commits'), {
    sha: ref,
    limit: 1,
    stat: 'false',
    verification: 'false',
    files: 'false',
  });
  if (!answer.ok) return answer;
  const sha = Array.isArray(answer.value) ? text(field(answer.value[0], 'sha')) : null;
  return isCommitSha(sha) ? present(sha) : missing(`${what} is not reported.`);
}

/** The files each listed commit of a compare changed (convert.ToCommit with files), or null when one is not told. */
function compareFiles(data: unknown): { commits: number; files: string[] } | null {
  const commits = field(data, 'commits');
  if (!Array.isArray(commits)) return null;
  const files = new Set<string>();
  for (const commit of commits) {
    const changed = field(commit, 'files');
    if (!Array.isArray(changed)) return null;
    for (const file of changed) {
      const name = text(field(file, 'filename'));
      if (name === null) return null;
      files.add(name);
    }
  }
  return { commits: commits.length, files: [...files].sort() };
}

/**
 * What a ref move (a branch created from a ref, a branch pointed at a commit, a tag, a release's
 * target, a fork synced with its upstream) writes into this repository: the files changed by the
 * commits the source has and `onto` lacks (compare onto...source, each commit's files; a union, so a
 * file changed and changed back still counts). A source that is onto's tip brings nothing; so does
 * one onto contains, proven as the landed check proves it (a commit onto contains has it as a parent);
 * a compare that lists nothing otherwise means the two share no history, which tells nothing: a
 * missing fact. So is a compare of more commits than the fact bounds would read.
 */
export async function readRefMoveFiles(
  reader: FactReader,
  move: RefMoveRead,
  bounds: FactBounds,
): Promise<Fact<RefMoveFiles>> {
  const { owner, repo } = move;
  const repository = await read(reader, `Repository ${owner}/${repo}`, repoPath(owner, repo));
  if (!repository.ok) return repository;
  const defaultBranch = text(field(repository.value, 'default_branch'));
  const onto = move.onto ?? defaultBranch;
  if (onto === null) return missing(`The default branch of ${owner}/${repo} is not reported.`);
  const target = await readBranch(reader, owner, repo, onto);
  if (!target.ok) return target;
  let source: { owner: string; repo: string; ref: string } = { owner, repo, ref: move.source ?? onto };
  if (move.upstream) {
    const parent = text(field(repository.value, 'parent', 'full_name'));
    if (parent === null) return missing(`${owner}/${repo} is not a fork, so it has no upstream to sync from.`);
    const [parentOwner = '', parentRepo = ''] = parent.split('/', 2);
    const [exists, parentRead] = await Promise.all([
      branchExists(reader, parentOwner, parentRepo, onto),
      read(reader, `Repository ${parent}`, repoPath(parentOwner, parentRepo)),
    ]);
    if (!exists.ok) return exists;
    if (!parentRead.ok) return parentRead;
    // GetUpstreamDivergingInfo: the parent's branch of the same name, else the parent's default branch.
    const ref = exists.value ? onto : text(field(parentRead.value, 'default_branch'));
    if (ref === null) return missing(`The default branch of ${parent} is not reported.`);
    source = { owner: parentOwner, repo: parentRepo, ref };
  } else if (move.source === null) source = { owner, repo, ref: defaultBranch ?? onto };
  const sha = await readRefCommit(reader, source.owner, source.repo, source.ref);
  if (!sha.ok) return sha;
  const head = source.owner === owner && source.repo === repo ? sha.value : `${source.owner}:${sha.value}`;
  const compare = `${onto}@${target.value.sha}...${source.owner}/${source.repo}@${sha.value}`;
  if (sha.value.toLowerCase() === target.value.sha.toLowerCase()) return present({ files: [], compare });
  const what = `The compare ${target.value.sha}...${head}`;
  const answer = await read(
    reader,
    what,
    repoPath(owner, repo, 'compare', `${encodeURIComponent(target.value.sha)}...${encodeURIComponent(head)}`),
  );
  if (!answer.ok) return answer;
  const brought = compareFiles(answer.value);
  if (brought === null) return missing(`${what} does not list each commit's files.`);
  const limit = bounds.page_size * bounds.max_pages;
  if (brought.commits > limit)
    return missing(`${what} lists more than ${limit} commits; not judged from a partial list.`);
  if (brought.commits > 0) return present({ files: brought.files, compare });
  const landed = await readLandingEvidence(reader, owner, repo, sha.value, target.value.sha);
  if (landed.ok && landed.value.commits.some((c) => c.parents.some((p) => p.toLowerCase() === sha.value.toLowerCase())))
    return present({ files: [], compare });
  return missing(
    `${what} lists no commit and ${onto} is not shown to contain ${sha.value}: the two share no history, so what it brings cannot be told.`,
  );
}

/**
 * The repository a compare's `owner:ref` head reads, as parseCompareInfo finds it: that owner's fork of
 * this repository (GetForkedRepo), or this repository's parent when that owner owns it.
 */
export async function readCompareHeadRepository(
  reader: FactReader,
  owner: string,
  repo: string,
  headOwner: string,
  bounds: FactBounds,
): Promise<Fact<string>> {
  const forks = await readAllPages(reader, `The forks of ${owner}/${repo}`, repoPath(owner, repo, 'forks'), {}, bounds);
  const names = parseEach(`The forks of ${owner}/${repo}`, forks, (item) => text(field(item, 'full_name')));
  if (!names.ok) return names;
  const fork = names.value.find((name) => name.split('/')[0]?.toLowerCase() === headOwner.toLowerCase());
  if (fork) return present(fork);
  const repository = await readRepository(reader, owner, repo);
  if (!repository.ok) return repository;
  const parent = repository.value.parent;
  if (parent && parent.split('/')[0]?.toLowerCase() === headOwner.toLowerCase()) return present(parent);
  return missing(`${headOwner} has no fork of ${owner}/${repo} and does not own its parent (Gitea answers 404).`);
}

/** The target branch fetched now, and the compare of `commit` with its tip. */
export async function readLanding(
  reader: FactReader,
  owner: string,
  repo: string,
  baseRef: Fact<string>,
  commit: Fact<string>,
): Promise<{ target: Fact<BranchFacts>; landing: Fact<LandingFacts> }> {
  if (!baseRef.ok) {
    const unknown = missing<never>('Not read: the pull request itself is unknown.');
    return { target: unknown, landing: unknown };
  }
  const target = await readBranch(reader, owner, repo, baseRef.value);
  const landing = !target.ok
    ? missing<LandingFacts>('Not compared: the target branch is unknown.')
    : !commit.ok
      ? missing<LandingFacts>('Not compared: the commit to prove is unknown.')
      : await readLandingEvidence(reader, owner, repo, commit.value, target.value.sha);
  return { target, landing };
}

/** The facts the self-review and merge guards judge, for the guards a call needs. */
export async function gatherCallFacts(
  reader: FactReader,
  guards: readonly CallGuard[],
  request: CallFactsRequest,
  bounds: FactBounds,
): Promise<CallFacts> {
  const identity = request.identity
    ? present(request.identity)
    : missing<string>("The session's Gitea identity is not verified.");
  const { expectedHeadSha, deleteBranch } = request;
  if (request.index === null) {
    const unnamed = 'The call names no pull request number to read.';
    return {
      identity,
      pull: missing(unnamed),
      reviews: missing(unnamed),
      timeline: missing(unnamed),
      repository: missing(unnamed),
      expectedHeadSha,
      deleteBranch,
    };
  }
  const ref = { owner: request.owner, repo: request.repo, index: request.index };
  const merging = guards.includes('merge');
  const [pull, reviews, timeline, repository] = await Promise.all([
    request.pull ?? readPull(reader, ref),
    merging ? readReviews(reader, ref, bounds) : undefined,
    merging ? readTimeline(reader, ref, bounds) : undefined,
    merging && deleteBranch === null ? readRepository(reader, ref.owner, ref.repo) : undefined,
  ]);
  return {
    identity,
    pull,
    ...(reviews ? { reviews } : {}),
    ...(timeline ? { timeline } : {}),
    ...(repository ? { repository } : {}),
    expectedHeadSha,
    deleteBranch,
  };
}
