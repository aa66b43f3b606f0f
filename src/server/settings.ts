// Every setting of `gitea-warden serve`: one table gives its environment variable, its flag, its
// default and its meaning, so `serve --help`, the parser and the docs can never disagree.
// Secret values (tokens) are read from the environment only: a flag would show them in `ps`.
import { isTokenScopeName } from '../catalog/token-scopes.js';
import { unexpandedMessage, unexpandedReference } from '../shared/unexpanded.js';

export type TransportKind = 'stdio' | 'http';
export type AuthMode = 'bearer' | 'oauth' | 'oauth+bearer';
export type SecretDetectionMode = 'off' | 'mask' | 'block';
/** How Gitea operations reach the client: one tool each (static), three discovery tools, or whichever fits (auto). */
export type ToolModeSetting = 'auto' | 'static' | 'discovery';

export interface Settings {
  profile: string;
  config: string | null;
  giteaUrl: string;
  transport: TransportKind;
  host: string;
  port: number;
  mcpPath: string;
  publicBaseUrl: string | null;
  allowedHosts: string[];
  rateLimitPerMinute: number;
  auditLog: string | null;
  auditSigningKeyFile: string | null;
  auditCheckpointEvery: number;
  toolsets: string[] | null;
  readOnly: boolean;
  disabledTools: string[];
  listDeniedTools: boolean;
  toolMode: ToolModeSetting;
  secretDetectionMode: SecretDetectionMode;
  maxItems: number;
  maxChars: number;
  maxBinaryBytes: number;
  timeoutMs: number;
  logLevel: string;
  authMode: AuthMode;
  oauthStore: string | null;
  oauthClientId: string | null;
  /** Null: the scopes the profile needs (src/server/token-scope-filter.ts). */
  oauthGiteaScopes: string[] | null;
  oauthTeamsMaxAge: number;
  oauthDocumentTimeoutMs: number;
  metricsAuth: 'bearer' | 'none';
}

interface SettingSpec {
  key: keyof Settings;
  env: string;
  flag: string;
  default: string | null;
  description: string;
  parse: (raw: string, env: string) => Settings[keyof Settings];
}

export class SettingsError extends Error {
  readonly exitCode = 2;
  override name = 'SettingsError';
}

const text = (raw: string) => raw;
const list = (raw: string) =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const oneOf =
  <T extends string>(...values: T[]) =>
  (raw: string, env: string): T => {
    if ((values as string[]).includes(raw)) return raw as T;
    throw new SettingsError(`${env} must be one of: ${values.join(', ')}`);
  };
const bool = (raw: string, env: string): boolean => {
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new SettingsError(`${env} must be true or false`);
};
const positiveInt = (raw: string, env: string): number => {
  const n = Number(raw);
  if (Number.isInteger(n) && n >= 0) return n;
  throw new SettingsError(`${env} must be a whole number`);
};

/**
 * The Gitea base URL. The API lives under /api/v1, which the server adds itself; a URL copied with it
 * (from Gitea's API docs page) is accepted without it, so the two spellings name the same Gitea.
 */
export const giteaBaseUrl = (raw: string, env: string): string => {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new SettingsError(`${env} must be the URL of a Gitea, for example https://gitea.example.com`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new SettingsError(`${env} must be an http or https URL`);
  if (url.username || url.password)
    throw new SettingsError(`${env} must not hold credentials; the token comes from the profile's variable`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '')}`;
};

export const SETTINGS: readonly SettingSpec[] = [
  {
    key: 'profile',
    env: 'GITEA_MCP_PROFILE',
    flag: 'profile',
    default: null,
    description:
      'profile file; a bare name is the one init wrote (~/.config/gitea-warden/profiles/NAME.yaml), else ./profiles/NAME.yaml; ' +
      'gitea-warden:NAME is a reference profile; in a config, an identity',
    parse: text,
  },
  {
    key: 'config',
    env: 'GITEA_MCP_CONFIG',
    flag: 'config',
    default: null,
    description: 'multi-identity config file, when the profile is defined there',
    parse: text,
  },
  {
    key: 'giteaUrl',
    env: 'GITEA_URL',
    flag: 'gitea-url',
    default: null,
    description:
      'Gitea base URL (a trailing /api/v1 is dropped); the token comes only from the env var the ' +
      'profile names (token_source_name; GITEA_TOKEN when it names none)',
    parse: giteaBaseUrl,
  },
  {
    key: 'transport',
    env: 'MCP_TRANSPORT',
    flag: 'transport',
    default: 'stdio',
    description: 'stdio or http (streamable HTTP, stateless)',
    parse: oneOf('stdio', 'http'),
  },
  {
    key: 'host',
    env: 'MCP_HOST',
    flag: 'host',
    default: '127.0.0.1',
    description: 'HTTP bind address; a non-loopback address requires MCP_BEARER_TOKEN',
    parse: text,
  },
  { key: 'port', env: 'MCP_PORT', flag: 'port', default: '8741', description: 'HTTP port', parse: positiveInt },
  {
    key: 'mcpPath',
    env: 'MCP_PATH',
    flag: 'mcp-path',
    default: '/mcp',
    description: 'HTTP path of the MCP endpoint',
    parse: text,
  },
  {
    key: 'publicBaseUrl',
    env: 'PUBLIC_BASE_URL',
    flag: 'public-base-url',
    default: null,
    description: 'public URL of this server; its host is an allowed Host header',
    parse: text,
  },
  {
    key: 'allowedHosts',
    env: 'ALLOWED_HOSTS',
    flag: 'allowed-hosts',
    default: '',
    description: 'comma-separated extra allowed Host headers (DNS-rebinding protection)',
    parse: list,
  },
  {
    key: 'rateLimitPerMinute',
    env: 'RATE_LIMIT_PER_MINUTE',
    flag: 'rate-limit',
    default: '600',
    description:
      'HTTP requests to the MCP path per client (address and credential) per minute, bursts up to it; one ' +
      'request is one JSON-RPC message (batches are refused); 429 beyond',
    parse: positiveInt,
  },
  {
    key: 'auditLog',
    env: 'AUDIT_LOG',
    flag: 'audit-log',
    default: null,
    description: 'hash-chained audit log (JSON Lines); default under the data directory',
    parse: text,
  },
  {
    key: 'auditSigningKeyFile',
    env: 'AUDIT_SIGNING_KEY_FILE',
    flag: 'audit-signing-key',
    default: null,
    description: 'Ed25519 private key (PEM) that signs audit checkpoints; keep it where the agent cannot read it',
    parse: text,
  },
  {
    key: 'auditCheckpointEvery',
    env: 'AUDIT_CHECKPOINT_EVERY',
    flag: 'audit-checkpoint-every',
    default: '100',
    description: 'events between signed checkpoints (one is also written at start and at shutdown)',
    parse: positiveInt,
  },
  {
    key: 'toolsets',
    env: 'TOOLSETS',
    flag: 'toolsets',
    default: null,
    description: "comma-separated domains to serve; 'all' for every domain; default: the profile's toolsets",
    parse: list,
  },
  {
    key: 'readOnly',
    env: 'READ_ONLY',
    flag: 'read-only',
    default: 'false',
    description: 'serve read-only tools only',
    parse: bool,
  },
  {
    key: 'disabledTools',
    env: 'DISABLED_TOOLS',
    flag: 'disabled-tools',
    default: '',
    description: 'comma-separated tool names never served (an unknown name stops start-up)',
    parse: list,
  },
  {
    key: 'listDeniedTools',
    env: 'LIST_DENIED_TOOLS',
    flag: 'list-denied-tools',
    default: 'false',
    description: 'also list tools the profile can never be allowed (debugging)',
    parse: bool,
  },
  {
    key: 'toolMode',
    env: 'TOOL_MODE',
    flag: 'tool-mode',
    default: 'auto',
    parse: oneOf('auto', 'static', 'discovery'),
    description:
      'static (a tool per operation), discovery (find, describe and call operations) or auto (static while it fits 40 tools and 12000 tokens)',
  },
  {
    key: 'secretDetectionMode',
    env: 'SECRET_DETECTION_MODE',
    flag: 'secret-detection',
    default: 'mask',
    description: 'off, mask or block secrets found in results',
    parse: oneOf('off', 'mask', 'block'),
  },
  {
    key: 'maxItems',
    env: 'MAX_TOOL_RESPONSE_ITEMS',
    flag: 'max-items',
    default: '100',
    description: 'most list items in one result',
    parse: positiveInt,
  },
  {
    key: 'maxChars',
    env: 'MAX_TOOL_RESPONSE_CHARS',
    flag: 'max-chars',
    default: '60000',
    description: 'most characters in one result',
    parse: positiveInt,
  },
  {
    key: 'maxBinaryBytes',
    env: 'MAX_BINARY_BYTES',
    flag: 'max-binary-bytes',
    default: '1048576',
    description: 'largest binary body returned or uploaded',
    parse: positiveInt,
  },
  {
    key: 'timeoutMs',
    env: 'GITEA_TIMEOUT_MS',
    flag: 'timeout-ms',
    default: '30000',
    description: 'timeout of one Gitea request',
    parse: positiveInt,
  },
  {
    key: 'logLevel',
    env: 'LOG_LEVEL',
    flag: 'log-level',
    default: 'info',
    description: 'pino log level (logs go to stderr)',
    parse: oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'),
  },
  {
    key: 'authMode',
    env: 'AUTH_MODE',
    flag: 'auth-mode',
    default: 'bearer',
    description:
      "HTTP clients: 'bearer' (MCP_BEARER_TOKEN, or none on loopback), 'oauth' (each person signs in with Gitea) or 'oauth+bearer'",
    parse: oneOf('bearer', 'oauth', 'oauth+bearer'),
  },
  {
    key: 'oauthStore',
    env: 'OAUTH_STORE',
    flag: 'oauth-store',
    default: null,
    description:
      'oauth token store: a SQLite file (default oauth-tokens.sqlite in the state directory) or ' +
      'postgres://... for several replicas (password via env or PGPASSWORD)',
    parse: text,
  },
  {
    key: 'oauthClientId',
    env: 'OAUTH_CLIENT_ID',
    flag: 'oauth-client-id',
    default: null,
    description: "client_id of this server's OAuth2 application in Gitea (its secret: OAUTH_CLIENT_SECRET)",
    parse: text,
  },
  {
    key: 'oauthGiteaScopes',
    env: 'OAUTH_GITEA_SCOPES',
    flag: 'oauth-gitea-scopes',
    default: '',
    description:
      "the most a sign-in may ask of Gitea (e.g. 'read:user write:repository'); empty: the scopes the profile needs (gitea-warden explain --profile P)",
    parse: tokenScopeList,
  },
  {
    key: 'oauthTeamsMaxAge',
    env: 'OAUTH_TEAMS_MAX_AGE',
    flag: 'oauth-teams-max-age',
    default: '300',
    description:
      'seconds a team membership read from Gitea stands before a call reads it again (every refresh reads it)',
    parse: positiveInt,
  },
  {
    key: 'oauthDocumentTimeoutMs',
    env: 'OAUTH_CLIENT_DOCUMENT_TIMEOUT_MS',
    flag: 'oauth-client-document-timeout-ms',
    default: '5000',
    description: 'the most time fetching one client metadata document may take (at most 10000)',
    parse: (raw, env) => {
      const ms = positiveInt(raw, env);
      if (ms >= 100 && ms <= 10_000) return ms;
      throw new SettingsError(`${env} must be between 100 and 10000 milliseconds`);
    },
  },
  {
    key: 'metricsAuth',
    env: 'METRICS_AUTH',
    flag: 'metrics-auth',
    default: 'bearer',
    description:
      "GET /metrics (HTTP): 'bearer' asks for MCP_BEARER_TOKEN like the MCP path, 'none' opens it to a scraper (docs/observability.md)",
    parse: oneOf('bearer', 'none'),
  },
];

/** OAUTH_GITEA_SCOPES: Gitea scope names separated by spaces or commas; empty: what the profile needs. */
function tokenScopeList(raw: string, env: string): string[] | null {
  const scopes = raw.split(/[\s,]+/).filter(Boolean);
  const unknown = scopes.find((scope) => !isTokenScopeName(scope));
  if (unknown !== undefined)
    throw new SettingsError(`${env} names '${unknown}', which is no Gitea token scope (e.g. read:user, write:issue)`);
  return scopes.length > 0 ? scopes : null;
}

/** Flags win over the environment, which wins over defaults. Required: profile and Gitea URL. */
export function readSettings(flags: Record<string, string | undefined>, env: NodeJS.ProcessEnv): Settings {
  const settings: Partial<Record<keyof Settings, unknown>> = {};
  for (const spec of SETTINGS) {
    const raw = flags[spec.flag] ?? env[spec.env] ?? spec.default;
    const source = flags[spec.flag] !== undefined ? `--${spec.flag}` : spec.env;
    const reference = raw === null ? null : unexpandedReference(raw);
    if (reference !== null) throw new SettingsError(unexpandedMessage(source, reference));
    settings[spec.key] = raw === null ? null : spec.parse(raw, source);
  }
  if (!settings.profile)
    throw new SettingsError(
      'no profile: set GITEA_MCP_PROFILE or --profile to a profile file (or the name of one in ~/.config/gitea-warden/profiles or ./profiles)',
    );
  if (!settings.giteaUrl) throw new SettingsError('no Gitea: set GITEA_URL or --gitea-url');
  return settings as unknown as Settings;
}

export function settingsHelp(): string {
  const rows = SETTINGS.map((s) => {
    const flag = `--${s.flag}`;
    const dflt = s.default === null || s.default === '' ? '' : ` (default: ${s.default})`;
    return `  ${flag.padEnd(22)} ${s.env.padEnd(24)} ${s.description}${dflt}`;
  });
  return [
    'usage: gitea-warden serve [flags]',
    '',
    'One server process is one namespace: one profile, one Gitea identity.',
    'Each setting is a flag or an environment variable; flags win.',
    '',
    ...rows,
    '',
    "Secrets come from the environment only: the profile's token_source_name variable (GITEA_TOKEN if it names none; never both),",
    'MCP_BEARER_TOKEN for HTTP clients, OAUTH_CLIENT_SECRET and EXTRA_SECRETS (comma-separated) for redaction,',
    'CONFIRMATION_KEY (32+ characters, the same on every replica) to seal the confirmations a person answers (docs/confirmations.md),',
    'AUDIT_SINK=postgres://... to keep the audit chain (and, over HTTP, the rate limits) in PostgreSQL (docs/audit.md).',
    '',
    'AUTH_MODE=oauth (HTTP only): an OAuth 2.1 server for MCP clients and a confidential client of Gitea.',
    'Needs OAUTH_CLIENT_ID and OAUTH_CLIENT_SECRET (a Gitea OAuth2 application whose redirect URI is',
    'PUBLIC_BASE_URL/oauth/callback), TOKEN_ENCRYPTION_KEY (32+ characters; seals Gitea tokens at rest),',
    'and a profile naming who may sign in (authenticated_users and/or authenticated_teams: [org/team]).',
    'Grants are re-checked against the profile on every call and refresh; docs/oauth.md has the rest.',
    '',
  ].join('\n');
}
