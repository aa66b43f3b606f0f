// What every handler receives and returns. Handlers are plain functions of the request context;
// they throw ApiError for Gitea's error answers and return a Reply for the rest.
import type { Caller } from './auth.js';
import type { SandboxState } from './model.js';

export interface RequestContext {
  state: SandboxState;
  caller: Caller;
  /** Path parameters, already percent-decoded. */
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON body, undefined when none was sent. */
  body: unknown;
  /** Request path below the host (with /api/v1), used to build Link headers. */
  pathname: string;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Handler = (ctx: RequestContext) => Reply;

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Spec path template below /api/v1. */
  path: string;
  operationId: string;
  handler: Handler;
}

export const ok = (body: unknown, status = 200): Reply => ({ status, body });
export const noContent = (status = 204): Reply => ({ status });

/** The body as an object of optional fields; anything else is Gitea's 422. */
export function bodyObject(ctx: RequestContext): Record<string, unknown> {
  const body = ctx.body ?? {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return {};
  return body as Record<string, unknown>;
}

export function stringField(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key];
  return typeof value === 'string' ? value : undefined;
}
