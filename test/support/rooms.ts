// The rooms of src/ and which rooms each may import: the one source of the "Rooms" table in
// docs/architecture.md (test/architecture.test.ts renders it and checks both the doc and every import).
export interface Room {
  name: string;
  job: string;
  /** The other rooms this room may import; `uses` says it for people. */
  mayImport: readonly string[];
  uses: string;
}

export const ROOMS: readonly Room[] = [
  {
    name: 'catalog',
    job: 'the spec → `tools.json` generator, the loader, tool naming, the route table',
    mayImport: ['shared'],
    uses: '`shared` (the project paths)',
  },
  {
    name: 'policy',
    job:
      '**pure**: normalization, operation map, compiled profiles, `decide`, scopes, conditions, ' +
      'guards as judges of facts, tasks, diff, migration, reasons',
    mayImport: ['catalog'],
    uses: '`catalog` types, packages that are pure (`micromatch`, `jsonpath-plus`)',
  },
  {
    name: 'shared',
    job:
      "generic pieces every shell room uses: the project's paths, YAML/JSON documents with " +
      'line numbers and their JSON Schema validation (ajv), the process logger, the start-up error, the tar format, ' +
      'what a loopback host name is',
    mayImport: [],
    uses: 'nothing of ours',
  },
  {
    name: 'telemetry',
    job:
      'traces and metrics: the tracing facade (a no-op until OTEL_* variables turn it on), the metrics registry and ' +
      'its Prometheus text, the OpenTelemetry SDK loaded only when configured; the one room that imports `@opentelemetry/*`',
    mayImport: ['shared'],
    uses: '`shared` (the start-up error)',
  },
  {
    name: 'policy-files',
    job:
      'the loader of `policies/` and `profiles/`: reads each file once with line numbers, ' +
      'validates it against its JSON Schema and the others, hands data to `policy`',
    mayImport: ['shared', 'policy', 'catalog'],
    uses: '`shared`, `policy`, `catalog`',
  },
  {
    name: 'gitea',
    job:
      'HTTP client, path encoding, executor, pagination, errors, redaction, bounds, envelope; ' +
      'fact gatherers and the reconciler actions',
    mayImport: ['catalog', 'policy', 'shared', 'telemetry'],
    uses: '`catalog`; `policy` **types** only; `shared` (the tar format); `telemetry` (the request span and its latency)',
  },
  {
    name: 'audit',
    job:
      'the hash-chained, group-committed JSON Lines log (file or PostgreSQL), signed checkpoints, ' +
      'and the verifier',
    mayImport: ['policy'],
    uses: '`policy` types',
  },
  {
    name: 'auth',
    job:
      'per-user OAuth without the SDK: clients (registered or by metadata document, fetched by ' +
      '`document-fetch.ts`, the one HTTP client outside `gitea`), consent page, tokens bound to a namespace ' +
      'and its profile, rotation, revocation, per-call verification and Gitea refresh; the confirmation page ' +
      'and its sign-in; the shared state store (tokens, spent confirmations, approvals)',
    mayImport: ['gitea', 'policy', 'shared', 'telemetry'],
    uses:
      '`gitea` (the upstream OAuth client), `policy` types and the approver rule, `shared` (loopback names), ' +
      '`telemetry` (token verifications)',
  },
  {
    name: 'server',
    job:
      'the MCP surface: registry, call stages, identity, built-in tools, namespace loading; ' +
      'the modules that import the MCP SDK (`sdk.ts`; `sdk-http.ts` and `sdk-client.ts`, loaded only where needed)',
    mayImport: ['catalog', 'policy', 'shared', 'policy-files', 'gitea', 'audit', 'telemetry', 'auth'],
    uses: 'everything above (`auth`: the state store, sealing, the confirmation page)',
  },
  {
    name: 'transports',
    job:
      "stdio and streamable HTTP in both protocol eras (the SDK's entries behind an express app), health, start-up checks, " +
      'request checks (Host, Origin, batch, rate), the OAuth endpoints over `auth` (our own, no SDK)',
    mayImport: ['server', 'auth', 'shared', 'telemetry'],
    uses: '`server` (`sdk.ts`, sessions), `auth`, `shared`, `telemetry` (`/metrics`), the SDK',
  },
  {
    name: 'sandbox',
    job: 'the stand-in Gitea for the demo and the tests',
    mayImport: ['catalog', 'shared'],
    uses: '`catalog` (the route table), `shared` (the tar format)',
  },
  {
    name: 'cli',
    job: 'one file per command, thin over the rooms',
    mayImport: [
      'catalog',
      'policy',
      'shared',
      'policy-files',
      'gitea',
      'audit',
      'auth',
      'server',
      'transports',
      'sandbox',
      'telemetry',
    ],
    uses: 'everything',
  },
];

export const ROOMS_BEGIN = '<!-- rooms: generated from test/support/rooms.ts -->';
export const ROOMS_END = '<!-- /rooms -->';

/** The Markdown table of docs/architecture.md, between ROOMS_BEGIN and ROOMS_END. */
export function renderRoomsTable(rooms: readonly Room[] = ROOMS): string {
  const rows = rooms.map((r) => `| \`src/${r.name}/\` | ${r.job} | ${r.uses} |`);
  return ['| folder | its one job | may import |', '|---|---|---|', ...rows].join('\n');
}
