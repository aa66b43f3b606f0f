// The one HTTP client for Gitea's /api/v1: token auth, no redirects followed, no cookies kept,
// a timeout on every request, a cap on the bytes read. Failures come back as values, not throws.
import type { HttpMethod } from '../catalog/types.js';
import type { FactReader, GiteaIdentity, ReadResult } from './types.js';
import type { RequestBody } from './encode.js';
import { decodeBody } from './decode.js';

export interface HttpRequest {
  method: HttpMethod;
  /** Already encoded, below /api/v1, starting with `/`. */
  path: string;
  query?: URLSearchParams;
  headers?: Record<string, string>;
  body?: RequestBody | null;
}

export interface HttpResponse {
  ok: true;
  status: number;
  headers: Headers;
  body: Buffer;
}

export interface HttpFailure {
  ok: false;
  kind: 'timeout' | 'network_error' | 'payload_too_large';
  message: string;
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
  ) {
    super(message);
    this.name = 'GiteaReadError';
  }
}

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
    const url = `${this.apiBase}${request.path}${query ? `?${query}` : ''}`;
    try {
      const response = await fetch(url, {
        method: request.method,
        headers: this.headersFor(request),
        body: request.body?.content ?? null,
        redirect: 'manual',
        credentials: 'omit',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const body = await readCapped(response, this.maxResponseBytes);
      if (body === null) {
        return {
          ok: false,
          kind: 'payload_too_large',
          message: `Gitea's answer is larger than ${this.maxResponseBytes} bytes`,
        };
      }
      return { ok: true, status: response.status, headers: response.headers, body };
    } catch (error) {
      return this.failure(error);
    }
  }

  async get(path: string, query: Record<string, string | number | boolean> = {}): Promise<ReadResult> {
    const params = new URLSearchParams(
      Object.entries(query).map(([key, value]): [string, string] => [key, String(value)]),
    );
    const outcome = await this.send({ method: 'GET', path, query: params });
    if (!outcome.ok) throw new GiteaReadError(outcome.kind, outcome.message);
    const decoded = decodeBody(outcome.headers.get('content-type'), outcome.body);
    const total = outcome.headers.get('x-total-count');
    const totalCount = total !== null && /^\d+$/.test(total.trim()) ? Number(total.trim()) : null;
    return { status: outcome.status, data: decoded.form === 'binary' ? null : decoded.data, totalCount };
  }

  private headersFor(request: HttpRequest): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'gitea-warden' };
    for (const [name, value] of Object.entries(request.headers ?? {})) {
      if (!RESERVED_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
    }
    if (request.body?.contentType) headers['content-type'] = request.body.contentType;
    headers.authorization = `token ${this.identity.token}`;
    return headers;
  }

  /** Built from the error's name and code only: fetch's own messages can quote header values. */
  private failure(error: unknown): HttpFailure {
    const name = error instanceof Error ? error.name : 'Error';
    if (name === 'TimeoutError' || name === 'AbortError') {
      return { ok: false, kind: 'timeout', message: `Gitea did not answer within ${this.timeoutMs} ms` };
    }
    const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
    const code = typeof cause?.code === 'string' ? cause.code : name;
    return {
      ok: false,
      kind: 'network_error',
      message: `Could not reach Gitea at ${originOf(this.apiBase)} (${code})`,
    };
  }
}

/** The body, or null once it passes `limit` bytes (the rest is not read). */
async function readCapped(response: Response, limit: number): Promise<Buffer | null> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > limit || !response.body) {
    await response.body?.cancel();
    return declared > limit ? null : Buffer.alloc(0);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body) {
    total += chunk.byteLength;
    if (total > limit) return null; // leaving the loop cancels the stream
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'an invalid base URL';
  }
}
