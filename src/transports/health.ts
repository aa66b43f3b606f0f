// The unauthenticated routes: GET / (what this server is) and GET /health (is it up).
// They reveal the name, version, profile and MCP path only: nothing secret, nothing about Gitea.
import type { ServerResponse } from 'node:http';
import { sendJson } from './http-response.js';

export interface ServerInfo {
  name: string;
  version: string;
  /** The profile this namespace serves (a name, not its contents). */
  profile: string;
}

/** Answers GET / and GET /health; returns false for any other path. */
export function serveInfoRoute(pathname: string, res: ServerResponse, info: ServerInfo, mcpPath: string): boolean {
  if (pathname === '/health') {
    sendJson(res, 200, { status: 'ok' });
    return true;
  }
  if (pathname === '/') {
    sendJson(res, 200, { name: info.name, version: info.version, profile: info.profile, mcpPath });
    return true;
  }
  return false;
}
