// Spawns `gitea-warden serve` processes (one namespace each) and connects the official MCP SDK client
// over stdio or streamable HTTP. Shared by the server, demo and guards end-to-end tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Sandbox } from '../../src/sandbox/index.js';

export const repoRoot = resolve(import.meta.dirname, '..', '..');
/** The package's bin as npm installs it (the bundle `npm run build` writes), relative to the package root. */
export const INSTALLED_BIN = (
  JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { bin: Record<string, string> }
).bin['gitea-warden'] as string;
/** The command as users run it (the built bundle, so `npm run build` first): what the CLI and end-to-end tests run. */
export const CLI_ARGS = [join(repoRoot, INSTALLED_BIN)];
export const SERVE_ARGS = [...CLI_ARGS, 'serve'];

/** Which sandbox user each reference profile's token env var belongs to. */
const PROFILE_USERS: Record<string, { env: string; login: string }> = {
  'gitea-author': { env: 'GITEA_AUTHOR_TOKEN', login: 'alice' },
  'gitea-reviewer': { env: 'GITEA_REVIEWER_TOKEN', login: 'bob' },
  'gitea-merger': { env: 'GITEA_MERGER_TOKEN', login: 'carol' },
  'gitea-reconciler': { env: 'GITEA_RECONCILER_TOKEN', login: 'dave' },
  'gitea-issue-manager': { env: 'GITEA_ISSUE_MANAGER_TOKEN', login: 'erin' },
  'gitea-owner': { env: 'GITEA_OWNER_TOKEN', login: 'admin' },
};

/** A temporary directory removed by `dispose`. */
export function tempDir(prefix = 'warden-'): { path: string; dispose: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, dispose: () => rmSync(path, { recursive: true, force: true }) };
}

export interface NamespaceEnvOptions {
  /** Sandbox user whose token to use; default: the profile's own user. */
  tokenOf?: string;
  auditLog: string;
  extra?: Record<string, string>;
}

/** The environment of one namespace process against the sandbox (PATH and HOME kept, nothing else inherited). */
export function namespaceEnv(sandbox: Sandbox, profile: string, options: NamespaceEnvOptions): Record<string, string> {
  const user = PROFILE_USERS[profile];
  const login = options.tokenOf ?? user?.login;
  const token = login ? sandbox.users[login]?.token : undefined;
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmpdir(),
    // scripts/run-tests.mjs points it at an empty directory, so a bare profile name means ./profiles/.
    ...(process.env.XDG_CONFIG_HOME ? { XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME } : {}),
    GITEA_URL: sandbox.url,
    GITEA_MCP_PROFILE: profile,
    AUDIT_LOG: options.auditLog,
    LOG_LEVEL: 'warn',
    // One tool per operation, as these tests call them; discovery mode has its own tests (TOOL_MODE in `extra`).
    TOOL_MODE: 'static',
    ...(user && token ? { [user.env]: token } : {}),
    ...options.extra,
  };
}

/**
 * How long a namespace may take to answer `initialize`. The SDK's 60 s default is a timing
 * assumption: several namespaces starting at once on a loaded machine (a cold tsx cache in a fresh
 * clone) took longer, and the suite failed for no fault of the code.
 */
const STARTUP_TIMEOUT_MS = 300_000;

export interface Connected {
  client: Client;
  /** The server process this connection spawned, when it spawned one (stdio). */
  pid?: number;
  close(): Promise<void>;
}

/**
 * The test client: it declares form elicitation, and its person says yes to every question (a merge's
 * confirmation). Tests of the confirmation itself answer otherwise (test/confirm-*.test.ts).
 */
export function testClient(): Client {
  const client = new Client({ name: 'warden-test', version: '0.0.0' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: { confirm: true } }));
  return client;
}

/** A namespace over stdio: the SDK client spawns `serve` itself (from src through tsx unless `args` say otherwise). */
export async function connectStdio(
  env: Record<string, string>,
  args: string[] = SERVE_ARGS,
  cwd: string = repoRoot,
): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    env,
    cwd,
    stderr: 'pipe',
  });
  const client = testClient();
  await client.connect(transport, { timeout: STARTUP_TIMEOUT_MS });
  return { client, ...(transport.pid === null ? {} : { pid: transport.pid }), close: () => client.close() };
}

/**
 * Waits for the namespace's identity check (GET /user), which runs in the background after start
 * so that it never holds `initialize`: gitea_whoami awaits it. Tests that count the sandbox's
 * requests per call wait first, or the check can land inside a call's window.
 */
export async function identityChecked(...connections: Connected[]): Promise<void> {
  await Promise.all(connections.map((c) => c.client.callTool({ name: 'gitea_whoami', arguments: {} })));
}

export interface HttpNamespace {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/** Spawns `serve` with MCP_TRANSPORT=http on a free port; resolves with the MCP URL once it listens. */
export function spawnHttpNamespace(
  env: Record<string, string>,
  args: string[] = SERVE_ARGS,
  cwd: string = repoRoot,
): Promise<HttpNamespace> {
  const child = spawn(process.execPath, args, {
    env: { ...env, MCP_TRANSPORT: 'http', MCP_PORT: '0', LOG_LEVEL: 'info' },
    cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const close = () => stopChild(child);
  return new Promise((resolvePromise, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const url = /"url":"(http:[^"]+)"/.exec(stderr)?.[1];
      if (url) resolvePromise({ url, child, stderr: () => stderr, close });
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code} before listening: ${stderr}`)));
  });
}

/** Runs `serve` to completion (for start-up refusals); resolves with the exit code and stderr. */
export function runServe(
  env: Record<string, string>,
  args: string[] = [],
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [...SERVE_ARGS, ...args], {
    env,
    cwd: repoRoot,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolvePromise) => child.once('exit', (code) => resolvePromise({ code, stderr })));
}

export async function connectHttp(url: string, bearerToken?: string): Promise<Connected> {
  const headers: Record<string, string> = bearerToken ? { authorization: `Bearer ${bearerToken}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = testClient();
  await client.connect(transport, { timeout: STARTUP_TIMEOUT_MS });
  return { client, close: () => client.close() };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolvePromise) => {
    child.once('exit', () => resolvePromise());
    child.kill('SIGTERM');
  });
}

/** The JSON payload of a tool result (its structuredContent). */
export function payloadOf(result: unknown): Record<string, any> {
  return (result as CallToolResult).structuredContent as Record<string, any>;
}

/** Names listed by tools/list. */
export async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name);
}
