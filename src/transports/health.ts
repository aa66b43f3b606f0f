// The unauthenticated routes: GET / (what this server is), GET /health (the process is up) and GET
// /ready (it could serve a call now: ready-route.ts). They reveal the name, version, profile, MCP path
// and which readiness check fails: nothing secret, no URL, no error text.
import type { ServerResponse } from 'node:http';
import { sendJson } from './http-response.js';
import type { Readiness, ReadyReport } from './ready-route.js';

export interface ServerInfo {
  name: string;
  version: string;
  /** The profile this namespace serves (a name, not its contents). */
  profile: string;
}

/** Answers GET /, /health and /ready; returns false for any other path. */
export function serveInfoRoute(
  pathname: string,
  res: ServerResponse,
  info: ServerInfo,
  mcpPath: string,
  readiness?: Readiness,
): boolean {
  if (pathname === '/health') {
    sendJson(res, 200, { status: 'ok' });
    return true;
  }
  if (pathname === '/ready') {
    const answer = (report: ReadyReport) =>
      sendJson(
        res,
        report.ready ? 200 : 503,
        { status: report.ready ? 'ready' : 'not_ready', ...report },
        { 'Cache-Control': 'no-store' },
      );
    if (readiness) void readiness.current().then(answer);
    else answer({ ready: true, checks: {}, checked_at: null });
    return true;
  }
  if (pathname === '/') {
    sendJson(res, 200, { name: info.name, version: info.version, profile: info.profile, mcpPath });
    return true;
  }
  return false;
}
