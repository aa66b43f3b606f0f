// The figures of the protocol section (bench/protocol.ts measures them, bench/report.ts renders them)
// and the targets read off them: start-up within a bound in each era, nothing worse than today's
// build by more than a share, and the server's CPU per read within a multiple of a bare relay's.
import type { Era } from './protocol-job.js';
import { round, type Spread } from './stats.js';

export type ProtocolServer = 'this build' | 'bare relay' | 'today (SDK v1)';

/** One client, one call at a time: the added latency (and a CPU per read). */
export const SINGLE = 1;
/** Calls in flight on the one connection: the throughput (and a CPU per read). */
export const CONCURRENT = 16;
/** Each era answers its first tools/list within this long from the bundle. */
export const STARTUP_TARGET_MS = 200;
/** No figure of this build may be worse than today's by more than this share. */
export const MAX_REGRESSION_PERCENT = 10;
/** This build's CPU per read at most this many times the bare relay's. */
export const MAX_RELAY_RATIO = 2;

/** Figures at one concurrency, each over the rounds. */
export interface ProtocolLoad {
  concurrency: number;
  p50Milliseconds: Spread;
  p99Milliseconds: Spread;
  callsPerSecond: Spread;
  /** null for direct fetch, which has no server. */
  serverCpuMilliseconds: Spread | null;
  /** Over all rounds: tool results with isError, failed requests, non-2xx answers. */
  errors: number;
}

export interface ProtocolRow {
  server: ProtocolServer;
  era: Era;
  command: string;
  startupMilliseconds: Spread;
  /** CPU time of the server process when its first tools/list was answered. */
  startupCpuMilliseconds: Spread;
  loads: ProtocolLoad[];
  /** Median p50 of one client minus that of direct fetch. */
  addedP50Milliseconds: number;
  /** Write-ahead audit events per tools/call made (warm-up included); null for the relay, which has no audit. */
  writeAheadPerCall: number | null;
}

/** One target: what was measured, the figure, what it is judged against, and whether it meets the bound. */
export interface ProtocolTarget {
  measure: string;
  value: number;
  unit: 'ms' | 'calls/s' | '×';
  /** The figure compared with (today's, the relay's), when there is one. */
  reference?: number;
  /** Change against the reference in percent (comparisons with today). */
  changePercent?: number;
  target: string;
  met: boolean;
}

export interface ProtocolFigures {
  profile: string;
  read: string;
  rounds: number;
  callsPerRound: number;
  warmUpCalls: number;
  /** The v1-SDK build compared with; commit null when it could not be built, `reason` says why. */
  baseline: { ref: string; commit: string | null; reason: string | null };
  direct: ProtocolLoad[];
  rows: ProtocolRow[];
  targets: ProtocolTarget[];
  /** Wall time of the whole section, builds included. */
  seconds: number;
}

/**
 * Start-up of this build within STARTUP_TARGET_MS in each era; each figure of this build, in each era,
 * no worse than today's (2025 era) by more than MAX_REGRESSION_PERCENT; this build's CPU per read at
 * most MAX_RELAY_RATIO times the bare relay's, same era and concurrency.
 */
export function protocolTargets(rows: ProtocolRow[]): ProtocolTarget[] {
  const targets: ProtocolTarget[] = [];
  const find = (server: ProtocolServer, era: Era) => rows.find((r) => r.server === server && r.era === era);
  const load = (row: ProtocolRow, concurrency: number) => row.loads.find((l) => l.concurrency === concurrency);
  const today = find('today (SDK v1)', 'legacy');
  for (const era of ['modern', 'legacy'] as const) {
    const row = find('this build', era);
    if (!row) continue;
    const startup = row.startupMilliseconds.median;
    targets.push({
      measure: `${era} era: start-up to the first tools/list`,
      value: startup,
      unit: 'ms',
      target: `<= ${STARTUP_TARGET_MS} ms`,
      met: startup <= STARTUP_TARGET_MS,
    });
    if (today) {
      const compared: [string, number | undefined, number | undefined, ProtocolTarget['unit'], 'lower' | 'higher'][] = [
        ['start-up', startup, today.startupMilliseconds.median, 'ms', 'lower'],
        ['added p50 per read, 1 client', row.addedP50Milliseconds, today.addedP50Milliseconds, 'ms', 'lower'],
        [
          `throughput, ${CONCURRENT} concurrent`,
          load(row, CONCURRENT)?.callsPerSecond.median,
          load(today, CONCURRENT)?.callsPerSecond.median,
          'calls/s',
          'higher',
        ],
        ...[SINGLE, CONCURRENT].map(
          (c): [string, number | undefined, number | undefined, ProtocolTarget['unit'], 'lower'] => [
            `server CPU per read, ${c === SINGLE ? '1 client' : `${c} concurrent`}`,
            load(row, c)?.serverCpuMilliseconds?.median,
            load(today, c)?.serverCpuMilliseconds?.median,
            'ms',
            'lower',
          ],
        ),
      ];
      for (const [what, value, reference, unit, better] of compared) {
        if (value === undefined || reference === undefined) continue;
        targets.push(regression(`${era} era vs today (2025 era): ${what}`, value, reference, unit, better));
      }
    }
    const relay = find('bare relay', era);
    for (const c of relay ? [SINGLE, CONCURRENT] : []) {
      const mine = load(row, c)?.serverCpuMilliseconds?.median;
      const floor = relay ? load(relay, c)?.serverCpuMilliseconds?.median : undefined;
      if (mine === undefined || floor === undefined || floor <= 0) continue;
      const ratio = round(mine / floor);
      targets.push({
        measure: `${era} era: server CPU per read ÷ the bare relay's, ${c === SINGLE ? '1 client' : `${c} concurrent`}`,
        value: ratio,
        unit: '×',
        reference: floor,
        target: `<= ${MAX_RELAY_RATIO}×`,
        met: ratio <= MAX_RELAY_RATIO,
      });
    }
  }
  return targets;
}

/** Worse by at most MAX_REGRESSION_PERCENT: higher for a cost, lower for a rate. */
function regression(
  measure: string,
  value: number,
  reference: number,
  unit: ProtocolTarget['unit'],
  better: 'lower' | 'higher',
): ProtocolTarget {
  // A reference of zero or below (an added latency within noise) leaves no share to compare: the figure
  // then meets the target only by being no worse than it.
  if (reference <= 0) {
    const met = better === 'lower' ? value <= reference : value >= reference;
    return { measure, value, unit, reference, target: `no worse than ${reference} ${unit}`, met };
  }
  const changePercent = round((100 * (value - reference)) / reference);
  const worse = better === 'lower' ? changePercent : -changePercent;
  const met = worse <= MAX_REGRESSION_PERCENT;
  return {
    measure,
    value,
    unit,
    reference,
    changePercent,
    target: `${better === 'lower' ? '+' : '-'}${MAX_REGRESSION_PERCENT}% at most`,
    met,
  };
}
