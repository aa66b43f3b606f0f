// Discovery mode through the official MCP client: tools/list holds the built-in tools and the three
// discovery tools only; gitea_call_operation gives the generated tool's decisions, refusals, results
// and audit events over every catalog operation for every reference profile (allowed and denied),
// with only the tool name in the audit events differing; gitea_find_operations never returns an
// operation the profile cannot perform; gitea_describe_operation answers the full definition.
import { after, before, describe, test } from 'node:test';
import { Ajv } from 'ajv';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCatalog } from '../src/catalog/load.js';
import type { CatalogEntry, JsonSchema } from '../src/catalog/types.js';
import { loadPolicySet } from '../src/policy-files/policy-set.js';
import { loadProfile } from '../src/policy-files/profile-files.js';
import { API_PREFIX, startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { buildRouteTable, matchRoute } from '../src/catalog/routes.js';
import { decide } from '../src/policy/decide.js';
import { guardedOnlyDenial } from '../src/policy/guards/guarded-only.js';
import { fullDefinition } from '../src/server/tool-definitions.js';
import { connectInProcess, type InProcessConnection } from './support/in-process.js';
import { payloadOf, tempDir } from './support/namespace.js';
import { retrievalTasks } from './fixtures/retrieval-tasks.js';

const PROFILES = [
  'gitea-author',
  'gitea-reviewer',
  'gitea-merger',
  'gitea-reconciler',
  'gitea-issue-manager',
  'gitea-owner',
];
const DISCOVERY_TOOLS = ['gitea_find_operations', 'gitea_describe_operation', 'gitea_call_operation'];
const entries = loadCatalog().entries;
const dir = tempDir('warden-discovery-');
let sandbox: Sandbox;

before(async () => {
  sandbox = await startSandbox();
});

after(async () => {
  await sandbox.close();
  dir.dispose();
});

/** Another user's token for each profile: reads run as that user, and every mutation stops at the identity gate (mismatch). */
const OTHER_USER: Record<string, string> = {
  'gitea-author': 'bob',
  'gitea-reviewer': 'carol',
  'gitea-merger': 'dave',
  'gitea-reconciler': 'erin',
  'gitea-issue-manager': 'alice',
  'gitea-owner': 'alice',
};

/** Each reference profile's token_source_name. */
const TOKEN_VARIABLE: Record<string, string> = {
  'gitea-author': 'GITEA_AUTHOR_TOKEN',
  'gitea-reviewer': 'GITEA_REVIEWER_TOKEN',
  'gitea-merger': 'GITEA_MERGER_TOKEN',
  'gitea-reconciler': 'GITEA_RECONCILER_TOKEN',
  'gitea-issue-manager': 'GITEA_ISSUE_MANAGER_TOKEN',
  'gitea-owner': 'GITEA_OWNER_TOKEN',
};

/** A namespace of `profile` on the sandbox whose state no call can change, so both ways of calling see the same Gitea. */
function open(profile: string, name: string, extra: Record<string, string>): Promise<InProcessConnection> {
  const token = sandbox.users[OTHER_USER[profile] ?? '']?.token ?? '';
  const variable = TOKEN_VARIABLE[profile] ?? 'GITEA_TOKEN';
  return connectInProcess({
    GITEA_URL: sandbox.url,
    GITEA_MCP_PROFILE: profile,
    [variable]: token,
    AUDIT_LOG: join(dir.path, `${profile}-${name}.jsonl`),
    ...extra,
  });
}

/** The smallest arguments the schema accepts: required properties only, each the first value that fits. */
function sample(schema: JsonSchema, name = ''): unknown {
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'object' || schema.properties) {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const required = (schema.required ?? []) as string[];
    return Object.fromEntries(
      required.filter((key) => properties[key]).map((key) => [key, sample(properties[key] as JsonSchema, key)]),
    );
  }
  if (type === 'array') return [sample((schema.items ?? {}) as JsonSchema, name)];
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return false;
  if (schema.format === 'date-time') return '2026-01-01T00:00:00Z';
  if (schema.format === 'date') return '2026-01-01';
  if (name === 'owner' || name === 'org' || name === 'username') return 'acme';
  if (name === 'repo') return 'widgets';
  return 'main';
}

/** Audit events without what differs by construction: the tool name, the call id, the time and the chain. */
function auditEvents(file: string): Array<Record<string, unknown>> {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const {
        tool: _tool,
        call_id: _id,
        time: _time,
        hash: _hash,
        prev: _prev,
        seq: _seq,
        ...rest
      } = JSON.parse(line) as Record<string, unknown>;
      return rest;
    });
}

describe('discovery mode lists the built-in tools and three more', () => {
  for (const profile of PROFILES) {
    test(profile, async () => {
      const ns = await open(profile, 'list', { TOOL_MODE: 'discovery' });
      try {
        const names = (await ns.client.listTools()).tools.map((tool) => tool.name);
        for (const name of DISCOVERY_TOOLS) assert.ok(names.includes(name), name);
        const builtinNames = new Set(ns.namespace.session.builtins.map((tool) => tool.name));
        assert.deepEqual(
          names.filter((name) => !builtinNames.has(name)),
          [],
        );
        assert.ok(names.length <= 10, `${names.length} tools`);
      } finally {
        await ns.close();
      }
    });
  }
});

/** Calls every catalog operation both ways in one profile's two namespaces; the kinds of outcome seen. */
async function compareEveryOperation(profile: string): Promise<Set<string>> {
  // Static with every domain and every tool listed (denied ones too), so each generated tool can be called.
  const direct = await open(profile, 'direct', { TOOL_MODE: 'static', TOOLSETS: 'all', LIST_DENIED_TOOLS: 'true' });
  const discovery = await open(profile, 'discovery', { TOOL_MODE: 'discovery' });
  const outcomes = new Set<string>();
  try {
    for (const entry of entries) {
      const args = sample(entry.inputSchema) as Record<string, unknown>;
      const viaTool = await direct.client.callTool({ name: entry.name, arguments: args });
      const viaCall = await discovery.client.callTool({
        name: 'gitea_call_operation',
        arguments: { tool: entry.name, arguments: args },
      });
      assert.deepEqual(viaCall, viaTool, `${profile} ${entry.name}`);
      outcomes.add(payloadOf(viaTool)?.error?.kind ?? (viaTool.isError ? 'error' : 'ok'));
    }
  } finally {
    await direct.close();
    await discovery.close();
  }
  const [a, b] = [
    auditEvents(join(dir.path, `${profile}-direct.jsonl`)),
    auditEvents(join(dir.path, `${profile}-discovery.jsonl`)),
  ];
  assert.equal(a.length, entries.length * 2, profile);
  assert.deepEqual(b, a, profile);
  return outcomes;
}

test('gitea_call_operation and the generated tool give the same results and audit events for every operation and reference profile', async () => {
  // The profiles run side by side: most of the time is the audit log's fsync, which overlaps.
  const outcomes = await Promise.all(PROFILES.map(compareEveryOperation));
  // The premise of comparing results: nothing changed Gitea's state in between (only reads reached it, some of them POSTs).
  const routes = buildRouteTable(entries);
  const policy = loadPolicySet();
  const writes = sandbox.requests
    .map((request) => {
      const match = matchRoute(routes, request.method, request.path.slice(API_PREFIX.length));
      return match.ok
        ? policy.operationMap.byOperationId.get(match.entry.operationId)?.operation
        : `${request.method} ${request.path}`;
    })
    .filter((operation) => operation !== 'gitea.read');
  assert.deepEqual(writes, []);
  for (const [i, seen] of outcomes.entries()) {
    // The comparison covered allowed calls that reached Gitea as well as the policy's refusals.
    assert.ok(seen.has('policy_denied') && seen.has('ok'), `${PROFILES[i]}: ${[...seen].join(', ')}`);
  }
});

/** A repository, an unprotected branch and a source file: what any reference profile may touch. */
const ORDINARY_TARGETS = { repositories: ['acme/widgets'], branches: ['feature/x'], paths: ['src/x.ts'] };

describe('gitea_find_operations never returns an operation the profile cannot perform', () => {
  const policy = loadPolicySet();
  const queries = [
    ...retrievalTasks.map((task) => task.task),
    ...entries.map((entry) => entry.summary),
    'delete',
    'admin',
    'merge',
    'approve',
    'force',
  ];
  for (const profile of PROFILES) {
    test(profile, async () => {
      const compiled = loadProfile(profile, policy);
      const ns = await open(profile, 'find', { TOOL_MODE: 'discovery' });
      const context = ns.namespace.session.decideContext;
      const guardedOnly = ns.namespace.session.policy.guards.guarded_only;
      try {
        const returned = new Set<string>();
        for (const query of queries) {
          const payload = payloadOf(
            await ns.client.callTool({ name: 'gitea_find_operations', arguments: { query, limit: 25 } }),
          );
          for (const operation of payload.operations as Array<{ tool: string }>) returned.add(operation.tool);
        }
        assert.ok(returned.size > 20, `${returned.size} operations returned`);
        const byName = new Map(entries.map((entry) => [entry.name, entry]));
        for (const name of returned) {
          const entry = byName.get(name) as CatalogEntry;
          const mapping = policy.operationMap.byOperationId.get(entry.operationId);
          const primaries = [mapping?.operation, ...(mapping?.rules ?? []).map((rule) => rule.operation)].filter(
            (op): op is string => Boolean(op),
          );
          // Performable: some primary the lists allow (scopes and conditions narrow each call, not the operation),
          // and none that only a guarded tool may perform.
          const allowed = primaries.some(
            (operation) =>
              decide(compiled, { operations: [operation], targets: ORDINARY_TARGETS }, context).effect === 'allow' &&
              guardedOnlyDenial([operation], guardedOnly) === null,
          );
          assert.ok(allowed, `${profile}: find returned ${name}, which it cannot perform`);
        }
      } finally {
        await ns.close();
      }
    });
  }
});

describe('gitea_describe_operation', () => {
  test('answers the full definition of an offered operation and refuses one the profile cannot perform', async () => {
    const ns = await open('gitea-merger', 'describe', { TOOL_MODE: 'discovery' });
    try {
      const merge = entries.find((entry) => entry.name === 'gitea_pulls_merge') as CatalogEntry;
      const described = await ns.client.callTool({
        name: 'gitea_describe_operation',
        arguments: { tool: 'gitea_pulls_merge' },
      });
      assert.equal(described.isError, false);
      assert.deepEqual(payloadOf(described), JSON.parse(JSON.stringify(fullDefinition(merge))));
      const refused = await ns.client.callTool({
        name: 'gitea_describe_operation',
        arguments: { tool: 'gitea_pulls_create_review' },
      });
      assert.equal(refused.isError, true);
      assert.equal(payloadOf(refused).error.reason, 'operation_not_offered');
      const unknown = await ns.client.callTool({
        name: 'gitea_describe_operation',
        arguments: { tool: 'gitea_no_such_tool' },
      });
      assert.equal(payloadOf(unknown).error.reason, 'unknown_tool');
    } finally {
      await ns.close();
    }
  });
});

describe('the outputSchema of the full definition', () => {
  test('describes what calls really answer: a result, a refusal by the profile, an error from Gitea', async () => {
    const ns = await open('gitea-merger', 'output-schema', { TOOL_MODE: 'discovery' });
    try {
      const described = payloadOf(
        await ns.client.callTool({ name: 'gitea_describe_operation', arguments: { tool: 'gitea_repos_get' } }),
      );
      const valid = new Ajv({ strict: false }).compile(described.outputSchema);
      const call = async (tool: string, args: Record<string, unknown>) =>
        payloadOf(await ns.client.callTool({ name: 'gitea_call_operation', arguments: { tool, arguments: args } }));
      const answers = {
        result: await call('gitea_repos_get', { owner: 'acme', repo: 'widgets' }),
        'not found': await call('gitea_repos_get', { owner: 'acme', repo: 'no-such-repo' }),
        refusal: await call('gitea_repos_delete', { owner: 'acme', repo: 'widgets' }),
      };
      assert.equal(answers.result.status, 200);
      assert.ok(answers['not found'].error && answers.refusal.error, 'two errors of different origins');
      for (const [what, answer] of Object.entries(answers))
        assert.ok(valid(answer), `${what}: ${JSON.stringify(valid.errors)}`);
      // It is not a schema that takes anything.
      assert.equal(valid({ data: [] }), false);
    } finally {
      await ns.close();
    }
  });
});

describe('the mode in force', () => {
  test('gitea_server_status says which mode and why; an offered operation answers to its own tool name, others are unknown', async () => {
    const ns = await open('gitea-merger', 'status', {});
    try {
      const status = payloadOf(await ns.client.callTool({ name: 'gitea_server_status', arguments: {} }));
      assert.equal(status.tool_mode.requested, 'auto');
      assert.equal(status.tool_mode.mode, 'discovery');
      assert.match(
        status.tool_mode.reason,
        /static listing is \d+ tools, ~\d+ tokens, over the common client limits \(40 tools, 12000 tokens\)/,
      );
      // Not listed, but what find shows may be called by name: the same pipeline as gitea_call_operation.
      const direct = await ns.client.callTool({
        name: 'gitea_pulls_get',
        arguments: { owner: 'acme', repo: 'widgets', index: 1 },
      });
      assert.equal(direct.isError, false);
      await assert.rejects(
        ns.client.callTool({
          name: 'gitea_pulls_create_review',
          arguments: { owner: 'acme', repo: 'widgets', index: 1 },
        }),
        /Unknown tool/,
      );
    } finally {
      await ns.close();
    }
  });
});
