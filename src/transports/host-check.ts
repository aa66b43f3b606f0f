// DNS-rebinding protection: a request is served only if its Host header names this server.
// Loopback names on any port always qualify; others come from PUBLIC_BASE_URL and ALLOWED_HOSTS.
import { isLoopbackHostname } from '../shared/loopback.js';

export { isLoopbackHostname };

export interface HostName {
  /** Lower-case, IPv6 without brackets. */
  hostname: string;
  /** undefined: any port. */
  port: string | undefined;
}

/** Splits `name`, `name:port`, `[v6]` or `[v6]:port`; undefined when it is none of these. */
export function parseHost(value: string): HostName | undefined {
  const match = /^(?:\[([0-9a-f:.]+)\]|([a-z0-9._-]+))(?::(\d{1,5}))?$/i.exec(value.trim());
  if (match === null) return undefined;
  return { hostname: (match[1] ?? match[2] ?? '').toLowerCase(), port: match[3] };
}

/** The allowed hosts besides loopback: PUBLIC_BASE_URL's hostname (any port) and each ALLOWED_HOSTS entry (checked by checkStartup). */
export function allowedHostList(publicBaseUrl: string | undefined, allowedHosts: readonly string[]): HostName[] {
  const fromUrl =
    publicBaseUrl === undefined
      ? []
      : [{ hostname: new URL(publicBaseUrl).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase(), port: undefined }];
  const fromList = allowedHosts.map((entry) => parseHost(entry)).filter((h): h is HostName => h !== undefined);
  return [...fromUrl, ...fromList];
}

export function hostAllowed(hostHeader: string | undefined, allowed: readonly HostName[]): boolean {
  if (hostHeader === undefined) return false;
  const host = parseHost(hostHeader);
  if (host === undefined) return false;
  if (isLoopbackHostname(host.hostname)) return true;
  return allowed.some((a) => a.hostname === host.hostname && (a.port === undefined || a.port === host.port));
}
