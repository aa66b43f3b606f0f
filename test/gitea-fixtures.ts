// Shared by the gitea-* tests: hand-built catalog entries and a recording HTTP server on 127.0.0.1.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CatalogEntry, CatalogParameter, CatalogPathParameter, HttpMethod } from '../src/catalog/types.js';
import type { GiteaIdentity } from '../src/gitea/gitea-identity.js';

export const TOKEN = '0123456789abcdef0123456789abcdef01234567';

export interface EntrySpec {
  operationId?: string;
  method?: HttpMethod;
  path: string;
  pathParams?: (string | [string, boolean])[];
  query?: string[];
  form?: string[];
  file?: string[];
  body?: boolean;
  consumes?: string[];
  produces?: string[];
  paginated?: boolean;
}

function param(name: string): CatalogParameter {
  return { name, required: false, schema: { type: 'string' } };
}

export function entry(spec: EntrySpec): CatalogEntry {
  const pathParams: CatalogPathParameter[] = (spec.pathParams ?? []).map((p) => {
    const [name, wildcard] = typeof p === 'string' ? [p, false] : p;
    return { name, required: true, schema: { type: 'string' }, wildcard };
  });
  return {
    name: `gitea_test_${(spec.operationId ?? 'op').toLowerCase()}`,
    operationId: spec.operationId ?? 'testOperation',
    domain: 'test',
    tag: 'test',
    method: spec.method ?? 'GET',
    path: spec.path,
    summary: 'test operation',
    parameters: {
      path: pathParams,
      query: (spec.query ?? []).map(param),
      header: [],
      form: (spec.form ?? []).map(param),
      file: (spec.file ?? []).map(param),
      body: spec.body ? { required: false, schema: { type: 'object' } } : null,
    },
    consumes: spec.consumes ?? ['application/json'],
    produces: spec.produces ?? ['application/json'],
    annotations: {
      readOnly: spec.method === undefined || spec.method === 'GET',
      destructive: false,
      idempotent: true,
      paginated: spec.paginated ?? false,
    },
    reach: { inPath: false, fields: [], unnamed: null },
    tokenScopes: null,
    inputSchema: { type: 'object' },
  };
}

export interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
  /** The client's port: requests on one kept-alive connection share it. */
  remotePort: number | undefined;
}

export type Handler = (request: Recorded, response: ServerResponse) => void;

export interface TestServer {
  identity: GiteaIdentity;
  requests: Recorded[];
  handle(handler: Handler): void;
  close(): Promise<void>;
}

export async function startServer(): Promise<TestServer> {
  let handler: Handler = (_request, response) => json(response, 200, {});
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        remotePort: req.socket.remotePort,
      };
      requests.push(recorded);
      handler(recorded, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    identity: { baseUrl: `http://127.0.0.1:${port}`, token: TOKEN },
    requests,
    handle(next) {
      handler = next;
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(
  response: ServerResponse,
  status: number,
  data: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json;charset=utf-8', ...headers });
  response.end(JSON.stringify(data));
}
