// Item 1 of the benchmark: the same decisions through gitea-warden, Cedar and casbin. Agreement
// first (any disagreement stops the run), then per round one pass timing each decision (p50, p99)
// and one pass timing the whole workload (decisions per second).
import { checkAgreement, type AgreementReport } from './agreement.js';
import { createCasbinEngine } from './engines/casbin.js';
import { createCedarEngine } from './engines/cedar.js';
import type { Engine } from './engines/engine.js';
import { createWardenEngine } from './engines/warden.js';
import { nowMicroseconds, overRounds, progress, quantile, type Spread } from './stats.js';
import type { Workload } from './workload.js';
import type { HolderIndex } from '../src/policy/hints.js';

export interface EngineFigures {
  engine: string;
  p50Microseconds: Spread;
  p99Microseconds: Spread;
  decisionsPerSecond: Spread;
}

export interface DecisionFigures {
  operations: number;
  profiles: number;
  requests: number;
  mergeFactRequests: number;
  agreement: AgreementReport;
  engines: EngineFigures[];
}

export class DisagreementError extends Error {
  constructor(readonly report: AgreementReport) {
    super(`the engines disagree on ${report.disagreements.length} of ${report.requests} requests`);
  }
}

export async function createEngines(workload: Workload, holders?: HolderIndex): Promise<Engine[]> {
  return [createWardenEngine(workload, holders), createCedarEngine(workload), await createCasbinEngine(workload)];
}

/** Throws DisagreementError before timing anything when the engines do not all agree. */
export async function benchDecisionEngines(
  workload: Workload,
  rounds: number,
  holders?: HolderIndex,
): Promise<DecisionFigures> {
  const engines = await createEngines(workload, holders);
  const agreement = checkAgreement(engines, workload.requests);
  progress(
    `agreement: ${agreement.requests} requests, ${agreement.allowed} allowed by all, ${agreement.disagreements.length} disagreements`,
  );
  if (agreement.disagreements.length > 0) throw new DisagreementError(agreement);
  const figures: EngineFigures[] = [];
  for (const engine of engines) {
    progress(`decisions: timing ${engine.name} (${rounds} rounds)`);
    figures.push({ engine: engine.name, ...(await timeDecisions(engine, workload, rounds)) });
  }
  return {
    operations: new Set(workload.requests.map((r) => r.call.operationId)).size,
    profiles: workload.profiles.length,
    requests: workload.requests.length,
    mergeFactRequests: workload.requests.filter((r) => r.facts).length,
    agreement,
    engines: figures,
  };
}

/** Enough latency samples for a p99 (bounded by time for slow engines), throughput passes long enough to outlast timer and GC noise. */
const LATENCY_SAMPLES = 2000;
const LATENCY_BUDGET_US = 300_000;
const THROUGHPUT_PASS_US = 100_000;

export async function timeDecisions(
  engine: Engine,
  workload: Workload,
  rounds: number,
): Promise<Omit<EngineFigures, 'engine'>> {
  const decisions = workload.requests.map((request) => engine.prepare(request));
  const warmStart = nowMicroseconds();
  for (const decide of decisions) decide(); // warm-up: JIT and engine caches
  const perDecision = Math.max((nowMicroseconds() - warmStart) / decisions.length, 0.01);
  const latencyRepeats = Math.max(
    1,
    Math.ceil(Math.min(LATENCY_SAMPLES, LATENCY_BUDGET_US / perDecision) / decisions.length),
  );
  const throughputRepeats = Math.max(1, Math.ceil(THROUGHPUT_PASS_US / (perDecision * decisions.length)));
  return overRounds(rounds, () => {
    const latencies: number[] = [];
    for (let repeat = 0; repeat < latencyRepeats; repeat++) {
      for (const decide of decisions) {
        const before = nowMicroseconds();
        decide();
        latencies.push(nowMicroseconds() - before);
      }
    }
    const start = nowMicroseconds();
    for (let repeat = 0; repeat < throughputRepeats; repeat++) for (const decide of decisions) decide();
    const seconds = (nowMicroseconds() - start) / 1e6;
    return {
      p50Microseconds: quantile(latencies, 0.5),
      p99Microseconds: quantile(latencies, 0.99),
      decisionsPerSecond: (decisions.length * throughputRepeats) / seconds,
    };
  });
}
