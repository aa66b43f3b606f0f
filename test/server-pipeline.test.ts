// The tools/call pipeline in process (no child processes): one namespace over the SDK's in-memory
// transport against the sandbox, reached through a relay the test can hold, so a call can be caught
// half way while another call switches the profile.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { payloadOf, repoRoot, tempDir } from './support/namespace.js';
import { startContractSandbox, type ContractSandbox } from './support/spec-contract.js';
import { connectInProcess, type InProcessConnection } from './support/in-process.js';

const where = { owner: 'acme', repo: 'widgets' };
const dir = tempDir('warden-pipeline-');
const auditLog = join(dir.path, 'audit.jsonl');
let sandbox: ContractSandbox;
let relay: Relay;
let client: InProcessConnection['client'];
let connection: InProcessConnection;
let listChanged = 0;

/** Forwards to the sandbox; a request whose path matches `hold` waits until the test releases it. */
interface Relay {
  url: string;
  hold(method: string, path: RegExp): { arrived: Promise<void>; release(): void };
  close(): Promise<void>;
}

function startRelay(target: string): Promise<Relay> {
  let held: { method: string; path: RegExp; arrive: () => void; released: Promise<void> } | null = null;
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const upstream = request(
      new URL(req.url ?? '/', target),
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  };
  const http: HttpServer = createServer((req, res) => {
    const catchIt = held !== null && req.method === held.method && held.path.test(req.url ?? '');
    if (!catchIt || held === null) return forward(req, res);
    const { arrive, released } = held;
    held = null;
    arrive();
    void released.then(() => forward(req, res));
  });
  return new Promise((resolve) => {
    http.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
        hold(method, path) {
          let arrive = () => {};
          let release = () => {};
          const arrived = new Promise<void>((r) => (arrive = r));
          const released = new Promise<void>((r) => (release = r));
          held = { method, path, arrive, released };
          return { arrived, release };
        },
        close: () => new Promise((r) => http.close(() => r())),
      });
    });
  });
}

function switchingConfig(): string {
  const identity = (name: string) => parse(readFileSync(join(repoRoot, 'profiles', `${name}.yaml`), 'utf8'));
  const file = join(dir.path, 'config.yaml');
  const identities = { author: identity('gitea-author'), reviewer: identity('gitea-reviewer') };
  writeFileSync(
    file,
    stringify({ allow_runtime_switching: true, environments: { sandbox: { services: { gitea: { identities } } } } }),
  );
  return file;
}

before(async () => {
  sandbox = await startContractSandbox();
  relay = await startRelay(sandbox.url);
  const env = {
    GITEA_URL: relay.url,
    GITEA_MCP_PROFILE: 'gitea-author',
    TOOL_MODE: 'static',
    GITEA_MCP_CONFIG: switchingConfig(),
    AUDIT_LOG: auditLog,
    GITEA_AUTHOR_TOKEN: sandbox.users.alice?.token ?? '',
    GITEA_REVIEWER_TOKEN: sandbox.users.bob?.token ?? '',
  };
  connection = await connectInProcess(env, (sdkClient) =>
    sdkClient.setNotificationHandler('notifications/tools/list_changed', () => {
      listChanged++;
    }),
  );
  ({ client } = connection);
});

after(async () => {
  await connection.close();
  await relay.close();
  await sandbox.close();
  dir.dispose();
});

interface Event {
  call_id: string;
  phase: string;
  tool: string;
  profile: string;
  login: string | null;
  reason: string | null;
}

function auditEvents(): Event[] {
  return readFileSync(auditLog, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Event);
}

describe('every way a call ends writes one write-ahead and one result event', () => {
  const secret = 'ghp_S3cretTokenValue0123456789abcdefXYZ';
  const cases: Array<[string, string, Record<string, unknown>, string]> = [
    ['invalid arguments', 'gitea_comments_create', { ...where, index: secret }, 'invalid_arguments'],
    [
      'denied by the profile',
      'gitea_api_request',
      { method: 'POST', path: '/repos/acme/widgets/pulls/1/merge', body: { do: 'merge' } },
      'forbidden',
    ],
    ['no route', 'gitea_api_request', { method: 'GET', path: '/nothing/here' }, 'no_route'],
    ['a read that runs', 'gitea_repos_get', where, 'allowed'],
    ['a built-in answer', 'gitea_whoami', {}, 'whoami'],
    ['a built-in refusal', 'gitea_resolve_task_capability', { task: 'launch_rockets' }, 'unknown_task'],
  ];
  for (const [name, tool, args, reason] of cases) {
    test(name, async () => {
      const before = auditEvents().length;
      await client.callTool({ name: tool, arguments: args });
      const events = auditEvents().slice(before);
      assert.deepEqual(
        events.map((e) => e.phase),
        ['write_ahead', 'result'],
        name,
      );
      assert.equal(events[0]?.call_id, events[1]?.call_id);
      if (reason !== 'allowed') assert.equal(events[1]?.reason, reason);
      assert.ok(!JSON.stringify(events).includes(secret));
    });
  }

  test('an unknown tool is a protocol error, audited all the same', async () => {
    const before = auditEvents().length;
    await assert.rejects(client.callTool({ name: 'gitea_no_such_tool', arguments: {} }), /Unknown tool/);
    assert.deepEqual(
      auditEvents()
        .slice(before)
        .map((e) => [e.phase, e.reason]),
      [
        ['write_ahead', null],
        ['result', 'unknown_tool'],
      ],
    );
  });
});

describe('invalid arguments', () => {
  test('no error message echoes a secret-looking value, whichever keyword fails', async () => {
    const secret = 'glpat-Sup3rS3cretValue0123456789';
    const results = await Promise.all([
      // enum (method), type (query value), unknown field
      client.callTool({
        name: 'gitea_api_request',
        arguments: {
          method: secret,
          path: '/repos/acme/widgets',
          query: { page: { nested: secret } },
          [secret]: secret,
        },
      }),
      // type (index, state), minLength/maxLength, unknown body field
      client.callTool({
        name: 'gitea_comments_create',
        arguments: { owner: '', repo: secret, index: secret, body: { body: 42, [`x${secret}`]: secret } },
      }),
      client.callTool({ name: 'gitea_activate_profile', arguments: { name: secret.repeat(10) } }),
      client.callTool({ name: 'gitea_resolve_task_capability', arguments: { task: { value: secret } } }),
    ]);
    for (const result of results) {
      const error = payloadOf(result).error;
      assert.equal(error.kind, 'invalid_arguments');
      assert.ok(error.errors.length > 0);
      for (const { message } of error.errors as Array<{ path: string; message: string }>)
        assert.ok(!message.includes(secret.slice(0, 12)), message);
    }
  });
});

describe('gitea_activate_profile', () => {
  test('a call already running keeps its profile and token; the client is told the tool list changed', async () => {
    const held = relay.hold('POST', /\/issues\/3\/comments$/);
    const running = client.callTool({
      name: 'gitea_comments_create',
      arguments: { ...where, index: 3, body: { body: 'written before the switch' } },
    });
    await held.arrived;
    const switched = payloadOf(
      await client.callTool({ name: 'gitea_activate_profile', arguments: { name: 'gitea-reviewer' } }),
    );
    assert.deepEqual([switched.profile, switched.login, switched.verified], ['gitea-reviewer', 'bob', true]);
    held.release();
    const comment = payloadOf(await running);
    assert.equal(comment.identity.login, 'alice');
    const callEvents = auditEvents()
      .filter((e) => e.tool === 'gitea_comments_create')
      .slice(-2);
    assert.deepEqual(
      callEvents.map((e) => [e.phase, e.profile, e.login]),
      [
        ['write_ahead', 'gitea-author', 'alice'],
        ['result', 'gitea-author', 'alice'],
      ],
    );
    assert.equal(
      sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/issues/3/comments')).at(-1)?.login,
      'alice',
    );

    assert.equal(listChanged, 1);
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('gitea_pulls_create_review') && !names.includes('gitea_pulls_create'));
    assert.equal(payloadOf(await client.callTool({ name: 'gitea_whoami', arguments: {} })).login, 'bob');
  });
});

test('every answer the sandbox gave in this file conforms to the pinned Gitea spec', () => {
  sandbox.assertConformed();
});
