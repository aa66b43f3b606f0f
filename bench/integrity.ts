// The added cost of integrity labels per call: labelling a 100-item issue list against the sandbox
// (real HTTP on loopback), with the per-call fact cache doing its work (5 distinct authors) and
// without it helping (100 distinct authors, one lookup each), beside the pure labelling alone; and
// the cost of the taint store's read before each write (the shared store, SQLite in a file here).
// Run standalone: node --import tsx bench/integrity.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { openSqlite } from '../src/auth/sqlite-driver.js';
import { SqlTaintStore } from '../src/auth/taint-store.js';
import { loadCatalog } from '../src/catalog/load.js';
import { loadPolicySet } from '../src/policy-files/policy-set.js';
import { GiteaHttpClient } from '../src/gitea/http.js';
import { compileIntegrity, type IntegrityData } from '../src/policy/integrity.js';
import { judgeTaint, readRecords, stateOf } from '../src/policy/integrity-taint.js';
import { findItems, labelFound } from '../src/policy/integrity-walk.js';
import { defaultSeed, startSandbox, type SandboxSeed } from '../src/sandbox/index.js';
import { labelAnswer } from '../src/server/integrity-labels.js';
import { quantile, round } from './stats.js';

export interface IntegrityBenchFigures {
  items: number;
  calls: number;
  /** Median milliseconds per call for each case. */
  pureMs: number;
  cachedMs: number;
  cachedLookups: number;
  uncachedMs: number;
  uncachedLookups: number;
  /** Median milliseconds of the taint store's read and judgement before one write. */
  taintReadMs: number;
  /** Records that read returns (repositories read, untrusted items, private repositories). */
  taintRecords: number;
}

const ITEMS = 100;
/** The repository of the bench is in the profile's trust domain, so every standing is read as it was before. */
const DOMAIN: IntegrityData = { min_level: 'write', trusted_orgs: ['acme'] };

function seedWith(authors: number): SandboxSeed {
  const seed = defaultSeed();
  for (let i = 0; i < authors; i++) seed.users.push({ login: `user${i}` });
  seed.repos.push({
    owner: 'acme',
    name: 'busy',
    branches: [{ name: 'main', commits: [{ message: 'init', author: 'admin', files: { 'README.md': '#\n' } }] }],
    issues: Array.from({ length: ITEMS }, (_, n) => ({
      title: `Issue ${n}`,
      body: 'Steps: open the page.',
      author: `user${n % authors}`,
    })),
  });
  return seed;
}

async function timeCase(authors: number, calls: number): Promise<{ ms: number; lookups: number }> {
  const sandbox = await startSandbox({ seed: seedWith(authors) });
  try {
    const entry = loadCatalog().entries.find((e) => e.operationId === 'issueListIssues');
    if (!entry) throw new Error('issueListIssues is not in the catalog');
    const client = new GiteaHttpClient({ baseUrl: sandbox.url, token: sandbox.users.admin?.token ?? '' });
    const args = { owner: 'acme', repo: 'busy', type: 'issues', limit: 50 };
    const list = await client.get('/repos/acme/busy/issues', { type: 'issues', limit: 50, page: 1 });
    const list2 = await client.get('/repos/acme/busy/issues', { type: 'issues', limit: 50, page: 2 });
    const data = [...(list.data as unknown[]), ...(list2.data as unknown[])];
    const catalog = loadPolicySet().integrity;
    const settings = compileIntegrity({ ...DOMAIN, below: 'withhold' });
    const samples: number[] = [];
    let lookups = 0;
    for (let i = 0; i < calls; i++) {
      const started = performance.now();
      const labelled = await labelAnswer({ catalog, settings, entry, args, data, reader: client, self: null });
      samples.push(performance.now() - started);
      lookups = labelled?.lookups ?? 0;
    }
    return { ms: round(quantile(samples, 0.5)), lookups };
  } finally {
    await sandbox.close();
  }
}

function pureCase(calls: number): number {
  const catalog = loadPolicySet().integrity;
  const settings = compileIntegrity({ ...DOMAIN, below: 'fence', trusted_users: ['bob'] });
  const data = Array.from({ length: ITEMS }, (_, n) => ({
    number: n,
    user: { login: n % 2 ? 'bob' : 'eve' },
    title: 't',
    body: 'Steps: open the page.',
  }));
  const context = { repository: 'acme/busy', vouched: false, self: null };
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    const found = findItems(catalog, 'issueListIssues', data, context);
    labelFound(found, data, settings, new Map(), context);
    samples.push(performance.now() - started);
  }
  return round(quantile(samples, 0.5));
}

/** A principal that read 20 repositories and one untrusted item; each write first reads and judges all of it. */
async function taintCase(calls: number): Promise<{ ms: number; records: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'warden-bench-taint-'));
  const driver = openSqlite(join(dir, 'state.sqlite'));
  const store = await SqlTaintStore.open(driver);
  try {
    const key = { namespace: 'gitea-author', principal: 'alice' };
    const settings = compileIntegrity({ after_untrusted: 'same_repository_only' });
    const now = Date.now();
    const repositories = Array.from({ length: 20 }, (_, n) => `acme/repo${n}`);
    const untrusted = {
      item: 0,
      path: '$[0]',
      type: 'issue',
      id: 1,
      author: 'mallory',
      repository: 'acme/repo0',
      level: 'none' as const,
      text: 'withheld' as const,
    };
    const records = readRecords(
      now,
      { integrityMs: 3_600_000, secrecyMs: 3_600_000 },
      {
        repositories,
        untrusted: [untrusted],
        privateRepositories: ['acme/repo1'],
      },
    );
    await store.save(key, records, now);
    const samples: number[] = [];
    let count = 0;
    for (let i = 0; i < calls; i++) {
      const started = performance.now();
      const loaded = await store.load(key, Date.now());
      judgeTaint(settings, stateOf(loaded, Date.now()), { repository: 'acme/repo0' }, Date.now());
      samples.push(performance.now() - started);
      count = loaded.length;
    }
    return { ms: round(quantile(samples, 0.5)), records: count };
  } finally {
    await driver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchIntegrity(calls = 30): Promise<IntegrityBenchFigures> {
  const cached = await timeCase(5, calls);
  const uncached = await timeCase(ITEMS, calls);
  const taint = await taintCase(calls * 10);
  return {
    items: ITEMS,
    calls,
    pureMs: pureCase(calls * 10),
    cachedMs: cached.ms,
    cachedLookups: cached.lookups,
    uncachedMs: uncached.ms,
    uncachedLookups: uncached.lookups,
    taintReadMs: taint.ms,
    taintRecords: taint.records,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await benchIntegrity(), null, 2));
}
