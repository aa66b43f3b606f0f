// What OpenTelemetry tracing costs a call (issue 30): the same read and write through tools/call over
// streamable HTTP to two namespaces of the installed command, one without OTEL_* variables (tracing
// off: the SDK is never loaded) and one exporting every span to an OTLP receiver on loopback (tracing
// on, batch export as configured by default but for a short delay), measured alternately in one run.
// The off figures are the server overhead section's HTTP figures taken again: they should match.
// Runnable alone: `npm run bench -- --only-tracing` (writes over the last full run's results).
import { startSandbox } from '../src/sandbox/index.js';
import { connectHttp, namespaceEnv, spawnHttpNamespace, tempDir, type Connected } from '../test/support/namespace.js';
import { startOtlpReceiver } from '../test/support/otlp-receiver.js';
import { INSTALLED_SERVE, measure, PROFILE, toolCaller, type CallKind, type OverheadPoint } from './server-overhead.js';
import { progress, round } from './stats.js';

export type Tracing = 'off' | 'on';

export interface TracingPoint {
  tracing: Tracing;
  point: OverheadPoint;
}

export interface TracingFigures {
  profile: string;
  /** Spans the receiver got during the run (with tracing on), a check that it exported. */
  spansReceived: number;
  points: TracingPoint[];
  /** Per kind: on minus off, medians of p50, p99 and server CPU per call. */
  added: { kind: CallKind; p50Milliseconds: number; p99Milliseconds: number; serverCpuMilliseconds: number }[];
}

export async function benchTracing(rounds: number, callsPerRound: number): Promise<TracingFigures> {
  const sandbox = await startSandbox();
  const receiver = await startOtlpReceiver();
  const audit = tempDir('warden-bench-tracing-');
  const base = namespaceEnv(sandbox, PROFILE, {
    auditLog: `${audit.path}/off.jsonl`,
    extra: { RATE_LIMIT_PER_MINUTE: '10000000' },
  });
  const off = await spawnHttpNamespace(base, INSTALLED_SERVE);
  const on = await spawnHttpNamespace(
    {
      ...base,
      AUDIT_LOG: `${audit.path}/on.jsonl`,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '200',
    },
    INSTALLED_SERVE,
  );
  const clients: Connected[] = [];
  try {
    const offClient = await connectHttp(off.url);
    const onClient = await connectHttp(on.url);
    clients.push(offClient, onClient);
    const points: TracingPoint[] = [];
    for (const kind of ['read', 'write'] as const) {
      for (const [tracing, client, pid] of [
        ['off', offClient, off.child.pid],
        ['on', onClient, on.child.pid],
      ] as const) {
        progress(`tracing ${tracing}: ${kind} via streamable HTTP`);
        const point = await measure({
          kind,
          path: 'streamable HTTP',
          concurrency: 1,
          callsPerClient: callsPerRound,
          rounds,
          callerFor: () => toolCaller(client, kind),
          serverPid: pid ?? null,
        });
        points.push({ tracing, point });
      }
    }
    const added = (['read', 'write'] as const).map((kind) => {
      const of = (tracing: Tracing) =>
        points.find((p) => p.tracing === tracing && p.point.kind === kind)?.point as OverheadPoint;
      const [a, b] = [of('off'), of('on')];
      return {
        kind,
        p50Milliseconds: round(b.p50Milliseconds.median - a.p50Milliseconds.median),
        p99Milliseconds: round(b.p99Milliseconds.median - a.p99Milliseconds.median),
        serverCpuMilliseconds: round((b.serverCpuMilliseconds?.median ?? 0) - (a.serverCpuMilliseconds?.median ?? 0)),
      };
    });
    return { profile: PROFILE, spansReceived: receiver.spans.length, points, added };
  } finally {
    for (const client of clients) await client.close();
    await off.close();
    await on.close();
    await receiver.close();
    await sandbox.close();
    audit.dispose();
  }
}
