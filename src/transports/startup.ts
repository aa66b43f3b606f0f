// Start-up checks for the HTTP transport, run before anything listens. Every refusal is a
// StartupError the CLI turns into exit code 2; messages name settings, never a token's value.
import { StartupError } from '../shared/startup-error.js';
import { isLoopbackHostname, parseHost } from './host-check.js';

export const MIN_BEARER_TOKEN_LENGTH = 16;
/** Paths the transport answers itself. */
const RESERVED_PATHS = ['/', '/health', '/ready', '/metrics'];

export interface StartupOptions {
  host: string;
  port: number;
  path: string;
  bearerToken?: string;
  /** Per-user OAuth on (AUTH_MODE=oauth or oauth+bearer). */
  oauth?: boolean;
  publicBaseUrl?: string;
  allowedHosts: readonly string[];
  rateLimitPerMinute: number;
  maxBodyBytes: number;
}

/** Throws a StartupError for the first setting that makes serving unsafe or impossible. */
export function checkStartup(options: StartupOptions): void {
  const { bearerToken } = options;
  if (bearerToken !== undefined && bearerToken.trim().length < MIN_BEARER_TOKEN_LENGTH) {
    throw new StartupError(
      `MCP_BEARER_TOKEN is shorter than ${MIN_BEARER_TOKEN_LENGTH} characters; use a long random token (e.g. openssl rand -hex 32)`,
    );
  }
  if (bearerToken === undefined && !options.oauth && !isLoopbackHostname(options.host)) {
    throw new StartupError(
      `refusing to listen on ${options.host} without MCP_BEARER_TOKEN; set a token or bind 127.0.0.1`,
    );
  }
  if (options.oauth && !isLoopbackHostname(options.host) && !options.publicBaseUrl?.startsWith('https://')) {
    // Clients and Gitea reach the sign-in pages through this URL; OAuth needs it to be HTTPS.
    throw new StartupError('AUTH_MODE=oauth on a non-loopback address needs PUBLIC_BASE_URL=https://...');
  }
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
    throw new StartupError('MCP_PORT must be a whole number from 0 to 65535');
  }
  if (!/^\/[A-Za-z0-9._~\-\/]*$/.test(options.path) || RESERVED_PATHS.includes(options.path)) {
    throw new StartupError(
      `MCP_PATH must be a path such as /mcp (not ${RESERVED_PATHS.map((p) => `'${p}'`).join(', ')})`,
    );
  }
  if (options.publicBaseUrl !== undefined && !isHttpUrl(options.publicBaseUrl)) {
    throw new StartupError('PUBLIC_BASE_URL must be an http(s) URL');
  }
  const badHost = options.allowedHosts.find((entry) => parseHost(entry) === undefined);
  if (badHost !== undefined) {
    throw new StartupError(`ALLOWED_HOSTS entry '${badHost}' is not a host name or host:port`);
  }
  if (!Number.isInteger(options.rateLimitPerMinute) || options.rateLimitPerMinute < 1) {
    throw new StartupError('RATE_LIMIT_PER_MINUTE must be a whole number, at least 1');
  }
  if (!Number.isInteger(options.maxBodyBytes) || options.maxBodyBytes < 1) {
    throw new StartupError('the request body limit must be a positive whole number of bytes');
  }
}

function isHttpUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}
