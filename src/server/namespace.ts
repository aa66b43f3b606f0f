// Loads everything one namespace needs ONCE at start (settings, policy set, profile, catalog, guards,
// tasks, token, audit log), builds the tool registry and verifies the identity. Any problem with the
// configuration is a StartupError (exit 2); a missing token or an unwritable audit log is not: the
// server starts and fails closed per call, and says so in the logs.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { loadCatalog } from '../catalog/load.js';
import { packageRoot, policiesDir } from '../shared/paths.js';
import { loadPolicySet, type PolicySet } from '../policy-files/policy-set.js';
import { lazyHintHolders, loadProfile } from '../policy-files/profile-files.js';
import { loadTaskCatalog } from '../policy-files/task-catalog.js';
import { databasePassword, isDatabaseUrl } from '../audit/database-url.js';
import { defaultAuditPath } from '../audit/path.js';
import { GiteaHttpClient } from '../gitea/http.js';
import type { GiteaIdentity } from '../gitea/gitea-identity.js';
import { guardedOperations } from '../policy/guards/guarded-only.js';
import { decideContextFor } from '../policy/checks.js';
import { effectiveOperations, tokenVariableOf, type CompiledProfile } from '../policy/profile.js';
import { StartupError } from '../shared/startup-error.js';
import { unexpandedMessage, unexpandedReference } from '../shared/unexpanded.js';
import type { Logger } from '../shared/logger.js';
import { AuditSink } from './audit-sink.js';
import { fileSha256 } from './file-hash.js';
import { builtinTools } from './builtin/builtin-tools.js';
import type { BuiltinTool } from './builtin/builtin-tool.js';
import { MemoryTaintStore, TaintTracker } from './taint-tracker.js';
import { ConfirmRuntime } from './confirm/runtime.js';
import { CONFIRMATION_KEY_SETTING } from './confirm/request-state.js';
import { MemoryBudgetStore, type BudgetStore } from './call/budget.js';
import { IdentityVerifier } from './identity.js';
import type { Namespace, Session, WatchedFile } from './session.js';
import type { Settings } from './settings.js';
import { staticTokenScopes } from './token-scope-filter.js';
import { buildToolRegistry, ToolRegistryError, type ToolRegistry } from './tool-registry.js';

export interface NamespaceOptions {
  /** The shared state store's budget windows; default: counted in this process (MemoryBudgetStore). */
  budgets?: BudgetStore;
}

export async function loadNamespace(
  settings: Settings,
  env: NodeJS.ProcessEnv,
  logger: Logger,
  options: NamespaceOptions = {},
): Promise<Namespace> {
  const policy = startupStep(() => loadPolicySet());
  const profile = startupStep(() => withLoginFromEnv(loadProfile(profileReference(settings), policy), env));
  const tokenReference = unexpandedReference(env[tokenVariableOf(profile)] ?? '');
  if (tokenReference !== null) throw new StartupError(unexpandedMessage(tokenVariableOf(profile), tokenReference));
  refuseUnknownBudgets(profile);
  const entries = loadCatalog().entries;
  const builtins = builtinTools();
  const registry = startupStep(() => registryFor(settings, policy, profile, entries, builtins));
  const gitea = giteaIdentityFor(settings, profile, env);
  const client = gitea.token === '' ? null : new GiteaHttpClient(gitea, { timeoutMs: settings.timeoutMs });
  const auditPath = settings.auditLog ?? defaultAuditPath(profile.name ?? basename(profile.file), env);
  const session: Session = {
    version: packageVersion(),
    settings,
    logger,
    policy,
    decideContext: decideContextFor(policy, {
      holders: lazyHintHolders(policy),
      guardedOnly: policy.guards.guarded_only,
    }),
    tasks: startupStep(() => loadTaskCatalog()),
    entries,
    builtins,
    audit: await AuditSink.open({
      path: auditPath,
      databaseUrl: startupStep(() => auditDatabaseUrl(env)),
      chain: profile.name ?? basename(profile.file),
      isDefaultPath: settings.auditLog === null,
      signingKeyFile: settings.auditSigningKeyFile,
      checkpointEvery: settings.auditCheckpointEvery,
    }),
    executorOptions: executorOptionsFor(settings, env),
    env,
    watchedFiles: watchedFiles(profile),
    profile,
    registry,
    gitea,
    client,
    identity: new IdentityVerifier(client, profile.data.authenticated_username ?? null),
    // Over stdio the process is the session; the shared store takes over where the namespace opens one.
    taint: new TaintTracker(new MemoryTaintStore(), {
      namespace: profile.name ?? basename(profile.file),
      principal: profile.data.authenticated_username ?? 'namespace',
    }),
    confirm: startupStep(() => confirmRuntimeFor(policy, profile, builtins, settings, env)),
    budgets: options.budgets ?? new MemoryBudgetStore(),
  };
  const audit = session.audit.path;
  if (session.audit.openFailure)
    logger.error({ audit }, `audit log unavailable, every tool call will be refused: ${session.audit.failureHint()}`);
  else if (session.audit.startNotice()) logger.warn({ audit }, session.audit.startNotice() as string);
  if (!session.audit.openFailure && audit !== auditPath && !audit.startsWith('postgres://'))
    logger.info(
      { audit, held: auditPath },
      'the default audit log is held by another process: this one writes its own',
    );
  // Pure OAuth needs no token of its own: every call runs with the signed-in person's (caller-session.ts).
  const perUserOnly = settings.authMode === 'oauth';
  if (!client && perUserOnly)
    logger.info(
      { profile: profile.name, variable: tokenVariableOf(profile) },
      `per-user OAuth: each call runs with the signed-in person's Gitea token; ${tokenVariableOf(profile)} is not read`,
    );
  else if (!client)
    logger.error(
      { profile: profile.name, variable: tokenVariableOf(profile) },
      `no Gitea token: ${tokenVariableOf(profile)} is not set; every ${settings.authMode === 'bearer' ? '' : 'bearer-token '}Gitea call is ` +
        `refused until it is (no other variable is read)`,
    );
  // In the background: a Gitea that does not answer must not hold the client's handshake. Mutations
  // wait for this check (identity-gate.ts); reads do not need it.
  if (client || !perUserOnly) void verifyIdentity(session);
  const { mode } = registry;
  logger.info(
    { profile: profile.name, tools: registry.tools.length, tool_mode: mode.mode, audit },
    `namespace ready in ${mode.mode} mode: ${mode.reason}`,
  );
  return { session };
}

/**
 * The namespace's confirmations. A `through` of policies/confirmations.yaml that names no built-in
 * tool would silently ask about nothing: it stops start-up, like any unusable policy.
 */
function confirmRuntimeFor(
  policy: PolicySet,
  profile: CompiledProfile,
  builtins: readonly BuiltinTool[],
  settings: Settings,
  env: NodeJS.ProcessEnv,
): ConfirmRuntime {
  const names = new Set(builtins.map((tool) => tool.name));
  const stray = policy.confirmations.rules.find((rule) => rule.through !== null && !names.has(rule.through));
  if (stray)
    throw new StartupError(
      `${stray.file}:${stray.line ?? ''}: confirm names the tool ${stray.through ?? ''}, which is not a built-in tool of this server`,
    );
  const runtime = ConfirmRuntime.open(policy, profile, { setting: settings.oauthStore, env });
  const { approver } = runtime.settings;
  // A signed-in or second person approves on this server's own page, after signing in with Gitea.
  if (
    approver !== 'at_client' &&
    (settings.transport !== 'http' || !settings.oauthClientId || !env.OAUTH_CLIENT_SECRET)
  )
    throw new StartupError(
      `confirmations.approver ${approver} needs MCP_TRANSPORT=http, OAUTH_CLIENT_ID and OAUTH_CLIENT_SECRET: the approver signs in with ` +
        'Gitea on the confirmation page this server serves (register <PUBLIC_BASE_URL>/confirm/callback as a redirect URI of the application)',
    );
  return runtime;
}

/** A budget that names no operation would bound nothing: the namespace does not start with one (fail closed). */
function refuseUnknownBudgets(profile: CompiledProfile): void {
  const broken = profile.budgets.find((budget) => budget.unknown.length > 0);
  if (broken)
    throw new StartupError(
      `profile ${profile.name ?? profile.file} budgets[${broken.index}] names ${broken.unknown.join(', ')}, which is no canonical operation or window`,
    );
}

/** AUDIT_SINK (environment only: the URL holds a password): unset or `file`, else a postgres:// URL. */
function auditDatabaseUrl(env: NodeJS.ProcessEnv): string | null {
  const sink = env.AUDIT_SINK;
  if (sink === undefined || sink === '' || sink === 'file') return null;
  if (isDatabaseUrl(sink)) return sink;
  throw new StartupError("AUDIT_SINK must be 'file' or a postgres:// URL");
}

/**
 * A profile that names its login's variable (authenticated_username_from_env, a one-person setup)
 * gets the login from the environment now; unset, the namespace does not start: an unknown login
 * would leave every mutation refused without saying why.
 */
export function withLoginFromEnv(profile: CompiledProfile, env: NodeJS.ProcessEnv): CompiledProfile {
  const variable = profile.data.authenticated_username_from_env;
  if (variable === undefined) return profile;
  const login = env[variable]?.trim();
  const reference = login ? unexpandedReference(login) : null;
  if (reference !== null) throw new StartupError(unexpandedMessage(variable, reference));
  if (!login) {
    throw new StartupError(
      `profile ${profile.name ?? profile.file} takes its Gitea login from ${variable} (authenticated_username_from_env), which is not set`,
    );
  }
  return { ...profile, data: { ...profile.data, authenticated_username: login } };
}

/** Runs GET /user and logs the outcome (logins only, never the token). */
export async function verifyIdentity(session: Session): Promise<void> {
  const status = await session.identity.verify();
  if (status.state === 'verified') session.logger.info({ login: status.login }, 'Gitea identity verified');
  else if (status.state === 'mismatch')
    session.logger.error(
      { login: status.login, expected: status.expected },
      'Gitea identity mismatch: mutating calls are refused',
    );
  else
    session.logger.warn({ detail: status.detail }, 'Gitea identity unverified: mutating calls are refused until it is');
}

/**
 * Serves another profile from now on: its registry, its token (its token_source_name), a new client and
 * identity, verified with GET /user before the new session replaces the old one. Calls already running
 * finish with the session they started with; calls from now on get the new one.
 */
export async function switchProfile(namespace: Namespace, profile: CompiledProfile): Promise<Session> {
  const current = namespace.session;
  profile = withLoginFromEnv(profile, current.env);
  const gitea = giteaIdentityFor(current.settings, profile, current.env);
  const client = gitea.token === '' ? null : new GiteaHttpClient(gitea, { timeoutMs: current.settings.timeoutMs });
  const next: Session = {
    ...current,
    profile,
    registry: registryFor(current.settings, current.policy, profile, current.entries, current.builtins),
    gitea,
    client,
    identity: new IdentityVerifier(client, profile.data.authenticated_username ?? null),
    confirm: current.confirm.forProfile(current.policy, profile),
  };
  next.logger.info({ profile: profile.name }, 'profile switched at runtime');
  await verifyIdentity(next);
  namespace.session = next;
  return next;
}

/** GITEA_MCP_CONFIG#name, a profile file, or a reference profile name (profiles/<name>.yaml). */
/** The profile setting as loadProfile reads it: a name or file, or `config#name` when a config file is set. */
export function profileReference(settings: Pick<Settings, 'profile' | 'config'>): string {
  return settings.config ? `${settings.config}#${settings.profile}` : settings.profile;
}

export function registryFor(
  settings: Pick<Settings, 'toolsets' | 'readOnly' | 'disabledTools' | 'listDeniedTools' | 'toolMode'>,
  policy: PolicySet,
  profile: CompiledProfile,
  entries: Parameters<typeof buildToolRegistry>[0]['entries'],
  builtins: readonly BuiltinTool[],
): ToolRegistry {
  const registry = buildToolRegistry(
    {
      entries,
      builtins,
      operationMap: policy.operationMap,
      effective: effectiveOperations(profile, policy.vocabulary),
      guardedOnly: guardedOperations(policy.guards.guarded_only),
      role: profile.role,
    },
    {
      toolsets: toolsetsFor(settings.toolsets),
      profileToolsets: profile.data.toolsets ?? null,
      readOnly: settings.readOnly,
      disabledTools: settings.disabledTools,
      listDenied: settings.listDeniedTools,
      mode: settings.toolMode,
    },
  );
  return registry.withTokenScopes(staticTokenScopes(profile));
}

/** TOOLSETS wins ('all' means every domain); unset, the static listing takes the profile's toolsets. */
function toolsetsFor(requested: string[] | null): string[] | 'all' | null {
  if (requested === null || requested.length === 0) return null;
  return requested.includes('all') ? 'all' : requested;
}

/** The profile's token from its one variable only: unset means no token (every call refused), never another identity's. */
export function giteaIdentityFor(settings: Settings, profile: CompiledProfile, env: NodeJS.ProcessEnv): GiteaIdentity {
  const token = env[tokenVariableOf(profile)] ?? '';
  return {
    baseUrl: settings.giteaUrl,
    token,
    ...(profile.data.authenticated_username ? { expectedLogin: profile.data.authenticated_username } : {}),
  };
}

function executorOptionsFor(settings: Settings, env: NodeJS.ProcessEnv): Session['executorOptions'] {
  const extra = (env.EXTRA_SECRETS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  // Every secret the server holds: its bearer token, OAuth client secret, the key that seals the token
  // store, and the passwords of its databases (in a URL or PGPASSWORD).
  const serverSecrets = [
    env.MCP_BEARER_TOKEN,
    env.OAUTH_CLIENT_SECRET,
    env.TOKEN_ENCRYPTION_KEY,
    env[CONFIRMATION_KEY_SETTING],
    databasePassword(env.AUDIT_SINK),
    databasePassword(settings.oauthStore ?? undefined),
    env.PGPASSWORD,
    ...extra,
  ].filter((s): s is string => Boolean(s));
  return {
    maxItems: settings.maxItems,
    maxChars: settings.maxChars,
    maxBinaryBytes: settings.maxBinaryBytes,
    timeoutMs: settings.timeoutMs,
    secretDetectionMode: settings.secretDetectionMode,
    serverSecrets,
  };
}

/** The profile file and every policies/*.yaml, hashed, so server_status can tell when a restart is due. */
export function watchedFiles(profile: CompiledProfile): WatchedFile[] {
  const policyFiles = readdirSync(policiesDir)
    .filter((name) => name.endsWith('.yaml'))
    .sort()
    .map((name) => join(policiesDir, name));
  return [profile.file, ...policyFiles].map((path) => ({ path, sha256: fileSha256(path) }));
}

export function packageVersion(): string {
  const data = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version?: unknown };
  return typeof data.version === 'string' ? data.version : '0.0.0';
}

/** A configuration problem found while loading becomes a StartupError (exit 2) with its message. */
function startupStep<T>(load: () => T): T {
  try {
    return load();
  } catch (error) {
    if (error instanceof StartupError) throw error;
    const message = error instanceof Error ? error.message : 'configuration unusable';
    throw new StartupError(error instanceof ToolRegistryError ? message : `cannot start: ${message}`);
  }
}
