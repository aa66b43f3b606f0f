// The protocol section (MCP SDK v2, both eras): start-up to the first tools/list, added latency per
// read over stdio, throughput at 16 concurrent calls and the server's CPU per call, for this build in
// each era, for a bare relay on the same SDK (the floor) and for "today", the last build on the v1
// SDK (2025 era only). Three processes per measurement: the sandbox stays in this one, each client
// runs in a driver process of its own (bench/protocol-driver.ts), each server is the third, started
// from its bundle. Rounds interleave the servers, so a noisy stretch of the machine hits them all.
// Runnable alone: `npm run bench -- --only-protocol`.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { catalogByOperationId } from '../src/catalog/load.js';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { INSTALLED_BIN, namespaceEnv, repoRoot, tempDir } from '../test/support/namespace.js';
import { buildBaseline, buildRelay, type Baseline, type BuiltServer } from './protocol-builds.js';
import type {
  DriverJob,
  DriverResult,
  Era,
  LoadPoint,
  LoadResult,
  ServerCommand,
  StartupResult,
} from './protocol-job.js';
import {
  CONCURRENT,
  protocolTargets,
  SINGLE,
  type ProtocolFigures,
  type ProtocolLoad,
  type ProtocolRow,
  type ProtocolServer,
} from './protocol-figures.js';
import { progress, round, spread } from './stats.js';

/** Calls before each timed point, on the same connection. */
const WARM_UP_CALLS = 200;

const PROFILE = 'gitea-author';
const OWNER = 'acme';
const REPO = 'widgets';
const DRIVER = join('bench', 'protocol-driver.ts');
/** A driver that has not answered by then is stuck (a server that never started); its job fails. */
const DRIVER_TIMEOUT_MS = 600_000;

/** One server in one era, as the rounds measure it. */
interface Subject {
  server: ProtocolServer;
  era: Era;
  built: { entry: string; args: string[]; cwd: string; shown: string };
  /** The environment for a start (each start gets its own audit log). */
  env(auditLog: string): Record<string, string>;
  /** Audit logs its load jobs wrote, counted afterwards; none for the relay. */
  auditLogs: string[];
  audited: boolean;
  startups: StartupResult[];
  loads: LoadResult[];
}

export async function benchProtocol(rounds: number, callsPerRound: number): Promise<ProtocolFigures> {
  const started = Date.now();
  progress('protocol: bundling the bare relay and building the baseline (the last build on the SDK v1)');
  const relay = await buildRelay();
  let baseline: Baseline | null = null;
  const sandbox = await startSandbox().catch((error: unknown) => {
    relay.dispose();
    throw error;
  });
  const audit = tempDir('warden-bench-protocol-');
  try {
    baseline = buildBaseline();
    if (!baseline.server) progress(`protocol: no rows for today's build: ${baseline.reason ?? ''}`);
    const subjects = subjectsFor(sandbox, relay, baseline);
    const read = catalogByOperationId().get('repoGet')?.name ?? 'gitea_repos_get';
    const token = sandbox.users.alice?.token ?? '';
    const shape = { warmUpCalls: WARM_UP_CALLS, calls: callsPerRound, concurrency: [SINGLE, CONCURRENT] };
    const direct: LoadResult[] = [];
    for (let r = 0; r < rounds; r++) {
      for (const subject of subjects) {
        progress(`protocol: start-up of ${subject.server}, ${subject.era} era, round ${r + 1} of ${rounds}`);
        const job: DriverJob = {
          mode: 'startup',
          era: subject.era,
          server: command(subject, `${audit.path}/start-${subjects.indexOf(subject)}-${r}`),
        };
        subject.startups.push((await drive(job)) as StartupResult);
      }
      progress(`protocol: direct fetch, round ${r + 1} of ${rounds}`);
      const url = `${sandbox.url}/api/v1/repos/${OWNER}/${REPO}`;
      direct.push((await drive({ mode: 'direct', url, token, ...shape })) as LoadResult);
      for (const subject of subjects) {
        progress(`protocol: reads via ${subject.server}, ${subject.era} era, round ${r + 1} of ${rounds}`);
        const auditLog = `${audit.path}/load-${subjects.indexOf(subject)}-${r}`;
        subject.auditLogs.push(`${auditLog}.jsonl`);
        const name = subject.server === 'bare relay' ? 'relay_repo_get' : read;
        const job: DriverJob = {
          mode: 'load',
          era: subject.era,
          server: command(subject, auditLog),
          read: { name, arguments: { owner: OWNER, repo: REPO } },
          ...shape,
        };
        subject.loads.push((await drive(job)) as LoadResult);
      }
    }
    const directLoads = loadsOf(direct);
    const rows = subjects.map((subject) => rowOf(subject, directLoads, WARM_UP_CALLS));
    return {
      profile: PROFILE,
      read,
      rounds,
      callsPerRound,
      warmUpCalls: WARM_UP_CALLS,
      baseline: { ref: baseline.ref, commit: baseline.commit, reason: baseline.reason },
      direct: directLoads,
      rows,
      targets: protocolTargets(rows),
      seconds: round((Date.now() - started) / 1000),
    };
  } finally {
    await sandbox.close();
    audit.dispose();
    relay.dispose();
    baseline?.server?.dispose();
  }
}

function subjectsFor(sandbox: Sandbox, relay: BuiltServer, baseline: Baseline): Subject[] {
  const wardenEnv = (auditLog: string) =>
    namespaceEnv(sandbox, PROFILE, {
      auditLog,
      extra: { RATE_LIMIT_PER_MINUTE: '10000000', TOOL_MODE: 'static' },
    });
  const relayEnv = () => ({
    PATH: process.env.PATH ?? '',
    GITEA_URL: sandbox.url,
    RELAY_TOKEN: sandbox.users.alice?.token ?? '',
  });
  const subject = (server: ProtocolServer, era: Era, built: Subject['built'], env: Subject['env']): Subject => ({
    server,
    era,
    built,
    env,
    auditLogs: [],
    audited: server !== 'bare relay',
    startups: [],
    loads: [],
  });
  const warden = { entry: INSTALLED_BIN, args: ['serve'], cwd: repoRoot, shown: `node ${INSTALLED_BIN} serve` };
  const bare = {
    entry: relay.entry,
    args: [],
    cwd: relay.cwd,
    shown: 'node relay-server.mjs (bench/relay-server.ts, bundled)',
  };
  const subjects = [
    subject('this build', 'modern', warden, wardenEnv),
    subject('this build', 'legacy', warden, wardenEnv),
    subject('bare relay', 'modern', bare, relayEnv),
    subject('bare relay', 'legacy', bare, relayEnv),
  ];
  // The v1 SDK answers only initialize: today has no 2026-07-28 row.
  if (baseline.server) {
    const shown = `node ${INSTALLED_BIN} serve, built from ${baseline.ref}`;
    const today = { entry: baseline.server.entry, args: ['serve'], cwd: baseline.server.cwd, shown };
    subjects.push(subject('today (SDK v1)', 'legacy', today, wardenEnv));
  }
  return subjects;
}

function command(subject: Subject, auditLog: string): ServerCommand {
  const { entry, args, cwd } = subject.built;
  return { command: process.execPath, args: [entry, ...args], env: subject.env(`${auditLog}.jsonl`), cwd };
}

/** Runs one job in a driver process of its own; rejects with its stderr when it fails. */
function drive(job: DriverJob): Promise<DriverResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', DRIVER, JSON.stringify(job)], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), DRIVER_TIMEOUT_MS);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.trim().split('\n').pop() ?? '';
      if (code === 0 && line.startsWith('{')) return resolve(JSON.parse(line) as DriverResult);
      const why = stderr.trim().split('\n').slice(-3).join(' | ') || `exit ${code ?? signal}`;
      reject(new Error(`protocol driver (${job.mode}) failed: ${why}`));
    });
  });
}

/** Per concurrency, each figure's spread over the rounds' results. */
function loadsOf(results: LoadResult[]): ProtocolLoad[] {
  const concurrencies = results[0]?.points.map((p) => p.concurrency) ?? [];
  return concurrencies.map((concurrency) => {
    const points = results.map((r) => r.points.find((p) => p.concurrency === concurrency) as LoadPoint);
    const cpu = points.map((p) => p.serverCpuMilliseconds);
    return {
      concurrency,
      p50Milliseconds: spread(points.map((p) => p.p50Milliseconds)),
      p99Milliseconds: spread(points.map((p) => p.p99Milliseconds)),
      callsPerSecond: spread(points.map((p) => p.callsPerSecond)),
      serverCpuMilliseconds: cpu.every((c) => c !== null) ? spread(cpu as number[]) : null,
      errors: points.reduce((sum, p) => sum + p.errors, 0),
    };
  });
}

function rowOf(subject: Subject, direct: ProtocolLoad[], warmUp: number): ProtocolRow {
  const loads = loadsOf(subject.loads);
  const at = (concurrency: number, of: ProtocolLoad[]) => of.find((l) => l.concurrency === concurrency);
  const single = at(SINGLE, loads)?.p50Milliseconds.median ?? Number.NaN;
  const directSingle = at(SINGLE, direct)?.p50Milliseconds.median ?? Number.NaN;
  const points = subject.loads.flatMap((l) => l.points);
  const callsMade = points.reduce((sum, p) => sum + p.calls + warmUpCalls(p.concurrency, warmUp), 0);
  return {
    server: subject.server,
    era: subject.era,
    command: subject.built.shown,
    startupMilliseconds: spread(subject.startups.map((s) => s.startupMilliseconds)),
    startupCpuMilliseconds: spread(subject.startups.map((s) => s.serverCpuMilliseconds)),
    loads,
    addedP50Milliseconds: round(single - directSingle),
    writeAheadPerCall: subject.audited ? round(writeAheadEvents(subject.auditLogs) / callsMade) : null,
  };
}

/** What the driver's warm-up makes: the calls spread over the slots, rounded up per slot. */
function warmUpCalls(concurrency: number, calls: number): number {
  return Math.ceil(calls / concurrency) * concurrency;
}

/** The write-ahead events in the audit logs: each call must still write one before Gitea is called. */
function writeAheadEvents(logs: string[]): number {
  let count = 0;
  for (const log of logs) {
    for (const line of readFileSync(log, 'utf8').split('\n')) if (line.includes('"phase":"write_ahead"')) count++;
  }
  return count;
}
