// Small JSON answers for the HTTP transport. Bodies are fixed messages: no stack, no request data.
import type { ServerResponse } from 'node:http';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** JSON-RPC error codes this transport answers with itself (the SDK answers the rest). */
export const JsonRpcCode = {
  parseError: -32700,
  invalidRequest: -32600,
  internalError: -32603,
  serverError: -32000,
} as const;

export function sendJsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null }, headers);
}
