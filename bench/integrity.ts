// The added cost of integrity labels per call: labelling a 100-item issue list against the sandbox
// (real HTTP on loopback), with the per-call permission cache doing its work (5 distinct authors)
// and without it helping (100 distinct authors, one lookup each), beside the pure labelling alone.
// Run standalone: node --import tsx bench/integrity.ts
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { loadCatalog } from '../src/catalog/load.js';
import { loadPolicySet } from '../src/policy-files/policy-set.js';
import { GiteaHttpClient } from '../src/gitea/http.js';
import { compileIntegrity, itemsOf, labelResult } from '../src/policy/integrity.js';
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
}

const ITEMS = 100;

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
    const settings = compileIntegrity({ min_level: 'write', below: 'withhold' });
    const samples: number[] = [];
    let lookups = 0;
    for (let i = 0; i < calls; i++) {
      const started = performance.now();
      const labelled = await labelAnswer({ catalog, settings, entry, args, data, reader: client });
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
  const settings = compileIntegrity({ min_level: 'write', below: 'fence', trusted_users: ['bob'] });
  const data = Array.from({ length: ITEMS }, (_, n) => ({
    number: n,
    user: { login: n % 2 ? 'bob' : 'eve' },
    title: 't',
    body: 'Steps: open the page.',
  }));
  const context = { repository: 'acme/busy', vouched: false };
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    const { items } = itemsOf(catalog, 'issueListIssues', data, context, settings);
    labelResult(catalog, items, data, new Map(), settings);
    samples.push(performance.now() - started);
  }
  return round(quantile(samples, 0.5));
}

export async function benchIntegrity(calls = 30): Promise<IntegrityBenchFigures> {
  const cached = await timeCase(5, calls);
  const uncached = await timeCase(ITEMS, calls);
  return {
    items: ITEMS,
    calls,
    pureMs: pureCase(calls * 10),
    cachedMs: cached.ms,
    cachedLookups: cached.lookups,
    uncachedMs: uncached.ms,
    uncachedLookups: uncached.lookups,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await benchIntegrity(), null, 2));
}
