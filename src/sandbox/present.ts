// State -> the JSON shapes of the Gitea 1.27.1 API (definitions User, Repository, Branch, Commit,
// PullRequest, PullReview, Issue, Comment, Label, Hook, ContentsResponse, ...). Only fields the spec
// declares; pointers Gitea leaves unset go out as null, as Gitea's JSON does.
import micromatch from 'micromatch';
import { accessLevel, atLeast } from './auth.js';
import {
  blobSha,
  diffTrees,
  type Account,
  type Comment,
  type Commit,
  type Hook,
  type Issue,
  type Label,
  type IssueRef,
  type Protection,
  type PullState,
  type Release,
  type Repo,
  type Review,
  type TimelineEvent,
  type SandboxState,
  type Team,
  teamIdOf,
} from './model.js';

type Json = Record<string, unknown>;

export function presentUser(state: SandboxState, account: Account, viewer: Account | null = null): Json {
  // toUser (services/convert/user.go): only the user themself and site admins are "authed" viewers.
  const seesEmail = viewer !== null && (viewer.isAdmin || viewer.login === account.login);
  return {
    id: account.id,
    login: account.login,
    login_name: '',
    source_id: 0,
    full_name: account.fullName,
    email: seesEmail ? account.email : `${account.login}@noreply.sandbox.invalid`,
    avatar_url: `${state.baseUrl}/avatars/${account.id}`,
    html_url: `${state.baseUrl}/${account.login}`,
    language: '',
    is_admin: seesEmail && account.isAdmin,
    last_login: account.created,
    created: account.created,
    restricted: false,
    active: true,
    prohibit_login: false,
    location: account.location,
    website: account.website,
    description: account.description,
    visibility: 'public',
    followers_count: 0,
    following_count: 0,
    starred_repos_count: 0,
  };
}

/** convert.ToOrganization: the organisation's own profile; its e-mail only to signed-in callers (org.Get). */
export function presentOrganization(state: SandboxState, org: Account, viewer: Account | null): Json {
  return {
    id: org.id,
    name: org.login,
    username: org.login,
    full_name: org.fullName,
    email: viewer === null ? '' : org.email,
    avatar_url: `${state.baseUrl}/avatars/${org.id}`,
    description: org.description,
    website: org.website,
    location: org.location,
    visibility: 'public',
    repo_admin_change_team_access: false,
  };
}

const TEAM_UNITS = [
  'repo.code',
  'repo.issues',
  'repo.pulls',
  'repo.releases',
  'repo.wiki',
  'repo.ext_wiki',
  'repo.ext_issues',
  'repo.projects',
  'repo.packages',
  'repo.actions',
];

/** convert.ToTeam: with its organisation when `withOrganization` (ListUserTeams, GetTeam), without for ListTeams. */
export function presentTeam(
  state: SandboxState,
  org: Account,
  team: Team,
  index: number,
  viewer: Account | null,
  withOrganization: boolean,
): Json {
  const access = team.permission === 'owner' ? 'admin' : team.permission;
  return {
    id: teamIdOf(org, index),
    name: team.name,
    description: team.description ?? '',
    ...(withOrganization ? { organization: presentOrganization(state, org, viewer) } : {}),
    includes_all_repositories: true,
    permission: team.permission,
    units: TEAM_UNITS,
    units_map: Object.fromEntries(TEAM_UNITS.map((u) => [u, access])),
    can_create_org_repo: team.permission === 'owner',
    visibility: team.visibility ?? 'private',
  };
}

function userByLogin(state: SandboxState, login: string, viewer: Account | null): Json | null {
  const account = state.account(login);
  return account ? presentUser(state, account, viewer) : null;
}

export function presentRepo(state: SandboxState, repo: Repo, viewer: Account | null, depth = 0): Json {
  const owner = state.account(repo.owner) as Account;
  // convert.innerToRepo: a fork carries its parent (one level), when the viewer can read it.
  const parent = repo.parentId === null ? undefined : state.repoById(repo.parentId);
  const shownParent =
    parent && depth === 0 && accessLevel(state, parent, viewer) !== 'none'
      ? { parent: presentRepo(state, parent, viewer, depth + 1) }
      : {};
  const level = accessLevel(state, repo, viewer);
  const fullName = `${repo.owner}/${repo.name}`;
  const openIssues = repo.issues.filter((i) => i.state === 'open');
  return {
    id: repo.id,
    owner: presentUser(state, owner, viewer),
    name: repo.name,
    full_name: fullName,
    description: repo.description,
    empty: repo.branches.size === 0,
    private: repo.private,
    fork: repo.parentId !== null,
    ...shownParent,
    template: false,
    mirror: false,
    size: 0,
    language: '',
    languages_url: `${state.baseUrl}/api/v1/repos/${fullName}/languages`,
    html_url: `${state.baseUrl}/${fullName}`,
    url: `${state.baseUrl}/api/v1/repos/${fullName}`,
    link: '',
    ssh_url: `git@sandbox.invalid:${fullName}.git`,
    clone_url: `${state.baseUrl}/${fullName}.git`,
    original_url: '',
    website: '',
    stars_count: 0,
    forks_count: state.repos.filter((r) => r.parentId === repo.id).length,
    watchers_count: 0,
    open_issues_count: openIssues.filter((i) => !i.pull).length,
    open_pr_counter: openIssues.filter((i) => i.pull).length,
    release_counter: repo.releases.filter((r) => !r.draft).length,
    default_branch: repo.defaultBranch,
    archived: false,
    created_at: repo.created,
    updated_at: repo.updated,
    archived_at: '1970-01-01T00:00:00Z',
    permissions: { admin: atLeast(level, 'admin'), push: atLeast(level, 'write'), pull: atLeast(level, 'read') },
    has_code: true,
    has_issues: true,
    internal_tracker: {
      enable_time_tracker: true,
      allow_only_contributors_to_track_time: true,
      enable_issue_dependencies: true,
    },
    has_wiki: false,
    has_pull_requests: true,
    has_projects: false,
    has_releases: true,
    has_packages: false,
    has_actions: false,
    ignore_whitespace_conflicts: false,
    allow_merge_commits: true,
    allow_rebase: false,
    allow_rebase_explicit: false,
    allow_squash_merge: true,
    allow_fast_forward_only_merge: true,
    allow_rebase_update: false,
    allow_manual_merge: repo.allowManualMerge,
    autodetect_manual_merge: false,
    default_delete_branch_after_merge: repo.defaultDeleteBranchAfterMerge,
    default_merge_style: 'merge',
    default_allow_maintainer_edit: false,
    avatar_url: '',
    internal: false,
    mirror_interval: '',
    object_format_name: 'sha1',
    mirror_updated: '0001-01-01T00:00:00Z',
    topics: [],
    licenses: [],
  };
}

function gitUser(commit: Commit): Json {
  return { name: commit.author.name, email: commit.author.email, username: commit.author.login ?? '' };
}

const unverified = { verified: false, reason: 'gpg.error.not_signed_commit', signature: '', signer: null, payload: '' };

/** PayloadCommit, as Branch.commit carries it. */
export function presentPayloadCommit(state: SandboxState, repo: Repo, commit: Commit): Json {
  const parent = repo.commits.get(commit.parents[0] ?? '');
  const changes = diffTrees(parent?.tree ?? {}, commit.tree);
  const pick = (status: string): string[] => changes.filter((c) => c.status === status).map((c) => c.filename);
  return {
    id: commit.sha,
    message: commit.message,
    url: `${state.baseUrl}/${repo.owner}/${repo.name}/commit/${commit.sha}`,
    author: gitUser(commit),
    committer: gitUser(commit),
    verification: unverified,
    timestamp: commit.date,
    added: pick('added'),
    removed: pick('deleted'),
    modified: pick('modified'),
  };
}

/** GetFirstMatchProtectedBranchRule: the first rule (oldest first) that matches, by ProtectedBranch.Match. */
export function protectionFor(repo: Repo, branch: string): Protection | undefined {
  return repo.protections.find((p) => protectionMatches(p.ruleName, branch));
}

/** ProtectedBranch.Match: a plain rule name matches case-insensitively, a glob (gobwas/glob, '/' separator) as written. */
function protectionMatches(rule: string, branch: string): boolean {
  if (!/[*?[\]{}\\!]/.test(rule)) return rule.toLowerCase() === branch.toLowerCase();
  return micromatch.isMatch(branch, rule, { dot: true });
}

/** The rule named exactly (GetProtectedBranchRuleByName), for the branch_protections/{name} routes. */
export function protectionNamed(repo: Repo, name: string): Protection | undefined {
  return repo.protections.find((p) => p.ruleName === name);
}

export function presentBranch(state: SandboxState, repo: Repo, name: string, viewer: Account | null): Json {
  const commit = repo.commits.get(repo.branches.get(name) ?? '') as Commit;
  const protection = protectionFor(repo, name);
  const canWrite = atLeast(accessLevel(state, repo, viewer), 'write');
  return {
    name,
    commit: presentPayloadCommit(state, repo, commit),
    protected: protection !== undefined,
    required_approvals: protection?.requiredApprovals ?? 0,
    enable_status_check: false,
    status_check_contexts: [],
    user_can_push: canWrite && (protection === undefined || protection.enablePush),
    user_can_merge: canWrite,
    effective_branch_protection_name: protection?.ruleName ?? '',
  };
}

export function presentProtection(protection: Protection): Json {
  return {
    branch_name: protection.ruleName,
    rule_name: protection.ruleName,
    priority: 0,
    enable_push: protection.enablePush,
    enable_push_whitelist: false,
    push_whitelist_usernames: [],
    push_whitelist_teams: [],
    push_whitelist_deploy_keys: false,
    enable_force_push: false,
    enable_force_push_allowlist: false,
    force_push_allowlist_usernames: [],
    force_push_allowlist_teams: [],
    force_push_allowlist_deploy_keys: false,
    enable_merge_whitelist: false,
    merge_whitelist_usernames: [],
    merge_whitelist_teams: [],
    enable_status_check: false,
    status_check_contexts: [],
    required_approvals: protection.requiredApprovals,
    enable_approvals_whitelist: false,
    approvals_whitelist_username: [],
    approvals_whitelist_teams: [],
    block_on_rejected_reviews: protection.blockOnRejectedReviews,
    block_on_official_review_requests: false,
    block_on_outdated_branch: false,
    dismiss_stale_approvals: protection.dismissStaleApprovals,
    ignore_stale_approvals: false,
    require_signed_commits: false,
    protected_file_patterns: '',
    unprotected_file_patterns: '',
    block_admin_merge_override: false,
    enable_bypass_allowlist: false,
    bypass_allowlist_usernames: [],
    bypass_allowlist_teams: [],
    created_at: protection.created,
    updated_at: protection.updated,
  };
}

/** What Commit and FileCommitResponse share: the commit's links, its git person, tree and parents. */
function commitParts(state: SandboxState, repo: Repo, commit: Commit) {
  const apiBase = `${state.baseUrl}/api/v1/repos/${repo.owner}/${repo.name}`;
  return {
    url: `${apiBase}/git/commits/${commit.sha}`,
    htmlUrl: `${state.baseUrl}/${repo.owner}/${repo.name}/commit/${commit.sha}`,
    person: { name: commit.author.name, email: commit.author.email, date: commit.date },
    tree: { url: `${apiBase}/git/trees/${commit.sha}`, sha: commit.sha, created: commit.date },
    parents: commit.parents.map((sha) => ({
      url: `${apiBase}/git/commits/${sha}`,
      sha,
      created: repo.commits.get(sha)?.date ?? commit.date,
    })),
  };
}

/** The Commit definition (repoGetAllCommits, repoGetSingleCommit, compare). */
export function presentCommit(state: SandboxState, repo: Repo, commit: Commit, viewer: Account | null): Json {
  const parts = commitParts(state, repo, commit);
  const parent = repo.commits.get(commit.parents[0] ?? '');
  const author = commit.author.login ? userByLogin(state, commit.author.login, viewer) : null;
  return {
    url: parts.url,
    sha: commit.sha,
    created: commit.date,
    html_url: parts.htmlUrl,
    commit: {
      url: parts.url,
      author: parts.person,
      committer: parts.person,
      message: commit.message,
      tree: parts.tree,
      verification: unverified,
    },
    author,
    committer: author,
    parents: parts.parents,
    files: diffTrees(parent?.tree ?? {}, commit.tree),
    stats: { total: 0, additions: 0, deletions: 0 },
  };
}

export function presentLabel(state: SandboxState, repo: Repo, label: Label): Json {
  return {
    id: label.id,
    name: label.name,
    exclusive: false,
    is_archived: false,
    color: label.color,
    description: label.description,
    url: `${state.baseUrl}/api/v1/repos/${repo.owner}/${repo.name}/labels/${label.id}`,
  };
}

function issueLabels(state: SandboxState, repo: Repo, issue: Issue): Json[] {
  return issue.labels
    .map((id) => repo.labels.find((l) => l.id === id))
    .filter((l): l is Label => l !== undefined)
    .map((l) => presentLabel(state, repo, l));
}

export function presentIssue(state: SandboxState, repo: Repo, issue: Issue, viewer: Account | null): Json {
  const kind = issue.pull ? 'pulls' : 'issues';
  return {
    id: issue.id,
    url: `${state.baseUrl}/api/v1/repos/${repo.owner}/${repo.name}/issues/${issue.number}`,
    html_url: `${state.baseUrl}/${repo.owner}/${repo.name}/${kind}/${issue.number}`,
    number: issue.number,
    user: userByLogin(state, issue.user, viewer),
    original_author: '',
    original_author_id: 0,
    title: issue.title,
    body: issue.body,
    ref: '',
    assets: [],
    labels: issueLabels(state, repo, issue),
    milestone: null,
    assignee: null,
    assignees: [],
    state: issue.state,
    is_locked: false,
    comments: issue.comments.length,
    created_at: issue.created,
    updated_at: issue.updated,
    closed_at: issue.closedAt,
    due_date: null,
    time_estimate: 0,
    pull_request: issue.pull
      ? {
          merged: issue.pull.merged,
          merged_at: issue.pull.mergedAt,
          draft: false,
          html_url: `${state.baseUrl}/${repo.owner}/${repo.name}/pulls/${issue.number}`,
        }
      : null,
    repository: { id: repo.id, name: repo.name, owner: repo.owner, full_name: `${repo.owner}/${repo.name}` },
    pin_order: 0,
    content_version: 0,
  };
}

export function presentComment(
  state: SandboxState,
  repo: Repo,
  issue: Issue,
  comment: Comment,
  viewer: Account | null,
): Json {
  const base = `${state.baseUrl}/${repo.owner}/${repo.name}`;
  return {
    id: comment.id,
    html_url: `${base}/issues/${issue.number}#issuecomment-${comment.id}`,
    pull_request_url: issue.pull ? `${base}/pulls/${issue.number}` : '',
    issue_url: issue.pull ? '' : `${base}/issues/${issue.number}`,
    user: userByLogin(state, comment.user, viewer),
    original_author: '',
    original_author_id: 0,
    body: comment.body,
    assets: [],
    created_at: comment.created,
    updated_at: comment.updated,
  };
}

/** A pull request is mergeable while open and its head is not already contained in the base. */
export function isMergeable(state: SandboxState, repo: Repo, issue: Issue, pull: PullState): boolean {
  if (pull.merged || issue.state !== 'open') return false;
  return repo.branches.has(pull.base) && state.repoById(pull.headRepoId)?.branches.has(pull.head) === true;
}

function branchInfo(
  state: SandboxState,
  repo: Repo,
  label: string,
  ref: string,
  sha: string,
  viewer: Account | null,
): Json {
  return { label, ref, sha, repo_id: repo.id, repo: presentRepo(state, repo, viewer) };
}

/**
 * convert.ToAPIPullRequest's head: while the head branch exists in the head repository (this one or a
 * fork), its name and its live tip (for a merged pull request too); once it is deleted, ref
 * refs/pull/N/head and that ref's commit (the head the pull request last had). The label keeps the
 * branch name; repo is the head repository.
 */
function headInfo(state: SandboxState, repo: Repo, issue: Issue & { pull: PullState }, viewer: Account | null): Json {
  const pull = issue.pull;
  const headRepo = state.repoById(pull.headRepoId) ?? repo;
  const tip = headRepo.branches.get(pull.head);
  return tip !== undefined
    ? branchInfo(state, headRepo, pull.head, pull.head, tip, viewer)
    : branchInfo(state, headRepo, pull.head, `refs/pull/${issue.number}/head`, pull.headSha, viewer);
}

export function presentPull(
  state: SandboxState,
  repo: Repo,
  issue: Issue & { pull: PullState },
  viewer: Account | null,
): Json {
  const pull = issue.pull;
  const web = `${state.baseUrl}/${repo.owner}/${repo.name}/pulls/${issue.number}`;
  const baseSha = repo.branches.get(pull.base) ?? pull.mergeBase;
  return {
    id: issue.id,
    url: web,
    number: issue.number,
    user: userByLogin(state, issue.user, viewer),
    title: issue.title,
    body: issue.body,
    labels: issueLabels(state, repo, issue),
    milestone: null,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_reviewers_teams: [],
    state: issue.state,
    draft: false,
    is_locked: false,
    comments: issue.comments.length,
    review_comments: 0,
    additions: 0,
    deletions: 0,
    changed_files: diffTrees(repo.commits.get(pull.mergeBase)?.tree ?? {}, repo.commits.get(pull.headSha)?.tree ?? {})
      .length,
    html_url: web,
    diff_url: `${web}.diff`,
    patch_url: `${web}.patch`,
    mergeable: isMergeable(state, repo, issue, pull),
    merged: pull.merged,
    merged_at: pull.mergedAt,
    // Gitea sends null while unmerged; the spec types it as a plain string, so it is left out then.
    ...(pull.mergeCommitSha ? { merge_commit_sha: pull.mergeCommitSha } : {}),
    merged_by: pull.mergedBy ? userByLogin(state, pull.mergedBy, viewer) : null,
    allow_maintainer_edit: false,
    base: branchInfo(state, repo, pull.base, pull.base, baseSha, viewer),
    head: headInfo(state, repo, issue, viewer),
    merge_base: pull.mergeBase,
    due_date: null,
    created_at: issue.created,
    updated_at: issue.updated,
    closed_at: issue.closedAt,
    pin_order: 0,
    content_version: 0,
  };
}

export function presentReview(
  state: SandboxState,
  repo: Repo,
  issue: Issue & { pull: PullState },
  review: Review,
  viewer: Account | null,
): Json {
  const pullUrl = `${state.baseUrl}/${repo.owner}/${repo.name}/pulls/${issue.number}`;
  return {
    id: review.id,
    user: userByLogin(state, review.user, viewer),
    team: null,
    state: review.state,
    body: review.body,
    commit_id: review.commitId,
    stale: review.stale,
    official: review.official,
    dismissed: review.dismissed,
    comments_count: 0,
    submitted_at: review.submitted,
    updated_at: review.submitted,
    html_url: `${pullUrl}#issuecomment-${review.id}`,
    pull_request_url: pullUrl,
  };
}

export function presentHook(hook: Hook): Json {
  return {
    id: hook.id,
    type: hook.type,
    branch_filter: hook.branchFilter,
    config: hook.config,
    events: hook.events,
    authorization_header: hook.authorizationHeader,
    active: hook.active,
    updated_at: hook.updated,
    created_at: hook.created,
  };
}

/** The newest commit (along first parents from `commit`) that changed `path`: git log -1 -- path, as GetCommitByPath. */
function lastCommitTouching(repo: Repo, commit: Commit, path: string): Commit {
  let at: Commit | undefined = commit;
  while (at) {
    const parent = repo.commits.get(at.parents[0] ?? '');
    if (!parent || parent.tree[path] !== at.tree[path]) return at;
    at = parent;
  }
  return commit;
}

/** ContentsResponse of one file at a commit; the last commit is the one that last changed the file. */
export function presentContents(state: SandboxState, repo: Repo, path: string, commit: Commit, ref: string): Json {
  const last = lastCommitTouching(repo, commit, path);
  const content = commit.tree[path] ?? '';
  const sha = blobSha(content);
  const name = path.split('/').pop() ?? path;
  const self = `${state.baseUrl}/api/v1/repos/${repo.owner}/${repo.name}/contents/${path}?ref=${encodeURIComponent(ref)}`;
  const gitUrl = `${state.baseUrl}/api/v1/repos/${repo.owner}/${repo.name}/git/blobs/${sha}`;
  const htmlUrl = `${state.baseUrl}/${repo.owner}/${repo.name}/src/branch/${ref}/${path}`;
  return {
    name,
    path,
    sha,
    last_commit_sha: last.sha,
    last_commit_message: last.message,
    last_committer_date: last.date,
    last_author_date: last.date,
    type: 'file',
    size: Buffer.byteLength(content, 'utf8'),
    encoding: 'base64',
    content: Buffer.from(content, 'utf8').toString('base64'),
    url: self,
    html_url: htmlUrl,
    git_url: gitUrl,
    download_url: `${state.baseUrl}/${repo.owner}/${repo.name}/raw/branch/${ref}/${path}`,
    _links: { self, git: gitUrl, html: htmlUrl },
  };
}

/** FileCommitResponse, the commit part of file write answers. */
export function presentFileCommit(state: SandboxState, repo: Repo, commit: Commit): Json {
  const parts = commitParts(state, repo, commit);
  return {
    url: parts.url,
    sha: commit.sha,
    created: commit.date,
    html_url: parts.htmlUrl,
    author: parts.person,
    committer: parts.person,
    parents: parts.parents,
    message: commit.message,
    tree: parts.tree,
  };
}

/**
 * convert.ToTimelineComment: every field of api.TimelineComment, unset pointers as null. ref_issue and
 * dependent_issue are the other issue as ToAPIIssue shows it (with its repository), ref_comment the
 * mentioning comment (ToAPIComment).
 */
export function presentTimelineComment(
  state: SandboxState,
  repo: Repo,
  issue: Issue,
  entry: { kind: 'comment'; comment: Comment } | { kind: 'event'; event: TimelineEvent },
  viewer: Account | null,
): Json {
  const base = `${state.baseUrl}/${repo.owner}/${repo.name}`;
  const common = {
    html_url: `${base}/${issue.pull ? 'pulls' : 'issues'}/${issue.number}`,
    pull_request_url: issue.pull ? `${base}/pulls/${issue.number}` : '',
    issue_url: issue.pull ? '' : `${base}/issues/${issue.number}`,
    old_project_id: 0,
    project_id: 0,
    old_milestone: null,
    milestone: null,
    tracked_time: null,
    old_title: '',
    new_title: '',
    label: null,
    assignee: null,
    assignee_team: null,
    removed_assignee: false,
    resolve_doer: null,
    ref_commit_sha: '',
  };
  if (entry.kind === 'comment') {
    const { comment } = entry;
    return {
      ...common,
      id: comment.id,
      type: 'comment',
      user: userByLogin(state, comment.user, viewer),
      html_url: `${common.html_url}#issuecomment-${comment.id}`,
      body: comment.body,
      created_at: comment.created,
      updated_at: comment.updated,
      old_ref: '',
      new_ref: '',
      ref_action: 'none',
      ref_issue: null,
      ref_comment: null,
      review_id: 0,
      dependent_issue: null,
    };
  }
  const { event } = entry;
  const other = (ref: IssueRef | undefined): Json | null => {
    const found = ref ? state.issueOf(ref) : undefined;
    return found ? presentIssue(state, found.repo, found.issue, viewer) : null;
  };
  const refComment = (): Json | null => {
    const found = event.refIssue ? state.issueOf(event.refIssue) : undefined;
    const comment = found?.issue.comments.find((c) => c.id === event.refCommentId);
    return found && comment ? presentComment(state, found.repo, found.issue, comment, viewer) : null;
  };
  return {
    ...common,
    id: event.id,
    type: event.type,
    user: userByLogin(state, event.user, viewer),
    html_url: `${common.html_url}#issuecomment-${event.id}`,
    body: event.body,
    created_at: event.created,
    updated_at: event.created,
    old_ref: event.oldRef ?? '',
    new_ref: event.newRef ?? '',
    old_title: event.oldTitle ?? '',
    new_title: event.newTitle ?? '',
    ref_action: 'none',
    ref_issue: other(event.refIssue),
    ref_comment: event.refCommentId === undefined ? null : refComment(),
    review_id: event.reviewId ?? 0,
    dependent_issue: other(event.dependentIssue),
  };
}

/** convert.ToAPITag of a lightweight tag. */
export function presentTag(state: SandboxState, repo: Repo, name: string, sha: string): Json {
  const web = `${state.baseUrl}/${repo.owner}/${repo.name}`;
  return {
    name,
    message: '',
    id: sha,
    commit: {
      url: `${state.baseUrl}/api/v1/repos/${repo.owner}/${repo.name}/git/commits/${sha}`,
      sha,
      created: repo.commits.get(sha)?.date ?? repo.created,
    },
    zipball_url: `${web}/archive/${name}.zip`,
    tarball_url: `${web}/archive/${name}.tar.gz`,
  };
}

/** convert.ToAPIRelease. */
export function presentRelease(state: SandboxState, repo: Repo, release: Release, viewer: Account | null): Json {
  const web = `${state.baseUrl}/${repo.owner}/${repo.name}`;
  const api = `${state.baseUrl}/api/v1/repos/${repo.owner}/${repo.name}`;
  return {
    id: release.id,
    tag_name: release.tag,
    target_commitish: release.target,
    name: release.title,
    body: release.note,
    url: `${api}/releases/${release.id}`,
    html_url: `${web}/releases/tag/${release.tag}`,
    tarball_url: `${web}/archive/${release.tag}.tar.gz`,
    zipball_url: `${web}/archive/${release.tag}.zip`,
    upload_url: `${api}/releases/${release.id}/assets`,
    draft: release.draft,
    prerelease: release.prerelease,
    created_at: release.created,
    published_at: release.created,
    author: userByLogin(state, release.publisher, viewer),
    assets: [],
  };
}

export { unverified as unsignedVerification };
