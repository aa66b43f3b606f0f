// Everything AUTH_MODE=oauth needs before the server listens, checked up front (a missing key,
// secret or list of users stops start-up with one line), and the service built once the public
// URL is known. The store: SQLite in the state directory by default, PostgreSQL for replicas.
import { join, resolve } from 'node:path';
import { GiteaOAuthClient } from '../gitea/oauth-upstream.js';
import { nativeModuleProblem } from '../shared/native-module.js';
import type { CompiledProfile, ProfileData } from '../policy/profile.js';
import { OAuthService, type NamespaceAccess } from './oauth-service.js';
import { openPostgres } from './postgres-driver.js';
import { Sealer, SealingError } from './sealing.js';
import { openSqlite } from './sqlite-driver.js';
import { TokenStore } from './token-store.js';

export class OAuthSetupError extends Error {
  readonly exitCode = 2;
  override name = 'OAuthSetupError';
}

export interface OAuthSettings {
  giteaUrl: string;
  clientId: string | null;
  store: string | null;
  giteaScope: string;
  timeoutMs: number;
}

export interface OAuthSetup {
  store: TokenStore;
  /** Builds the service for this namespace's public base URL and MCP URL. */
  service(base: string, mcpUrl: string): OAuthService;
  close(): Promise<void>;
}

/** Checks the settings and the profile, opens (and migrates) the store. */
export async function openOAuth(
  settings: OAuthSettings,
  profile: CompiledProfile,
  env: NodeJS.ProcessEnv,
): Promise<OAuthSetup> {
  const key = env.TOKEN_ENCRYPTION_KEY;
  if (!key)
    throw new OAuthSetupError(
      'AUTH_MODE=oauth needs TOKEN_ENCRYPTION_KEY (32+ characters, e.g. openssl rand -hex 32): Gitea tokens are stored encrypted with it',
    );
  let sealer: Sealer;
  try {
    sealer = new Sealer(key);
  } catch (error) {
    throw new OAuthSetupError(error instanceof SealingError ? error.message : 'TOKEN_ENCRYPTION_KEY is unusable');
  }
  const secret = env.OAUTH_CLIENT_SECRET;
  if (!settings.clientId || !secret) {
    throw new OAuthSetupError(
      'AUTH_MODE=oauth needs OAUTH_CLIENT_ID and OAUTH_CLIENT_SECRET of an OAuth2 application in Gitea (redirect URI: <public base URL>/oauth/callback)',
    );
  }
  const access = accessOf(profile);
  if (access.users.length === 0 && access.teams.length === 0) {
    throw new OAuthSetupError(
      `profile ${profile.name ?? profile.file} names nobody who may sign in: set authenticated_users and/or authenticated_teams for AUTH_MODE=oauth`,
    );
  }
  const store = await openStore(settings.store, env);
  const upstream = new GiteaOAuthClient({
    baseUrl: settings.giteaUrl,
    clientId: settings.clientId,
    clientSecret: secret,
    timeoutMs: settings.timeoutMs,
  });
  return {
    store,
    service: (base, mcpUrl) =>
      new OAuthService({
        store,
        sealer,
        upstream,
        giteaUrl: settings.giteaUrl,
        resource: mcpUrl,
        callbackUrl: `${base}/oauth/callback`,
        access,
        giteaScope: settings.giteaScope,
      }),
    close: () => store.close(),
  };
}

async function openStore(setting: string | null, env: NodeJS.ProcessEnv): Promise<TokenStore> {
  try {
    if (setting !== null && /^postgres(ql)?:\/\//.test(setting))
      return await TokenStore.open(await openPostgres(setting));
    return await TokenStore.open(openSqlite(setting ?? defaultStorePath(env)));
  } catch (error) {
    const native = nativeModuleProblem(error, 'better-sqlite3');
    if (native !== null) throw new OAuthSetupError(`cannot open the OAuth token store: ${native}`);
    // The driver's message may quote the URL (and its password); name the setting instead.
    const kind = error instanceof Error ? ((error as NodeJS.ErrnoException).code ?? error.name) : 'error';
    throw new OAuthSetupError(`cannot open the OAuth token store (OAUTH_STORE): ${kind}`);
  }
}

/** oauth-tokens.sqlite beside the audit logs: $XDG_STATE_HOME/gitea-warden, else ~/.local/state/gitea-warden. */
export function defaultStorePath(env: NodeJS.ProcessEnv): string {
  if (env.XDG_STATE_HOME) return join(resolve(env.XDG_STATE_HOME), 'gitea-warden', 'oauth-tokens.sqlite');
  if (env.HOME) return join(env.HOME, '.local', 'state', 'gitea-warden', 'oauth-tokens.sqlite');
  return resolve('.data', 'oauth-tokens.sqlite');
}

/** Who may sign in, and what the profile lets an agent do, in words a person can judge. */
export function accessOf(profile: CompiledProfile): NamespaceAccess {
  const data = profile.data;
  const name = profile.name ?? profile.file;
  const allowed = data.allowed_operations ?? [];
  const forbidden = data.forbidden_operations ?? [];
  const scope = repositoryScope(data.repositories);
  const summary =
    `An agent acts as you with the ${profile.role ?? 'unnamed'} role of profile ${name}, in ${scope}: ` +
    (allowed.length > 0 ? `it may ${allowed.join(', ')}` : 'it may do nothing') +
    (forbidden.length > 0 ? `, and is never allowed ${forbidden.join(', ')}.` : '.');
  return {
    profileName: name,
    summary,
    users: (data.authenticated_users ?? []).map((u) => u.toLowerCase()),
    teams: (data.authenticated_teams ?? []).map((t) => t.toLowerCase()),
  };
}

function repositoryScope(repos: ProfileData['repositories']): string {
  if (repos === undefined) return 'any repository your account can reach';
  if (Array.isArray(repos)) return `the repositories ${repos.join(', ')}`;
  const parts = [
    repos.read ? `reading ${repos.read.join(', ')}` : null,
    repos.write ? `writing ${repos.write.join(', ')}` : null,
  ];
  return parts.filter(Boolean).join(' and ') || 'no repository';
}
