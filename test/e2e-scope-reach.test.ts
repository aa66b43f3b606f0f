// Repository scopes over the routes that reach repositories without naming them, end to end: real
// `serve` namespaces over stdio, the MCP SDK client, the sandbox Gitea with every answer checked
// against the pinned spec. A profile scoped to acme/widgets sees nothing of acme/gadgets (nor of
// alice/dotfiles, erin/notes) through the user's notifications, stopwatches and tracked times, user- and organization-level
// Actions runs and jobs, packages, and markdown rendered in a repository's context; an unscoped
// profile sees everything, as before.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { catalogByOperationId } from '../src/catalog/load.js';
import {
  connectStdio,
  identityChecked,
  namespaceEnv,
  payloadOf,
  repoRoot,
  tempDir,
  type Connected,
} from './support/namespace.js';
import { arrangeReachWorld } from './support/reach-world.js';
import { startContractSandbox, type ContractSandbox } from './support/spec-contract.js';

const WIDGETS_PROFILE = join(repoRoot, 'profiles', 'examples', 'gitea-author-widgets.yaml');

/** The site admin, read-only and scoped to acme/widgets: the organization-level routes need an owner. */
const SCOPED_ADMIN = `profile_name: gitea-admin-widgets
role: reviewer
authenticated_username: admin
token_source_name: GITEA_OWNER_TOKEN
allowed_operations: [gitea.read]
can_approve_prs: false
can_merge_prs: false
can_push_branches: false
can_mutate_issues: false
can_author_impl_prs: false
repositories: [acme/widgets]
`;

let sandbox: ContractSandbox;
let dir: ReturnType<typeof tempDir>;
/** alice, scoped to acme/widgets. */
let widgets: Connected;
/** alice, the reference author: no repository scope. */
let author: Connected;
/** admin, scoped to acme/widgets. */
let scopedAdmin: Connected;
/** admin, the reference owner: no repository scope. */
let owner: Connected;

before(async () => {
  sandbox = await startContractSandbox();
  arrangeReachWorld(sandbox.state);
  dir = tempDir('warden-reach-');
  const scopedAdminFile = join(dir.path, 'gitea-admin-widgets.yaml');
  writeFileSync(scopedAdminFile, SCOPED_ADMIN);
  const all = { TOOLSETS: 'all' };
  [widgets, author, scopedAdmin, owner] = await Promise.all([
    connectStdio(
      namespaceEnv(sandbox, WIDGETS_PROFILE, {
        auditLog: join(dir.path, 'widgets.jsonl'),
        extra: { GITEA_AUTHOR_TOKEN: sandbox.users.alice?.token ?? '', ...all },
      }),
    ),
    connectStdio(namespaceEnv(sandbox, 'gitea-author', { auditLog: join(dir.path, 'author.jsonl'), extra: all })),
    connectStdio(
      namespaceEnv(sandbox, scopedAdminFile, {
        auditLog: join(dir.path, 'admin.jsonl'),
        extra: { GITEA_OWNER_TOKEN: sandbox.users.admin?.token ?? '', ...all },
      }),
    ),
    connectStdio(namespaceEnv(sandbox, 'gitea-owner', { auditLog: join(dir.path, 'owner.jsonl'), extra: all })),
  ]);
  await identityChecked(widgets, author, scopedAdmin, owner);
});
after(async () => {
  await Promise.all([widgets?.close(), author?.close(), scopedAdmin?.close(), owner?.close()]);
  await sandbox?.close();
  dir?.dispose();
});

function toolOf(operationId: string): string {
  const entry = catalogByOperationId().get(operationId);
  assert.ok(entry, operationId);
  return entry.name;
}

async function call(ns: Connected, operationId: string, args: Record<string, unknown>) {
  const before = sandbox.requests.length;
  const result = await ns.client.callTool({ name: toolOf(operationId), arguments: args });
  return { isError: result.isError === true, payload: payloadOf(result), requests: sandbox.requests.slice(before) };
}

/** The items of a listing: the array itself or the list inside Gitea's envelope. */
function itemsOf(data: unknown): unknown[] {
  if (Array.isArray(data)) return data;
  const record = data as Record<string, unknown>;
  return (record.workflow_runs ?? record.jobs) as unknown[];
}

interface Route {
  what: string;
  operationId: string;
  args: Record<string, unknown>;
  scoped: () => Connected;
  unscoped: () => Connected;
  /** Out of scope: what must never show in the scoped answer, and shows in the unscoped one. */
  outside: RegExp;
  /** In scope items the scoped profile keeps. */
  kept: number;
  /** Items the scoped profile loses. */
  removed: number;
}

const routes: Route[] = [
  {
    what: "the user's stopwatches",
    operationId: 'userGetStopWatches',
    args: {},
    scoped: () => widgets,
    unscoped: () => author,
    outside: /gadgets/,
    kept: 1,
    removed: 1,
  },
  {
    what: "the user's tracked times",
    operationId: 'userCurrentTrackedTimes',
    args: {},
    scoped: () => widgets,
    unscoped: () => author,
    outside: /gadgets/,
    kept: 1,
    removed: 1,
  },
  {
    what: "the user's Actions runs",
    operationId: 'getUserWorkflowRuns',
    args: {},
    scoped: () => widgets,
    unscoped: () => author,
    outside: /dotfiles/,
    kept: 0,
    removed: 1,
  },
  {
    what: "the user's Actions jobs",
    operationId: 'getUserWorkflowJobs',
    args: {},
    scoped: () => widgets,
    unscoped: () => author,
    outside: /dotfiles/,
    kept: 0,
    removed: 1,
  },
  {
    what: "the organization's Actions runs (they embed repositories)",
    operationId: 'getOrgWorkflowRuns',
    args: { org: 'acme' },
    scoped: () => scopedAdmin,
    unscoped: () => owner,
    outside: /gadgets/,
    kept: 1,
    removed: 1,
  },
  {
    what: "the organization's Actions jobs",
    operationId: 'getOrgWorkflowJobs',
    args: { org: 'acme' },
    scoped: () => scopedAdmin,
    unscoped: () => owner,
    outside: /gadgets/,
    kept: 1,
    removed: 1,
  },
  {
    what: "the user's notifications (one names its repository only in its subject URL)",
    operationId: 'notifyGetList',
    args: {},
    scoped: () => widgets,
    unscoped: () => author,
    outside: /gadgets|notes/,
    kept: 1,
    removed: 2,
  },
  {
    what: "the organization's packages (one unlinked)",
    operationId: 'listPackages',
    args: { owner: 'acme' },
    scoped: () => widgets,
    unscoped: () => author,
    outside: /gadgets|orphan/,
    kept: 1,
    removed: 2,
  },
];

describe('a profile scoped to acme/widgets sees nothing of another repository; an unscoped one sees everything', () => {
  for (const route of routes) {
    test(`${route.what}: ${route.removed} removed and counted, the rest kept`, async () => {
      const scoped = await call(route.scoped(), route.operationId, route.args);
      assert.equal(scoped.isError, false, JSON.stringify(scoped.payload));
      assert.equal(itemsOf(scoped.payload.data).length, route.kept, JSON.stringify(scoped.payload.data));
      assert.doesNotMatch(JSON.stringify(scoped.payload.data), route.outside);
      assert.equal(
        scoped.payload.pagination?.removed_by_scope,
        route.removed,
        JSON.stringify(scoped.payload.pagination),
      );
      assert.match(scoped.payload.scope_filtered, new RegExp(`^${route.removed} items outside`));

      const unscoped = await call(route.unscoped(), route.operationId, route.args);
      assert.equal(unscoped.isError, false, JSON.stringify(unscoped.payload));
      assert.equal(itemsOf(unscoped.payload.data).length, route.kept + route.removed);
      assert.match(JSON.stringify(unscoped.payload.data), route.outside);
      assert.equal(unscoped.payload.pagination?.removed_by_scope, undefined);
      assert.equal(unscoped.payload.scope_filtered, undefined);
    });
  }

  test('the raw tool reaches the same operations and is filtered the same way', async () => {
    const before = sandbox.requests.length;
    const result = await widgets.client.callTool({
      name: 'gitea_api_request',
      arguments: { method: 'GET', path: '/user/times' },
    });
    const payload = payloadOf(result);
    assert.equal(result.isError === true, false, JSON.stringify(payload));
    // One request for the operation (integrity labels may read their authors' standings besides).
    assert.equal(sandbox.requests.slice(before).filter((r) => r.path === '/api/v1/user/times').length, 1);
    assert.equal(payload.data.length, 1);
    assert.doesNotMatch(JSON.stringify(payload.data), /gadgets/);
    assert.equal(payload.pagination?.removed_by_scope, 1);
  });

  test('one package: in scope it is shown, linked elsewhere it is withheld', async () => {
    const at = (name: string) => ({ owner: 'acme', type: 'npm', name, version: '1.0.0' });
    const mine = await call(widgets, 'getPackage', at('widgets-lib'));
    assert.equal(mine.isError, false, JSON.stringify(mine.payload));
    assert.equal(mine.payload.data.repository.full_name, 'acme/widgets');
    for (const name of ['gadgets-lib', 'orphan-lib']) {
      const other = await call(widgets, 'getPackage', at(name));
      assert.equal(other.isError, true, name);
      assert.equal(other.payload.error.kind, 'result_withheld');
      assert.equal(other.payload.error.reason, 'repository_out_of_scope');
      assert.doesNotMatch(JSON.stringify(other.payload), /gadgets-lib|orphan-lib"/);
    }
    assert.equal(
      (await call(author, 'getPackage', at('gadgets-lib'))).payload.data.repository.full_name,
      'acme/gadgets',
    );
  });

  test('markdown in the context of another repository is refused before it is sent; its own and none are rendered', async () => {
    const text = 'See #1.';
    const other = await call(widgets, 'renderMarkdown', {
      body: { Text: text, Mode: 'gfm', Context: '/acme/gadgets/src/branch/main' },
    });
    assert.equal(other.isError, true);
    assert.equal(other.payload.error.kind, 'policy_denied');
    assert.equal(other.payload.error.reason, 'repository_out_of_scope');
    assert.deepEqual(other.requests, [], 'the render reached the sandbox');

    const own = await call(widgets, 'renderMarkdown', { body: { Text: text, Mode: 'gfm', Context: '/acme/widgets' } });
    assert.equal(own.isError, false, JSON.stringify(own.payload));
    assert.match(String(own.payload.data), /acme\/widgets\/issues\/1/);
    const none = await call(widgets, 'renderMarkdown', { body: { Text: text } });
    assert.equal(none.isError, false, JSON.stringify(none.payload));

    const unscoped = await call(author, 'renderMarkdown', {
      body: { Text: text, Mode: 'gfm', Context: '/acme/gadgets' },
    });
    assert.equal(unscoped.isError, false, JSON.stringify(unscoped.payload));
    assert.match(String(unscoped.payload.data), /acme\/gadgets\/issues\/1/);
  });
});

test('every answer the sandbox gave in this file conforms to the pinned Gitea spec', () => {
  sandbox.assertConformed();
});
