// Tool names and domains. A domain is finer than Gitea's nine tags so a toolset means something to a
// person (pulls, branches, contents, actions, ...). Names are `gitea_<domain>_<action>`, the action
// coming from the operationId with the scope prefix and the domain's own nouns removed.
import type { HttpMethod } from './types.js';

export const TOOL_NAME_PATTERN = /^[a-z0-9_]{1,48}$/;
const MAX_NAME_LENGTH = 48;

export interface NamedOperation {
  operationId: string;
  method: HttpMethod;
  path: string;
}

/** First matching rule wins; the last rule catches everything below /repos/{owner}/{repo}. */
const DOMAIN_RULES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^\/admin\//, 'admin'],
  [/\/actions\//, 'actions'],
  [/^\/repos\/\{owner\}\/\{repo\}\/pulls(\/|$)/, 'pulls'],
  [/^\/repos\/\{owner\}\/\{repo\}\/(branch_protections|tag_protections)(\/|$)/, 'protections'],
  [/^\/repos\/\{owner\}\/\{repo\}\/branches(\/|$)/, 'branches'],
  [
    /^\/repos\/\{owner\}\/\{repo\}\/(contents|contents-ext|raw|media|file-contents|diffpatch|editorconfig|archive)(\/|$)/,
    'contents',
  ],
  [/^\/repos\/\{owner\}\/\{repo\}\/(commits|statuses|compare|git\/commits)(\/|$)/, 'commits'],
  [/^\/repos\/\{owner\}\/\{repo\}\/git\//, 'git'],
  [/^\/repos\/\{owner\}\/\{repo\}\/releases(\/|$)/, 'releases'],
  [/^\/repos\/\{owner\}\/\{repo\}\/tags(\/|$)/, 'tags'],
  [/^\/repos\/\{owner\}\/\{repo\}\/issues\/(comments|\{index\}\/comments)(\/|$)/, 'comments'],
  [/^\/repos\/\{owner\}\/\{repo\}\/(issues|issue_config|issue_templates|new_pin_allowed|times)(\/|$)/, 'issues'],
  [/^\/repos\/issues\/search$/, 'issues'],
  [/^\/user\/(times|stopwatches)$/, 'issues'],
  [/^\/(repos\/\{owner\}\/\{repo\}|orgs\/\{org\})\/labels(\/|$)/, 'labels'],
  [/^\/repos\/\{owner\}\/\{repo\}\/milestones(\/|$)/, 'milestones'],
  [/^\/repos\/\{owner\}\/\{repo\}\/wiki\//, 'wiki'],
  [/^\/(repos\/\{owner\}\/\{repo\}|orgs\/\{org\}|user)\/hooks(\/|$)/, 'webhooks'],
  [/^\/repos\/\{owner\}\/\{repo\}\/(collaborators|teams)(\/|$)/, 'collaborators'],
  [/^\/(teams\/|orgs\/\{org\}\/teams|user\/teams$)/, 'teams'],
  [/^\/(notifications|repos\/\{owner\}\/\{repo\}\/notifications)(\/|$)/, 'notifications'],
  [/^\/packages\//, 'packages'],
  [/^\/(repos\/\{owner\}\/\{repo\}\/keys|user\/keys|user\/gpg_key|users\/\{username\}\/(keys|gpg_keys))/, 'keys'],
  [/^\/(users\/\{username\}\/tokens|token$)/, 'tokens'],
  [/^\/user\/applications\/oauth2/, 'oauth2'],
  [/^\/(org\/\{org\}\/repos|orgs\/\{org\}\/repos)$/, 'repos'],
  [/^\/(orgs(\/|$)|user\/orgs$|users\/\{username\}\/orgs)/, 'orgs'],
  [/^\/(repos\/|repositories\/|user\/repos$|users\/\{username\}\/repos$|topics\/search$)/, 'repos'],
  [/^\/(users?\/|users?$)/, 'users'],
  [/^\//, 'misc'],
];

export function domainFor(path: string): string {
  const rule = DOMAIN_RULES.find(([pattern]) => pattern.test(path));
  if (!rule) throw new Error(`no domain rule matches ${path}`);
  return rule[1];
}

/** Leading operationId words that name Gitea's package, not the action. */
const SCOPE_PREFIXES = ['organization', 'notify', 'issue', 'admin', 'repo', 'user', 'org'];

/** Nouns the domain already says; removed from the action so names do not stutter. */
const DOMAIN_NOUNS: Record<string, string[]> = {
  pulls: ['pull_requests', 'pull_request', 'pull'],
  branches: ['branches', 'branch'],
  protections: ['protections', 'protection'],
  contents: ['contents'],
  commits: ['commits', 'commit'],
  git: ['git'],
  releases: ['releases', 'release'],
  tags: ['tags', 'tag'],
  comments: ['comments', 'comment'],
  issues: ['issues', 'issue'],
  labels: ['labels', 'label'],
  milestones: ['milestones', 'milestone'],
  wiki: ['wiki'],
  webhooks: ['hooks', 'hook'],
  collaborators: ['collaborators', 'collaborator'],
  teams: ['teams', 'team'],
  notifications: ['notifications'],
  packages: ['packages', 'package'],
  keys: ['keys', 'key'],
  tokens: ['access_token', 'tokens', 'token'],
  oauth2: ['oauth2_application', 'oauth2_applications', 'o_auth2_application'],
  orgs: ['orgs', 'org'],
  repos: ['repos', 'repository', 'repo'],
  users: ['users', 'user'],
  actions: ['actions'],
  admin: [],
  misc: [],
};

export function snakeCase(identifier: string): string {
  return identifier
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/** The operationId as words, without the scope prefix (repo, issue, org, ...). */
function actionWords(operationId: string): string[] {
  const words = snakeCase(operationId).split('_');
  const first = words[0] ?? '';
  return SCOPE_PREFIXES.includes(first) && words.length > 1 ? words.slice(1) : words;
}

/** The operationId as an action: scope prefix dropped, the domain's nouns removed. */
export function baseAction(operationId: string, domain: string): string {
  let words = actionWords(operationId);
  for (const noun of DOMAIN_NOUNS[domain] ?? []) {
    const reduced = removePhrase(words, noun.split('_'));
    if (reduced.length > 0) words = reduced;
  }
  return words.join('_');
}

function removePhrase(words: string[], phrase: string[]): string[] {
  for (let i = 0; i + phrase.length <= words.length; i++) {
    if (phrase.every((word, j) => words[i + j] === word))
      return [...words.slice(0, i), ...words.slice(i + phrase.length)];
  }
  return words;
}

/** Who the operation acts on, used to tell apart same-named actions (repo/org/user/... hooks). */
export function scopeOf(path: string): string {
  if (path.startsWith('/admin/')) return 'admin';
  if (path === '/repos/{owner}/{repo}' || path.startsWith('/repos/{owner}/{repo}/')) return 'repo';
  if (path.startsWith('/orgs/{org}') || path.startsWith('/org/')) return 'org';
  if (path.startsWith('/users/{username}')) return 'user';
  if (path.startsWith('/user/') || path === '/user') return 'my';
  if (path.startsWith('/teams/')) return 'team';
  return 'global';
}

/**
 * Unique tool names for all operations, deterministic from the operations alone. On a collision the
 * repository-level operation keeps the plain name and the others say their scope
 * (`gitea_webhooks_list`, `gitea_webhooks_org_list`); then the domain nouns are kept; then the
 * whole operationId is used.
 */
export function assignToolNames(operations: readonly NamedOperation[]): Map<string, string> {
  const candidates = operations.map((op) => {
    const domain = domainFor(op.path);
    return { op, domain, scope: scopeOf(op.path), action: collectionAware(op, baseAction(op.operationId, domain)) };
  });
  qualifyCollisions(candidates, (c, group) => (isSoleRepoMember(c, group) ? c.action : `${c.scope}_${c.action}`));
  qualifyCollisions(
    candidates,
    (c) => (c.scope === 'repo' ? '' : `${c.scope}_`) + actionWords(c.op.operationId).join('_'),
  );
  qualifyCollisions(candidates, (c) => snakeCase(c.op.operationId));
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const c of candidates) {
    const name = fitLength(`gitea_${c.domain}_${c.action}`, taken);
    taken.add(name);
    names.set(c.op.operationId, name);
  }
  return names;
}

/** Gitea names some list endpoints `get...s`; a plain `get` on a collection path reads as `list`. */
function collectionAware(op: NamedOperation, action: string): string {
  return op.method === 'GET' && action === 'get' && !op.path.endsWith('}') ? 'list' : action;
}

interface Candidate {
  op: NamedOperation;
  domain: string;
  scope: string;
  action: string;
}

function isSoleRepoMember(c: Candidate, group: readonly Candidate[]): boolean {
  return c.scope === 'repo' && group.filter((other) => other.scope === 'repo').length === 1;
}

function qualifyCollisions(
  candidates: Candidate[],
  qualify: (c: Candidate, group: readonly Candidate[]) => string,
): void {
  const groups = new Map<string, Candidate[]>();
  for (const c of candidates) {
    const key = `${c.domain}_${c.action}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const qualified = group.map((c) => qualify(c, group));
    group.forEach((c, i) => (c.action = qualified[i] ?? c.action));
  }
}

/** Long words shortened, in order, only while a name is over the cap. */
const ABBREVIATIONS: ReadonlyArray<readonly [string, string]> = [
  ['registration', 'reg'],
  ['repository', 'repo'],
  ['organization', 'org'],
  ['attachment', 'attach'],
];

/** Enforces the 48-character cap; a truncated name that collides gets a numeric suffix. */
function fitLength(fullName: string, taken: ReadonlySet<string>): string {
  let name = fullName;
  for (const [word, short] of ABBREVIATIONS) {
    if (name.length > MAX_NAME_LENGTH) name = name.replace(new RegExp(`(^|_)${word}(_|$)`, 'g'), `$1${short}$2`);
  }
  if (name.length <= MAX_NAME_LENGTH && !taken.has(name)) return name;
  const stem = name.slice(0, MAX_NAME_LENGTH).replace(/_+$/, '');
  if (!taken.has(stem)) return stem;
  for (let n = 2; ; n++) {
    const suffix = `_${n}`;
    const candidate = `${name.slice(0, MAX_NAME_LENGTH - suffix.length).replace(/_+$/, '')}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}
