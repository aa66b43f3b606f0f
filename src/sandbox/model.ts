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
  /** The repository the head branch lives in: this one, or a fork (a cross-repository pull request). */
  headRepoId: number;
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
  /** The issue's comments of other types than a plain comment (Gitea keeps both in one comment table). */
  events: TimelineEvent[];
}

/** An issue or pull request of some repository, as a comment refers to another one. */
export interface IssueRef {
  repoId: number;
  number: number;
}

/**
 * A timeline comment other than a plain comment (models/issues/comment.go CommentType): numbered from
 * the same sequence as comments, so the timeline is both kinds in id order.
 */
export interface TimelineEvent {
  id: number;
  type:
    | 'pull_push'
    | 'change_target_branch'
    | 'review'
    | 'issue_ref'
    | 'pull_ref'
    | 'comment_ref'
    | 'add_dependency'
    | 'remove_dependency'
    | 'change_title';
  user: string;
  created: string;
  /** Comment.Content: a pull_push's JSON PushActionContent, a review's text. */
  body: string;
  oldRef?: string;
  newRef?: string;
  reviewId?: number;
  /** RefIssueID / RefCommentID of a cross-reference: the issue (and comment) that mentions this one. */
  refIssue?: IssueRef;
  refCommentId?: number;
  /** DependentIssueID of a dependency comment. */
  dependentIssue?: IssueRef;
  /** OldTitle / NewTitle of a change_title comment (issues_model.CreateChangeTitleComment). */
  oldTitle?: string;
  newTitle?: string;
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
  /** The repository this one was forked from (Repository.ForkID); null when it is no fork. */
  parentId: number | null;
  private: boolean;
  description: string;
  defaultBranch: string;
  created: string;
  updated: string;
  commits: Map<string, Commit>;
  branches: Map<string, string>;
  /** Lightweight tags: name -> commit sha. */
  tags: Map<string, string>;
  releases: Release[];
  protections: Protection[];
  /** Pull request unit settings: DefaultDeleteBranchAfterMerge and AllowManualMerge. */
  defaultDeleteBranchAfterMerge: boolean;
  allowManualMerge: boolean;
  collaborators: Map<string, AccessLevel>;
  issues: Issue[];
  labels: Label[];
  hooks: Hook[];
}

export interface Release {
  id: number;
  tag: string;
  /** target_commitish as given (a branch or commit), the default branch when empty. */
  target: string;
  title: string;
  note: string;
  draft: boolean;
  prerelease: boolean;
  publisher: string;
  created: string;
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
  /** repo_model.RepoRedirect: a renamed repository's old `owner/name` (lower case) -> its id. */
  readonly repoRedirects = new Map<string, number>();
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

  repoById(id: number): Repo | undefined {
    return this.repos.find((r) => r.id === id);
  }

  /** The issue an IssueRef names. */
  issueOf(ref: IssueRef): { repo: Repo; issue: Issue } | undefined {
    const repo = this.repoById(ref.repoId);
    const issue = repo?.issues.find((i) => i.number === ref.number);
    return repo && issue ? { repo, issue } : undefined;
  }

  /** Registers a new, empty repository (no commits, branches, rules, issues or hooks yet). */
  addRepo(
    fields: Pick<Repo, 'owner' | 'name' | 'private' | 'description' | 'defaultBranch'> &
      Partial<Pick<Repo, 'defaultDeleteBranchAfterMerge' | 'allowManualMerge' | 'parentId'>>,
  ): Repo {
    const created = this.timestamp();
    const repo: Repo = {
      id: this.nextId('repo'),
      parentId: null,
      defaultDeleteBranchAfterMerge: false,
      allowManualMerge: false,
      ...fields,
      created,
      updated: created,
      commits: new Map(),
      branches: new Map(),
      tags: new Map(),
      releases: [],
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

  /** A comment of another type than a plain one on an issue, numbered with the comments. */
  addEvent(issue: Issue, event: Omit<TimelineEvent, 'id' | 'created'>): TimelineEvent {
    const made: TimelineEvent = { id: this.nextId('comment'), created: this.timestamp(), ...event };
    issue.events.push(made);
    return made;
  }

  /**
   * Moves a branch (a push, forced or not) by `pusher` and keeps every open pull request whose head is
   * that branch of this repository, in this repository or in another one (a fork's pull request), on
   * the new head, as services/pull AddTestPullRequestTask does in this order: PushToBaseRepo copies the
   * head into the base repository (refs/pull/N/head), CreatePushPullComment records the push in the
   * timeline, then, when the diff changed (checkIfPRContentChanged), every review goes stale
   * (MarkReviewsAsStale), and last the reviews whose commit_id is the new head are fresh again
   * (MarkReviewsAsNotStale), whatever commit they were submitted on. A merged pull request keeps its
   * refs/pull/N/head.
   */
  moveBranch(repo: Repo, branch: string, sha: string, pusher?: string): void {
    repo.branches.set(branch, sha);
    repo.updated = this.timestamp();
    const by = pusher ?? repo.commits.get(sha)?.author.login ?? repo.owner;
    for (const base of this.repos) {
      for (const issue of base.issues) {
        const pull = issue.pull;
        if (!pull || pull.merged || issue.state !== 'open' || pull.headRepoId !== repo.id || pull.head !== branch)
          continue;
        if (pull.headSha === sha) continue;
        copyCommits(repo, base, sha);
        const baseSha = base.branches.get(pull.base) ?? pull.mergeBase;
        const changed = pullDiffKey(base, baseSha, pull.headSha) !== pullDiffKey(base, baseSha, sha);
        const old = pull.headSha;
        pull.headSha = sha;
        pull.mergeBase = mergeBase(base, baseSha, sha) ?? baseSha;
        const pushed = pushActionContent(base, old, sha, baseSha);
        if (pushed) this.addEvent(issue, { type: 'pull_push', user: by, body: JSON.stringify(pushed) });
        if (changed) for (const review of pull.reviews) review.stale = true;
        for (const review of pull.reviews) if (review.commitId === sha) review.stale = false;
      }
    }
  }
}

/** Copies the commit objects `sha` reaches from one repository into another (a push across a fork network). */
export function copyCommits(from: Repo, to: Repo, sha: string): void {
  if (from === to) return;
  for (const ancestor of ancestors(from, sha)) {
    const commit = from.commits.get(ancestor);
    if (commit && !to.commits.has(ancestor)) to.commits.set(ancestor, commit);
  }
}

/** issues_model.PushActionContent, the JSON body of a pull_push timeline comment. */
export interface PushActionContent {
  is_force_push: boolean;
  commit_ids: string[];
}

/**
 * services/pull.CreatePushPullComment: a push whose old head the new one does not contain is a force
 * push, recorded as [old, new]; otherwise the new commits the base branch does not have, oldest first
 * (getCommitIDsFromRepo, CommitsBetweenNotBase), and no comment at all when there are none. Either way
 * the last id is the head the push left.
 */
export function pushActionContent(
  repo: Repo,
  oldSha: string,
  newSha: string,
  baseSha: string,
): PushActionContent | null {
  if (!ancestors(repo, newSha).has(oldSha)) return { is_force_push: true, commit_ids: [oldSha, newSha] };
  const onBase = ancestors(repo, baseSha);
  const fresh = commitsBetween(repo, oldSha, newSha).filter((c) => !onBase.has(c.sha));
  return fresh.length === 0 ? null : { is_force_push: false, commit_ids: fresh.map((c) => c.sha).reverse() };
}

/**
 * services/pull.NewPullRequest: the pull_push comment a new pull request starts its timeline with, the
 * commits the head has that the base lacks, oldest first; none when there are none.
 */
export function openingPushContent(repo: Repo, baseSha: string, headSha: string): PushActionContent | null {
  const commits = commitsBetween(repo, baseSha, headSha);
  return commits.length === 0 ? null : { is_force_push: false, commit_ids: commits.map((c) => c.sha).reverse() };
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
