// The process's metrics: counters and histograms with a fixed set of label names, kept in memory
// whatever else is configured (a few map updates per call), rendered as Prometheus text for /metrics
// and, when OpenTelemetry metrics are on, forwarded to its instruments as they are recorded (otel.ts).
// Written here rather than taken from prom-client: the bridge to OpenTelemetry needs every record,
// and the Prometheus text format for two instrument kinds is a page (ADR 0025).

export type Labels = Readonly<Record<string, string>>;

/** Where each record goes besides this registry (the OpenTelemetry meter); set once tracing starts. */
export interface MetricSink {
  record(metric: MetricDefinition, value: number, labels: Labels): void;
}

export interface MetricDefinition {
  kind: 'counter' | 'histogram';
  /** The OpenTelemetry name (dots), e.g. http.client.request.duration. */
  name: string;
  /** UCUM unit: `s` for seconds, `1` or `{call}` for counts. */
  unit: string;
  help: string;
  /** Label names, in the order they are rendered; every record names each (empty string when none applies). */
  labels: readonly string[];
  /** Upper bounds of the buckets, ascending (histograms only). */
  buckets?: readonly number[];
}

interface Series {
  labels: Labels;
  /** Counter: the count. Histogram: the sum. */
  value: number;
  count: number;
  /** Histogram: observations at or below each bound (not cumulative; made so when rendered). */
  buckets: number[];
}

export class Metric {
  private readonly series = new Map<string, Series>();
  readonly prometheusName: string;

  constructor(
    readonly definition: MetricDefinition,
    private readonly registry: MetricsRegistry,
  ) {
    this.prometheusName = prometheusName(definition);
  }

  /** A counter's increment, or a histogram's observation. Negative or non-finite values are dropped. */
  record(value: number, labels: Labels): void {
    if (!Number.isFinite(value) || value < 0) return;
    const key = this.definition.labels.map((name) => labels[name] ?? '').join('\u0000');
    let series = this.series.get(key);
    if (series === undefined) {
      const own: Record<string, string> = {};
      for (const name of this.definition.labels) own[name] = labels[name] ?? '';
      series = { labels: own, value: 0, count: 0, buckets: (this.definition.buckets ?? []).map(() => 0) };
      this.series.set(key, series);
    }
    series.value += value;
    series.count += 1;
    const bounds = this.definition.buckets;
    if (bounds) {
      const index = bounds.findIndex((bound) => value <= bound);
      if (index >= 0) series.buckets[index] = (series.buckets[index] ?? 0) + 1;
    }
    this.registry.sink?.record(this.definition, value, labels);
  }

  /** The value of one series (a counter's count, a histogram's number of observations), for tests and status. */
  valueOf(labels: Labels): number {
    const key = this.definition.labels.map((name) => labels[name] ?? '').join('\u0000');
    const series = this.series.get(key);
    if (!series) return 0;
    return this.definition.kind === 'counter' ? series.value : series.count;
  }

  render(): string[] {
    const name = this.prometheusName;
    const type = this.definition.kind === 'counter' ? 'counter' : 'histogram';
    const lines = [`# HELP ${name} ${escapeHelp(this.definition.help)}`, `# TYPE ${name} ${type}`];
    const base = this.definition.kind === 'counter' ? name : null;
    for (const series of this.series.values()) {
      if (base !== null) {
        lines.push(`${base}${labelText(series.labels)} ${formatNumber(series.value)}`);
        continue;
      }
      let cumulative = 0;
      (this.definition.buckets ?? []).forEach((bound, index) => {
        cumulative += series.buckets[index] ?? 0;
        lines.push(`${name}_bucket${labelText(series.labels, ['le', formatNumber(bound)])} ${cumulative}`);
      });
      lines.push(`${name}_bucket${labelText(series.labels, ['le', '+Inf'])} ${series.count}`);
      lines.push(`${name}_sum${labelText(series.labels)} ${formatNumber(series.value)}`);
      lines.push(`${name}_count${labelText(series.labels)} ${series.count}`);
    }
    return lines;
  }
}

export class MetricsRegistry {
  private readonly metrics: Metric[] = [];
  sink: MetricSink | null = null;

  define(definition: MetricDefinition): Metric {
    const metric = new Metric(definition, this);
    this.metrics.push(metric);
    return metric;
  }

  definitions(): readonly MetricDefinition[] {
    return this.metrics.map((metric) => metric.definition);
  }

  /** The Prometheus text exposition format (version 0.0.4) of every metric. */
  render(): string {
    return `${this.metrics.flatMap((metric) => metric.render()).join('\n')}\n`;
  }
}

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * The Prometheus name of an OpenTelemetry metric, as OpenTelemetry's Prometheus exporter spells it:
 * characters outside [a-zA-Z0-9_:] become `_`, the unit is appended (`_seconds`), counters end in `_total`.
 */
export function prometheusName(definition: Pick<MetricDefinition, 'name' | 'unit' | 'kind'>): string {
  let name = sanitize(definition.name);
  const unit = definition.unit === 's' ? 'seconds' : null;
  if (unit && !name.endsWith(`_${unit}`)) name = `${name}_${unit}`;
  if (definition.kind === 'counter' && !name.endsWith('_total')) name = `${name}_total`;
  return name;
}

function sanitize(name: string): string {
  return name.replace(/[^a-zA-Z0-9_:]/g, '_').replace(/^[^a-zA-Z_:]/, '_');
}

function labelText(labels: Labels, extra?: [string, string]): string {
  const pairs = Object.entries(labels).map(([key, value]) => `${sanitize(key)}="${escapeLabel(value)}"`);
  if (extra) pairs.push(`${extra[0]}="${extra[1]}"`);
  return pairs.length === 0 ? '' : `{${pairs.join(',')}}`;
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function escapeHelp(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function formatNumber(value: number): string {
  if (value === Infinity) return '+Inf';
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(12)));
}
