// Which repositories an operation of the pinned spec can reach, derived from the spec itself: whether
// its path names the repository, which input fields can name one elsewhere, and why it can return or
// act on repositories it does not name (its 2xx response embeds a repository-bearing object, or it
// acts on every repository of an owner or of the site). policies/targets.yaml must then say, for every
// operation of the last kind, whether its result is filtered to a profile's scope or the call is
// opaque (test/scope-closure.test.ts and `gitea-warden check` hold it to that).
import type { JsonSchema } from './types.js';

export interface RepositoryReach {
  /** The path names the repository: an `{owner}/{repo}`-like pair of path parameters. */
  inPath: boolean;
  /** Input fields (JSONPaths of the tool input) that can name a repository or its owner. */
  fields: string[];
  /** Why the operation can return or act on repositories it does not name; null when it cannot. */
  unnamed: string | null;
}

/** The parts of a swagger 2.0 spec the reach is read from. */
export interface ReachSpec {
  definitions?: Readonly<Record<string, JsonSchema>>;
  responses?: Readonly<Record<string, { schema?: JsonSchema }>>;
}

export interface ReachOperation {
  operationId: string;
  parameters?: ReadonlyArray<{ name: string; in: string; schema?: JsonSchema }>;
  responses?: Readonly<Record<string, { $ref?: string; schema?: JsonSchema }>>;
}

type Definitions = Readonly<Record<string, JsonSchema>>;

/** Path parameter pairs that name one repository. */
const PATH_PAIRS: ReadonlyArray<readonly [string, string]> = [
  ['owner', 'repo'],
  ['template_owner', 'template_repo'],
  ['org', 'repo'],
];

/** Input fields that name a repository or its owner wherever they appear (query, form or top-level body). */
const REPOSITORY_FIELDS = new Set([
  'owner',
  'repo',
  'repo_owner',
  'repo_name',
  'template_owner',
  'template_repo',
  'new_owner',
  'organization',
  'context',
  'scoped_workflow_source_repo_id',
]);

/** Properties through which an object belongs to one repository. */
const REPOSITORY_PROPERTIES = new Set(['repository', 'repo', 'head_repository', 'repo_name']);

/** Objects that name their repository only in their API URLs (`.../repos/{owner}/{repo}/...`). */
const URL_BEARING = new Set([
  'Repository',
  'RepositoryMeta',
  'ActionWorkflowJob',
  'ActionTask',
  'Commit',
  'NotificationSubject',
]);

/** Operations whose path names a repository but whose result lists other repositories' objects. */
const CROSS_REPOSITORY_IN_PATH: Readonly<Record<string, string>> = {
  listForks: 'lists the forks of the named repository: other repositories',
  issueListIssueDependencies: 'lists issues the issue depends on, in any repository',
  issueListBlocks: 'lists issues the issue blocks, in any repository',
};

/** Writes at user, organization or site level that act on repositories they do not name (Gitea's handlers). */
const ACTS_ON_UNNAMED: Readonly<Record<string, string>> = {
  adminDeleteUser: 'with purge, deletes every repository of the user',
  orgDeleteRepos: 'deletes every repository of the organization',
  adminRenameUser: 'renames the owner of every repository of the user',
  renameOrg: 'renames the owner of every repository of the organization',
  adminCronRun: 'runs a site task over every repository',
  adminUnadoptedList: 'lists repository directories of any owner',
  adminCreateHook: 'a system webhook receives events of every repository',
  adminEditHook: 'a system webhook receives events of every repository',
  orgCreateHook: 'an organization webhook receives events of every repository of the organization',
  orgEditHook: 'an organization webhook receives events of every repository of the organization',
  userCreateHook: 'a user webhook receives events of every repository of the user',
  userEditHook: 'a user webhook receives events of every repository of the user',
  adminCreateRunnerRegistrationToken: 'a runner registered with it runs jobs of every repository',
  orgCreateRunnerRegistrationToken: 'a runner registered with it runs jobs of every repository of the organization',
  userCreateRunnerRegistrationToken: 'a runner registered with it runs jobs of every repository of the user',
  updateOrgSecret: 'every repository of the organization runs its workflows with it',
  deleteOrgSecret: 'every repository of the organization runs its workflows with it',
  createOrgVariable: 'every repository of the organization runs its workflows with it',
  updateOrgVariable: 'every repository of the organization runs its workflows with it',
  deleteOrgVariable: 'every repository of the organization runs its workflows with it',
  updateUserSecret: 'every repository of the user runs its workflows with it',
  deleteUserSecret: 'every repository of the user runs its workflows with it',
  createUserVariable: 'every repository of the user runs its workflows with it',
  updateUserVariable: 'every repository of the user runs its workflows with it',
  deleteUserVariable: 'every repository of the user runs its workflows with it',
  orgCreateTeam: "grants access to the team's repositories, or to all of the organization's",
  orgEditTeam: "grants access to the team's repositories, or to all of the organization's",
  orgAddTeamMember: "grants the user access to the team's repositories",
  deletePackage: 'deletes a package that may be linked to any repository',
  deletePackageVersion: 'deletes a package version that may be linked to any repository',
  unlinkPackage: 'unlinks a package from whichever repository it is linked to',
  linkPackage: 'moves a package from whichever repository it is linked to',
  listPackageFiles: 'reads the files of a package that may be linked to any repository',
};

/** Every named operation that the reach rules above mention, so a spec upgrade that drops one is seen. */
export const REACH_RULE_OPERATIONS: readonly string[] = [
  ...Object.keys(CROSS_REPOSITORY_IN_PATH),
  ...Object.keys(ACTS_ON_UNNAMED),
];

export function reachOf(spec: ReachSpec, operation: ReachOperation): RepositoryReach {
  const definitions = spec.definitions ?? {};
  const parameters = operation.parameters ?? [];
  const pathParams = new Set(parameters.filter((p) => p.in === 'path').map((p) => p.name));
  const inPath = PATH_PAIRS.some(([owner, repo]) => pathParams.has(owner) && pathParams.has(repo));
  const fields = parameters.flatMap((p) => {
    if (p.in === 'query' || p.in === 'formData')
      return REPOSITORY_FIELDS.has(p.name.toLowerCase()) ? [`$.${p.name}`] : [];
    if (p.in !== 'body' || !p.schema) return [];
    const body = resolve(p.schema, definitions);
    return Object.keys((body.properties as JsonSchema | undefined) ?? {})
      .filter((k) => REPOSITORY_FIELDS.has(k.toLowerCase()))
      .map((k) => `$.body.${k}`);
  });
  return { inPath, fields, unnamed: unnamedReach(spec, operation, inPath) };
}

function unnamedReach(spec: ReachSpec, operation: ReachOperation, inPath: boolean): string | null {
  const explicit = CROSS_REPOSITORY_IN_PATH[operation.operationId] ?? ACTS_ON_UNNAMED[operation.operationId];
  if (explicit) return explicit;
  if (inPath) return null;
  const definitions = spec.definitions ?? {};
  const bearing = repositoryBearing(definitions);
  const embedded = new Set(successSchemas(spec, operation).flatMap((schema) => [...referenced(schema, definitions)]));
  const names = [...embedded].filter((name) => bearing.has(name)).sort();
  return names.length > 0 ? `its result embeds ${names.join(', ')}` : null;
}

/** The schemas of the operation's 2xx responses, `#/responses/` references resolved. */
function successSchemas(spec: ReachSpec, operation: ReachOperation): JsonSchema[] {
  return Object.entries(operation.responses ?? {}).flatMap(([status, response]) => {
    if (!status.startsWith('2')) return [];
    const resolved = response.$ref ? spec.responses?.[response.$ref.replace('#/responses/', '')] : response;
    return resolved?.schema ? [resolved.schema] : [];
  });
}

const bearingCache = new WeakMap<Definitions, Set<string>>();

/** Definitions that belong to a repository, directly or through what they embed. */
function repositoryBearing(definitions: Definitions): Set<string> {
  const cached = bearingCache.get(definitions);
  if (cached) return cached;
  const direct = new Set(
    Object.entries(definitions)
      .filter(
        ([name, schema]) =>
          URL_BEARING.has(name) ||
          Object.keys((schema.properties as JsonSchema | undefined) ?? {}).some((key) =>
            REPOSITORY_PROPERTIES.has(key),
          ),
      )
      .map(([name]) => name),
  );
  const bearing = new Set(
    Object.keys(definitions).filter(
      (name) => direct.has(name) || [...referenced(definitions[name], definitions)].some((ref) => direct.has(ref)),
    ),
  );
  bearingCache.set(definitions, bearing);
  return bearing;
}

/** Every definition a schema references, transitively (itself included when it is a $ref). */
function referenced(schema: unknown, definitions: Definitions, seen: Set<string> = new Set()): Set<string> {
  if (Array.isArray(schema)) {
    for (const item of schema) referenced(item, definitions, seen);
  } else if (schema !== null && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === '$ref' && typeof value === 'string') {
        const name = value.replace('#/definitions/', '');
        if (!seen.has(name)) {
          seen.add(name);
          referenced(definitions[name], definitions, seen);
        }
      } else referenced(value, definitions, seen);
    }
  }
  return seen;
}

function resolve(schema: JsonSchema, definitions: Definitions): JsonSchema {
  const ref = schema.$ref;
  return typeof ref === 'string' ? (definitions[ref.replace('#/definitions/', '')] ?? {}) : schema;
}
