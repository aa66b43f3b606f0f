// Item 2 of the benchmark: how the decision cost grows with the size of a profile (10, 100, 1,000
// entries) and of the catalog (485 and 5,000 operations). The real vocabulary has under a hundred
// names, so larger profiles draw from it plus synthetic names (gitea.synth.opN); the larger catalog
// is the real operation map plus synthetic operationIds mapped round-robin onto the vocabulary.
// Every engine answers the same sampled requests, agreement checked first.
import { loadCatalog } from '../src/catalog/load.js';
import { loadPolicySet } from '../src/policy-files/policy-set.js';
import { loadReferenceProfiles } from '../src/policy-files/profile-files.js';
import type { OperationMap, OperationMapping } from '../src/policy/operation-map.js';
import { compileProfile, type CompiledProfile } from '../src/policy/profile.js';
import type { Vocabulary, VocabularyEntry } from '../src/policy/vocabulary.js';
import { checkAgreement } from './agreement.js';
import { createEngines, DisagreementError, timeDecisions, type EngineFigures } from './decision-engines.js';
import { progress } from './stats.js';
import { buildWorkload, type Workload } from './workload.js';

export interface ScalingPoint {
  dimension: 'profile entries' | 'catalog operations';
  size: number;
  requests: number;
  engines: EngineFigures[];
}

export const PROFILE_SIZES = [10, 100, 1000] as const;
export const CATALOG_SIZES = [485, 5000] as const;
/** About this many sampled operations per point, so every point decides a similar number of requests. */
const SAMPLED_OPERATIONS = 120;
const ALLOWED_SHARE = 0.8;

export async function benchScaling(rounds: number): Promise<ScalingPoint[]> {
  const points: ScalingPoint[] = [];
  for (const size of PROFILE_SIZES)
    points.push(await measurePoint('profile entries', size, profileSizeWorkload(size), rounds));
  for (const size of CATALOG_SIZES)
    points.push(await measurePoint('catalog operations', size, catalogSizeWorkload(size), rounds));
  return points;
}

async function measurePoint(
  dimension: ScalingPoint['dimension'],
  size: number,
  workload: Workload,
  rounds: number,
): Promise<ScalingPoint> {
  progress(`scaling: ${size} ${dimension}, ${workload.requests.length} requests`);
  const engines = await createEngines(workload);
  const agreement = checkAgreement(engines, workload.requests);
  if (agreement.disagreements.length > 0) throw new DisagreementError(agreement);
  const figures: EngineFigures[] = [];
  for (const engine of engines)
    figures.push({ engine: engine.name, ...(await timeDecisions(engine, workload, rounds)) });
  return { dimension, size, requests: workload.requests.length, engines: figures };
}

/** One synthetic profile of `entries` entries (80% allowed, 20% forbidden) over the real catalog. */
export function profileSizeWorkload(entries: number): Workload {
  const policy = loadPolicySet();
  const vocabulary = syntheticVocabulary(policy.vocabulary, entries);
  const names = [
    ...shuffled([...policy.vocabulary.operations.keys()]),
    ...[...vocabulary.operations.keys()].filter((n) => n.startsWith('gitea.synth.')),
  ].slice(0, entries);
  const cut = Math.round(entries * ALLOWED_SHARE);
  const profile = compileProfile(
    {
      data: {
        profile_name: `synthetic-${entries}`,
        allowed_operations: names.slice(0, cut),
        forbidden_operations: names.slice(cut),
      },
      file: `<synthetic ${entries}>`,
    },
    vocabulary,
  );
  const ids = loadCatalog().entries.map((e) => e.operationId);
  return buildWorkload({
    vocabulary,
    profiles: [profile],
    operationIds: ids,
    every: Math.ceil(ids.length / SAMPLED_OPERATIONS),
  });
}

/** The reference profiles over an operation map grown to `operations` operationIds. */
export function catalogSizeWorkload(operations: number): Workload {
  const policy = loadPolicySet();
  const operationMap = syntheticOperationMap(policy.operationMap, policy.vocabulary, operations);
  const ids = [...operationMap.byOperationId.keys()];
  const profiles: CompiledProfile[] = loadReferenceProfiles(policy);
  return buildWorkload({
    operationMap,
    profiles,
    operationIds: ids,
    every: Math.ceil(ids.length / SAMPLED_OPERATIONS),
  });
}

/** The real vocabulary plus enough synthetic names (gitea.synth.opN, risk write) to draw `entries` from. */
export function syntheticVocabulary(real: Vocabulary, entries: number): Vocabulary {
  const operations = new Map<string, VocabularyEntry>(real.operations);
  for (let i = 0; operations.size < entries; i++) {
    const name = `gitea.synth.op${i}`;
    operations.set(name, { name, risk: 'write', meaning: 'synthetic benchmark operation' });
  }
  return { ...real, operations };
}

export function syntheticOperationMap(real: OperationMap, vocabulary: Vocabulary, operations: number): OperationMap {
  const byOperationId = new Map<string, OperationMapping>(real.byOperationId);
  const names = [...vocabulary.operations.keys()];
  for (let i = 0; byOperationId.size < operations; i++) {
    const operationId = `syntheticOperation${i}`;
    byOperationId.set(operationId, {
      operationId,
      operation: names[i % names.length] as string,
      known: [],
      rules: [],
      line: null,
    });
  }
  return { ...real, byOperationId };
}

/** A fixed-seed shuffle, so every run draws the same profile. */
function shuffled<T>(items: T[]): T[] {
  const result = [...items];
  let seed = 0x5eed;
  for (let i = result.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const j = seed % (i + 1);
    [result[i], result[j]] = [result[j] as T, result[i] as T];
  }
  return result;
}
