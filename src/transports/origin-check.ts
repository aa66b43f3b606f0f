// Origin validation against DNS rebinding (the MCP specification asks servers to check it on
// every request): a browser page names its origin, a command-line client sends none. Absent: a
// non-browser client, accepted. Present: its host must be one this server answers to by its Host
// check (loopback on any port, PUBLIC_BASE_URL, ALLOWED_HOSTS); `null` and anything else is foreign.
import { hostAllowed, type HostName } from './host-check.js';

export function originAllowed(origin: string | undefined, allowed: readonly HostName[]): boolean {
  if (origin === undefined) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // includes the opaque origin `null` of sandboxed frames and file: pages
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  return hostAllowed(url.host, allowed);
}
