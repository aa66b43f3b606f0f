// Whether a host name is this machine: the one test of "loopback" the HTTP transport's Host check and
// OAuth's redirect URIs and client documents share.
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);

/** localhost, ::1 or 127.0.0.0/8; brackets of an IPv6 literal allowed. */
export function isLoopbackHostname(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return LOOPBACK_NAMES.has(name) || /^127(\.\d{1,3}){3}$/.test(name);
}
