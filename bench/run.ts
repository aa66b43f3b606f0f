// `npm run bench`: every benchmark of issue 8 in one run on one machine, progress on stderr. Writes
// bench/results.json and docs/benchmarks.md. Exits 1, before timing anything, when the decision
// engines disagree on any request.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../src/shared/paths.js';
import { loadPolicySet } from '../src/policy-files/policy-set.js';
import { referenceHolders } from '../src/policy-files/profile-files.js';
import { benchAuditAppend } from './audit-append.js';
import { benchDecisionEngines, DisagreementError } from './decision-engines.js';
import { benchIntegrity } from './integrity.js';
import { benchProtocol } from './protocol.js';
import { benchArchiveRedaction, benchRedaction } from './redaction.js';
import { renderReport } from './report.js';
import type { AuditFigures, BenchResults, IntegrityFigures, Machine, RedactionFigures } from './results.js';
import { benchScaling } from './scaling.js';
import { benchServerOverhead } from './server-overhead.js';
import { benchListings, benchRecall, benchStartup } from './startup.js';
import { overRounds, progress } from './stats.js';
import { benchTokenVerification } from './token-verification.js';
import { benchTracing } from './tracing.js';
import { buildWorkload } from './workload.js';

const ROUNDS = 5;
const SERVER_CALLS_PER_ROUND = 100;
const AUDIT_EVENTS = 200;
const TOKEN_VERIFICATIONS = 2000;
const INTEGRITY_CALLS = 20;
/**
 * Reads per concurrency per round in the protocol section: enough that the relay's CPU per read
 * (about 0.5 ms, read in 10 ms ticks) is within a few percent. BENCH_PROTOCOL_ROUNDS and
 * BENCH_PROTOCOL_CALLS lower both while working on the section; the report states what was used.
 */
const PROTOCOL_CALLS_PER_ROUND = 500;
const PROTOCOL_ROUNDS = Number(process.env.BENCH_PROTOCOL_ROUNDS) || ROUNDS;
const PROTOCOL_CALLS = Number(process.env.BENCH_PROTOCOL_CALLS) || PROTOCOL_CALLS_PER_ROUND;

export const resultsFile = join(packageRoot, 'bench', 'results.json');
export const reportFile = join(packageRoot, 'docs', 'benchmarks.md');

async function main(): Promise<number> {
  if (process.argv.includes('--only-tools')) return toolsOnly();
  if (process.argv.includes('--only-tracing')) return tracingOnly();
  if (process.argv.includes('--only-protocol')) return protocolOnly();
  const started = Date.now();
  const skipped: string[] = [];
  progress('decisions: building the workload and the three engines');
  const policy = loadPolicySet();
  let decisions;
  try {
    decisions = await benchDecisionEngines(buildWorkload(), ROUNDS, referenceHolders(policy));
  } catch (error) {
    if (!(error instanceof DisagreementError)) throw error;
    for (const d of error.report.disagreements) process.stderr.write(`disagreement: ${JSON.stringify(d)}\n`);
    process.stderr.write(`[bench] ${error.message}; nothing timed\n`);
    return 1;
  }
  const scaling = await benchScaling(ROUNDS);
  const overhead = await optional('server overhead', skipped, () =>
    benchServerOverhead(ROUNDS, SERVER_CALLS_PER_ROUND),
  );
  const tokenVerification = await optional('token verification', skipped, () =>
    benchTokenVerification(ROUNDS, TOKEN_VERIFICATIONS),
  );
  const tracing = await optional('tracing', skipped, () => benchTracing(ROUNDS, SERVER_CALLS_PER_ROUND));
  const startup = await optional('start-up', skipped, () => benchStartup(ROUNDS));
  const protocol = await optional('protocol', skipped, () => benchProtocol(PROTOCOL_ROUNDS, PROTOCOL_CALLS));
  progress('tools/list sizes and recall of gitea_find_operations');
  const listings = benchListings();
  const recall = benchRecall();
  const redaction = await redactionFigures();
  const audit = await auditFigures();
  const integrity = await integrityFigures();
  const results: BenchResults = {
    date: new Date().toISOString(),
    machine: machine(),
    rounds: ROUNDS,
    decisions,
    scaling,
    overhead,
    tokenVerification,
    tracing,
    startup,
    protocol,
    skipped,
    listings,
    recall,
    redaction,
    audit,
    integrity,
  };
  writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(reportFile, renderReport(results));
  progress(`wrote bench/results.json and docs/benchmarks.md in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return 0;
}

/**
 * `npm run bench -- --only-tools`: sections 4 and 5 only (start-up, listings, recall), written over
 * those of the last full run's bench/results.json, for work on the tool listing.
 */
async function toolsOnly(): Promise<number> {
  if (!existsSync(resultsFile)) throw new Error('no bench/results.json to update; run npm run bench once');
  const previous = JSON.parse(readFileSync(resultsFile, 'utf8')) as BenchResults;
  const skipped = previous.skipped.filter((reason) => !reason.startsWith('start-up'));
  const startup = await optional('start-up', skipped, () => benchStartup(ROUNDS));
  const results: BenchResults = {
    ...previous,
    date: new Date().toISOString(),
    machine: machine(),
    startup,
    skipped,
    listings: benchListings(),
    recall: benchRecall(),
  };
  writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(reportFile, renderReport(results));
  progress('wrote sections 4 and 5 of bench/results.json and docs/benchmarks.md');
  return 0;
}

/**
 * `npm run bench -- --only-tracing`: the tracing off/on figures only, written over those of the last
 * full run's bench/results.json (or printed alone when there is none), for work on telemetry.
 */
async function tracingOnly(): Promise<number> {
  const tracing = await benchTracing(ROUNDS, SERVER_CALLS_PER_ROUND);
  if (!existsSync(resultsFile)) {
    process.stdout.write(`${JSON.stringify(tracing, null, 2)}\n`);
    return 0;
  }
  const previous = JSON.parse(readFileSync(resultsFile, 'utf8')) as BenchResults;
  const results: BenchResults = { ...previous, date: new Date().toISOString(), machine: machine(), tracing };
  writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(reportFile, renderReport(results));
  progress('wrote the tracing figures of bench/results.json and docs/benchmarks.md');
  return 0;
}

/**
 * `npm run bench -- --only-protocol`: the protocol section only (SDK v2, both eras, the relay and
 * today's build), written over the last full run's bench/results.json (or printed alone when there
 * is none). A failure is recorded in `skipped`, as in a full run.
 */
async function protocolOnly(): Promise<number> {
  const previous = existsSync(resultsFile) ? (JSON.parse(readFileSync(resultsFile, 'utf8')) as BenchResults) : null;
  const skipped = (previous?.skipped ?? []).filter((reason) => !reason.startsWith('protocol'));
  const protocol = await optional('protocol', skipped, () => benchProtocol(PROTOCOL_ROUNDS, PROTOCOL_CALLS));
  if (!previous) {
    process.stdout.write(`${JSON.stringify(protocol, null, 2)}\n`);
    return protocol ? 0 : 1;
  }
  const results: BenchResults = { ...previous, date: new Date().toISOString(), machine: machine(), protocol, skipped };
  writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(reportFile, renderReport(results));
  progress('wrote the protocol figures of bench/results.json and docs/benchmarks.md');
  return protocol ? 0 : 1;
}

/** A server measurement that cannot run (e.g. serve fails to start) is reported as skipped, not fatal. */
async function optional<T>(name: string, skipped: string[], run: () => Promise<T>): Promise<T | null> {
  try {
    return await run();
  } catch (error) {
    skipped.push(`${name}: ${(error as Error).message.split('\n')[0]}`);
    progress(`${name} skipped: ${(error as Error).message}`);
    return null;
  }
}

async function redactionFigures(): Promise<RedactionFigures> {
  progress(`redaction: ${ROUNDS} rounds on a 5 MB result`);
  let shape = { inputBytes: 0, issues: 0 };
  const figures = await overRounds(ROUNDS, () => {
    const { inputBytes, issues, exactOnlyMBps, maskMBps, textMaskMBps } = benchRedaction(1);
    shape = { inputBytes, issues };
    return { exactOnlyMBps, maskMBps, textMaskMBps };
  });
  progress(`redaction inside a 5 MB .tar.gz: ${ROUNDS} rounds`);
  let archiveShape = { archiveBytes: 0, inflatedBytes: 0, files: 0 };
  const archive = await overRounds(ROUNDS, () => {
    const { archiveBytes, inflatedBytes, files, archiveMBps } = benchArchiveRedaction(1);
    archiveShape = { archiveBytes, inflatedBytes, files };
    return { archiveMBps };
  });
  return { ...shape, ...figures, archive: { ...archiveShape, ...archive } };
}

async function auditFigures(): Promise<AuditFigures> {
  progress(`audit log: ${ROUNDS} rounds of ${AUDIT_EVENTS} appends`);
  const figures = await overRounds(ROUNDS, async () => {
    const [sequential, concurrent] = await benchAuditAppend(AUDIT_EVENTS);
    return {
      sequentialPerSecond: sequential?.appendsPerSecond ?? 0,
      concurrentPerSecond: concurrent?.appendsPerSecond ?? 0,
    };
  });
  return { events: AUDIT_EVENTS, fsync: 'group commit: one fsync per batch', ...figures };
}

async function integrityFigures(): Promise<IntegrityFigures> {
  progress(`integrity labels: ${ROUNDS} rounds of ${INTEGRITY_CALLS} labelled 100-item lists`);
  let shape = { items: 0, calls: 0, cachedLookups: 0, uncachedLookups: 0, taintRecords: 0 };
  const figures = await overRounds(ROUNDS, async () => {
    const { items, calls, cachedLookups, uncachedLookups, taintRecords, pureMs, cachedMs, uncachedMs, taintReadMs } =
      await benchIntegrity(INTEGRITY_CALLS);
    shape = { items, calls, cachedLookups, uncachedLookups, taintRecords };
    return { pureMs, cachedMs, uncachedMs, taintReadMs };
  });
  return { ...shape, ...figures };
}

function machine(): Machine {
  const cores = cpus();
  return {
    cpu: cores[0]?.model.trim() ?? 'unknown',
    cores: cores.length,
    memoryGigabytes: Number((totalmem() / 1024 ** 3).toFixed(1)),
    os: `${platform()} ${release()}`,
    node: process.version,
  };
}

process.exitCode = await main();
