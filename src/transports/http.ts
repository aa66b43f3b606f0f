// Streamable HTTP, stateless: every POST to the MCP path gets a fresh SDK Server and transport
// (no sessions to hijack or leak between clients). Every request passes the Host check; the MCP
// path also passes the Origin check, the rate limit and bearer authentication before its body is
// read, and a JSON-RPC batch is refused once read (one request, one message).
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport, type Server } from '../server/sdk.js';
import { BearerCheck } from './bearer.js';
import { readJsonBody } from './body.js';
import { serveInfoRoute, type ServerInfo } from './health.js';
import { BATCH_REFUSAL, isJsonRpcBatch } from './batch-check.js';
import { allowedHostList, hostAllowed } from './host-check.js';
import { originAllowed } from './origin-check.js';
import { JsonRpcCode, sendJson, sendJsonRpcError } from './http-response.js';
import type { Logger } from './logger.js';
import { RateLimiter } from './rate-limit.js';
import { checkStartup, StartupError, type StartupOptions } from './startup.js';

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** Time to receive a whole request (headers and body), not to answer it: a slow sender cannot hold a connection. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const HEADERS_TIMEOUT_MS = 10_000;

export interface HttpTransportOptions extends StartupOptions {
  info: ServerInfo;
  /** Clock for the rate limiter (ms); tests inject one. */
  now?: () => number;
  /** Receiving one request may take this long (408 and close after); tests shorten it. */
  requestTimeoutMs?: number;
}

export interface HttpTransportHandle {
  /** The MCP endpoint, e.g. http://127.0.0.1:8741/mcp (the real port when 0 was asked for). */
  url: string;
  close(): Promise<void>;
}

/** Checks the options (StartupError before listening), then listens; resolves once bound. */
export async function startHttpTransport(options: HttpTransportOptions, createServer: () => Server, logger: Logger): Promise<HttpTransportHandle> {
  checkStartup(options);
  const handler = requestHandler(options, createServer, logger);
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const limits = {
    requestTimeout,
    headersTimeout: Math.min(HEADERS_TIMEOUT_MS, requestTimeout),
    // Node checks the timeouts on this beat; a quarter of the limit keeps the overrun small.
    connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(requestTimeout / 4))),
    maxHeaderSize: 16 * 1024,
  };
  const http = createHttpServer(limits, (req, res) => {
    handler(req, res).catch((error: unknown) => answerInternalError(res, error, logger));
  });
  http.maxHeadersCount = 100;
  await listen(http, options.host, options.port);
  const { port } = http.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const url = `http://${host}:${port}${options.path}`;
  logger.info({ url, auth: options.bearerToken === undefined ? 'none (loopback only)' : 'bearer' }, 'MCP streamable HTTP listening');
  return { url, close: () => closeServer(http) };
}

function requestHandler(options: HttpTransportOptions, createServer: () => Server, logger: Logger) {
  const allowed = allowedHostList(options.publicBaseUrl, options.allowedHosts);
  const bearer = options.bearerToken === undefined ? null : new BearerCheck(options.bearerToken);
  // Authenticated clients get their own buckets, so failed attempts from an address cannot starve them.
  const tokenTag = options.bearerToken === undefined ? 'open' : createHash('sha256').update(options.bearerToken).digest('hex').slice(0, 16);
  const limiter = new RateLimiter(options.rateLimitPerMinute, options.now);

  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const refused = (status: number, why: string) => logger.warn({ remote: req.socket.remoteAddress, status }, `request refused: ${why}`);
    if (!hostAllowed(req.headers.host, allowed)) {
      refused(403, 'Host header not allowed');
      sendJsonRpcError(res, 403, JsonRpcCode.serverError, 'Forbidden: Host header not allowed; add this host name to ALLOWED_HOSTS or PUBLIC_BASE_URL');
      return;
    }
    const pathname = (req.url ?? '/').split('?')[0] ?? '/';
    if (pathname !== options.path) {
      if (req.method === 'GET' && serveInfoRoute(pathname, res, options.info, options.path)) return;
      sendJson(res, 404, { error: 'not_found' });
      return;
    }
    if (!originAllowed(req.headers.origin, allowed)) {
      refused(403, 'Origin not allowed');
      sendJsonRpcError(res, 403, JsonRpcCode.serverError, 'Forbidden: Origin not allowed; a browser page may call this server only from an allowed host');
      return;
    }
    const authenticated = bearer === null || bearer.matches(req.headers.authorization);
    const rate = limiter.take(`${req.socket.remoteAddress ?? 'unknown'}|${authenticated ? tokenTag : 'unauthenticated'}`);
    if (!rate.allowed) {
      refused(429, 'rate limit');
      sendJsonRpcError(res, 429, JsonRpcCode.serverError, 'Too many requests', { 'Retry-After': String(rate.retryAfterSeconds) });
      return;
    }
    if (!authenticated) {
      refused(401, 'missing or wrong bearer token');
      sendJsonRpcError(res, 401, JsonRpcCode.serverError, 'Unauthorized: send Authorization: Bearer <token>', { 'WWW-Authenticate': 'Bearer realm="gitea-warden"' });
      return;
    }
    await serveMcp(req, res, options.maxBodyBytes, createServer);
  };
}

async function serveMcp(req: IncomingMessage, res: ServerResponse, maxBodyBytes: number, createServer: () => Server): Promise<void> {
  if (req.method !== 'POST') {
    // Stateless: no standalone SSE stream (GET) and no session to delete (DELETE).
    sendJsonRpcError(res, 405, JsonRpcCode.serverError, 'Method not allowed: POST JSON-RPC to this path', { Allow: 'POST' });
    return;
  }
  const body = await readJsonBody(req, maxBodyBytes);
  if (body.kind === 'too_large') {
    sendJsonRpcError(res, 413, JsonRpcCode.serverError, `Request body exceeds ${maxBodyBytes} bytes`, { Connection: 'close' });
    return;
  }
  if (body.kind === 'invalid_json') {
    sendJsonRpcError(res, 400, JsonRpcCode.parseError, 'Parse error: the body is not valid JSON');
    return;
  }
  if (isJsonRpcBatch(body.value)) {
    sendJsonRpcError(res, 400, JsonRpcCode.invalidRequest, BATCH_REFUSAL);
    return;
  }
  const server = createServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body.value);
}

function answerInternalError(res: ServerResponse, error: unknown, logger: Logger): void {
  // The message only: a stack or a request body could carry what must not leave.
  logger.error({ error: error instanceof Error ? error.message : 'non-error thrown' }, 'MCP HTTP request failed');
  if (!res.headersSent) sendJsonRpcError(res, 500, JsonRpcCode.internalError, 'Internal error');
  else res.end();
}

function listen(http: HttpServer, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    http.once('error', (error: NodeJS.ErrnoException) => {
      reject(new StartupError(`cannot listen on ${host}:${port} (${error.code ?? 'error'})`));
    });
    http.listen(port, host, () => resolve());
  });
}

function closeServer(http: HttpServer): Promise<void> {
  return new Promise((resolve, reject) => {
    http.close((error) => (error ? reject(error) : resolve()));
    http.closeAllConnections();
  });
}
