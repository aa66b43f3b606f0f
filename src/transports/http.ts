// Streamable HTTP, stateless: every POST to the MCP path gets a fresh SDK Server and transport
// (no sessions to hijack or leak between clients). An express app (the SDK's auth router needs one):
// every request, on every route, passes the Host and Origin checks first; the MCP path also passes
// authentication (static bearer and/or per-user OAuth) and the rate limit before its body is read,
// and a JSON-RPC batch is refused once read (one request, one message).
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { OAuthService } from '../auth/oauth-service.js';
import type { Server } from '../server/sdk.js';
import { StreamableHTTPServerTransport } from '../server/sdk-http.js';
import { BearerCheck } from './bearer.js';
import { readJsonBody } from './body.js';
import { serveInfoRoute, type ServerInfo } from './health.js';
import { BATCH_REFUSAL, isJsonRpcBatch } from './batch-check.js';
import { allowedHostList, hostAllowed } from './host-check.js';
import { originAllowed } from './origin-check.js';
import { JsonRpcCode, sendJson, sendJsonRpcError } from './http-response.js';
import type { Logger } from '../shared/logger.js';
import type { OAuthCaller, OAuthRoutes } from './oauth-routes.js';
import { RateLimiter, type RateLimit } from './rate-limit.js';
import type { Readiness } from './readiness.js';
import { rateLimitRefusals, registry } from '../telemetry/instruments.js';
import { PROMETHEUS_CONTENT_TYPE } from '../telemetry/metrics.js';
import { StartupError } from '../shared/startup-error.js';
import { checkStartup, type StartupOptions } from './startup.js';

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
  /** Per-user OAuth: builds the service once the public base URL (and so the port) is known. */
  oauthService?: (base: string, mcpUrl: string) => Promise<OAuthService>;
  /** Buckets shared with other replicas; default: this process's own. */
  rateLimiter?: RateLimit;
  /** Browser pages beside the MCP path (the confirmation page), built once the public base URL is known. */
  pages?: (base: string) => Router | null;
  /** GET /ready answers from this; without it /ready is /health. */
  readiness?: Readiness;
  /** GET /metrics without the bearer (METRICS_AUTH=none): for a scraper inside a trusted network. */
  metricsOpen?: boolean;
}

/** A request's MCP server: null caller for the static bearer (or none), the person for an OAuth token. */
export type ServerFactory = (caller: OAuthCaller | null) => Server;

export interface HttpTransportHandle {
  /** The MCP endpoint, e.g. http://127.0.0.1:8741/mcp (the real port when 0 was asked for). */
  url: string;
  close(): Promise<void>;
}

/** Checks the options (StartupError before listening), then listens; resolves once bound. */
export async function startHttpTransport(
  options: HttpTransportOptions,
  createServer: ServerFactory,
  logger: Logger,
): Promise<HttpTransportHandle> {
  checkStartup({ ...options, oauth: options.oauthService !== undefined });
  // The app needs the public URL (OAuth metadata), which needs the port: it is built once listening.
  let app: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const limits = {
    requestTimeout,
    headersTimeout: Math.min(HEADERS_TIMEOUT_MS, requestTimeout),
    // Node checks the timeouts on this beat; a quarter of the limit keeps the overrun small.
    connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(requestTimeout / 4))),
    maxHeaderSize: 16 * 1024,
  };
  const http = createHttpServer(limits, (req, res) => {
    if (app) app(req, res);
    else sendJson(res, 503, { error: 'starting' });
  });
  http.maxHeadersCount = 100;
  await listen(http, options.host, options.port);
  const { port } = http.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const url = `http://${host}:${port}${options.path}`;
  const base = (options.publicBaseUrl ?? `http://${host}:${port}`).replace(/\/+$/, '');
  try {
    let routes: OAuthRoutes | null = null;
    if (options.oauthService) {
      // The SDK's auth router loads only in oauth mode.
      const { oauthRoutes } = await import('./oauth-routes.js');
      routes = oauthRoutes(
        await options.oauthService(base, `${base}${options.path}`),
        base,
        `gitea-warden ${options.info.profile}`,
      );
    }
    app = buildApp(options, createServer, logger, routes, options.pages?.(base) ?? null);
  } catch (error) {
    await closeServer(http);
    throw error;
  }
  const auth =
    [options.oauthService ? 'oauth' : null, options.bearerToken === undefined ? null : 'bearer']
      .filter(Boolean)
      .join('+') || 'none (loopback only)';
  logger.info({ url, auth }, 'MCP streamable HTTP listening');
  return { url, close: () => closeServer(http) };
}

function buildApp(
  options: HttpTransportOptions,
  createServer: ServerFactory,
  logger: Logger,
  routes: OAuthRoutes | null,
  pages: Router | null,
) {
  const allowed = allowedHostList(options.publicBaseUrl, options.allowedHosts);
  const bearer = options.bearerToken === undefined ? null : new BearerCheck(options.bearerToken);
  // Authenticated clients get their own buckets, so failed attempts from an address cannot starve them.
  const tokenTag =
    options.bearerToken === undefined
      ? 'open'
      : createHash('sha256').update(options.bearerToken).digest('hex').slice(0, 16);
  const limiter = options.rateLimiter ?? new RateLimiter(options.rateLimitPerMinute, options.now);
  const refused = (req: IncomingMessage, status: number, why: string) =>
    logger.warn({ remote: req.socket.remoteAddress, status }, `request refused: ${why}`);

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // First, for every route (MCP, OAuth endpoints, pages, metadata, health): the Host and Origin checks.
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (!hostAllowed(req.headers.host, allowed)) {
      refused(req, 403, 'Host header not allowed');
      sendJsonRpcError(
        res,
        403,
        JsonRpcCode.serverError,
        'Forbidden: Host header not allowed; add this host name to ALLOWED_HOSTS or PUBLIC_BASE_URL',
      );
      return;
    }
    if (!originAllowed(req.headers.origin, allowed)) {
      refused(req, 403, 'Origin not allowed');
      sendJsonRpcError(
        res,
        403,
        JsonRpcCode.serverError,
        'Forbidden: Origin not allowed; a browser page may call this server only from an allowed host',
      );
      return;
    }
    next();
  });
  app.all(options.path, async (req: Request, res: Response) => {
    const rate = async (caller: string) => {
      const decision = await limiter.take(`${req.socket.remoteAddress ?? 'unknown'}|${caller}`);
      if (!decision.allowed) {
        // A shared store that does not answer is not the client's fault: 503, still refused.
        const status = decision.message === undefined ? 429 : 503;
        rateLimitRefusals.record(1, { reason: status === 429 ? 'limit' : 'store_unavailable' });
        refused(req, status, decision.message === undefined ? 'rate limit' : 'rate-limit store unavailable');
        sendJsonRpcError(res, status, JsonRpcCode.serverError, decision.message ?? 'Too many requests', {
          'Retry-After': String(decision.retryAfterSeconds),
        });
      }
      return decision.allowed;
    };
    if (bearer === null && routes === null) {
      if (await rate(tokenTag)) await serveMcp(req, res, options.maxBodyBytes, () => createServer(null));
      return;
    }
    if (bearer?.matches(req.headers.authorization)) {
      if (await rate(tokenTag)) await serveMcp(req, res, options.maxBodyBytes, () => createServer(null));
      return;
    }
    if (routes === null) {
      if (!(await rate('unauthenticated'))) return;
      refused(req, 401, 'missing or wrong bearer token');
      sendJsonRpcError(res, 401, JsonRpcCode.serverError, 'Unauthorized: send Authorization: Bearer <token>', {
        'WWW-Authenticate': 'Bearer realm="gitea-warden"',
      });
      return;
    }
    // requireBearerAuth answers 401 with resource_metadata itself, or sets req.auth.
    await new Promise<void>((resolve, reject) => {
      res.once('finish', () => resolve());
      res.once('close', () => resolve());
      Promise.resolve(routes.bearer(req, res, () => resolve())).catch(reject);
    });
    const caller = (req as Request & { auth?: { extra?: { caller?: OAuthCaller } } }).auth?.extra?.caller;
    if (!caller) {
      // Answered 401 already; a failed attempt still counts against its address's shared bucket.
      await limiter.take(`${req.socket.remoteAddress ?? 'unknown'}|unauthenticated`);
      refused(req, 401, 'no valid OAuth token');
      return;
    }
    if (await rate(`user:${caller.login.toLowerCase()}`))
      await serveMcp(req, res, options.maxBodyBytes, () => createServer(caller));
  });
  if (routes) app.use(routes.router);
  if (pages) app.use(pages);
  app.get('/metrics', (req: Request, res: Response) => {
    // Behind the MCP path's static bearer; open only where the MCP path is (no bearer, loopback) or the operator says so.
    const open = options.metricsOpen === true || (bearer === null && routes === null);
    if (!open && !bearer?.matches(req.headers.authorization)) {
      refused(req, 401, 'metrics without the bearer token');
      const hint = bearer
        ? 'send Authorization: Bearer <MCP_BEARER_TOKEN>'
        : 'set MCP_BEARER_TOKEN, or METRICS_AUTH=none';
      sendJson(res, 401, { error: 'unauthorized', hint }, { 'WWW-Authenticate': 'Bearer realm="gitea-warden"' });
      return;
    }
    res.writeHead(200, { 'Content-Type': PROMETHEUS_CONTENT_TYPE, 'Cache-Control': 'no-store' }).end(registry.render());
  });
  app.get(/.*/, (req: Request, res: Response, next: NextFunction) => {
    if (!serveInfoRoute(req.path, res, options.info, options.path, options.readiness)) next();
  });
  app.use((_req: Request, res: Response) => sendJson(res, 404, { error: 'not_found' }));
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) =>
    answerInternalError(res, error, logger),
  );
  return app;
}

async function serveMcp(
  req: IncomingMessage,
  res: ServerResponse,
  maxBodyBytes: number,
  createServer: () => Server,
): Promise<void> {
  if (req.method !== 'POST') {
    // Stateless: no standalone SSE stream (GET) and no session to delete (DELETE).
    sendJsonRpcError(res, 405, JsonRpcCode.serverError, 'Method not allowed: POST JSON-RPC to this path', {
      Allow: 'POST',
    });
    return;
  }
  const body = await readJsonBody(req, maxBodyBytes);
  if (body.kind === 'too_large') {
    sendJsonRpcError(res, 413, JsonRpcCode.serverError, `Request body exceeds ${maxBodyBytes} bytes`, {
      Connection: 'close',
    });
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
