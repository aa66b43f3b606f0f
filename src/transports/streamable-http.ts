// Streamable HTTP, stateless: every POST to the MCP path gets a fresh SDK Server and transport
// (no sessions to hijack or leak between clients). An express app (OAuth's routes share it):
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
import type { McpRequestContext, Server } from '../server/sdk.js';
import {
  createMcpHandler,
  isLegacyRequest,
  NodeStreamableHTTPServerTransport,
  toNodeHandler,
  type AuthInfo,
} from '../server/sdk-http.js';
import { BearerCheck } from './bearer.js';
import { readJsonBody } from './body.js';
import { serveInfoRoute, type ServerInfo } from './health.js';
import { BATCH_REFUSAL, isJsonRpcBatch } from './batch-check.js';
import { allowedHostList, hostAllowed, isLoopbackHostname } from './host-check.js';
import { originAllowed } from './origin-check.js';
import { JsonRpcCode, sendJson, sendJsonRpcError } from './http-response.js';
import type { Logger } from '../shared/logger.js';
import type { OAuthCaller, OAuthRoutes } from './oauth-routes.js';
import { RateLimiter, type RateLimit } from './rate-limit.js';
import type { Readiness } from './ready-route.js';
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
  /**
   * Per-user OAuth: builds the service once the public base URL (and so the port) is known;
   * `loopbackOnly` when both the bind address and the public URL are loopback.
   */
  oauthService?: (base: string, mcpUrl: string, loopbackOnly: boolean) => Promise<OAuthService>;
  /** Per-user OAuth: the scopes a grant must add for a tools/call (the step-up challenge); see oauth-routes.ts. */
  oauthStepUpScopes?: (held: readonly string[], offered: readonly string[], message: unknown) => string[] | null;
  /** Buckets shared with other replicas; default: this process's own. */
  rateLimiter?: RateLimit;
  /** Browser pages beside the MCP path (the confirmation page), built once the public base URL is known. */
  pages?: (base: string) => Router | null;
  /** GET /ready answers from this; without it /ready is /health. */
  readiness?: Readiness;
  /** GET /metrics without the bearer (METRICS_AUTH=none): for a scraper inside a trusted network. */
  metricsOpen?: boolean;
}

/**
 * A request's MCP server: null caller for the static bearer (or none), the person for an OAuth token;
 * `era` is the revision family the SDK's entry read from the request.
 */
export type ServerFactory = (caller: OAuthCaller | null, era: McpRequestContext['era']) => Server;

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
    const limiter = options.rateLimiter ?? new RateLimiter(options.rateLimitPerMinute, options.now);
    if (options.oauthService) {
      // The OAuth routes load only in oauth mode.
      const { oauthRoutes } = await import('./oauth-routes.js');
      const loopbackOnly = isLoopbackHostname(options.host) && isLoopbackHostname(new URL(base).hostname);
      routes = oauthRoutes(await options.oauthService(base, `${base}${options.path}`, loopbackOnly), {
        base,
        resourceName: `gitea-warden ${options.info.profile}`,
        limiter,
        ...(options.oauthStepUpScopes ? { stepUpScopes: options.oauthStepUpScopes } : {}),
      });
    }
    app = buildApp(options, createServer, logger, routes, limiter, options.pages?.(base) ?? null);
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
  limiter: RateLimit,
  pages: Router | null,
) {
  const allowed = allowedHostList(options.publicBaseUrl, options.allowedHosts);
  const bearer = options.bearerToken === undefined ? null : new BearerCheck(options.bearerToken);
  // Authenticated clients get their own buckets, so failed attempts from an address cannot starve them.
  const tokenTag =
    options.bearerToken === undefined
      ? 'open'
      : createHash('sha256').update(options.bearerToken).digest('hex').slice(0, 16);
  const refused = (req: IncomingMessage, status: number, why: string) =>
    logger.warn({ remote: req.socket.remoteAddress, status }, `request refused: ${why}`);
  const mcp = mcpHandler(createServer, logger);

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
      if (await rate(tokenTag)) await serveMcp(req, res, options.maxBodyBytes, mcp, null);
      return;
    }
    if (bearer?.matches(req.headers.authorization)) {
      if (await rate(tokenTag)) await serveMcp(req, res, options.maxBodyBytes, mcp, null);
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
    // Answers 401 with resource_metadata itself (or 503 when the grant cannot be judged now).
    const caller = await routes.authenticate(req, res);
    if (!caller) {
      // A failed attempt still counts against its address's shared bucket.
      await limiter.take(`${req.socket.remoteAddress ?? 'unknown'}|unauthenticated`);
      refused(req, res.statusCode, 'no valid OAuth token');
      return;
    }
    if (await rate(`user:${caller.login.toLowerCase()}`))
      await serveMcp(req, res, options.maxBodyBytes, mcp, caller, (message) => routes.challenge(res, caller, message));
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

type McpHandler = (
  req: IncomingMessage & { auth?: AuthInfo },
  res: ServerResponse,
  body: unknown,
  caller: OAuthCaller | null,
) => Promise<void>;

/**
 * Both eras on one path. A 2026-07-28 request goes to the SDK's entry (a fresh server per request;
 * it checks the envelope and the Mcp-Method / Mcp-Name headers against the body); the person an
 * OAuth token stands for reaches the factory through the entry's pass-through AuthInfo (never a
 * token). A 2025 request is served statelessly as before, answered with one JSON body (the SDK's
 * own fallback would answer it as an event stream).
 */
function mcpHandler(createServer: ServerFactory, logger: Logger): McpHandler {
  const modern = toNodeHandler(
    createMcpHandler(
      ({ era, authInfo }) => createServer((authInfo?.extra?.caller as OAuthCaller | undefined) ?? null, era),
      {
        legacy: 'reject',
        // One JSON body per POST: nothing streams mid-call (a question is an input_required result).
        responseMode: 'json',
        onerror: (error) => logger.debug({ error: error.message }, 'MCP request refused by the protocol layer'),
      },
    ),
    { onerror: (error) => logger.error({ error: error.message }, 'MCP HTTP request failed') },
  );
  return async (req, res, body, caller) => {
    if (await isLegacyRequest(headersOnly(req), body)) {
      const server = createServer(caller, 'legacy');
      const transport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
      return;
    }
    if (caller) req.auth = { token: '', clientId: caller.login, scopes: [], extra: { caller } };
    await modern(req, res, body);
  };
}

/** The request line and headers as a web Request (the body is already parsed; the predicate reads it from there). */
function headersOnly(req: IncomingMessage): globalThis.Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new globalThis.Request(`http://localhost${req.url ?? '/'}`, { method: req.method ?? 'POST', headers });
}

async function serveMcp(
  req: IncomingMessage,
  res: ServerResponse,
  maxBodyBytes: number,
  mcp: McpHandler,
  caller: OAuthCaller | null,
  /** Answers the message itself instead (the OAuth step-up challenge) and returns true, or leaves it. */
  answered: (message: unknown) => boolean = () => false,
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
  if (answered(body.value)) return;
  await mcp(req, res, body.value, caller);
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
