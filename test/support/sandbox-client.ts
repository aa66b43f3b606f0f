// A small client for tests that talk to a started sandbox as a given seeded user.
import type { Sandbox } from '../../src/sandbox/server.js';

export interface CallOptions {
  /** Seeded login to authenticate as (token auth), or null for anonymous. */
  as?: string | null;
  /** Authenticate with BASIC (login and password) instead of the token. */
  basic?: boolean;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  body: any;
}

export function sandboxClient(sandbox: Sandbox) {
  return async function call(method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
    const headers: Record<string, string> = { ...options.headers };
    const login = options.as === undefined ? 'alice' : options.as;
    if (login !== null) {
      const user = sandbox.users[login];
      if (!user) throw new Error(`no seeded user ${login}`);
      headers.Authorization = options.basic
        ? `Basic ${Buffer.from(`${login}:${user.password}`).toString('base64')}`
        : `token ${user.token}`;
    }
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await fetch(`${sandbox.url}/api/v1${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await response.text();
    const json = (response.headers.get('content-type') ?? '').includes('json');
    return {
      status: response.status,
      headers: response.headers,
      body: text === '' ? undefined : json ? JSON.parse(text) : text,
    };
  };
}

export const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
