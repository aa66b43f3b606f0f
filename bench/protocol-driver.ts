// The client side of the protocol section, in a process of its own: `node --import tsx
// bench/protocol-driver.ts '<job json>'` prints one JSON line (a DriverResult) on stdout. The MCP
// client (SDK v2) runs here rather than in the benchmark process, so the thread that runs the
// clients is not also the one that runs the sandbox: before, that one thread was the throughput
// ceiling. The server under test is a third process, spawned by the client's stdio transport.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { cpuMilliseconds } from './process-usage.js';
import type { DriverJob, DriverResult, Era, LoadPoint, LoadShape, ServerCommand } from './protocol-job.js';
import { nowMicroseconds, quantile } from './stats.js';

/**
 * The SDK's own StdioClientTransport runs a pinned client's server/discover probe in a sibling server
 * process (some stdio servers exit on a request before initialize); any subclass probes in place, on
 * the one process. Without it a modern start-up would start the server twice.
 */
class InPlaceStdio extends StdioClientTransport {}

/** Long enough for a cold start on a loaded machine; the SDK's default is 60 s. */
const CONNECT_TIMEOUT_MS = 120_000;
/** How much of the server's stderr an error message quotes. */
const STDERR_TAIL = 2000;

/** One call: resolves true on success, false on an error answer. */
type Caller = () => Promise<boolean>;

interface Connection {
  client: Client;
  pid: number | null;
  era: Era;
  close(): Promise<void>;
}

async function connect(era: Era, server: ServerCommand): Promise<Connection> {
  const transport = new InPlaceStdio({ ...server, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
  });
  const client = new Client(
    { name: 'warden-bench-protocol', version: '0.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  try {
    await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
  } catch (error) {
    throw new Error(`${(error as Error).message}; server stderr: ${stderr.trim() || '(none)'}`);
  }
  const negotiated = client.getProtocolEra();
  if (negotiated !== era) throw new Error(`asked for the ${era} era, connected in ${negotiated ?? 'none'}`);
  return { client, pid: transport.pid, era, close: () => client.close() };
}

async function startup(era: Era, server: ServerCommand): Promise<DriverResult> {
  // From before the spawn (connect starts the transport) to the answered tools/list, as section 4 times it.
  const start = nowMicroseconds();
  const connection = await connect(era, server);
  try {
    await connection.client.listTools();
    const startupMilliseconds = (nowMicroseconds() - start) / 1000;
    return { mode: 'startup', era, startupMilliseconds, serverCpuMilliseconds: cpuMilliseconds(connection.pid) };
  } finally {
    await connection.close();
  }
}

/** Each concurrency: a warm-up (the JIT compiles the call path in server and client), then the timed calls. */
async function load(caller: Caller, shape: LoadShape, serverPid: number | null): Promise<LoadPoint[]> {
  const points: LoadPoint[] = [];
  for (const concurrency of shape.concurrency) {
    const slots = Array.from({ length: concurrency }, (_, slot) => slot);
    const warmUpPerSlot = Math.ceil(shape.warmUpCalls / concurrency);
    await Promise.all(slots.map(async () => repeat(warmUpPerSlot, caller)));
    const callsPerSlot = Math.ceil(shape.calls / concurrency);
    const latencies: number[] = [];
    let errors = 0;
    const cpuBefore = cpuMilliseconds(serverPid);
    const start = nowMicroseconds();
    await Promise.all(
      slots.map(() =>
        repeat(callsPerSlot, async () => {
          const before = nowMicroseconds();
          const ok = await caller().catch(() => false);
          latencies.push((nowMicroseconds() - before) / 1000);
          if (!ok) errors++;
          return ok;
        }),
      ),
    );
    const seconds = (nowMicroseconds() - start) / 1e6;
    const cpu = cpuMilliseconds(serverPid) - cpuBefore;
    points.push({
      concurrency,
      calls: latencies.length,
      p50Milliseconds: quantile(latencies, 0.5),
      p99Milliseconds: quantile(latencies, 0.99),
      callsPerSecond: latencies.length / seconds,
      serverCpuMilliseconds: serverPid === null ? null : cpu / latencies.length,
      errors,
    });
  }
  return points;
}

async function repeat(times: number, call: Caller): Promise<void> {
  for (let i = 0; i < times; i++) await call().catch(() => false);
}

async function toolLoad(job: Extract<DriverJob, { mode: 'load' }>): Promise<DriverResult> {
  const connection = await connect(job.era, job.server);
  try {
    const caller: Caller = async () => {
      const result = await connection.client.callTool({ name: job.read.name, arguments: job.read.arguments });
      return result.isError !== true;
    };
    return { mode: 'load', era: connection.era, points: await load(caller, job, connection.pid) };
  } finally {
    await connection.close();
  }
}

async function directLoad(job: Extract<DriverJob, { mode: 'direct' }>): Promise<DriverResult> {
  const headers = { Authorization: `token ${job.token}` };
  // Node's fetch keeps its connections alive, as the servers' own Gitea clients do.
  const caller: Caller = async () => {
    const response = await fetch(job.url, { headers });
    await response.arrayBuffer();
    return response.ok;
  };
  return { mode: 'direct', era: null, points: await load(caller, job, null) };
}

async function main(): Promise<void> {
  const job = JSON.parse(process.argv[2] ?? '') as DriverJob;
  const result =
    job.mode === 'startup'
      ? await startup(job.era, job.server)
      : job.mode === 'load'
        ? await toolLoad(job)
        : await directLoad(job);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
