// Call budgets across replicas: two namespaces of one profile, each with its own connection to one
// shared state store (a real PostgreSQL, and a SQLite file), count one window. A budget of 2 merges
// refuses the third wherever it is asked, says when the window frees, and the refused merge never
// reaches Gitea. Also: the store's compare-and-swap under concurrent takes, and a store that is down.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openBudgetDriver, SqlBudgetStore } from '../src/auth/budget-store.js';
import { judgeBudget } from '../src/policy/budgets.js';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { seedWithApprovedPulls } from './support/approved-pulls.js';
import { askingRound, callConfirmed } from './support/rounds.js';
import { answerToolCall } from '../src/server/call/pipeline.js';
import { loadNamespace } from '../src/server/namespace.js';
import type { Namespace } from '../src/server/session.js';
import { readSettings } from '../src/server/settings.js';
import { createLogger } from '../src/shared/logger.js';
import { packageRoot } from '../src/shared/paths.js';
import { startPostgres, type TestPostgres } from './support/postgres.js';
import { tempDir } from './support/namespace.js';

const WHERE = { owner: 'acme', repo: 'widgets' };
/** Pull requests 3, 4 and 5 of seedWithApprovedPulls(3): approved by bob, authored by alice. */
const PULLS = [3, 4, 5];

/** The merger profile with its merge budget cut to 2 an hour. */
function writeProfile(dir: string): string {
  const text = readFileSync(join(packageRoot, 'profiles', 'gitea-merger.yaml'), 'utf8').replace(
    /budgets:[\s\S]*$/,
    'budgets:\n  - { operations: [gitea.pr.merge], max: 2, per: 1h }\n',
  );
  const file = join(dir, 'gitea-merger.yaml');
  writeFileSync(file, text);
  return file;
}

interface Replicas {
  a: Namespace;
  b: Namespace;
  stores: SqlBudgetStore[];
}

async function replicas(sandbox: Sandbox, dir: string, store: string): Promise<Replicas> {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    GITEA_URL: sandbox.url,
    GITEA_MCP_PROFILE: writeProfile(dir),
    GITEA_MERGER_TOKEN: sandbox.users.carol?.token ?? '',
    TOOL_MODE: 'static',
  };
  const stores = [0, 1].map(() => new SqlBudgetStore(() => openBudgetDriver(store, env)));
  const open = async (name: string, budgets: SqlBudgetStore) => {
    const namespace = await loadNamespace(
      readSettings({}, { ...env, AUDIT_LOG: join(dir, `${name}.jsonl`) }),
      env,
      createLogger('silent'),
      { budgets },
    );
    await namespace.session.identity.settled();
    return namespace;
  };
  return { a: await open('a', stores[0]!), b: await open('b', stores[1]!), stores };
}

async function headOf(namespace: Namespace, index: number): Promise<string> {
  const pull = await callConfirmed(namespace, 'gitea_pulls_get', { ...WHERE, index });
  return (pull.structuredContent as { data: { head: { sha: string } } }).data.head.sha;
}

function merge(namespace: Namespace, index: number, head: string) {
  return callConfirmed(namespace, 'gitea_pulls_merge', {
    ...WHERE,
    index,
    body: { do: 'merge', head_commit_id: head },
  });
}

function mergeRequests(sandbox: Sandbox, index: number): number {
  return sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith(`/pulls/${index}/merge`)).length;
}

function resultEvents(dir: string, name: string): Array<Record<string, any>> {
  return (
    readFileSync(join(dir, `${name}.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, any>)
      // The round that asked the person (status asked) is not a merge that went anywhere.
      .filter((event) => event.phase === 'result' && event.tool === 'gitea_pulls_merge' && event.status !== 'asked')
  );
}

for (const kind of ['postgres', 'sqlite'] as const) {
  describe(`a budget of 2 merges an hour across two replicas sharing ${kind}`, () => {
    let pg: TestPostgres | undefined;
    let sandbox: Sandbox;
    let dir: ReturnType<typeof tempDir>;
    let two: Replicas;
    let storeSetting: string;

    before(async () => {
      dir = tempDir('warden-budget-');
      sandbox = await startSandbox({ seed: seedWithApprovedPulls(3) });
      let store = join(dir.path, 'state.sqlite');
      if (kind === 'postgres') {
        pg = await startPostgres();
        store = await pg.createDatabase('warden_budgets');
      }
      storeSetting = store;
      two = await replicas(sandbox, dir.path, store);
    });

    after(async () => {
      for (const namespace of [two.a, two.b]) await namespace.session.audit.close();
      for (const store of two.stores) await store.close();
      await sandbox.close();
      await pg?.stop();
      dir.dispose();
    });

    test('the third merge is refused before Gitea, on either replica, with when the window frees', async () => {
      const heads = await Promise.all(PULLS.map((n) => headOf(two.a, n)));
      const first = await merge(two.a, 3, heads[0]!);
      assert.equal(first.isError, false, JSON.stringify(first.structuredContent));
      const second = await merge(two.b, 4, heads[1]!);
      assert.equal(second.isError, false, JSON.stringify(second.structuredContent));

      const before = Date.now();
      for (const [replica, name] of [
        [two.a, 'a'],
        [two.b, 'b'],
      ] as const) {
        const third = await merge(replica, 5, heads[2]!);
        assert.equal(third.isError, true, `replica ${name}`);
        const error = (third.structuredContent as { error: Record<string, any> }).error;
        assert.equal(error.kind, 'budget_exceeded');
        assert.deepEqual(
          {
            operations: error.budget.operations,
            max: error.budget.max,
            per: error.budget.per,
            used: error.budget.used,
          },
          { operations: ['gitea.pr.merge'], max: 2, per: '1h', used: 2 },
        );
        assert.match(error.budget.entry, /gitea-merger\.yaml:\d+$/);
        // The window frees an hour after the first merge: later than now, within the hour.
        const frees = Date.parse(error.frees_at);
        assert.ok(frees > before && frees <= Date.now() + 3_600_000, error.frees_at);
        assert.ok(
          error.retry_after_seconds > 3_500 && error.retry_after_seconds <= 3_600,
          String(error.retry_after_seconds),
        );
        assert.match(error.message, /next call fits at/);
      }
      // Nobody is asked to confirm a merge the budget would refuse: the first round already says so.
      const firstRound = await answerToolCall(
        two.b,
        'gitea_pulls_merge',
        { ...WHERE, index: 5, body: { do: 'merge', head_commit_id: heads[2] } },
        askingRound(),
      );
      assert.equal(firstRound.ask, undefined, 'no question');
      assert.equal((firstRound.result.structuredContent as { error: { kind: string } }).error.kind, 'budget_exceeded');
      assert.equal(mergeRequests(sandbox, 5), 0, 'the refused merge never reached Gitea');
      assert.equal(mergeRequests(sandbox, 3) + mergeRequests(sandbox, 4), 2);
      const pull = await callConfirmed(two.a, 'gitea_pulls_get', { ...WHERE, index: 5 });
      assert.equal((pull.structuredContent as { data: { merged: boolean } }).data.merged, false);

      // The audit: the allowed merges carry their count, the refusal the budget and when it frees.
      const [allowedA, refusedA] = resultEvents(dir.path, 'a');
      assert.deepEqual(allowedA?.budgets, [
        { operations: ['gitea.pr.merge'], max: 2, per: '1h', used: 1, frees_at: null },
      ]);
      assert.equal(refusedA?.reason, 'budget_exceeded');
      assert.equal(refusedA?.status, 'denied');
      assert.equal(refusedA?.budgets?.[0]?.used, 2);
      assert.match(refusedA?.budgets?.[0]?.frees_at ?? '', /^\d{4}-\d\d-\d\dT/);
      assert.equal(resultEvents(dir.path, 'b')[0]?.budgets?.[0]?.used, 2, 'replica b counted the second merge');
    });

    test('concurrent takes on one window through separate connections never pass the max', async () => {
      const stores = [0, 1, 2, 3].map(() => new SqlBudgetStore(() => openBudgetDriver(storeSetting, {})));
      // Opened (and migrated) one by one: better-sqlite3 waits for a lock synchronously, so two migrations
      // in one thread would wait on each other; replicas are processes of their own.
      for (const store of stores) await store.read('race');
      const take = async (store: SqlBudgetStore): Promise<boolean> => {
        for (;;) {
          const window = await store.read('race');
          const judged = judgeBudget({ max: 7, perMs: 3_600_000 }, window.stamps, window.now);
          if (judged.over) return false;
          if (await store.swap('race', window.version, judged.next)) return true;
        }
      };
      // Each of four "replicas" tries 5 times at once; the window holds 7 whatever the interleaving.
      const results = await Promise.all(stores.flatMap((store) => [0, 1, 2, 3, 4].map(() => take(store))));
      assert.equal(results.filter(Boolean).length, 7);
      assert.equal((await stores[0]!.read('race')).stamps.length, 7);
      for (const store of stores) await store.close();
    });
  });
}

describe('a state store that is down', () => {
  test('a store that cannot be opened refuses the budgeted call (budget_unavailable), and nothing reaches Gitea', async () => {
    const dir = tempDir('warden-budget-down-');
    const sandbox = await startSandbox({ seed: seedWithApprovedPulls(3) });
    try {
      // A PostgreSQL URL on a port nobody listens on.
      const { a, b, stores } = await replicas(sandbox, dir.path, 'postgres://nobody:secret-pw@127.0.0.1:1/none');
      const head = await headOf(a, 3);
      const refused = await merge(a, 3, head);
      const error = (refused.structuredContent as { error: Record<string, any> }).error;
      assert.equal(error.kind, 'budget_unavailable');
      assert.doesNotMatch(JSON.stringify(refused), /secret-pw/);
      assert.equal(mergeRequests(sandbox, 3), 0);
      // A read counts against no budget and is not held up.
      assert.equal((await callConfirmed(a, 'gitea_pulls_get', { ...WHERE, index: 3 })).isError, false);
      for (const namespace of [a, b]) await namespace.session.audit.close();
      for (const store of stores) await store.close();
    } finally {
      await sandbox.close();
      dir.dispose();
    }
  });
});
