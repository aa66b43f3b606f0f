// gitea-warden's metrics, one registry per process (every namespace a process serves records into
// it, told apart by the `namespace` label). Names follow OpenTelemetry's semantic conventions where
// one exists (MCP server operations, HTTP client requests); the rest are gitea_warden.*. Labels hold
// names and codes only: never an argument value, a login's token or a repository's content.
import { MetricsRegistry } from './metrics.js';

export const registry = new MetricsRegistry();

/** The MCP semantic conventions' advice for mcp.server.operation.duration. */
const MCP_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
/** The HTTP semantic conventions' advice for http.client.request.duration. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
/** Appends and fsyncs take microseconds to milliseconds on a healthy disk. */
const DISK_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

export const calls = registry.define({
  kind: 'counter',
  name: 'gitea_warden.calls',
  unit: '{call}',
  help: 'tools/call requests by namespace, canonical operation, decision and reason code',
  labels: ['namespace', 'operation', 'decision', 'reason'],
});

export const callDuration = registry.define({
  kind: 'histogram',
  name: 'mcp.server.operation.duration',
  unit: 's',
  help: 'Duration of MCP requests as the server handled them',
  labels: ['mcp.method.name', 'gen_ai.tool.name', 'error.type'],
  buckets: MCP_BUCKETS,
});

export const giteaDuration = registry.define({
  kind: 'histogram',
  name: 'http.client.request.duration',
  unit: 's',
  help: 'Duration of requests to Gitea, by method and status (0 when no answer came)',
  labels: ['http.request.method', 'http.response.status_code', 'error.type'],
  buckets: HTTP_BUCKETS,
});

export const giteaErrors = registry.define({
  kind: 'counter',
  name: 'gitea_warden.gitea.errors',
  unit: '{request}',
  help: 'Requests to Gitea that failed: no answer (timeout, network_error, payload_too_large) or a 5xx status',
  labels: ['error.type'],
});

export const auditAppend = registry.define({
  kind: 'histogram',
  name: 'gitea_warden.audit.append.duration',
  unit: 's',
  help: 'Time from handing an audit event to the log until it is durable (fsynced or committed)',
  labels: ['sink'],
  buckets: DISK_BUCKETS,
});

export const auditFsync = registry.define({
  kind: 'histogram',
  name: 'gitea_warden.audit.fsync.duration',
  unit: 's',
  help: 'Time of one fsync of the audit log file (one group commit)',
  labels: [],
  buckets: DISK_BUCKETS,
});

export const tokenVerifications = registry.define({
  kind: 'counter',
  name: 'gitea_warden.token.verifications',
  unit: '{verification}',
  help: 'Per-user OAuth access tokens checked on MCP requests, by outcome',
  labels: ['outcome'],
});

export const rateLimitRefusals = registry.define({
  kind: 'counter',
  name: 'gitea_warden.rate_limit.refusals',
  unit: '{request}',
  help: 'MCP requests refused by the per-client rate limit (limit) or because its shared store did not answer',
  labels: ['reason'],
});

export const budgetRefusals = registry.define({
  kind: 'counter',
  name: 'gitea_warden.budget.refusals',
  unit: '{call}',
  help: 'Calls refused before Gitea because a call budget of the profile was spent (or its store did not answer)',
  labels: ['namespace', 'operation', 'reason'],
});

/** Seconds since `startMs` (performance.now() milliseconds). */
export function secondsSince(startMs: number): number {
  return (performance.now() - startMs) / 1000;
}
