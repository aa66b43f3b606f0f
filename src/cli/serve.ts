// `gitea-warden serve`: one MCP namespace (one profile, one Gitea identity) over stdio (default)
// or streamable HTTP. Configuration problems exit 2 with one line; logs go to stderr only.
import { parseArgs } from 'node:util';
import type { OAuthSetup } from '../auth/oauth-setup.js';
import type { SqlDriver } from '../auth/sql-driver.js';
import { namespaceForCaller } from '../server/caller-session.js';
import { loadNamespace, packageVersion } from '../server/namespace.js';
import { createMcpServer } from '../server/mcp-server.js';
import { readSettings, SETTINGS, SettingsError, settingsHelp, type Settings } from '../server/settings.js';
import { serveStdio } from '../transports/stdio.js';
import { createLogger, type Logger } from '../shared/logger.js';
import { StartupError } from '../shared/startup-error.js';
import { checkStartup, type StartupOptions } from '../transports/startup.js';
import type { Namespace } from '../server/session.js';
import { isDatabaseUrl } from '../audit/database-url.js';
import type { PostgresRateLimiter } from '../transports/rate-limit-postgres.js';
import { namespaceTokenScopes, stepUpScopes } from '../server/token-scope-filter.js';
import { profileWords } from '../policy/profile-words.js';
import type { SqlBudgetStore } from '../auth/budget-store.js';
import { startTelemetry } from '../telemetry/start-telemetry.js';
import { GiteaHttpClient } from '../gitea/http.js';

export async function run(argv: string[]): Promise<number> {
  let flags: Record<string, string | undefined>;
  try {
    const parsed = parseArgs({ args: argv, options: flagOptions(), strict: true });
    if (parsed.values.help) {
      process.stdout.write(settingsHelp());
      return 0;
    }
    flags = Object.fromEntries(Object.entries(parsed.values).filter(([name]) => name !== 'help')) as Record<
      string,
      string | undefined
    >;
  } catch (error) {
    return fail(error instanceof Error ? error.message : 'bad arguments');
  }
  try {
    const settings = readSettings(flags, process.env);
    // An unsafe HTTP setup is refused before anything is loaded, opened or written.
    // HTTP (express, the OAuth routes) and OAuth (database drivers) load only when used: stdio starts lean.
    const transport = settings.transport === 'http' ? await import('../transports/streamable-http.js') : null;
    const http = transport ? httpOptions(settings, process.env, transport.DEFAULT_MAX_BODY_BYTES) : null;
    if (http) checkStartup(http);
    if (settings.authMode !== 'bearer' && http === null)
      throw new StartupError(`AUTH_MODE=${settings.authMode} needs MCP_TRANSPORT=http`);
    const logger = createLogger(settings.logLevel as Parameters<typeof createLogger>[0]);
    const telemetry = await startTelemetry(process.env, { serviceVersion: packageVersion() });
    if (telemetry.traces.length + telemetry.metrics.length > 0)
      logger.info({ traces: telemetry.traces, metrics: telemetry.metrics }, 'OpenTelemetry export on');
    const budgets = await budgetStoreFor(settings, process.env);
    const namespace = await loadNamespace(settings, process.env, logger, budgets ? { budgets } : {});
    const oauth =
      settings.authMode === 'bearer'
        ? null
        : await (
            await import('../auth/oauth-setup.js')
          ).openOAuth(
            oauthSettings(settings, namespaceTokenScopes(namespace.session)),
            namespace.session.profile,
            profileWords(namespace.session.profile, namespace.session.policy.vocabulary),
            process.env,
          );
    // Over streamable HTTP the taint belongs to the principal, in the store every replica reads: the
    // OAuth token store, or with a static bearer token the state store OAUTH_STORE names (one process
    // without it keeps the taint in memory, as over stdio).
    const taintDriver = oauth ? null : await sharedTaintDriver(settings, http !== null, process.env);
    if (oauth || taintDriver) await keepTaintInStore(namespace, oauth?.store.driver ?? taintDriver!);
    try {
      await serve(namespace, http, oauth, logger, { budgets, metricsOpen: settings.metricsAuth === 'none' });
    } finally {
      await oauth?.close();
      await budgets?.close();
      await taintDriver?.close();
      await telemetry.shutdown();
    }
    return 0;
  } catch (error) {
    if (error instanceof SettingsError || error instanceof StartupError || isOAuthSetupError(error))
      return fail(error.message);
    throw error;
  }
}

/** The principal's taints in the shared state store, the one state store of the namespace (ADR 0022). */
async function keepTaintInStore(namespace: Namespace, driver: SqlDriver): Promise<void> {
  const [{ SqlTaintStore }, { keepTaintIn }] = await Promise.all([
    import('../auth/taint-store.js'),
    import('../server/taint-tracker.js'),
  ]);
  keepTaintIn(namespace, await SqlTaintStore.open(driver));
}

/** With a static bearer token over HTTP, replicas share taints only through a state store OAUTH_STORE names. */
async function sharedTaintDriver(settings: Settings, http: boolean, env: NodeJS.ProcessEnv): Promise<SqlDriver | null> {
  if (!http || settings.oauthStore === null) return null;
  // The state store's opener (any dialect, migrated by every step), named for the lane that wrote it first.
  const { openBudgetDriver } = await import('../auth/budget-store.js');
  return openBudgetDriver(settings.oauthStore, env);
}

/**
 * Budgets are counted in the state store when there is one (OAUTH_STORE, or AUTH_MODE=oauth, whose
 * default store file is in the state directory), shared by every replica on it; without one, in this
 * process (MemoryBudgetStore, the namespace's default). The store opens on the first budgeted call.
 */
async function budgetStoreFor(settings: Settings, env: NodeJS.ProcessEnv): Promise<SqlBudgetStore | null> {
  if (settings.oauthStore === null && settings.authMode === 'bearer') return null;
  const { SqlBudgetStore, openBudgetDriver } = await import('../auth/budget-store.js');
  return new SqlBudgetStore(() => openBudgetDriver(settings.oauthStore, env));
}

/** The HTTP transport's settings. MCP_BEARER_TOKEN set but empty stays set, so checkStartup refuses it rather than serve unauthenticated. */
function httpOptions(settings: Settings, env: NodeJS.ProcessEnv, maxBodyBytes: number): StartupOptions {
  const bearerToken = env.MCP_BEARER_TOKEN;
  return {
    host: settings.host,
    port: settings.port,
    path: settings.mcpPath,
    ...(bearerToken !== undefined ? { bearerToken } : {}),
    ...(settings.authMode !== 'bearer' ? { oauth: true } : {}),
    ...(settings.publicBaseUrl ? { publicBaseUrl: settings.publicBaseUrl } : {}),
    allowedHosts: settings.allowedHosts,
    rateLimitPerMinute: settings.rateLimitPerMinute,
    maxBodyBytes,
  };
}

/** OAuthSetupError (exit 2), recognised without loading its module. */
function isOAuthSetupError(error: unknown): error is Error {
  return error instanceof Error && error.name === 'OAuthSetupError';
}

/** `needed`: what the namespace's operations need, the default of OAUTH_GITEA_SCOPES. */
function oauthSettings(settings: Settings, needed: string[]) {
  return {
    giteaUrl: settings.giteaUrl,
    clientId: settings.oauthClientId,
    store: settings.oauthStore,
    giteaScopes: settings.oauthGiteaScopes ?? needed,
    timeoutMs: settings.timeoutMs,
    teamsMaxAgeSeconds: settings.oauthTeamsMaxAge,
    documentTimeoutMs: settings.oauthDocumentTimeoutMs,
  };
}

interface ServeExtras {
  budgets: SqlBudgetStore | null;
  metricsOpen: boolean;
}

async function serve(
  namespace: Namespace,
  http: StartupOptions | null,
  oauth: OAuthSetup | null,
  logger: Logger,
  extras: ServeExtras,
): Promise<void> {
  // The audit sink and version stay the same across profile switches.
  const { audit, version, profile } = namespace.session;
  if (http === null) {
    const connection = await serveStdio((era) => createMcpServer(namespace, { era, transport: 'stdio' }));
    // A client that stops the server with a signal still gets the closing checkpoint written.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void connection.close());
    await connection.closed;
    await namespace.session.confirm.close();
    await audit.close();
    return;
  }
  const { startHttpTransport } = await import('../transports/streamable-http.js');
  const { confirmationPages } = await import('../transports/approval-routes.js');
  const shared = await sharedRateLimiter(process.env.AUDIT_SINK, http.rateLimitPerMinute);
  const readiness = await readinessFor(namespace, oauth, extras.budgets);
  const handle = await startHttpTransport(
    {
      ...http,
      info: { name: 'gitea-warden', version, profile: profile.name ?? profile.file },
      ...(oauth
        ? {
            oauthService: (base: string, mcpUrl: string, loopbackOnly: boolean) =>
              Promise.resolve(oauth.service(base, mcpUrl, loopbackOnly)),
            oauthStepUpScopes: stepUpScopes(namespace),
          }
        : {}),
      ...(shared ? { rateLimiter: shared } : {}),
      readiness,
      metricsOpen: extras.metricsOpen,
      // The confirmation page, when the profile's approver signs in there (docs/confirmations.md).
      pages: (base: string) => confirmationPages(namespace.session, base),
    },
    // A signed-in person's call runs in a namespace of its own, as that person.
    (caller, era) =>
      createMcpServer(caller ? namespaceForCaller(namespace, caller) : namespace, { era, transport: 'http' }),
    logger,
  );
  await new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
  });
  await handle.close();
  await shared?.close();
  await namespace.session.confirm.close();
  await audit.close();
}

/** /ready's checks: Gitea (the identity, or that it answers under per-user OAuth), the audit log, every state store. */
async function readinessFor(namespace: Namespace, oauth: OAuthSetup | null, budgets: SqlBudgetStore | null) {
  const { Readiness } = await import('../transports/ready-route.js');
  const stores: Record<string, () => Promise<void>> = {};
  if (oauth) stores.token_store = async () => void (await oauth.store.driver.query('SELECT 1'));
  if (budgets) stores.budget_store = () => budgets.ping();
  const { session } = namespace;
  const gitea =
    session.client === null && oauth
      ? async () => {
          const answer = await new GiteaHttpClient({ baseUrl: session.gitea.baseUrl, token: '' }).send({
            method: 'GET',
            path: '/version',
          });
          if (!answer.ok || answer.status >= 500) throw new Error('Gitea does not answer');
        }
      : undefined;
  return new Readiness(() => namespace.session, stores, gitea);
}

/** With the PostgreSQL store configured (AUDIT_SINK), replicas share one bucket per client; start-up stops when it is unusable. */
async function sharedRateLimiter(sink: string | undefined, perMinute: number): Promise<PostgresRateLimiter | null> {
  if (sink === undefined || !isDatabaseUrl(sink)) return null;
  const { PostgresRateLimiter } = await import('../transports/rate-limit-postgres.js');
  try {
    return await PostgresRateLimiter.open(sink, perMinute);
  } catch (error) {
    throw new StartupError(error instanceof Error ? error.message : 'the shared rate-limit store cannot be opened');
  }
}

function flagOptions() {
  const options: Record<string, { type: 'string' } | { type: 'boolean'; short?: string }> = {
    help: { type: 'boolean', short: 'h' },
  };
  for (const spec of SETTINGS) options[spec.flag] = { type: 'string' };
  return options;
}

function fail(message: string): number {
  process.stderr.write(`gitea-warden serve: ${message}\n`);
  return 2;
}
