// A small OTLP/HTTP receiver on loopback, as a collector would listen on 4318: it takes the JSON that
// OpenTelemetry's OTLP/HTTP exporters send to /v1/traces and /v1/metrics (gzip or not) and keeps the
// spans and metric names it was sent, flattened for assertions. Tests start it and stop it themselves.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  /** OTLP's numbers: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  startNs: bigint;
  endNs: bigint;
  /** The resource's attributes (service.name, ...). */
  resource: Record<string, string | number | boolean>;
}

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  /** Names of the metrics received. */
  metrics: Set<string>;
  /** Every body received, as text, for checks that nothing secret was sent. */
  bodies: string[];
  /** Resolves once `predicate` holds for the spans received (polling), or rejects after `timeoutMs`. */
  waitFor(predicate: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const metrics = new Set<string>();
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let raw = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
      const text = raw.toString('utf8');
      bodies.push(text);
      try {
        const body = JSON.parse(text) as Record<string, any>;
        if (req.url === '/v1/traces') spans.push(...flattenSpans(body));
        if (req.url === '/v1/metrics')
          for (const rm of body.resourceMetrics ?? [])
            for (const sm of rm.scopeMetrics ?? []) for (const m of sm.metrics ?? []) metrics.add(m.name);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    metrics,
    bodies,
    async waitFor(predicate, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(spans)) {
        if (Date.now() > deadline)
          throw new Error(`spans not received in time; have: ${spans.map((s) => s.name).join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return spans;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function flattenSpans(body: Record<string, any>): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const resource = attributesOf(rs.resource?.attributes ?? []);
    for (const ss of rs.scopeSpans ?? [])
      for (const span of ss.spans ?? [])
        out.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ? span.parentSpanId : null,
          name: span.name,
          kind: span.kind,
          attributes: attributesOf(span.attributes ?? []),
          statusCode: span.status?.code ?? 0,
          startNs: BigInt(span.startTimeUnixNano),
          endNs: BigInt(span.endTimeUnixNano),
          resource,
        });
  }
  return out;
}

function attributesOf(list: KeyValue[]): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list) {
    if (value.stringValue !== undefined) out[key] = value.stringValue;
    else if (value.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value.boolValue !== undefined) out[key] = value.boolValue;
    else if (value.doubleValue !== undefined) out[key] = value.doubleValue;
  }
  return out;
}

/** The children of a span, in the order they started. */
export function childrenOf(spans: readonly ReceivedSpan[], parent: ReceivedSpan): ReceivedSpan[] {
  return spans
    .filter((s) => s.traceId === parent.traceId && s.parentSpanId === parent.spanId)
    .sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0));
}

/** The span tree under `root` as indented lines `name [attr=value ...]`, for assertions and pictures. */
export function treeLines(spans: readonly ReceivedSpan[], root: ReceivedSpan, depth = 0): string[] {
  return [
    `${'  '.repeat(depth)}${root.name}`,
    ...childrenOf(spans, root).flatMap((child) => treeLines(spans, child, depth + 1)),
  ];
}
