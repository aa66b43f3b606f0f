// Who a client is and where it may receive a sign-in: a client that registered itself (RFC 7591,
// deprecated by the 2026-07-28 MCP revision but kept working) or one identified by the URL of its
// metadata document (draft-ietf-oauth-client-id-metadata-document, MCP 2025-11-25). Both shapes are
// checked here by the same rules; the document's fetch is ./client-documents.ts.
import { isLoopbackHostname } from '../shared/loopback.js';
import { AuthFailure } from './auth-failure.js';

/** A client as /authorize, consent and /token see it. */
export interface ResolvedClient {
  clientId: string;
  /** What the consent page calls it: its own claim, from its registration or document. */
  name: string;
  redirectUris: string[];
  /** A registered confidential client's secret; null for public clients (every document client). */
  secret: string | null;
  /** Where the identity comes from: shown on the consent page. */
  source: { kind: 'registered' } | { kind: 'document'; url: string; host: string };
}

/** The client metadata fields this server reads, checked; anything else the client sent is kept as sent. */
export interface CheckedMetadata {
  redirect_uris: string[];
  client_name?: string;
  token_endpoint_auth_method: 'none' | 'client_secret_post' | 'client_secret_basic';
  grant_types: string[];
  response_types: string[];
}

const MAX_NAME = 100;
const MAX_REDIRECTS = 10;
const MAX_URI = 2000;
const AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'] as const;
const REFUSED_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:']);

/**
 * One redirect URI, as OAuth 2.1 and RFC 8252 allow it: absolute, no fragment, https, http only to
 * a loopback address (a native app's local listener), or a private-use scheme of a native app.
 */
export function redirectUriProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value === '' || value.length > MAX_URI) return 'is not a URI';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not an absolute URI';
  }
  if (url.hash !== '' || value.includes('#')) return 'has a fragment';
  if (REFUSED_SCHEMES.has(url.protocol)) return `uses the ${url.protocol} scheme`;
  if (url.protocol === 'http:' && !isLoopbackHostname(url.hostname)) return 'uses http to a host that is not loopback';
  if ((url.protocol === 'http:' || url.protocol === 'https:') && (url.username || url.password))
    return 'carries a user name or password';
  return null;
}

/** Checks client metadata (registration body or metadata document); AuthFailure invalid_client_metadata / invalid_redirect_uri. */
export function checkMetadata(data: unknown, origin: 'registration' | 'document'): CheckedMetadata {
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw new AuthFailure('invalid_client_metadata', 'the client metadata is not a JSON object');
  const meta = data as Record<string, unknown>;
  const uris = meta.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECTS)
    throw new AuthFailure('invalid_redirect_uri', `redirect_uris must list 1 to ${MAX_REDIRECTS} URIs`);
  uris.forEach((uri, i) => {
    const problem = redirectUriProblem(uri);
    if (problem) throw new AuthFailure('invalid_redirect_uri', `redirect_uris[${i}] ${problem}`);
  });
  const name = meta.client_name;
  if (name !== undefined && (typeof name !== 'string' || name.trim() === '' || name.length > MAX_NAME))
    throw new AuthFailure('invalid_client_metadata', `client_name must be text of at most ${MAX_NAME} characters`);
  // RFC 7591 2: registration defaults to client_secret_basic; a document client is public (draft 4.1).
  const method = meta.token_endpoint_auth_method ?? (origin === 'document' ? 'none' : 'client_secret_basic');
  if (!AUTH_METHODS.includes(method as (typeof AUTH_METHODS)[number]))
    throw new AuthFailure(
      'invalid_client_metadata',
      `token_endpoint_auth_method ${String(method)} is not supported (none, client_secret_post, client_secret_basic)`,
    );
  if (origin === 'document') {
    if (method !== 'none')
      throw new AuthFailure(
        'invalid_client_metadata',
        'a client identified by a metadata document authenticates with none: it has no shared secret',
      );
    if (meta.client_secret !== undefined || meta.client_secret_expires_at !== undefined)
      throw new AuthFailure('invalid_client_metadata', 'a client metadata document must not carry a client secret');
  }
  const grants = stringList(meta.grant_types, ['authorization_code'], 'grant_types');
  if (!grants.includes('authorization_code') || grants.some((g) => g !== 'authorization_code' && g !== 'refresh_token'))
    throw new AuthFailure(
      'invalid_client_metadata',
      'grant_types must include authorization_code, and may add only refresh_token',
    );
  const responses = stringList(meta.response_types, ['code'], 'response_types');
  if (responses.length !== 1 || responses[0] !== 'code')
    throw new AuthFailure('invalid_client_metadata', 'response_types must be [code]');
  return {
    redirect_uris: uris as string[],
    ...(typeof name === 'string' ? { client_name: name.trim() } : {}),
    token_endpoint_auth_method: method as CheckedMetadata['token_endpoint_auth_method'],
    grant_types: grants,
    response_types: responses,
  };
}

function stringList(value: unknown, fallback: string[], field: string): string[] {
  if (value === undefined) return fallback;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    throw new AuthFailure('invalid_client_metadata', `${field} must be a list of strings`);
  return value as string[];
}

/**
 * The registered redirect URI a request names: exact match, or (RFC 8252 7.3) the same loopback
 * http URI on any port, as a native app's listener takes whatever port is free.
 */
export function matchRedirectUri(client: ResolvedClient, requested: string | undefined): string | null {
  if (requested === undefined) return client.redirectUris.length === 1 ? (client.redirectUris[0] ?? null) : null;
  if (client.redirectUris.includes(requested)) return requested;
  let asked: URL;
  try {
    asked = new URL(requested);
  } catch {
    return null;
  }
  if (asked.protocol !== 'http:' || !isLoopbackHostname(asked.hostname)) return null;
  const portless = (url: URL) => `${url.protocol}//${url.hostname}${url.pathname}${url.search}`;
  const found = client.redirectUris.some((uri) => {
    try {
      const registered = new URL(uri);
      return registered.protocol === 'http:' && portless(registered) === portless(asked);
    } catch {
      return false;
    }
  });
  return found ? requested : null;
}

/**
 * A client_id that names a metadata document: an https URL with a path, no fragment, no user info
 * (draft 3); http only where loopback documents are allowed (a server bound to loopback, in tests).
 */
export function isDocumentClientId(clientId: string, loopbackAllowed: boolean): boolean {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return false;
  }
  const https =
    url.protocol === 'https:' || (loopbackAllowed && url.protocol === 'http:' && isLoopbackHostname(url.hostname));
  return https && url.pathname !== '/' && url.hash === '' && !clientId.includes('#') && !url.username && !url.password;
}
