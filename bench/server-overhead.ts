// Item 3 of the benchmark: what the MCP server adds to one Gitea call, and the group-commit targets. The same read (get a
// repository) and the same write (comment on an issue) through tools/call over stdio and over
// streamable HTTP to the sandbox, against the same request sent straight to the sandbox with fetch.
// One namespace process per transport (profile gitea-author), started as installed (the bundled
// command), warmed up before each point; concurrency 16 is 16 HTTP clients on one server, 16 requests
// in flight on the one stdio client, 16 concurrent fetch loops.
import { catalogByOperationId } from '../src/catalog/load.js';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import {
  connectHttp,
  connectStdio,
  INSTALLED_BIN,
  namespaceEnv,
  spawnHttpNamespace,
  tempDir,
  type Connected,
} from '../test/support/namespace.js';
import { cpuMilliseconds } from './process-usage.js';
import { nowMicroseconds, overRounds, progress, quantile, round, type Spread } from './stats.js';

export const PROFILE = 'gitea-author';
/** The command as installed, not the TypeScript sources through tsx. */
export const INSTALLED_SERVE = [INSTALLED_BIN, 'serve'];
/** Calls made before each measured point, spread over its clients. */
export const WARM_UP_CALLS = 200;
const OWNER = 'acme';
const REPO = 'widgets';
const ISSUE = 3;
export const CONCURRENCY = [1, 16] as const;

export type CallKind = 'read' | 'write';
export type Path = 'direct fetch' | 'stdio' | 'streamable HTTP';

export interface OverheadPoint {
  kind: CallKind;
  path: Path;
  concurrency: number;
  calls: number;
  p50Milliseconds: Spread;
  p99Milliseconds: Spread;
  callsPerSecond: Spread;
  /** CPU time of the server process per call (user + system); null for direct fetch, which has none. */
  serverCpuMilliseconds: Spread | null;
  /**
   * Time per call the benchmark process's main thread was busy (event-loop utilization): the client
   * (MCP SDK or fetch) and the sandbox it runs. Its CPU time would also count GC and libuv threads.
   */
  benchBusyMilliseconds: Spread;
  errors: number;
}

export interface OverheadFigures {
  profile: string;
  read: string;
  write: string;
  points: OverheadPoint[];
  /** Per kind and concurrency: median p50/p99 of the transport minus that of direct fetch. */
  added: { kind: CallKind; path: Path; concurrency: number; p50Milliseconds: number; p99Milliseconds: number }[];
  /** The group-commit targets of issue 18, read off the points above. */
  targets: GroupCommitTarget[];
}

/** One target: what was measured, the figure, the bound, and whether the figure meets it. */
export interface GroupCommitTarget {
  measure: string;
  value: number;
  unit: '% of direct fetch' | 'ms';
  target: string;
  met: boolean;
  /**
   * Throughput only: the share the benchmark process itself allows, whatever the server does. Its
   * JavaScript runs on one thread, so it cannot drive more than 1000 / (its busy ms per call) calls/s.
   */
  ceiling?: number;
}

/** Throughput target: at least this share of direct fetch with 16 concurrent calls. */
export const MIN_THROUGHPUT_SHARE = 70;
/** Latency target: at most this much added p50 for one client over stdio. */
export const MAX_ADDED_P50_MS = 1;

/** One call: resolves true on success, false on an error answer. */
type Caller = () => Promise<boolean>;

/** Each round makes about `callsPerRound` calls, split across the concurrent clients. */
export async function benchServerOverhead(rounds: number, callsPerRound: number): Promise<OverheadFigures> {
  const sandbox = await startSandbox();
  const audit = tempDir('warden-bench-serve-');
  const env = namespaceEnv(sandbox, PROFILE, {
    auditLog: `${audit.path}/audit.jsonl`,
    extra: { RATE_LIMIT_PER_MINUTE: '10000000' },
  });
  const stdio = await connectStdio({ ...env, AUDIT_LOG: `${audit.path}/stdio.jsonl` }, INSTALLED_SERVE);
  const http = await spawnHttpNamespace({ ...env, AUDIT_LOG: `${audit.path}/http.jsonl` }, INSTALLED_SERVE);
  const httpClients: Connected[] = [];
  try {
    for (let i = 0; i < Math.max(...CONCURRENCY); i++) httpClients.push(await connectHttp(http.url));
    const points: OverheadPoint[] = [];
    for (const kind of ['read', 'write'] as const) {
      for (const concurrency of CONCURRENCY) {
        const paths: [Path, (client: number) => Caller, number | null][] = [
          ['direct fetch', () => directCaller(sandbox, kind), null],
          ['stdio', () => toolCaller(stdio, kind), stdio.pid ?? null],
          ['streamable HTTP', (client) => toolCaller(httpClients[client] as Connected, kind), http.child.pid ?? null],
        ];
        for (const [path, callerFor, serverPid] of paths) {
          progress(`server overhead: ${kind} via ${path}, ${concurrency} concurrent`);
          const callsPerClient = Math.ceil(callsPerRound / concurrency);
          points.push(await measure({ kind, path, concurrency, callsPerClient, rounds, callerFor, serverPid }));
        }
      }
    }
    const read = catalogByOperationId().get('repoGet')?.name ?? 'repoGet';
    const write = catalogByOperationId().get('issueCreateComment')?.name ?? 'issueCreateComment';
    const added = addedLatency(points);
    return { profile: PROFILE, read, write, points, added, targets: groupCommitTargets(points, added) };
  } finally {
    for (const client of httpClients) await client.close();
    await stdio.close();
    await http.close();
    await sandbox.close();
    audit.dispose();
  }
}

export interface PointSetup {
  kind: CallKind;
  path: Path;
  concurrency: number;
  callsPerClient: number;
  rounds: number;
  callerFor: (client: number) => Caller;
  /** The server process whose CPU time is read; null for direct fetch. */
  serverPid: number | null;
}

export async function measure(setup: PointSetup): Promise<OverheadPoint> {
  const { kind, path, concurrency, callsPerClient, rounds, callerFor, serverPid } = setup;
  const callers = Array.from({ length: concurrency }, (_, client) => callerFor(client));
  let errors = 0;
  // Warm-up: the JIT compiles the call path in the server (and the client) before anything is timed.
  const warmUpPerCaller = Math.ceil(WARM_UP_CALLS / concurrency);
  await Promise.all(
    callers.map(async (call) => {
      for (let i = 0; i < warmUpPerCaller; i++) await call();
    }),
  );
  const figures = await overRounds(rounds, async () => {
    const latencies: number[] = [];
    const loopBefore = performance.eventLoopUtilization();
    const serverCpuBefore = cpuMilliseconds(serverPid);
    const start = nowMicroseconds();
    await Promise.all(
      callers.map(async (call) => {
        for (let i = 0; i < callsPerClient; i++) {
          const before = nowMicroseconds();
          const ok = await call().catch(() => false);
          latencies.push((nowMicroseconds() - before) / 1000);
          if (!ok) errors++;
        }
      }),
    );
    const seconds = (nowMicroseconds() - start) / 1e6;
    const loop = performance.eventLoopUtilization(loopBefore);
    return {
      p50Milliseconds: quantile(latencies, 0.5),
      p99Milliseconds: quantile(latencies, 0.99),
      callsPerSecond: latencies.length / seconds,
      serverCpuMilliseconds: (cpuMilliseconds(serverPid) - serverCpuBefore) / latencies.length,
      benchBusyMilliseconds: loop.active / latencies.length,
    };
  });
  const { serverCpuMilliseconds, ...rest } = figures;
  return {
    kind,
    path,
    concurrency,
    calls: callsPerClient * concurrency * rounds,
    ...rest,
    serverCpuMilliseconds: serverPid === null ? null : serverCpuMilliseconds,
    errors,
  };
}

function directCaller(sandbox: Sandbox, kind: CallKind): Caller {
  const token = sandbox.users.alice?.token ?? '';
  const headers = { Authorization: `token ${token}`, 'Content-Type': 'application/json' };
  const base = `${sandbox.url}/api/v1/repos/${OWNER}/${REPO}`;
  return async () => {
    const response =
      kind === 'read'
        ? await fetch(base, { headers })
        : await fetch(`${base}/issues/${ISSUE}/comments`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ body: 'benchmark comment' }),
          });
    await response.arrayBuffer();
    return response.ok;
  };
}

export function toolCaller(connected: Connected, kind: CallKind): Caller {
  const byId = catalogByOperationId();
  const name = byId.get(kind === 'read' ? 'repoGet' : 'issueCreateComment')?.name as string;
  const args =
    kind === 'read'
      ? { owner: OWNER, repo: REPO }
      : { owner: OWNER, repo: REPO, index: ISSUE, body: { body: 'benchmark comment' } };
  return async () => {
    const result = await connected.client.callTool({ name, arguments: args });
    return result.isError !== true;
  };
}

function addedLatency(points: OverheadPoint[]): OverheadFigures['added'] {
  return points
    .filter((p) => p.path !== 'direct fetch')
    .map((p) => {
      const direct = points.find(
        (d) => d.path === 'direct fetch' && d.kind === p.kind && d.concurrency === p.concurrency,
      ) as OverheadPoint;
      return {
        kind: p.kind,
        path: p.path,
        concurrency: p.concurrency,
        p50Milliseconds: round(p.p50Milliseconds.median - direct.p50Milliseconds.median),
        p99Milliseconds: round(p.p99Milliseconds.median - direct.p99Milliseconds.median),
      };
    });
}

/**
 * With 16 concurrent calls over stdio and HTTP: calls/s as a share of direct fetch's (at least 70%);
 * for one client over stdio: added p50 (at most 1 ms). Both for the read and the write.
 */
export function groupCommitTargets(points: OverheadPoint[], added: OverheadFigures['added']): GroupCommitTarget[] {
  const targets: GroupCommitTarget[] = [];
  const busiest = Math.max(...CONCURRENCY);
  for (const kind of ['read', 'write'] as const) {
    const direct = points.find((p) => p.kind === kind && p.path === 'direct fetch' && p.concurrency === busiest);
    for (const path of ['stdio', 'streamable HTTP'] as const) {
      const point = points.find((p) => p.kind === kind && p.path === path && p.concurrency === busiest);
      if (!direct || !point) continue;
      const share = round((100 * point.callsPerSecond.median) / direct.callsPerSecond.median);
      const measure = `${kind}, ${busiest} concurrent, ${path}: throughput`;
      const ceiling = round((100 * 1000) / point.benchBusyMilliseconds.median / direct.callsPerSecond.median);
      targets.push({
        measure,
        value: share,
        unit: '% of direct fetch',
        target: `>= ${MIN_THROUGHPUT_SHARE}%`,
        met: share >= MIN_THROUGHPUT_SHARE,
        ...(Number.isFinite(ceiling) ? { ceiling } : {}),
      });
    }
    const single = added.find((a) => a.kind === kind && a.path === 'stdio' && a.concurrency === 1);
    if (single) {
      const measure = `${kind}, 1 client, stdio: added p50`;
      targets.push({
        measure,
        value: single.p50Milliseconds,
        unit: 'ms',
        target: `<= ${MAX_ADDED_P50_MS} ms`,
        met: single.p50Milliseconds <= MAX_ADDED_P50_MS,
      });
    }
  }
  return targets;
}
