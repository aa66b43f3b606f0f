// Turns telemetry on at start-up when the OTEL_* variables ask for it: reads them (a StartupError
// for a value it cannot honour), then, and only then, loads the SDK (otel.ts) and installs it behind
// the tracing facade and the metrics registry. Off, it costs one look at the environment.
import { registry } from './instruments.js';
import type { OtelOptions } from './otel.js';
import { telemetryOn, telemetrySettings } from './otel-settings.js';
import { installTracing } from './tracing.js';

export interface Telemetry {
  /** What is exported, for the start-up log line. */
  traces: string[];
  metrics: string[];
  shutdown(): Promise<void>;
}

const OFF: Telemetry = { traces: [], metrics: [], shutdown: () => Promise.resolve() };

export async function startTelemetry(env: NodeJS.ProcessEnv, options: OtelOptions): Promise<Telemetry> {
  const settings = telemetrySettings(env);
  if (!telemetryOn(settings) && !options.spanExporter) return OFF;
  const { startOtel } = await import('./otel.js');
  const otel = startOtel(settings, registry, options);
  installTracing(otel.tracing);
  return {
    traces: options.spanExporter ? ['test'] : settings.traces,
    metrics: settings.metrics,
    async shutdown() {
      installTracing(null);
      await otel.shutdown();
    },
  };
}
