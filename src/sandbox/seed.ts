// The seed: the world a sandbox starts with, as plain JSON/YAML-friendly data (`defaultSeed()`,
// or a file given to `gitea-warden sandbox --seed FILE` of the same shape), and its loading into
// state. Passwords and tokens are random per run unless a seed pins them.
import { randomBytes } from 'node:crypto';
import {
  openingPushContent,
  SandboxState,
  type AccessLevel,
  type Account,
  type Issue,
  type PullState,
  type Repo,
  type ReviewState,
  type TeamPermission,
  type Tree,
} from './model.js';
import { mergePull } from './merge.js';
import { addWikiCommit } from './handlers/wiki.js';
import { recordVerdict } from './review-rules.js';

export interface SeedUser {
  login: string;
  full_name?: string;
  email?: string;
  admin?: boolean;
  /** Fixed password; random when absent. */
  password?: string;
  /** Fixed API token; random when absent. */
  token?: string;
  /** The token's scopes as Gitea names them (read:user, write:repository, ...); default [all]. */
  token_scopes?: string[];
  /** The user's own profile text. */
  description?: string;
  website?: string;
  location?: string;
}

export interface SeedOrg {
  name: string;
  full_name?: string;
  description?: string;
  website?: string;
  location?: string;
  /** Teams see every repository of the organization with their permission. */
  teams: Array<{
    name: string;
    permission: TeamPermission;
    members: string[];
    description?: string;
    visibility?: 'public' | 'limited' | 'private';
  }>;
}

export interface SeedCommit {
  message: string;
  author: string;
  /** path -> new content; null deletes the file. */
  files: Record<string, string | null>;
}

export interface SeedBranch {
  name: string;
  /** Branch to start from (its head when this branch is seeded); a root branch when absent. */
  from?: string;
  commits?: SeedCommit[];
}

export interface SeedProtection {
  branch: string;
  required_approvals?: number;
  enable_push?: boolean;
  dismiss_stale_approvals?: boolean;
  block_on_rejected_reviews?: boolean;
}

export interface SeedPull {
  title: string;
  body?: string;
  author: string;
  head: string;
  base: string;
  /** Merged at seed time by this user (after its reviews). */
  merged_by?: string;
  reviews?: Array<{ user: string; state: Exclude<ReviewState, 'PENDING'>; body?: string }>;
}

export interface SeedIssue {
  title: string;
  body?: string;
  author: string;
  labels?: string[];
  state?: 'open' | 'closed';
  comments?: Array<{ author: string; body: string }>;
}

export interface SeedRepo {
  owner: string;
  name: string;
  private?: boolean;
  description?: string;
  default_branch?: string;
  /** The pull request unit's "delete the head branch after merge by default" (Gitea: false). */
  default_delete_branch_after_merge?: boolean;
  /** The pull request unit's "allow marking as manually merged" (Gitea: false). */
  allow_manual_merge?: boolean;
  collaborators?: Record<string, Exclude<AccessLevel, 'none'>>;
  /** In order: a branch's `from` must come before it. */
  branches: SeedBranch[];
  protections?: SeedProtection[];
  labels?: Array<{ name: string; color: string; description?: string }>;
  /** Numbered first (1, 2, ...), then the issues continue the same sequence, as in Gitea. */
  pulls?: SeedPull[];
  issues?: SeedIssue[];
  /** Wiki pages, each written in one commit by its author. */
  wiki?: Array<{ title: string; content: string; author: string }>;
}

export interface SandboxSeed {
  users: SeedUser[];
  orgs?: SeedOrg[];
  repos: SeedRepo[];
}

export interface Credentials {
  token: string;
  password: string;
}

const writers = ['alice', 'bob', 'carol', 'dave', 'erin'];

export function defaultSeed(): SandboxSeed {
  return {
    users: [
      { login: 'admin', full_name: 'Site Admin', admin: true },
      { login: 'alice', full_name: 'Alice Author' },
      { login: 'bob', full_name: 'Bob Reviewer' },
      { login: 'carol', full_name: 'Carol Merger' },
      { login: 'dave', full_name: 'Dave Reconciler' },
      { login: 'erin', full_name: 'Erin Issues' },
    ],
    orgs: [
      {
        name: 'acme',
        full_name: 'Acme Corporation',
        teams: [
          { name: 'Owners', permission: 'owner', members: ['admin'] },
          { name: 'Developers', permission: 'write', members: writers },
        ],
      },
    ],
    repos: [
      {
        owner: 'acme',
        name: 'widgets',
        description: 'Widgets for everyone',
        branches: [
          {
            name: 'main',
            commits: [
              {
                message: 'Initial commit',
                author: 'admin',
                files: { 'README.md': '# widgets\n', 'src/index.js': 'export const widgets = [];\n' },
              },
            ],
          },
          { name: 'dev', from: 'main' },
          {
            name: 'feature/login',
            from: 'main',
            commits: [
              { message: 'Add login form', author: 'alice', files: { 'src/login.js': 'export function login() {}\n' } },
            ],
          },
          {
            name: 'feature/old-docs',
            from: 'main',
            commits: [{ message: 'Write the user guide', author: 'alice', files: { 'docs/guide.md': '# Guide\n' } }],
          },
        ],
        protections: [
          { branch: 'main', required_approvals: 1 },
          { branch: 'dev', required_approvals: 0 },
        ],
        labels: [
          { name: 'bug', color: 'ee0701', description: 'Something is broken' },
          { name: 'enhancement', color: '84b6eb', description: 'New feature' },
          { name: 'docs', color: '0075ca', description: 'Documentation' },
        ],
        pulls: [
          {
            title: 'Add login form',
            body: 'Adds the login form.',
            author: 'alice',
            head: 'feature/login',
            base: 'main',
          },
          {
            title: 'Write the user guide',
            body: 'First version of the guide.',
            author: 'alice',
            head: 'feature/old-docs',
            base: 'main',
            reviews: [{ user: 'bob', state: 'APPROVED', body: 'Looks good.' }],
            merged_by: 'carol',
          },
        ],
        issues: [
          {
            title: 'Login page crashes on empty password',
            body: 'Steps: submit an empty form.',
            author: 'erin',
            labels: ['bug'],
          },
          {
            title: 'Document the release process',
            author: 'dave',
            labels: ['docs'],
            comments: [{ author: 'erin', body: 'I can take this.' }],
          },
        ],
      },
      {
        owner: 'acme',
        name: 'gadgets',
        description: 'Gadgets, a second repository',
        branches: [
          {
            name: 'main',
            commits: [{ message: 'Initial commit', author: 'admin', files: { 'README.md': '# gadgets\n' } }],
          },
        ],
      },
      {
        owner: 'erin',
        name: 'notes',
        private: true,
        description: 'Private notes',
        branches: [
          { name: 'main', commits: [{ message: 'Start notes', author: 'erin', files: { 'notes.md': 'todo\n' } }] },
        ],
      },
    ],
  };
}

const randomSecret = (bytes: number): string => randomBytes(bytes).toString('hex');

function requireAccount(state: SandboxState, login: string, where: string): Account {
  const account = state.account(login);
  if (!account || account.isOrg) throw new Error(`seed: ${where} names unknown user '${login}'`);
  return account;
}

function addAccount(state: SandboxState, login: string, fields: Partial<Account>): Account {
  if (state.account(login)) throw new Error(`seed: duplicate account '${login}'`);
  const account: Account = {
    id: state.nextId('user'),
    login,
    fullName: '',
    email: `${login}@sandbox.invalid`,
    isAdmin: false,
    isOrg: false,
    password: '',
    created: state.timestamp(),
    description: '',
    website: '',
    location: '',
    ...fields,
  };
  state.accounts.set(login.toLowerCase(), account);
  return account;
}

function seedBranches(state: SandboxState, repo: Repo, branches: SeedBranch[]): void {
  for (const branch of branches) {
    let head: string | undefined;
    if (branch.from !== undefined) {
      head = repo.branches.get(branch.from);
      if (head === undefined) throw new Error(`seed: branch '${branch.name}' starts from unknown '${branch.from}'`);
    }
    for (const commit of branch.commits ?? []) {
      const author = requireAccount(state, commit.author, `a commit on ${repo.name}/${branch.name}`);
      const tree: Tree = { ...(head ? repo.commits.get(head)?.tree : {}) };
      for (const [path, content] of Object.entries(commit.files)) {
        if (content === null) delete tree[path];
        else tree[path] = content;
      }
      const parents = head ? [head] : [];
      const made = state.addCommit(repo, {
        parents,
        message: commit.message,
        author: { name: author.fullName || author.login, email: author.email, login: author.login },
        date: state.timestamp(),
        tree,
      });
      head = made.sha;
    }
    if (head === undefined) throw new Error(`seed: branch '${branch.name}' has neither 'from' nor commits`);
    repo.branches.set(branch.name, head);
  }
}

function seedPull(state: SandboxState, repo: Repo, seed: SeedPull): void {
  const headSha = repo.branches.get(seed.head);
  const baseSha = repo.branches.get(seed.base);
  if (headSha === undefined || baseSha === undefined)
    throw new Error(`seed: pull '${seed.title}' names a missing branch`);
  requireAccount(state, seed.author, `pull '${seed.title}'`);
  const created = state.timestamp();
  const pull: PullState = {
    head: seed.head,
    headRepoId: repo.id,
    base: seed.base,
    headSha,
    mergeBase: baseSha,
    merged: false,
    mergedAt: null,
    mergedBy: null,
    mergeCommitSha: null,
    reviews: [],
  };
  const issue = newIssue(state, repo, { title: seed.title, body: seed.body ?? '', user: seed.author, created });
  const withPull = Object.assign(issue, { pull });
  repo.issues.push(withPull);
  const opened = openingPushContent(repo, baseSha, headSha);
  if (opened) state.addEvent(withPull, { type: 'pull_push', user: seed.author, body: JSON.stringify(opened) });
  for (const r of seed.reviews ?? []) {
    const review = {
      id: state.nextId('review'),
      user: requireAccount(state, r.user, `a review of '${seed.title}'`).login,
      state: r.state,
      body: r.body ?? '',
      commitId: headSha,
      dismissed: false,
      official: false,
      stale: false,
      submitted: state.timestamp(),
    };
    recordVerdict(state, repo, withPull, review, false);
    pull.reviews.push(review);
    state.addEvent(withPull, { type: 'review', user: review.user, body: review.body, reviewId: review.id });
  }
  if (seed.merged_by !== undefined) {
    const merger = requireAccount(state, seed.merged_by, `pull '${seed.title}'`);
    mergePull(state, repo, withPull, {
      doer: merger.login,
      message: `Merge pull request '${seed.title}' (#${issue.number}) from ${seed.head} into ${seed.base}`,
      deleteBranch: false,
    });
  }
}

export function newIssue(
  state: SandboxState,
  repo: Repo,
  fields: { title: string; body: string; user: string; created: string },
): Issue {
  return {
    id: state.nextId('issue'),
    number: repo.issues.length + 1,
    title: fields.title,
    body: fields.body,
    user: fields.user,
    state: 'open',
    labels: [],
    comments: [],
    created: fields.created,
    updated: fields.created,
    closedAt: null,
    pull: null,
    events: [],
  };
}

function seedIssue(state: SandboxState, repo: Repo, seed: SeedIssue): void {
  requireAccount(state, seed.author, `issue '${seed.title}'`);
  const issue = newIssue(state, repo, {
    title: seed.title,
    body: seed.body ?? '',
    user: seed.author,
    created: state.timestamp(),
  });
  for (const name of seed.labels ?? []) {
    const label = repo.labels.find((l) => l.name === name);
    if (!label) throw new Error(`seed: issue '${seed.title}' names unknown label '${name}'`);
    issue.labels.push(label.id);
  }
  for (const c of seed.comments ?? []) {
    const at = state.timestamp();
    requireAccount(state, c.author, `a comment on '${seed.title}'`);
    issue.comments.push({ id: state.nextId('comment'), user: c.author, body: c.body, created: at, updated: at });
  }
  if (seed.state === 'closed') {
    issue.state = 'closed';
    issue.closedAt = state.timestamp();
  }
  repo.issues.push(issue);
}

function seedRepo(state: SandboxState, seed: SeedRepo): void {
  const owner = state.account(seed.owner);
  if (!owner) throw new Error(`seed: repository ${seed.owner}/${seed.name} has unknown owner`);
  const repo = state.addRepo({
    owner: owner.login,
    name: seed.name,
    private: seed.private ?? false,
    description: seed.description ?? '',
    defaultBranch: seed.default_branch ?? seed.branches[0]?.name ?? 'main',
    defaultDeleteBranchAfterMerge: seed.default_delete_branch_after_merge ?? false,
    allowManualMerge: seed.allow_manual_merge ?? false,
  });
  for (const [login, level] of Object.entries(seed.collaborators ?? {})) {
    repo.collaborators.set(requireAccount(state, login, `collaborators of ${seed.name}`).login, level);
  }
  seedBranches(state, repo, seed.branches);
  for (const p of seed.protections ?? []) {
    if (!repo.branches.has(p.branch)) throw new Error(`seed: protection names unknown branch '${p.branch}'`);
    const at = state.timestamp();
    repo.protections.push({
      ruleName: p.branch,
      requiredApprovals: p.required_approvals ?? 0,
      enablePush: p.enable_push ?? false,
      dismissStaleApprovals: p.dismiss_stale_approvals ?? false,
      blockOnRejectedReviews: p.block_on_rejected_reviews ?? false,
      created: at,
      updated: at,
    });
  }
  for (const l of seed.labels ?? []) {
    repo.labels.push({ id: state.nextId('label'), name: l.name, color: l.color, description: l.description ?? '' });
  }
  for (const pull of seed.pulls ?? []) seedPull(state, repo, pull);
  for (const issue of seed.issues ?? []) seedIssue(state, repo, issue);
  for (const page of seed.wiki ?? []) {
    const author = requireAccount(state, page.author, `wiki page '${page.title}' of ${seed.name}`);
    addWikiCommit(state, repo, page.title, page.content, author, `Add '${page.title}'`);
  }
}

/** Builds the state of a seed and the credentials of each user (login -> token, password). */
export function loadSeed(seed: SandboxSeed): { state: SandboxState; credentials: Record<string, Credentials> } {
  const state = new SandboxState();
  const credentials: Record<string, Credentials> = {};
  for (const user of seed.users) {
    const password = user.password ?? randomSecret(12);
    const account = addAccount(state, user.login, {
      fullName: user.full_name ?? '',
      email: user.email ?? `${user.login}@sandbox.invalid`,
      isAdmin: user.admin ?? false,
      password,
      description: user.description ?? '',
      website: user.website ?? '',
      location: user.location ?? '',
    });
    const token = user.token ?? randomSecret(20);
    state.tokens.push({
      id: state.nextId('token'),
      owner: account.login,
      name: 'sandbox',
      value: token,
      scopes: user.token_scopes ?? ['all'],
      created: account.created,
    });
    credentials[account.login] = { token, password };
  }
  for (const org of seed.orgs ?? []) {
    addAccount(state, org.name, {
      fullName: org.full_name ?? '',
      isOrg: true,
      description: org.description ?? '',
      website: org.website ?? '',
      location: org.location ?? '',
    });
    for (const team of org.teams) {
      for (const member of team.members) requireAccount(state, member, `team ${org.name}/${team.name}`);
    }
    state.teams.set(
      org.name.toLowerCase(),
      org.teams.map((t) => ({ ...t, members: [...t.members] })),
    );
  }
  for (const repo of seed.repos) seedRepo(state, repo);
  return { state, credentials };
}
