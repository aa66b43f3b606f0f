// Which signals the OTEL_* variables turn on: off unless asked for, and a value gitea-warden cannot
// honour stops start-up with a message naming the variable, rather than exporting somewhere else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { telemetryOn, telemetrySettings } from '../src/telemetry/otel-settings.js';

test('nothing set: both signals off', () => {
  const settings = telemetrySettings({});
  assert.equal(telemetryOn(settings), false);
  assert.deepEqual([settings.traces, settings.metrics], [[], []]);
});

test('an endpoint turns traces and metrics on, at its /v1/traces and /v1/metrics', () => {
  const settings = telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/' });
  assert.deepEqual([settings.traces, settings.metrics], [['otlp'], ['otlp']]);
  assert.equal(settings.tracesUrl, 'http://127.0.0.1:4318/v1/traces');
  assert.equal(settings.metricsUrl, 'http://127.0.0.1:4318/v1/metrics');
});

test('exporter variables choose per signal; none and OTEL_SDK_DISABLED turn off; prometheus means /metrics', () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
  assert.deepEqual(telemetrySettings({ ...endpoint, OTEL_METRICS_EXPORTER: 'none' }).metrics, []);
  assert.deepEqual(telemetrySettings({ ...endpoint, OTEL_METRICS_EXPORTER: 'prometheus' }).metrics, []);
  assert.deepEqual(telemetrySettings({ OTEL_TRACES_EXPORTER: 'console' }).traces, ['console']);
  assert.equal(telemetryOn(telemetrySettings({ ...endpoint, OTEL_SDK_DISABLED: 'true' })), false);
  const only = telemetrySettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector/v1/traces' });
  assert.deepEqual([only.traces, only.metrics, only.tracesUrl], [['otlp'], [], 'https://collector/v1/traces']);
});

test('values that cannot be honoured are refused with the variable named', () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, /OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported/],
    [{ ...endpoint, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }, /http\/protobuf is not supported/],
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, /OTEL_TRACES_EXPORTER=zipkin is not supported/],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, /needs OTEL_EXPORTER_OTLP_ENDPOINT/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, /must be an http\(s\) URL/],
    [{ OTEL_TRACES_SAMPLER: 'sometimes' }, /OTEL_TRACES_SAMPLER must be one of/],
    [{ OTEL_TRACES_SAMPLER_ARG: '2' }, /OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1/],
    [{ OTEL_BSP_SCHEDULE_DELAY: 'soon' }, /OTEL_BSP_SCHEDULE_DELAY must be a whole number/],
  ];
  for (const [env, message] of cases)
    assert.throws(() => telemetrySettings(env), { name: 'StartupError', message }, JSON.stringify(env));
});
