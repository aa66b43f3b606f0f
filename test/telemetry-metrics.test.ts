// The metrics registry and its Prometheus text: what a scraper reads must parse as the exposition
// format says, with cumulative buckets, escaped label values and OpenTelemetry's name mapping.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MetricsRegistry, prometheusName } from '../src/telemetry/metrics.js';

test('a counter renders one line per label set, named as the OpenTelemetry Prometheus exporter names it', () => {
  const registry = new MetricsRegistry();
  const calls = registry.define({
    kind: 'counter',
    name: 'gitea_warden.calls',
    unit: '{call}',
    help: 'calls',
    labels: ['operation', 'decision'],
  });
  calls.record(1, { operation: 'gitea.pr.merge', decision: 'allow' });
  calls.record(1, { operation: 'gitea.pr.merge', decision: 'allow' });
  calls.record(1, { operation: 'gitea.pr.merge', decision: 'deny' });
  assert.equal(
    registry.render(),
    [
      '# HELP gitea_warden_calls_total calls',
      '# TYPE gitea_warden_calls_total counter',
      'gitea_warden_calls_total{operation="gitea.pr.merge",decision="allow"} 2',
      'gitea_warden_calls_total{operation="gitea.pr.merge",decision="deny"} 1',
      '',
    ].join('\n'),
  );
  assert.equal(calls.valueOf({ operation: 'gitea.pr.merge', decision: 'allow' }), 2);
});

test('a histogram renders cumulative buckets, +Inf, sum and count; dotted label names become underscores', () => {
  const registry = new MetricsRegistry();
  const duration = registry.define({
    kind: 'histogram',
    name: 'http.client.request.duration',
    unit: 's',
    help: 'latency',
    labels: ['http.request.method'],
    buckets: [0.1, 1],
  });
  for (const value of [0.05, 0.5, 0.7, 3]) duration.record(value, { 'http.request.method': 'GET' });
  assert.deepEqual(registry.render().split('\n').slice(2, 7), [
    'http_client_request_duration_seconds_bucket{http_request_method="GET",le="0.1"} 1',
    'http_client_request_duration_seconds_bucket{http_request_method="GET",le="1"} 3',
    'http_client_request_duration_seconds_bucket{http_request_method="GET",le="+Inf"} 4',
    'http_client_request_duration_seconds_sum{http_request_method="GET"} 4.25',
    'http_client_request_duration_seconds_count{http_request_method="GET"} 4',
  ]);
});

test('label values are escaped; negative and non-finite records are dropped', () => {
  const registry = new MetricsRegistry();
  const counter = registry.define({ kind: 'counter', name: 'x', unit: '1', help: 'a\\b\nc', labels: ['v'] });
  counter.record(1, { v: 'quote " backslash \\ newline \n' });
  counter.record(-1, { v: 'dropped' });
  counter.record(Number.NaN, { v: 'dropped' });
  assert.equal(
    registry.render(),
    '# HELP x_total a\\\\b\\nc\n# TYPE x_total counter\nx_total{v="quote \\" backslash \\\\ newline \\n"} 1\n',
  );
});

test('names: a unit of seconds is appended once, counters end in _total once', () => {
  assert.equal(prometheusName({ name: 'a.b.duration', unit: 's', kind: 'histogram' }), 'a_b_duration_seconds');
  assert.equal(prometheusName({ name: 'x_seconds', unit: 's', kind: 'histogram' }), 'x_seconds');
  assert.equal(prometheusName({ name: 'refusals_total', unit: '1', kind: 'counter' }), 'refusals_total');
});

test('every record also reaches the sink (the OpenTelemetry bridge) with its labels', () => {
  const registry = new MetricsRegistry();
  const seen: Array<[string, number, Record<string, string>]> = [];
  registry.sink = { record: (metric, value, labels) => seen.push([metric.name, value, { ...labels }]) };
  registry.define({ kind: 'counter', name: 'c', unit: '1', help: 'c', labels: ['k'] }).record(2, { k: 'v' });
  assert.deepEqual(seen, [['c', 2, { k: 'v' }]]);
});
