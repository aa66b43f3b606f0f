// Which OpenTelemetry signals are on, read from the standard OTEL_* variables. Off unless asked for:
// an exporter named (OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER) or an OTLP endpoint set. Only
// the SDK's OTLP/HTTP JSON exporters ship, so another protocol is refused at start-up rather than
// sent a body it cannot read.
import { StartupError } from '../shared/startup-error.js';

export type SignalExporter = 'otlp' | 'console';

export interface TelemetrySettings {
  traces: SignalExporter[];
  metrics: SignalExporter[];
  /** Where OTLP spans go: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces. */
  tracesUrl: string | null;
  metricsUrl: string | null;
  sampler: { name: string; ratio: number };
  /** OTEL_METRIC_EXPORT_INTERVAL, milliseconds. */
  metricInterval: number;
  /** OTEL_BSP_SCHEDULE_DELAY: how long spans wait to be sent in one batch, milliseconds. */
  batchDelay: number;
}

const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
];

/** Throws a StartupError for a value it cannot honour; a variable left unset keeps its signal off. */
export function telemetrySettings(env: NodeJS.ProcessEnv): TelemetrySettings {
  const disabled = /^true$/i.test(env.OTEL_SDK_DISABLED?.trim() ?? '');
  const base = nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  const tracesUrl = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) ?? (base ? joinPath(base, 'v1/traces') : null);
  const metricsUrl = nonEmpty(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT) ?? (base ? joinPath(base, 'v1/metrics') : null);
  const traces = disabled ? [] : exporters(env, 'OTEL_TRACES_EXPORTER', tracesUrl !== null);
  const metrics = disabled ? [] : exporters(env, 'OTEL_METRICS_EXPORTER', metricsUrl !== null);
  for (const [signal, list] of [
    ['TRACES', traces],
    ['METRICS', metrics],
  ] as const) {
    if (!list.includes('otlp')) continue;
    const protocol =
      nonEmpty(env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`]) ?? nonEmpty(env.OTEL_EXPORTER_OTLP_PROTOCOL);
    if (protocol !== null && protocol !== 'http/json')
      throw new StartupError(
        `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported: gitea-warden exports OTLP over HTTP as JSON; ` +
          'set http/json (collectors take it on port 4318)',
      );
    const url = signal === 'TRACES' ? tracesUrl : metricsUrl;
    if (url === null)
      throw new StartupError(
        `OTEL_${signal}_EXPORTER=otlp needs OTEL_EXPORTER_OTLP_ENDPOINT (e.g. http://127.0.0.1:4318) or OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`,
      );
    if (!/^https?:\/\//.test(url))
      throw new StartupError(`the OTLP ${signal.toLowerCase()} endpoint must be an http(s) URL`);
  }
  const samplerName = nonEmpty(env.OTEL_TRACES_SAMPLER) ?? 'parentbased_always_on';
  if (!SAMPLERS.includes(samplerName))
    throw new StartupError(`OTEL_TRACES_SAMPLER must be one of: ${SAMPLERS.join(', ')}`);
  const ratioText = nonEmpty(env.OTEL_TRACES_SAMPLER_ARG);
  const ratio = ratioText === null ? 1 : Number(ratioText);
  if (!(ratio >= 0 && ratio <= 1)) throw new StartupError('OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1');
  const metricInterval = milliseconds(env, 'OTEL_METRIC_EXPORT_INTERVAL', 60_000);
  const batchDelay = milliseconds(env, 'OTEL_BSP_SCHEDULE_DELAY', 5_000);
  return { traces, metrics, tracesUrl, metricsUrl, sampler: { name: samplerName, ratio }, metricInterval, batchDelay };
}

function milliseconds(env: NodeJS.ProcessEnv, variable: string, fallback: number): number {
  const text = nonEmpty(env[variable]);
  const value = text === null ? fallback : Number(text);
  if (!Number.isInteger(value) || value < 1 || value > 3_600_000)
    throw new StartupError(`${variable} must be a whole number of milliseconds from 1 to 3600000`);
  return value;
}

export function telemetryOn(settings: TelemetrySettings): boolean {
  return settings.traces.length > 0 || settings.metrics.length > 0;
}

function exporters(env: NodeJS.ProcessEnv, variable: string, endpointSet: boolean): SignalExporter[] {
  const raw = nonEmpty(env[variable]);
  if (raw === null) return endpointSet ? ['otlp'] : [];
  const names = raw.split(',').map((name) => name.trim().toLowerCase());
  const chosen = new Set<SignalExporter>();
  for (const name of names) {
    if (name === 'none') return [];
    // Prometheus is served by the HTTP transport's /metrics whatever this says.
    if (name === 'prometheus' && variable === 'OTEL_METRICS_EXPORTER') continue;
    if (name !== 'otlp' && name !== 'console')
      throw new StartupError(`${variable}=${name} is not supported: use otlp, console or none`);
    chosen.add(name);
  }
  return [...chosen];
}

function nonEmpty(value: string | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

function joinPath(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path}`;
}
