// What the protocol section asks of its driver process (bench/protocol-driver.ts) and what it answers:
// one job as JSON in argv, one result as one JSON line on stdout. Shared by both sides, so the shapes
// cannot drift apart.

/** Which protocol era the client speaks: 2026-07-28 (server/discover, per-request envelope) or 2025 (initialize). */
export type Era = 'modern' | 'legacy';

/** How the driver's client transport spawns the server under test. */
export interface ServerCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

/** The one read every server is asked for, as a tools/call. */
export interface ReadCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** The timed part of a load or direct job: `calls` calls at each concurrency, each after its own warm-up. */
export interface LoadShape {
  warmUpCalls: number;
  calls: number;
  concurrency: number[];
}

export type DriverJob =
  /** Spawn the server, connect in `era`, list tools once: the time to the first answered tools/list. */
  | { mode: 'startup'; era: Era; server: ServerCommand }
  /** Connect over stdio in `era`, then call `read` in the shape given. */
  | ({ mode: 'load'; era: Era; server: ServerCommand; read: ReadCall } & LoadShape)
  /** The same read as a plain keep-alive fetch to the sandbox: what no MCP server can undercut. */
  | ({ mode: 'direct'; url: string; token: string } & LoadShape);

export interface StartupResult {
  mode: 'startup';
  /** The era the connection landed on (getProtocolEra), checked against the one asked for. */
  era: Era;
  startupMilliseconds: number;
  /** CPU time (utime + stime) the server process had used when its first tools/list was answered. */
  serverCpuMilliseconds: number;
}

export interface LoadPoint {
  concurrency: number;
  calls: number;
  p50Milliseconds: number;
  p99Milliseconds: number;
  callsPerSecond: number;
  /** The server process's CPU time over the timed part, per call; null for direct fetch (no server). */
  serverCpuMilliseconds: number | null;
  /** Tool results with isError, failed requests or non-2xx answers. */
  errors: number;
}

export interface LoadResult {
  mode: 'load' | 'direct';
  /** The negotiated era; null for direct fetch. */
  era: Era | null;
  points: LoadPoint[];
}

export type DriverResult = StartupResult | LoadResult;
