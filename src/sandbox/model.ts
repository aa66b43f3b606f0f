// The sandbox's in-memory world: accounts, repositories with a real commit graph, pull requests,
// reviews, issues, labels, webhooks, tokens and OAuth2 apps. Plain data plus the few rules that
// keep it consistent (a branch move updates the open pull requests that follow that branch).
import { createHash } from 'node:crypto';

export type AccessLevel = 'none' | 'read' | 'write' | 'admin';
export type TeamPermission = 'read' | 'write' | 'admin' | 'owner';

export interface Account {
  id: number;
  login: string;
  fullName: string;
  email: string;
  isAdmin: boolean;
  isOrg: boolean;
  password: string;
  created: string;
  /** The profile a user (or an organisation's owners) writes: what integrity labels hold back. */
  description: string;
  website: string;
  location: string;
}

export interface Team {
  name: string;
  permission: TeamPermission;
  members: string[];
  description?: string;
  /** Who may list the team (organization.ApplyTeamListFilter); Gitea's default for a new team is private. */
  visibility?: 'public' | 'limited' | 'private';
}

/** A team's id as the sandbox numbers them: per organisation, in seed order. */
export function teamIdOf(org: Account, index: number): number {
  return org.id * 1000 + index + 1;
}

/** One wiki page (Gitea keeps the wiki as a git repository; the sandbox keeps each page's history). */
export interface WikiPage {
  title: string;
  content: string;
  /** Newest first. */
  commits: Array<{ sha: string; message: string; author: string; date: string }>;
}

export interface Author {
  name: string;
  email: string;
  login: string | null;
}

/** A file tree as a snapshot: path -> content (text). */
export type Tree = Record<string, string>;

export interface Commit {
  sha: string;
  parents: string[];
  message: string;
  author: Author;
  date: string;
  tree: Tree;
}

export interface Protection {
  ruleName: string;
  requiredApprovals: number;
  enablePush: boolean;
  dismissStaleApprovals: boolean;
  blockOnRejectedReviews: boolean;
  created: string;
  updated: string;
}

export type ReviewState = 'APPROVED' | 'REQUEST_CHANGES' | 'COMMENT' | 'PENDING';

export interface Review {
  id: number;
  user: string;
  state: ReviewState;
  body: string;
  commitId: string;
  dismissed: boolean;
  /** Set at submission by IsOfficialReviewer; cleared when the same reviewer submits a newer verdict. */
  official: boolean;
  /** Content-based, as Gitea keeps it: set when a push changes the pull request's diff. */
  stale: boolean;
  submitted: string;
}

export interface Comment {
  id: number;
  user: string;
  body: string;
  created: string;
  updated: string;
}

export interface PullState {
  head: string;
  base: string;
  headSha: string;
  mergeBase: string;
  merged: boolean;
  mergedAt: string | null;
  mergedBy: string | null;
  mergeCommitSha: string | null;
  reviews: Review[];
}

export interface Issue {
  id: number;
  number: number;
  title: string;
  body: string;
  user: string;
  state: 'open' | 'closed';
  labels: number[];
  comments: Comment[];
  created: string;
  updated: string;
  closedAt: string | null;
  pull: PullState | null;
}

export interface Label {
  id: number;
  name: string;
  color: string;
  description: string;
}

export interface Hook {
  id: number;
  type: string;
  config: Record<string, string>;
  events: string[];
  active: boolean;
  branchFilter: string;
  authorizationHeader: string;
  created: string;
  updated: string;
}

export interface Repo {
  id: number;
  owner: string;
  name: string;
  private: boolean;
  description: string;
  defaultBranch: string;
  created: string;
  updated: string;
  commits: Map<string, Commit>;
  branches: Map<string, string>;
  protections: Protection[];
  /** Pull request unit settings: DefaultDeleteBranchAfterMerge and AllowManualMerge. */
  defaultDeleteBranchAfterMerge: boolean;
  allowManualMerge: boolean;
  collaborators: Map<string, AccessLevel>;
  issues: Issue[];
  labels: Label[];
  hooks: Hook[];
}

export interface AccessToken {
  id: number;
  owner: string;
  name: string;
  value: string;
  scopes: string[];
  created: string;
}

export interface OAuth2App {
  id: number;
  owner: string;
  name: string;
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  confidential: boolean;
  skipSecondaryAuthorization: boolean;
  created: string;
}

/** Time a user tracked on an issue (Gitea's tracked_time). */
export interface TrackedTime {
  id: number;
  repoId: number;
  issueNumber: number;
  user: string;
  seconds: number;
  created: string;
}

/** A running stopwatch of a user on an issue (Gitea's stopwatch). */
export interface Stopwatch {
  repoId: number;
  issueNumber: number;
  user: string;
  created: string;
}

export type ActionStatus = 'success' | 'failure' | 'running' | 'waiting';

/** One Actions workflow run of a repository and its jobs (Gitea's action_run, action_run_job). */
export interface ActionRun {
  id: number;
  repoId: number;
  index: number;
  workflowId: string;
  branch: string;
  sha: string;
  event: string;
  title: string;
  actor: string;
  status: ActionStatus;
  created: string;
  jobs: Array<{ id: number; name: string; status: ActionStatus }>;
}

/** One version of a package of an owner, linked to a repository or to none (Gitea's package_version). */
export interface PackageVersion {
  id: number;
  owner: string;
  type: string;
  name: string;
  version: string;
  creator: string;
  repoId: number | null;
  created: string;
}

/** A notification of a user about an issue or pull request (Gitea's notification). */
export interface Notification {
  id: number;
  user: string;
  repoId: number;
  issueNumber: number;
  status: 'unread' | 'read' | 'pinned';
  updated: string;
}

/** A user's grant to an OAuth2 application (Gitea's oauth2_grant): codes and tokens hang off it. */
export interface OAuth2Grant {
  id: number;
  appId: number;
  user: string;
  scope: string;
  /** Gitea's refresh-token counter (InvalidateRefreshTokens). */
  counter: number;
}

export interface OAuth2Code {
  grantId: number;
  redirectUri: string;
  codeChallenge: string;
  codeChallengeMethod: string;
  expiresAt: number;
}

export interface OAuth2Token {
  grantId: number;
  kind: 'access' | 'refresh';
  counter: number;
  expiresAt: number;
}

/** A signed-in browser of the web UI (Gitea's session cookie), with what /login/oauth/authorize parked in it. */
export interface WebSession {
  user: string | null;
  csrf: string;
  authorize?: {
    clientId: string;
    redirectUri: string;
    state: string;
    scope: string;
    codeChallenge: string;
    codeChallengeMethod: string;
  };
}

/** Hashes exactly as git does for a blob, so `sha` of a file is the real git blob id. */
export function blobSha(content: string): string {
  const bytes = Buffer.from(content, 'utf8');
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

export class SandboxState {
  baseUrl = 'http://127.0.0.1';
  readonly accounts = new Map<string, Account>();
  readonly teams = new Map<string, Team[]>();
  readonly repos: Repo[] = [];
  readonly tokens: AccessToken[] = [];
  readonly oauth2Apps: OAuth2App[] = [];
  readonly trackedTimes: TrackedTime[] = [];
  readonly stopwatches: Stopwatch[] = [];
  readonly actionRuns: ActionRun[] = [];
  readonly packages: PackageVersion[] = [];
  readonly notifications: Notification[] = [];
  readonly oauth2Grants: OAuth2Grant[] = [];
  readonly oauth2Codes = new Map<string, OAuth2Code>();
  readonly oauth2Tokens = new Map<string, OAuth2Token>();
  readonly webSessions = new Map<string, WebSession>();
  /** Repository id -> its wiki pages. */
  readonly wikis = new Map<number, WikiPage[]>();
  /** Gitea's [oauth2] settings: ACCESS_TOKEN_EXPIRATION_TIME (s), INVALIDATE_REFRESH_TOKENS. */
  oauth2Settings = { accessTokenSeconds: 3600, refreshTokenHours: 730, invalidateRefreshTokens: false };
  private nextIds = new Map<string, number>();
  private lastTime = 0;

  /** Ids per kind, from 1, the way Gitea's tables count. */
  nextId(kind: string): number {
    const id = (this.nextIds.get(kind) ?? 0) + 1;
    this.nextIds.set(kind, id);
    return id;
  }

  /** Gitea's RFC 3339 seconds, strictly increasing so commit order and history order agree. */
  timestamp(): string {
    this.lastTime = Math.max(Math.floor(Date.now() / 1000) * 1000, this.lastTime + 1000);
    return new Date(this.lastTime).toISOString().replace('.000Z', 'Z');
  }

  account(login: string): Account | undefined {
    return this.accounts.get(login.toLowerCase());
  }

  repo(owner: string, name: string): Repo | undefined {
    const o = owner.toLowerCase();
    const n = name.toLowerCase();
    return this.repos.find((r) => r.owner.toLowerCase() === o && r.name.toLowerCase() === n);
  }

  /** Registers a new, empty repository (no commits, branches, rules, issues or hooks yet). */
  addRepo(
    fields: Pick<Repo, 'owner' | 'name' | 'private' | 'description' | 'defaultBranch'> &
      Partial<Pick<Repo, 'defaultDeleteBranchAfterMerge' | 'allowManualMerge'>>,
  ): Repo {
    const created = this.timestamp();
    const repo: Repo = {
      id: this.nextId('repo'),
      defaultDeleteBranchAfterMerge: false,
      allowManualMerge: false,
      ...fields,
      created,
      updated: created,
      commits: new Map(),
      branches: new Map(),
      protections: [],
      collaborators: new Map(),
      issues: [],
      labels: [],
      hooks: [],
    };
    this.repos.push(repo);
    return repo;
  }

  /** Records a commit in the repository and returns it; the sha covers parents, message, author, date and tree. */
  addCommit(repo: Repo, parts: Omit<Commit, 'sha'>): Commit {
    const sha = createHash('sha1')
      .update(JSON.stringify([repo.id, parts.parents, parts.message, parts.author, parts.date, parts.tree]))
      .digest('hex');
    const commit: Commit = { sha, ...parts };
    repo.commits.set(sha, commit);
    return commit;
  }

  /**
   * Moves a branch (a push, forced or not) and keeps every open pull request whose head is that
   * branch on the new head, marking its reviews as services/pull AddTestPullRequestTask does:
   * when the diff changed (checkIfPRContentChanged) every review goes stale (MarkReviewsAsStale),
   * then reviews of the new head are fresh again (MarkReviewsAsNotStale). A merged pull request
   * keeps its refs/pull/N/head.
   */
  moveBranch(repo: Repo, branch: string, sha: string): void {
    repo.branches.set(branch, sha);
    repo.updated = this.timestamp();
    for (const issue of repo.issues) {
      const pull = issue.pull;
      if (!pull || pull.merged || issue.state !== 'open' || pull.head !== branch || pull.headSha === sha) continue;
      const baseSha = repo.branches.get(pull.base) ?? pull.mergeBase;
      const changed = pullDiffKey(repo, baseSha, pull.headSha) !== pullDiffKey(repo, baseSha, sha);
      pull.headSha = sha;
      pull.mergeBase = mergeBase(repo, baseSha, sha) ?? baseSha;
      if (changed) for (const review of pull.reviews) review.stale = true;
      for (const review of pull.reviews) if (review.commitId === sha) review.stale = false;
    }
  }
}

/** What a pull request changes: the files head differs in from its merge base with base (the PR's diff). */
export function pullDiffKey(repo: Repo, base: string, head: string): string {
  const before = repo.commits.get(mergeBase(repo, base, head) ?? '')?.tree ?? {};
  const after = repo.commits.get(head)?.tree ?? {};
  return JSON.stringify(diffTrees(before, after).map((c) => [c.filename, after[c.filename] ?? null]));
}

/** All ancestors of `sha` including itself. */
export function ancestors(repo: Repo, sha: string): Set<string> {
  const seen = new Set<string>();
  const stack = [sha];
  while (stack.length > 0) {
    const current = stack.pop() as string;
    if (seen.has(current)) continue;
    seen.add(current);
    stack.push(...(repo.commits.get(current)?.parents ?? []));
  }
  return seen;
}

/**
 * Commits reachable from `head` but not from `base`, newest first (git log base..head); none when
 * the two share no history, as git.GetCompareInfo answers without a merge base.
 */
export function commitsBetween(repo: Repo, base: string, head: string): Commit[] {
  if (mergeBase(repo, base, head) === null) return [];
  const excluded = ancestors(repo, base);
  const result = [...ancestors(repo, head)]
    .filter((sha) => !excluded.has(sha))
    .map((sha) => repo.commits.get(sha))
    .filter((c): c is Commit => c !== undefined);
  return result.sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
}

/** The newest common ancestor of two commits (by date among the shared ancestors). */
export function mergeBase(repo: Repo, a: string, b: string): string | null {
  const fromA = ancestors(repo, a);
  const shared = [...ancestors(repo, b)].filter((sha) => fromA.has(sha));
  const commits = shared.map((sha) => repo.commits.get(sha)).filter((c): c is Commit => c !== undefined);
  commits.sort((x, y) => (x.date < y.date ? 1 : x.date > y.date ? -1 : 0));
  return commits[0]?.sha ?? null;
}

export interface FileChange {
  filename: string;
  status: 'added' | 'modified' | 'deleted';
}

/** Files that differ between two tree snapshots. */
export function diffTrees(before: Tree, after: Tree): FileChange[] {
  const paths = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const changes: FileChange[] = [];
  for (const filename of paths) {
    const a = before[filename];
    const b = after[filename];
    if (a === b) continue;
    changes.push({ filename, status: a === undefined ? 'added' : b === undefined ? 'deleted' : 'modified' });
  }
  return changes;
}
