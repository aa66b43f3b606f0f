// The one HTTP client for Gitea's /api/v1: token auth, no redirects followed, no cookies kept,
// a timeout on every request, a cap on the bytes read. Failures come back as values, not throws.
// Built on node:http(s) with keep-alive rather than fetch: a call's two or three Gitea requests reuse
// one connection, and a namespace does not load undici (a tenth of its start-up) to make them.
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import type { HttpMethod } from '../catalog/types.js';
import type { FactReader, GiteaIdentity, ReadResult } from './gitea-identity.js';
import type { RequestBody } from './encode.js';
import { decodeBody } from './decode.js';
import { giteaDuration, giteaErrors, secondsSince } from '../telemetry/instruments.js';
import { startClientRequest } from '../telemetry/tracing.js';

export interface HttpRequest {
  method: HttpMethod;
  /** Already encoded, below /api/v1, starting with `/`. */
  path: string;
  query?: URLSearchParams;
  headers?: Record<string, string>;
  body?: RequestBody | null;
  /** The catalog route (/repos/{owner}/{repo}/pulls/{index}/merge), naming the request's span; never filled in. */
  route?: string;
}

/** Response headers by lower-case name; repeated headers joined with `, ` as fetch's Headers does. */
export class ResponseHeaders {
  constructor(private readonly raw: IncomingMessage['headers']) {}

  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }
}

export interface HttpResponse {
  ok: true;
  status: number;
  headers: ResponseHeaders;
  body: Buffer;
}

export interface HttpFailure {
  ok: false;
  kind: 'timeout' | 'network_error' | 'payload_too_large';
  message: string;
  /** What a person can do about it, when the cause says (an untrusted TLS certificate). */
  hint?: string;
}

export type HttpOutcome = HttpResponse | HttpFailure;

export interface HttpClientOptions {
  timeoutMs?: number;
  maxResponseBytes?: number;
}

/** Thrown by `get` only (the FactReader contract has no failure value); the message carries no secret. */
export class GiteaReadError extends Error {
  constructor(
    readonly kind: HttpFailure['kind'],
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'GiteaReadError';
  }
}

const UNTRUSTED_CERTIFICATE =
  "Gitea's TLS certificate is not signed by a CA this server trusts. For a private CA, start gitea-warden " +
  'with NODE_EXTRA_CA_CERTS=/path/to/ca.pem (node reads it at start).';
/** Hints for the certificate checks node's TLS reports by code. */
const CERTIFICATE_HINTS: ReadonlyMap<string, string> = new Map([
  ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', UNTRUSTED_CERTIFICATE],
  ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', UNTRUSTED_CERTIFICATE],
  ['SELF_SIGNED_CERT_IN_CHAIN', UNTRUSTED_CERTIFICATE],
  ['DEPTH_ZERO_SELF_SIGNED_CERT', UNTRUSTED_CERTIFICATE],
  ['CERT_HAS_EXPIRED', "Gitea's TLS certificate has expired; renew it on the Gitea side."],
  ['CERT_NOT_YET_VALID', "Gitea's TLS certificate is not valid yet: check the clocks of both machines."],
  [
    'ERR_TLS_CERT_ALTNAME_INVALID',
    "Gitea's TLS certificate does not name the host in GITEA_URL: use the name the certificate is issued for.",
  ],
]);

/** Headers a caller may never set: the client owns authentication and keeps no cookies. */
const RESERVED_HEADERS = new Set(['authorization', 'cookie', 'host']);

export class GiteaHttpClient implements FactReader {
  private readonly apiBase: string;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;

  constructor(
    private readonly identity: GiteaIdentity,
    options: HttpClientOptions = {},
  ) {
    this.apiBase = `${identity.baseUrl.replace(/\/+$/, '')}/api/v1`;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxResponseBytes = options.maxResponseBytes ?? 32 * 1024 * 1024;
  }

  async send(request: HttpRequest): Promise<HttpOutcome> {
    const query = request.query?.toString() ?? '';
    let url: URL;
    try {
      url = new URL(`${this.apiBase}${request.path}${query ? `?${query}` : ''}`);
    } catch {
      return { ok: false, kind: 'network_error', message: `Gitea's base URL is not a valid URL` };
    }
    const body = request.body ? await encodeBody(request.body) : null;
    const started = performance.now();
    // The span of this request; its traceparent goes to Gitea (nothing when tracing is off).
    const span = startClientRequest({ method: request.method, route: request.route, url });
    const headers = { ...this.headersFor(request, body), ...span.headers };
    const outcome = await this.exchange(url, request.method, headers, body);
    const status = outcome.ok ? outcome.status : null;
    const errorType = outcome.ok ? (outcome.status >= 500 ? String(outcome.status) : null) : outcome.kind;
    span.end(status, outcome.ok ? null : outcome.kind);
    giteaDuration.record(secondsSince(started), {
      'http.request.method': request.method,
      'http.response.status_code': status === null ? '' : String(status),
      'error.type': errorType ?? '',
    });
    if (errorType !== null) giteaErrors.record(1, { 'error.type': errorType });
    return outcome;
  }

  private async exchange(
    url: URL,
    method: HttpMethod,
    headers: Record<string, string>,
    body: EncodedBody | null,
  ): Promise<HttpOutcome> {
    const transport = url.protocol === 'https:' ? await secureTransport() : plain;
    return new Promise<HttpOutcome>((resolve) => {
      let settled = false;
      const timer = setTimeout(() => {
        outgoing?.destroy();
        finish({ ok: false, kind: 'timeout', message: `Gitea did not answer within ${this.timeoutMs} ms` });
      }, this.timeoutMs);
      const finish = (outcome: HttpOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      };
      let outgoing: ClientRequest | undefined;
      try {
        // Throws at once on a header value node refuses (a control character in a token, say).
        outgoing = transport.request(url, { method, headers, agent: transport.agent });
      } catch (error) {
        finish(this.failure(error));
        return;
      }
      outgoing.on('error', (error) => finish(this.failure(error)));
      outgoing.on('response', (response) => {
        readCapped(response, this.maxResponseBytes).then(
          (data) => {
            // node always sets a client response's status; should it not, the answer is not taken as a success.
            if (response.statusCode === undefined) return finish(this.failure({ code: 'NO_STATUS' }));
            finish(
              data === null
                ? {
                    ok: false,
                    kind: 'payload_too_large',
                    message: `Gitea's answer is larger than ${this.maxResponseBytes} bytes`,
                  }
                : { ok: true, status: response.statusCode, headers: new ResponseHeaders(response.headers), body: data },
            );
          },
          (error: unknown) => finish(this.failure(error)),
        );
      });
      outgoing.end(body?.content);
    });
  }

  async get(path: string, query: Record<string, string | number | boolean> = {}): Promise<ReadResult> {
    const params = new URLSearchParams(
      Object.entries(query).map(([key, value]): [string, string] => [key, String(value)]),
    );
    const outcome = await this.send({ method: 'GET', path, query: params });
    if (!outcome.ok) throw new GiteaReadError(outcome.kind, outcome.message, outcome.hint);
    const decoded = decodeBody(outcome.headers.get('content-type'), outcome.body);
    const total = outcome.headers.get('x-total-count');
    const totalCount = total !== null && /^\d+$/.test(total.trim()) ? Number(total.trim()) : null;
    return { status: outcome.status, data: decoded.form === 'binary' ? null : decoded.data, totalCount };
  }

  private headersFor(request: HttpRequest, body: EncodedBody | null): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'gitea-warden' };
    for (const [name, value] of Object.entries(request.headers ?? {})) {
      if (!RESERVED_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
    }
    if (body) {
      headers['content-type'] = body.contentType;
      headers['content-length'] = String(body.content.byteLength);
    } else if (request.method !== 'GET') {
      headers['content-length'] = '0';
    }
    headers.authorization = `token ${this.identity.token}`;
    return headers;
  }

  /** Built from the error's code only: an error's own message can quote the URL or a header value. */
  private failure(error: unknown): HttpFailure {
    const raw = (error as { code?: unknown } | null)?.code;
    const code = typeof raw === 'string' && /^[A-Z0-9_]+$/.test(raw) ? raw : 'connection failed';
    const hint = CERTIFICATE_HINTS.get(code);
    return {
      ok: false,
      kind: 'network_error',
      message: `Could not reach Gitea at ${originOf(this.apiBase)} (${code})`,
      ...(hint ? { hint } : {}),
    };
  }
}

/**
 * The body, or null once it passes `limit` bytes (the rest is not read: the connection is dropped).
 * Listens for data events rather than iterating the stream: the async iterator cost a tenth of a call.
 */
function readCapped(response: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const declared = Number(response.headers['content-length'] ?? NaN);
    if (declared > limit) {
      response.destroy();
      return resolve(null);
    }
    const chunks: Buffer[] = [];
    let total = 0;
    response.on('data', (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total <= limit) {
        chunks.push(chunk);
        return;
      }
      response.destroy();
      resolve(null);
    });
    response.on('end', () => resolve(Buffer.concat(chunks, total)));
    // A connection lost mid-body: node emits 'error' (ECONNRESET, "aborted") on the response.
    response.on('error', reject);
  });
}

interface EncodedBody {
  content: Buffer;
  contentType: string;
}

/**
 * The bytes to send. Multipart goes through the platform's own encoder (Response, which writes the
 * boundary); only an upload loads it.
 */
async function encodeBody(body: RequestBody): Promise<EncodedBody> {
  const { content } = body;
  if (typeof content === 'string') {
    return { content: Buffer.from(content, 'utf8'), contentType: body.contentType ?? 'text/plain;charset=UTF-8' };
  }
  if (content instanceof URLSearchParams) {
    return {
      content: Buffer.from(content.toString(), 'utf8'),
      contentType: body.contentType ?? 'application/x-www-form-urlencoded;charset=UTF-8',
    };
  }
  const encoded = new Response(content);
  return {
    content: Buffer.from(await encoded.arrayBuffer()),
    contentType: encoded.headers.get('content-type') ?? 'multipart/form-data',
  };
}

// One keep-alive pool per process, as fetch had. Idle sockets close after 4 s (undici's default) or
// before the server's own Keep-Alive hint, so a reused socket is rarely one the server has dropped.
const KEEP_ALIVE = { keepAlive: true, timeout: 4_000 };
const httpAgent = new HttpAgent(KEEP_ALIVE);
const plain: Transport = { request: httpRequest, agent: httpAgent };
let secure: Promise<Transport> | undefined;

interface Transport {
  request: typeof httpRequest;
  agent: HttpAgent;
}

/** node:https (and TLS) load only for an https Gitea. */
function secureTransport(): Promise<Transport> {
  secure ??= import('node:https').then((https) => ({ request: https.request, agent: new https.Agent(KEEP_ALIVE) }));
  return secure;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'an invalid base URL';
  }
}
