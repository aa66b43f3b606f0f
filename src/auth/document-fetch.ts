// The one HTTP client outside src/gitea: it fetches a client metadata document, whose URL an attacker
// chooses. So: https only (http only to loopback, and loopback only when this server is itself bound
// to loopback); the name is resolved once, every address checked (no loopback, private, link-local,
// cloud-metadata, multicast or reserved address), and the connection made to the checked address
// only, so a second answer of the DNS cannot move it; no redirect to another origin; a size bound
// checked before and while reading; one deadline for the whole fetch. No cookies, no credentials.
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

export interface DocumentFetchPolicy {
  /** Loopback addresses (and plain http to them) are allowed: this server is bound to loopback, as in tests. */
  allowLoopback: boolean;
  maxBytes: number;
  timeoutMs: number;
  /** Same-origin redirects followed at most; another origin is never followed. */
  maxRedirects: number;
  /** Name resolution; the system resolver unless a test gives its own. */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type DocumentFetch =
  { ok: true; text: string; contentType: string; cacheControl: string | null } | { ok: false; reason: string };

export const DEFAULT_DOCUMENT_POLICY: DocumentFetchPolicy = {
  allowLoopback: false,
  maxBytes: 32 * 1024,
  timeoutMs: 5_000,
  maxRedirects: 2,
};

const REFUSED = new BlockList();
const V4: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'a "this network" address'],
  ['10.0.0.0', 8, 'a private address'],
  ['100.64.0.0', 10, 'a shared (carrier-grade NAT) address'],
  ['169.254.0.0', 16, 'a link-local or cloud metadata address'],
  ['172.16.0.0', 12, 'a private address'],
  ['192.0.0.0', 24, 'a reserved address'],
  ['192.0.2.0', 24, 'a documentation address'],
  ['192.168.0.0', 16, 'a private address'],
  ['198.18.0.0', 15, 'a benchmarking address'],
  ['198.51.100.0', 24, 'a documentation address'],
  ['203.0.113.0', 24, 'a documentation address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved address'],
];
const V6: Array<[string, number, string]> = [
  ['::', 96, 'the unspecified or an IPv4-compatible address'],
  ['64:ff9b::', 96, 'a NAT64 address'],
  ['64:ff9b:1::', 48, 'a NAT64 address'],
  ['100::', 64, 'a discard address'],
  ['2001::', 32, 'a Teredo address'],
  ['2001:db8::', 32, 'a documentation address'],
  ['2002::', 16, 'a 6to4 address'],
  ['fc00::', 7, 'a private (unique local) or cloud metadata address'],
  ['fe80::', 10, 'a link-local address'],
  ['ff00::', 8, 'a multicast address'],
];
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
for (const [net, prefix] of V4) REFUSED.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of V6) REFUSED.addSubnet(net, prefix, 'ipv6');

/** What is wrong with connecting to this address, or null when it is a public one (or loopback where allowed). */
export function addressProblem(address: string, allowLoopback: boolean): string | null {
  const v4 = unmapped(address);
  const [addr, type] = v4
    ? [v4, 'ipv4' as const]
    : [address, isIP(address) === 6 ? ('ipv6' as const) : ('ipv4' as const)];
  if (LOOPBACK.check(addr, type)) return allowLoopback ? null : 'a loopback address';
  if (type === 'ipv4' && addr === '255.255.255.255') return 'the broadcast address';
  if (!REFUSED.check(addr, type)) return null;
  const table = type === 'ipv4' ? V4 : V6;
  const one = new BlockList();
  for (const [net, prefix, what] of table) {
    one.addSubnet(net, prefix, type);
    if (one.check(addr, type)) return what;
  }
  return 'a reserved address';
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (::ffff:10.0.0.1, ::ffff:a00:1), else null. */
function unmapped(address: string): string | null {
  if (isIP(address) !== 6) return null;
  const match = /^(?:(?:0{1,4}:){5}|::)ffff:(.+)$/i.exec(address);
  const tail = match?.[1];
  if (!tail) return null;
  if (isIP(tail) === 4) return tail;
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(tail);
  if (!hex?.[1] || !hex[2]) return null;
  const hi = parseInt(hex[1], 16);
  const lo = parseInt(hex[2], 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

async function systemResolve(hostname: string): Promise<ResolvedAddress[]> {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
}

/** Fetches one document under `policy`; the reason of a refusal names the check that failed, never a body. */
export async function fetchDocument(url: string, policy: DocumentFetchPolicy): Promise<DocumentFetch> {
  const deadline = Date.now() + policy.timeoutMs;
  let current: URL;
  try {
    current = new URL(url);
  } catch {
    return { ok: false, reason: 'the client_id is not a URL' };
  }
  for (let hop = 0; ; hop++) {
    const answer = await fetchOnce(current, policy, deadline);
    if (answer.kind === 'refused') return { ok: false, reason: answer.reason };
    if (answer.kind === 'document') return answer.document;
    const next = answer.location;
    if (next.origin !== current.origin)
      return { ok: false, reason: `it redirects to another origin (${next.origin}), which is not followed` };
    if (hop >= policy.maxRedirects) return { ok: false, reason: `it redirects more than ${policy.maxRedirects} times` };
    current = next;
  }
}

type Hop =
  | { kind: 'refused'; reason: string }
  | { kind: 'redirect'; location: URL }
  | { kind: 'document'; document: DocumentFetch & { ok: true } };

async function fetchOnce(url: URL, policy: DocumentFetchPolicy, deadline: number): Promise<Hop> {
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (url.username || url.password) return { kind: 'refused', reason: 'the URL carries a user name or password' };
  const loopbackHttp = url.protocol === 'http:' && policy.allowLoopback;
  if (url.protocol !== 'https:' && !loopbackHttp) return { kind: 'refused', reason: 'it is not an https URL' };
  let addresses: ResolvedAddress[];
  try {
    addresses = isIP(hostname)
      ? [{ address: hostname, family: isIP(hostname) === 6 ? 6 : 4 }]
      : await withDeadline((policy.resolve ?? systemResolve)(hostname), deadline);
  } catch {
    return { kind: 'refused', reason: `its host ${hostname} does not resolve` };
  }
  if (addresses.length === 0) return { kind: 'refused', reason: `its host ${hostname} does not resolve` };
  // Every address must pass: an attacker's DNS could mix a public answer with an internal one.
  for (const { address } of addresses) {
    const problem = addressProblem(address, policy.allowLoopback);
    if (problem) return { kind: 'refused', reason: `its host ${hostname} resolves to ${address}, ${problem}` };
  }
  if (url.protocol === 'http:' && !addresses.every((a) => addressProblem(a.address, false) === 'a loopback address'))
    return { kind: 'refused', reason: 'it is not an https URL' };
  const pinned = addresses[0] as ResolvedAddress;
  return request(url, hostname, pinned, policy, deadline);
}

function request(
  url: URL,
  hostname: string,
  pinned: ResolvedAddress,
  policy: DocumentFetchPolicy,
  deadline: number,
): Promise<Hop> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (hop: Hop) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(hop);
    };
    // The connection goes to the address checked above, whatever the resolver would answer now.
    const lookup: LookupFunction = (_name, options, callback) => {
      if (options.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
      else callback(null, pinned.address, pinned.family);
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send({
      hostname,
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers: { accept: 'application/json', 'user-agent': 'gitea-warden client-metadata-document fetch' },
      lookup,
      agent: false,
      ...(url.protocol === 'https:' && !isIP(hostname) ? { servername: hostname } : {}),
    });
    const timer = setTimeout(
      () => finish({ kind: 'refused', reason: `it did not arrive within ${policy.timeoutMs / 1000} s` }),
      Math.max(0, deadline - Date.now()),
    );
    req.on('error', (error: NodeJS.ErrnoException) =>
      finish({ kind: 'refused', reason: `it could not be fetched (${error.code ?? error.name})` }),
    );
    req.on('response', (res: IncomingMessage) => readAnswer(res, url, policy, finish));
    req.end();
  });
}

function readAnswer(res: IncomingMessage, url: URL, policy: DocumentFetchPolicy, finish: (hop: Hop) => void): void {
  const status = res.statusCode ?? 0;
  if ([301, 302, 303, 307, 308].includes(status)) {
    const location = res.headers.location;
    if (!location) return finish({ kind: 'refused', reason: `it answered HTTP ${status} without a Location` });
    try {
      return finish({ kind: 'redirect', location: new URL(location, url) });
    } catch {
      return finish({ kind: 'refused', reason: `it answered HTTP ${status} with an unusable Location` });
    }
  }
  if (status !== 200) return finish({ kind: 'refused', reason: `it answered HTTP ${status}` });
  const contentType = String(res.headers['content-type'] ?? '');
  if (!/^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(contentType))
    return finish({ kind: 'refused', reason: `it is not JSON (Content-Type ${contentType || 'missing'})` });
  const tooLarge = { kind: 'refused' as const, reason: `it is larger than ${policy.maxBytes} bytes` };
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > policy.maxBytes) return finish(tooLarge);
  const chunks: Buffer[] = [];
  let size = 0;
  res.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > policy.maxBytes) return finish(tooLarge);
    chunks.push(chunk);
  });
  res.on('end', () =>
    finish({
      kind: 'document',
      document: {
        ok: true,
        text: Buffer.concat(chunks).toString('utf8'),
        contentType,
        cacheControl: typeof res.headers['cache-control'] === 'string' ? res.headers['cache-control'] : null,
      },
    }),
  );
  res.on('error', () => finish({ kind: 'refused', reason: 'its answer broke off' }));
}

function withDeadline<T>(work: Promise<T>, deadline: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timeout')), Math.max(0, deadline - Date.now()));
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error('lookup failed'));
      },
    );
  });
}
