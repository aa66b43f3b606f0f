// The tracing facade the pipeline, the Gitea client and the audit sink call. Until OpenTelemetry is
// configured (otel.ts installs a backend at start-up, only when OTEL_* variables ask for it) every
// function here runs the work it is given and nothing else: no SDK is loaded, no context is kept.
// Span attributes are names and codes (tool, namespace, canonical operation, decision, reason,
// call_id, HTTP method and status): never an argument value, a path, a body or a token.

export type AttributeValue = string | number | boolean;
export type Attributes = Readonly<Record<string, AttributeValue | null | undefined>>;

/** The request's `params._meta`, where a client puts `traceparent` and `tracestate` (MCP semantic conventions). */
export type TraceCarrier = Readonly<Record<string, unknown>>;

export interface CallSpanStart {
  /** The MCP method, e.g. tools/call. */
  method: string;
  /** The tool name (gen_ai.tool.name); also the span name's target. */
  tool: string;
  attributes: Attributes;
  carrier?: TraceCarrier | undefined;
}

/** How a call ended, for its span: error.type when it failed (tool_error for an isError result). */
export interface CallEnd {
  attributes: Attributes;
  errorType?: string | null;
  message?: string;
}

export interface CallSpan {
  /** Runs `work` with this span as the parent of every span started inside it. */
  run<T>(work: () => Promise<T>): Promise<T>;
  end(outcome: CallEnd): void;
  /** The trace id (32 hex digits), or null when tracing is off. */
  readonly traceId: string | null;
}

export interface ClientRequestInfo {
  method: string;
  /** The route template when known (/repos/{owner}/{repo}/pulls/{index}/merge); never the filled-in path. */
  route?: string | undefined;
  url: URL;
}

export interface ClientRequestSpan {
  /** The `traceparent` (and `tracestate`) headers that carry this span onward. */
  headers: Record<string, string>;
  end(status: number | null, errorType: string | null): void;
}

/** What otel.ts provides once the SDK is loaded. */
export interface TracingBackend {
  startCall(start: CallSpanStart): CallSpan;
  stage<T>(name: string, work: () => T, attributes?: Attributes): T;
  annotate(attributes: Attributes): void;
  clientRequest(info: ClientRequestInfo): ClientRequestSpan;
  shutdown(): Promise<void>;
}

let backend: TracingBackend | null = null;

/** Called by otel.ts once the SDK is set up; null turns tracing off again (tests). */
export function installTracing(next: TracingBackend | null): void {
  backend = next;
}

export function tracingEnabled(): boolean {
  return backend !== null;
}

const OFF_CALL: CallSpan = { run: (work) => work(), end: () => undefined, traceId: null };

/** The span of one MCP request (kind SERVER), continuing the client's trace when it sent one. */
export function startCallSpan(start: CallSpanStart): CallSpan {
  return backend === null ? OFF_CALL : backend.startCall(start);
}

/** Runs one pipeline stage inside a child span named after it; sync or async work alike. */
export function traceStage<T>(name: string, work: () => T, attributes?: Attributes): T {
  return backend === null ? work() : backend.stage(name, work, attributes);
}

/** Adds attributes to the innermost active span (the call's decision once it is known, say). */
export function annotateSpan(attributes: Attributes): void {
  backend?.annotate(attributes);
}

const OFF_REQUEST: ClientRequestSpan = { headers: {}, end: () => undefined };

/** The span of one outgoing HTTP request (kind CLIENT) and the headers that carry it onward. */
export function startClientRequest(info: ClientRequestInfo): ClientRequestSpan {
  return backend === null ? OFF_REQUEST : backend.clientRequest(info);
}

/** Flushes and stops the exporters (at shutdown); nothing to do when tracing is off. */
export async function shutdownTracing(): Promise<void> {
  const current = backend;
  backend = null;
  await current?.shutdown();
}
