// The Gitea token scopes each route needs, as Gitea itself decides them, and what a set of scopes
// covers. Gitea checks scopes per route group, before any handler runs: routers/api/v1/api.go
// Routes() wraps each group in tokenRequiresScopes(AccessTokenScopeCategory...), nested groups and
// single routes add their own categories, and the level follows the HTTP method (GET/HEAD read,
// POST/PUT/PATCH/DELETE write, so a POST that only reads, like /file-contents, needs write). A token
// needs every listed scope (models/auth/access_token_scope.go HasScope); write:X includes read:X and
// `all` every category. The groups below are read off Routes() of Gitea's main branch, which places
// every route of the pinned 1.27.1 spec. The generator (./generate.ts) writes each operation's scopes
// into tools.json from this table; nothing at run time guesses.

export type ScopeCategory =
  'activitypub' | 'admin' | 'issue' | 'notification' | 'organization' | 'package' | 'repository' | 'user';

/** Gitea's AccessTokenScopeCategory names, in the order of its AllAccessTokenScopeCategories (misc is a placeholder there). */
export const SCOPE_CATEGORIES: readonly ScopeCategory[] = [
  'activitypub',
  'admin',
  'notification',
  'organization',
  'package',
  'issue',
  'repository',
  'user',
];

/** One route group of Routes(): every path below `prefix` (segment-wise), of these methods if named, needs these categories. */
export interface ScopeGroup {
  prefix: string;
  /** Only these methods (a route that adds its own tokenRequiresScopes to one method of a Combo). */
  methods?: readonly string[];
  categories: readonly ScopeCategory[];
  /** Where Routes() says so: the group or route and its tokenRequiresScopes. */
  source: string;
}

/**
 * Routes() of routers/api/v1/api.go, group by group; the most specific prefix wins, so a route the
 * source registers in a nested group or with its own tokenRequiresScopes is listed before its parent.
 * Chi registers every route with its own group's middlewares only: `/repos/{o}/{r}/issues` is in the
 * issue group and nowhere else, although the repository group also starts with `/repos`.
 */
export const SCOPE_GROUPS: readonly ScopeGroup[] = [
  {
    prefix: '/repos/{owner}/{repo}/actions/artifacts/{artifact_id}/zip/raw',
    categories: [],
    source:
      'm.Get("/repos/{username}/{reponame}/actions/artifacts/{artifact_id}/zip/raw"): a signed URL, outside every scope group',
  },
  {
    prefix: '/repos/{owner}/{repo}/notifications',
    categories: ['notification'],
    source: 'm.Group("/repos") "Notifications (requires notifications scope)": tokenRequiresScopes(Notification)',
  },
  ...['issues', 'labels', 'milestones', 'projects'].map((unit) => ({
    prefix: `/repos/{owner}/{repo}/${unit}`,
    categories: ['issue'] as const,
    source: `m.Group("/repos") "Issue (requires issue scope)", /{username}/{reponame}/${unit}: tokenRequiresScopes(Issue)`,
  })),
  {
    prefix: '/repos/issues/search',
    categories: ['issue'],
    source: 'm.Group("/repos") "Issue (requires issue scope)", /issues/search: tokenRequiresScopes(Issue)',
  },
  {
    prefix: '/repos',
    categories: ['repository'],
    source: 'm.Group("/repos") "Repos (requires repo scope)": tokenRequiresScopes(Repository)',
  },
  {
    prefix: '/repositories',
    categories: ['repository'],
    source: 'm.Combo("/repositories/{id}", ..., tokenRequiresScopes(Repository))',
  },
  {
    prefix: '/topics',
    categories: ['repository'],
    source: 'm.Group("/topics") /search: tokenRequiresScopes(Repository)',
  },
  {
    prefix: '/org/{org}/repos',
    categories: ['organization', 'repository'],
    source: 'm.Post("/org/{org}/repos", tokenRequiresScopes(Organization, Repository), ...)',
  },
  {
    prefix: '/user/projects',
    categories: ['user', 'issue'],
    source: 'm.Group("/user", tokenRequiresScopes(User)) with m.Group("/projects", tokenRequiresScopes(Issue))',
  },
  {
    prefix: '/user/orgs',
    categories: ['user', 'organization'],
    source: 'm.Get("/user/orgs", reqToken(), tokenRequiresScopes(User, Organization), ...)',
  },
  {
    prefix: '/user/repos',
    categories: ['user', 'repository'],
    source: 'm.Group("/user", tokenRequiresScopes(User)) with m.Combo("/repos", tokenRequiresScopes(Repository))',
  },
  {
    prefix: '/user/starred',
    categories: ['user', 'repository'],
    source: 'm.Group("/user", tokenRequiresScopes(User)) with m.Group("/starred", tokenRequiresScopes(Repository))',
  },
  {
    prefix: '/user',
    categories: ['user'],
    source: 'm.Group("/user") "Users (requires user scope)": tokenRequiresScopes(User)',
  },
  {
    prefix: '/users/{username}/orgs',
    categories: ['user', 'organization'],
    source: 'm.Group("/users/{username}/orgs", tokenRequiresScopes(User, Organization))',
  },
  {
    prefix: '/users/{username}/projects',
    categories: ['user', 'issue'],
    source: 'm.Group("/users", tokenRequiresScopes(User)) with m.Get("/projects", tokenRequiresScopes(Issue))',
  },
  {
    prefix: '/users/{username}/repos',
    categories: ['user', 'repository'],
    source: 'm.Group("/users", tokenRequiresScopes(User)) with m.Get("/repos", tokenRequiresScopes(Repository))',
  },
  {
    prefix: '/users',
    categories: ['user'],
    source: 'm.Group("/users") "Users (requires user scope)": tokenRequiresScopes(User)',
  },
  {
    prefix: '/orgs/{org}/repos',
    methods: ['DELETE'],
    categories: ['organization', 'repository'],
    source:
      'm.Group("/orgs/{org}", tokenRequiresScopes(Organization)): m.Combo("/repos").Delete(..., tokenRequiresScopes(Repository))',
  },
  {
    prefix: '/orgs/{org}/projects',
    categories: ['organization', 'issue'],
    source:
      'm.Group("/orgs/{org}", tokenRequiresScopes(Organization)) with m.Group("/projects", tokenRequiresScopes(Issue))',
  },
  {
    prefix: '/orgs',
    categories: ['organization'],
    source: 'm.Post("/orgs"), m.Get("/orgs"), m.Group("/orgs/{org}"): tokenRequiresScopes(Organization)',
  },
  {
    prefix: '/teams',
    categories: ['organization'],
    source: 'm.Group("/teams/{teamid}"): tokenRequiresScopes(Organization)',
  },
  { prefix: '/admin', categories: ['admin'], source: 'm.Group("/admin"): tokenRequiresScopes(Admin), reqSiteAdmin()' },
  {
    prefix: '/notifications',
    categories: ['notification'],
    source: 'm.Group("/notifications"): tokenRequiresScopes(Notification)',
  },
  {
    prefix: '/packages',
    categories: ['package'],
    source: 'm.Group("/packages/{username}"): tokenRequiresScopes(Package)',
  },
  {
    prefix: '/activitypub',
    categories: ['activitypub'],
    source: 'm.Group("/activitypub"): tokenRequiresScopes(ActivityPub)',
  },
  // "Misc (public accessible)": no tokenRequiresScopes; any token (or none) reaches them.
  ...[
    '/version',
    '/signing-key.gpg',
    '/signing-key.pub',
    '/markup',
    '/markdown',
    '/gitignore',
    '/licenses',
    '/label',
    '/settings',
  ].map((prefix) => ({ prefix, categories: [] as const, source: 'm.Group("") "Misc (public accessible)": no scope' })),
  { prefix: '/token', categories: [], source: 'm.Combo("/token"): reqToken() only, no scope (token introspection)' },
];

/**
 * The scopes a call of `method path` needs, most specific group first; null when Routes() places no
 * such route in any group (a route newer than the source followed), so no prediction is made and
 * Gitea decides.
 */
export function requiredTokenScopes(method: string, path: string): string[] | null {
  const group = SCOPE_GROUPS.find(
    (g) => underPrefix(path, g.prefix) && (g.methods === undefined || g.methods.includes(method)),
  );
  if (!group) return null;
  const level = method === 'GET' || method === 'HEAD' ? 'read' : 'write';
  return group.categories.map((category) => `${level}:${category}`);
}

function underPrefix(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

const LEVELS = ['read', 'write'] as const;

/** Every scope name a token can carry (models/auth/access_token_scope.go), besides `all` and `public-only`. */
export const TOKEN_SCOPE_NAMES: readonly string[] = SCOPE_CATEGORIES.flatMap((c) => LEVELS.map((l) => `${l}:${c}`));

export function isTokenScopeName(name: string): boolean {
  return name === 'all' || name === 'public-only' || TOKEN_SCOPE_NAMES.includes(name);
}

/** Whether `held` carries `wanted` (Gitea's bitmap hasScope): `all` has every scope, write:X has read:X. */
export function scopeHeld(held: readonly string[], wanted: string): boolean {
  if (held.includes('all') || held.includes(wanted)) return true;
  const [level, category] = wanted.split(':');
  return level === 'read' && held.includes(`write:${category}`);
}

/** The scopes of `required` that `held` lacks, in order. */
export function missingTokenScopes(held: readonly string[], required: readonly string[]): string[] {
  return required.filter((scope) => !scopeHeld(held, scope));
}

/** The smallest equivalent list: read:X dropped beside write:X, sorted by category; `all` alone when every write is there. */
export function minimalTokenScopes(scopes: Iterable<string>): string[] {
  const set = new Set(scopes);
  if (set.has('all')) return ['all'];
  const kept = [...set].filter((s) => !(s.startsWith('read:') && set.has(`write:${s.slice(5)}`)));
  const rank = (s: string) => SCOPE_CATEGORIES.indexOf(s.split(':')[1] as ScopeCategory);
  return kept.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}
