// How fast the pure policy core decides: every catalog operation against every reference profile
// (operation map + list decision), repeated for several rounds. Not a test: speed depends on the machine.
// Run: node --import tsx bench/policy-decide.ts [rounds]
import { pathToFileURL } from 'node:url';
import { loadCatalog } from '../src/catalog/load.js';
import { loadPolicySet } from '../src/policy-files/policy-set.js';
import { loadReferenceProfiles, referenceHolders } from '../src/policy-files/profile-files.js';
import { decideCall } from '../src/policy/decide.js';

export interface PolicyDecideFigures {
  operations: number;
  profiles: number;
  decisions: number;
  decisionsPerSecond: number;
  p50Microseconds: number;
  p99Microseconds: number;
  allowed: number;
}

export async function benchPolicyDecide(rounds = 20): Promise<PolicyDecideFigures> {
  const policy = loadPolicySet();
  const profiles = loadReferenceProfiles(policy);
  const context = { vocabulary: policy.vocabulary, holders: referenceHolders(policy) };
  const operationIds = loadCatalog().entries.map((entry) => entry.operationId);
  const latencies: number[] = [];
  let allowed = 0;
  const start = process.hrtime.bigint();
  for (let round = 0; round < rounds; round++) {
    for (const profile of profiles) {
      for (const operationId of operationIds) {
        const before = process.hrtime.bigint();
        const decision = decideCall(profile, { operationId, arguments: {} }, policy.operationMap, context);
        latencies.push(Number(process.hrtime.bigint() - before) / 1000);
        if (decision.effect === 'allow') allowed++;
      }
    }
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  latencies.sort((a, b) => a - b);
  const quantile = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    operations: operationIds.length,
    profiles: profiles.length,
    decisions: latencies.length,
    decisionsPerSecond: Math.round(latencies.length / seconds),
    p50Microseconds: Number(quantile(0.5).toFixed(2)),
    p99Microseconds: Number(quantile(0.99).toFixed(2)),
    allowed: allowed / rounds,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const f = await benchPolicyDecide(Number(process.argv[2] ?? 20));
  process.stdout.write(
    `policy decide: ${f.operations} operations x ${f.profiles} profiles, ${f.decisions} decisions: ${f.decisionsPerSecond}/s, p50 ${f.p50Microseconds} us, p99 ${f.p99Microseconds} us (${f.allowed} allowed per round)\n`,
  );
}
