// One demo namespace: a `gitea-warden serve` child process (stdio) for one profile and one sandbox
// user, and the MCP client connected to it. Each tool call comes back as plain data: the parsed
// JSON payload, whether the server flagged it as an error, or the protocol error it raised.
import { join } from 'node:path';
import type { Stream } from 'node:stream';
import { readDocument } from '../shared/document.js';
import { PACKAGE_PREFIX, packageRoot, profilesDir } from '../shared/paths.js';
import { isRecord } from '../gitea/errors.js';
import { Client, StdioClientTransport } from '../server/sdk-client.js';
import { selfCommand } from './self-command.js';

export interface NamespaceSpec {
  /** Profile name in profiles/, e.g. gitea-author. */
  profile: string;
  giteaUrl: string;
  /** The variable the profile reads its token from (see profileIdentity). */
  tokenVariable: string;
  token: string;
  auditLog: string;
  /** The person at this client: shown each confirmation the server asks for, answers yes (true) or no. */
  person: (question: string) => boolean;
}

export type CallOutcome =
  | { kind: 'result'; isError: boolean; payload: Record<string, unknown> }
  /** The server answered with a JSON-RPC error (e.g. a tool this namespace does not serve). */
  | { kind: 'protocol_error'; message: string };

export interface Namespace {
  readonly profile: string;
  /** Spawns the server and runs the MCP handshake. */
  connect(): Promise<void>;
  call(tool: string, args?: Record<string, unknown>): Promise<CallOutcome>;
  /** Stops the server process; safe before, during and after connect. */
  close(): Promise<void>;
}

/** Who a reference profile acts as: its user (authenticated_username) and its token variable (else GITEA_TOKEN). */
export function profileIdentity(profile: string): { login: string | null; tokenVariable: string } {
  const data = readDocument(join(profilesDir, `${profile}.yaml`)).data;
  const fields = isRecord(data) ? data : {};
  return {
    login: typeof fields.authenticated_username === 'string' ? fields.authenticated_username : null,
    tokenVariable: typeof fields.token_source_name === 'string' ? fields.token_source_name : 'GITEA_TOKEN',
  };
}

/**
 * The SDK's own stdio transport probes the server's revision in a second, short-lived server process
 * (some servers exit on an unknown first request); a subclass probes on its own connection, and
 * gitea-warden answers the probe, so each namespace starts once.
 */
class InPlaceProbe extends StdioClientTransport {}

/** A namespace not yet started: hand its close() to the clean-up first, then connect(). */
export function createNamespace(spec: NamespaceSpec): Namespace {
  const transport = new InPlaceProbe({
    ...selfCommand(['serve']),
    cwd: packageRoot,
    env: childEnvironment(spec),
    // The servers' logs would interleave with the story: kept, and shown only when a start fails.
    stderr: 'pipe',
  });
  const lastWords = tailOf(transport.stderr);
  // Like Claude Code or VS Code, the client shows the server's questions to its person (form elicitation).
  // It speaks the current revision, 2026-07-28: a question arrives as an input_required result.
  const client = new Client(
    { name: 'gitea-warden-demo', version: '1' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('elicitation/create', (request) => {
    const yes = spec.person(request.params.message);
    const fields = 'requestedSchema' in request.params ? Object.keys(request.params.requestedSchema.properties) : [];
    return yes
      ? { action: 'accept', content: Object.fromEntries(fields.map((field) => [field, true])) }
      : { action: 'decline' };
  });
  return {
    profile: spec.profile,
    connect: () =>
      client.connect(transport).catch((error: unknown) => {
        const reason = lastWords() || (error instanceof Error ? error.message : 'no reason given');
        throw new Error(`the ${spec.profile} namespace did not start: ${reason}`);
      }),
    call: (tool, args = {}) => callTool(client, tool, args),
    // The transport, not the client: it also stops a process whose handshake is still running.
    close: () => transport.close(),
  };
}

/** The last lines a stream wrote (bounded), read on demand; the stream is drained so the child never blocks on it. */
function tailOf(stream: Stream | null, keep = 2000): () => string {
  let tail = '';
  stream?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-keep);
  });
  return () => tail.trim().split('\n').slice(-3).join(' | ');
}

/** The namespace's settings. The SDK adds only the basic variables (PATH, HOME, ...), so no other secret of ours reaches the child. */
function childEnvironment(spec: NamespaceSpec): Record<string, string> {
  return {
    GITEA_URL: spec.giteaUrl,
    // The package's own reference profile, by name: never a profile of the user's that happens to share it.
    GITEA_MCP_PROFILE: `${PACKAGE_PREFIX}${spec.profile}`,
    [spec.tokenVariable]: spec.token,
    AUDIT_LOG: spec.auditLog,
    LOG_LEVEL: 'warn',
  };
}

async function callTool(client: Client, tool: string, args: Record<string, unknown>): Promise<CallOutcome> {
  try {
    const result = await client.callTool({ name: tool, arguments: args });
    // gitea-warden puts each result's JSON in structuredContent (src/server/tool-result.ts).
    const payload = isRecord(result.structuredContent) ? result.structuredContent : {};
    return { kind: 'result', isError: result.isError === true, payload };
  } catch (error) {
    return { kind: 'protocol_error', message: error instanceof Error ? error.message : 'protocol error' };
  }
}
