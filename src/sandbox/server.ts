// The sandbox Gitea: a stateful, in-memory stand-in for the part of the Gitea 1.27.1 REST API
// (/api/v1) that gitea-warden's policy layer, guards, demo and end-to-end tests use. node:http only.
//
// Programmatic API (stable; others build on it):
//
//   startSandbox(options?: SandboxOptions): Promise<Sandbox>
//     options.port        TCP port on 127.0.0.1 (0 or absent: any free port)
//     options.seed        the world to start with (default: defaultSeed() from ./seed.js)
//     options.onResponse  called with every response the sandbox sends (SandboxResponseEvent),
//                         e.g. to check it against the spec (test/support/spec-contract.ts)
//
//   Sandbox = {
//     url,                              // http://127.0.0.1:PORT (the API is below /api/v1)
//     users: { [login]: { token, password } },  // random per run unless the seed pins them
//     requests,                         // every request: { method, path, login, status }, in order
//     state,                            // the live SandboxState, for tests that inspect or arrange
//     close(),
//   }
//
// Served operations answer as Gitea does (status, body shape, error body {message, url}, paging
// headers). Operations of the Gitea API the sandbox does not serve answer 501 naming the method
// and path template; paths outside the Gitea API answer 404.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authenticate, type Caller } from './auth.js';
import type { Reply, Route } from './context.js';
import { ApiError, errorBody, RepoRedirect } from './api-errors.js';
import { branchRoutes } from './handlers/branches.js';
import { collaboratorRoutes } from './handlers/collaborators.js';
import { commitRoutes } from './handlers/commits.js';
import { contentRoutes } from './handlers/contents.js';
import { hookRoutes } from './handlers/hooks.js';
import { issueRoutes } from './handlers/issues.js';
import { miscRoutes } from './handlers/misc.js';
import { pullRoutes } from './handlers/pulls.js';
import { repoRoutes } from './handlers/repos.js';
import { reviewRoutes } from './handlers/reviews.js';
import { teamRoutes } from './handlers/teams.js';
import { userRoutes } from './handlers/users.js';
import { actionRoutes } from './handlers/actions.js';
import { markupRoutes } from './handlers/markup.js';
import { notificationRoutes } from './handlers/notifications.js';
import { packageRoutes } from './handlers/packages.js';
import { timeRoutes } from './handlers/times.js';
import { archiveRoutes } from './handlers/archives.js';
import { blobRoutes } from './handlers/blobs.js';
import { contentsExtRoutes } from './handlers/contents-ext.js';
import { orgRoutes } from './handlers/orgs.js';
import { profileRoutes } from './handlers/profiles.js';
import { wikiRoutes } from './handlers/wiki.js';
import { tagRoutes } from './handlers/tags.js';
import { timelineRoutes } from './handlers/timeline.js';
import type { SandboxState } from './model.js';
import { OAUTH_WEB_PATHS, serveOAuthWeb } from './oauth2-web.js';
import { Router } from './router.js';
import { requireTokenScopes } from './token-scope-check.js';
import { defaultSeed, loadSeed, type Credentials, type SandboxSeed } from './seed.js';

export const API_PREFIX = '/api/v1';
const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** Every route the sandbox serves, one entry per Gitea operation. */
export const sandboxRoutes: readonly Route[] = [
  ...miscRoutes,
  ...repoRoutes,
  ...branchRoutes,
  ...commitRoutes,
  ...contentRoutes,
  ...pullRoutes,
  ...reviewRoutes,
  ...issueRoutes,
  ...hookRoutes,
  ...collaboratorRoutes,
  ...userRoutes,
  ...timeRoutes,
  ...actionRoutes,
  ...packageRoutes,
  ...markupRoutes,
  ...notificationRoutes,
  ...teamRoutes,
  // Integrity labels: organisations and teams, people's profiles, the wiki, blobs, contents-ext.
  ...orgRoutes,
  ...profileRoutes,
  ...wikiRoutes,
  ...blobRoutes,
  ...contentsExtRoutes,
  ...timelineRoutes,
  ...tagRoutes,
  ...archiveRoutes,
];

export interface SandboxRequestRecord {
  method: string;
  /** Request path without the query, e.g. /api/v1/repos/acme/widgets. */
  path: string;
  /** The acting user (after Sudo), null when anonymous or not authenticated. */
  login: string | null;
  status: number;
}

export interface SandboxResponseEvent extends SandboxRequestRecord {
  /** The served Gitea operation, null for 404 outside the API and 501 for unserved operations. */
  operationId: string | null;
  headers: Record<string, string>;
  /** Parsed JSON body, undefined when the response has none or it is bytes. */
  body: unknown;
  /** A body of bytes (a download): its media type and size. */
  binary?: { contentType: string; size: number };
}

export interface SandboxOptions {
  port?: number;
  seed?: SandboxSeed;
  onResponse?: (event: SandboxResponseEvent) => void;
}

export interface Sandbox {
  url: string;
  users: Record<string, Credentials>;
  requests: ReadonlyArray<SandboxRequestRecord>;
  state: SandboxState;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) reject(new ApiError(413, 'request body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError(422, 'request body is not valid JSON');
  }
}

/** The caller's login for the request log even when the call fails; never throws. */
function bestEffortLogin(state: SandboxState, req: IncomingMessage, query: URLSearchParams): string | null {
  try {
    return authenticate(state, req.headers, query).doer?.login ?? null;
  } catch {
    return null;
  }
}

interface Outcome {
  reply: Reply;
  operationId: string | null;
}

async function dispatch(state: SandboxState, router: Router, req: IncomingMessage, url: URL): Promise<Outcome> {
  const method = req.method ?? 'GET';
  if (!url.pathname.startsWith(`${API_PREFIX}/`))
    return { reply: errorReply(state, 404, 'Not Found'), operationId: null };
  const match = router.match(method, url.pathname.slice(API_PREFIX.length));
  if (match.kind === 'unknown') return { reply: errorReply(state, 404, 'Not Found'), operationId: null };
  if (match.kind === 'unserved') {
    const message = `the gitea-warden sandbox does not serve ${match.method} ${match.path}`;
    return { reply: errorReply(state, 501, message), operationId: null };
  }
  const operationId = match.route.operationId;
  try {
    const body = parseJson(await readBody(req));
    const caller: Caller = authenticate(state, req.headers, url.searchParams);
    requireTokenScopes(caller.scopes, method, match.route.path);
    const reply = match.route.handler({
      state,
      caller,
      params: match.params,
      query: url.searchParams,
      body,
      pathname: url.pathname,
    });
    return { reply, operationId };
  } catch (error) {
    if (error instanceof ApiError) return { reply: errorReply(state, error.status, error.message), operationId };
    if (error instanceof RepoRedirect)
      return { reply: { status: 307, headers: { Location: error.location } }, operationId };
    const message = error instanceof Error ? error.message : 'unexpected error';
    return { reply: errorReply(state, 500, `sandbox internal error: ${message}`), operationId };
  }
}

function errorReply(state: SandboxState, status: number, message: string): Reply {
  return { status, body: errorBody(state.baseUrl, message) };
}

function send(res: ServerResponse, reply: Reply): Record<string, string> {
  const headers: Record<string, string> = { ...reply.headers };
  // A handler that names its own Content-Type (text/html from the markup routes, a download's bytes) sends its body as is.
  const raw = headers['Content-Type'] !== undefined && (typeof reply.body === 'string' || Buffer.isBuffer(reply.body));
  if (reply.body !== undefined && !raw) headers['Content-Type'] = 'application/json;charset=utf-8';
  res.writeHead(reply.status, headers);
  res.end(reply.body === undefined ? undefined : raw ? reply.body : JSON.stringify(reply.body));
  return headers;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const { state, credentials } = loadSeed(options.seed ?? defaultSeed());
  const router = new Router([...sandboxRoutes]);
  const requests: SandboxRequestRecord[] = [];

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', state.baseUrl);
    if (OAUTH_WEB_PATHS.has(url.pathname)) {
      // Gitea's web side: sign-in and the OAuth2 provider (src/sandbox/oauth2-web.ts).
      void serveOAuthWeb(state, req, res, url).then(({ status, login }) =>
        requests.push({ method: req.method ?? 'GET', path: url.pathname, login, status }),
      );
      return;
    }
    void dispatch(state, router, req, url).then(({ reply, operationId }) => {
      const headers = send(res, reply);
      const record: SandboxRequestRecord = {
        method: req.method ?? 'GET',
        path: url.pathname,
        login: bestEffortLogin(state, req, url.searchParams),
        status: reply.status,
      };
      requests.push(record);
      // A body is serialised and parsed back so observers see exactly what went over the wire.
      if (Buffer.isBuffer(reply.body)) {
        const binary = { contentType: headers['Content-Type'] ?? '', size: reply.body.length };
        options.onResponse?.({ ...record, operationId, headers, body: undefined, binary });
        return;
      }
      const body = reply.body === undefined ? undefined : (JSON.parse(JSON.stringify(reply.body)) as unknown);
      options.onResponse?.({ ...record, operationId, headers, body });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  state.baseUrl = `http://127.0.0.1:${port}`;

  return {
    url: state.baseUrl,
    users: credentials,
    requests,
    state,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
