// The OpenTelemetry SDK behind tracing.ts and metrics.ts, loaded (by start-telemetry.ts, with import()) only
// when OTEL_* variables turn a signal on: a namespace without them never loads a byte of it. The one
// module of the project that imports @opentelemetry/* besides the API types (ADR 0025).
import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes as OtelAttributes,
  type Counter,
  type Histogram,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import {
  ConsoleMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import type { MetricDefinition, MetricsRegistry } from './metrics.js';
import type { TelemetrySettings } from './otel-settings.js';
import type {
  Attributes,
  CallEnd,
  CallSpan,
  CallSpanStart,
  ClientRequestInfo,
  ClientRequestSpan,
  TraceCarrier,
  TracingBackend,
} from './tracing.js';

export interface OtelOptions {
  serviceVersion: string;
  /** Tests: spans go here (through a simple processor) instead of the configured exporters. */
  spanExporter?: SpanExporter;
}

export interface Otel {
  tracing: TracingBackend | null;
  shutdown(): Promise<void>;
}

const SCOPE = 'gitea-warden';

/** Builds the providers the settings ask for; attaches the metrics bridge to `registry`. */
export function startOtel(settings: TelemetrySettings, registry: MetricsRegistry, options: OtelOptions): Otel {
  const resource = resourceFor(options.serviceVersion);
  const spanExporters = options.spanExporter
    ? [options.spanExporter]
    : settings.traces.map((kind) => spanExporter(kind, settings));
  let tracing: TracingBackend | null = null;
  let provider: TracerProvider | null = null;
  if (spanExporters.length > 0) {
    const processors: SpanProcessor[] = options.spanExporter
      ? [new SimpleSpanProcessor({ exporter: options.spanExporter })]
      : spanExporters.map(
          (exporter) => new BatchSpanProcessor({ exporter, scheduledDelayMillis: settings.batchDelay }),
        );
    provider = new TracerProvider({ resource, sampler: samplerFor(settings.sampler), spanProcessors: processors });
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    tracing = new OtelTracing(provider);
  }
  let meters: MeterProvider | null = null;
  if (settings.metrics.length > 0) {
    meters = new MeterProvider({
      resource,
      readers: settings.metrics.map(
        (kind) =>
          new PeriodicExportingMetricReader({
            exporter: metricExporter(kind, settings),
            exportIntervalMillis: settings.metricInterval,
            exportTimeoutMillis: Math.min(30_000, settings.metricInterval),
          }),
      ),
    });
    registry.sink = new MeterBridge(meters);
  }
  return {
    tracing,
    async shutdown() {
      registry.sink = null;
      await Promise.allSettled([provider?.shutdown(), meters?.shutdown()]);
      context.disable();
    },
  };
}

function resourceFor(version: string): Resource {
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the defaults.
  const detected = detectResources({ detectors: [envDetector] });
  return resourceFromAttributes({ 'service.name': 'gitea-warden', 'service.version': version }).merge(detected);
}

function spanExporter(kind: 'otlp' | 'console', settings: TelemetrySettings): SpanExporter {
  return kind === 'console'
    ? new ConsoleSpanExporter()
    : new OTLPTraceExporter({ url: settings.tracesUrl ?? undefined });
}

function metricExporter(kind: 'otlp' | 'console', settings: TelemetrySettings): PushMetricExporter {
  return kind === 'console'
    ? new ConsoleMetricExporter()
    : new OTLPMetricExporter({ url: settings.metricsUrl ?? undefined });
}

function samplerFor({ name, ratio }: TelemetrySettings['sampler']): Sampler {
  const root = name.endsWith('always_off')
    ? new AlwaysOffSampler()
    : name.endsWith('traceidratio')
      ? new TraceIdRatioBasedSampler(ratio)
      : new AlwaysOnSampler();
  return name.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}

const carrierGetter: TextMapGetter<TraceCarrier> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

const headerSetter: TextMapSetter<Record<string, string>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

class OtelTracing implements TracingBackend {
  private readonly tracer;
  private readonly propagator = new W3CTraceContextPropagator();

  constructor(private readonly provider: TracerProvider) {
    this.tracer = provider.getTracer(SCOPE);
  }

  startCall(start: CallSpanStart): CallSpan {
    // The MCP conventions: the context the client put in params._meta is the parent.
    const parent = start.carrier
      ? this.propagator.extract(ROOT_CONTEXT, start.carrier, carrierGetter)
      : context.active();
    const span = this.tracer.startSpan(
      `${start.method} ${start.tool}`,
      { kind: SpanKind.SERVER, attributes: clean(start.attributes) },
      parent,
    );
    const active = trace.setSpan(parent, span);
    return {
      traceId: span.spanContext().traceId,
      run: (work) => context.with(active, work),
      end: (outcome: CallEnd) => endWith(span, outcome.attributes, outcome.errorType ?? null, outcome.message),
    };
  }

  stage<T>(name: string, work: () => T, attributes?: Attributes): T {
    const parent = context.active();
    const span = this.tracer.startSpan(name, attributes ? { attributes: clean(attributes) } : {}, parent);
    let result: T;
    try {
      result = context.with(trace.setSpan(parent, span), work);
    } catch (error) {
      endWith(span, {}, errorName(error));
      throw error;
    }
    if (result instanceof Promise)
      return result.then(
        (value: unknown) => {
          span.end();
          return value;
        },
        (error: unknown) => {
          endWith(span, {}, errorName(error));
          throw error;
        },
      ) as T;
    span.end();
    return result;
  }

  annotate(attributes: Attributes): void {
    trace.getActiveSpan()?.setAttributes(clean(attributes));
  }

  clientRequest(info: ClientRequestInfo): ClientRequestSpan {
    const parent = context.active();
    const method = info.method.toUpperCase();
    const port = info.url.port === '' ? (info.url.protocol === 'https:' ? 443 : 80) : Number(info.url.port);
    const span = this.tracer.startSpan(
      info.route ? `${method} ${info.route}` : method,
      {
        kind: SpanKind.CLIENT,
        attributes: clean({
          'http.request.method': method,
          'server.address': info.url.hostname,
          'server.port': port,
          'url.scheme': info.url.protocol.replace(/:$/, ''),
          'url.template': info.route,
        }),
      },
      parent,
    );
    const headers: Record<string, string> = {};
    this.propagator.inject(trace.setSpan(parent, span), headers, headerSetter);
    return {
      headers,
      end: (status, errorType) => {
        // HTTP client conventions: a status of 400 or more is an error, named by its code.
        const failed = errorType ?? (status !== null && status >= 400 ? String(status) : null);
        endWith(span, { 'http.response.status_code': status ?? undefined }, failed);
      },
    };
  }

  shutdown(): Promise<void> {
    return this.provider.shutdown();
  }
}

function endWith(span: Span, attributes: Attributes, errorType: string | null, message?: string): void {
  span.setAttributes(clean(attributes));
  if (errorType !== null) {
    span.setAttribute('error.type', errorType);
    span.setStatus({ code: SpanStatusCode.ERROR, ...(message ? { message } : {}) });
  }
  span.end();
}

/** The error's class name only: a message may quote arguments or Gitea's answer. */
function errorName(error: unknown): string {
  return error instanceof Error ? error.name : '_OTHER';
}

function clean(attributes: Attributes): OtelAttributes {
  const out: OtelAttributes = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== null && value !== undefined) out[key] = value;
  return out;
}

/** Forwards every record of the registry to an OpenTelemetry instrument of the same name, unit and buckets. */
class MeterBridge {
  private readonly meter;
  private readonly counters = new Map<string, Counter>();
  private readonly histograms = new Map<string, Histogram>();

  constructor(provider: MeterProvider) {
    this.meter = provider.getMeter(SCOPE);
  }

  record(metric: MetricDefinition, value: number, labels: Readonly<Record<string, string>>): void {
    const attributes: OtelAttributes = {};
    for (const [key, label] of Object.entries(labels)) if (label !== '') attributes[key] = label;
    if (metric.kind === 'counter') {
      let counter = this.counters.get(metric.name);
      if (!counter) {
        counter = this.meter.createCounter(metric.name, { unit: metric.unit, description: metric.help });
        this.counters.set(metric.name, counter);
      }
      counter.add(value, attributes);
      return;
    }
    let histogram = this.histograms.get(metric.name);
    if (!histogram) {
      histogram = this.meter.createHistogram(metric.name, {
        unit: metric.unit,
        description: metric.help,
        advice: { explicitBucketBoundaries: [...(metric.buckets ?? [])] },
      });
      this.histograms.set(metric.name, histogram);
    }
    histogram.record(value, attributes);
  }
}
