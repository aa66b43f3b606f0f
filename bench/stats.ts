import { performance } from 'node:perf_hooks';

// The few statistics the benchmark reports: quantiles of one run's samples, and the median, min and
// max of a figure over repeated rounds (so one noisy round does not decide a figure).

export interface Spread {
  median: number;
  min: number;
  max: number;
}

/** The q-quantile (0..1) of samples, nearest rank; 0 for no samples. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return 0;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

export function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const median =
    sorted.length === 0
      ? 0
      : (sorted[Math.floor((sorted.length - 1) / 2)]! + sorted[Math.ceil((sorted.length - 1) / 2)]!) / 2;
  return { median: round(median), min: round(sorted[0] ?? 0), max: round(sorted[sorted.length - 1] ?? 0) };
}

/** Three significant digits: enough for figures that vary by more than that between runs. */
export function round(value: number): number {
  return Number.isFinite(value) && value !== 0 ? Number(value.toPrecision(3)) : value;
}

export function nowMicroseconds(): number {
  return performance.now() * 1000;
}

/** Runs `rounds` rounds of `measure` and reports each named figure as its spread over the rounds. */
export async function overRounds<K extends string>(
  rounds: number,
  measure: (round: number) => Promise<Record<K, number>> | Record<K, number>,
): Promise<Record<K, Spread>> {
  const collected = new Map<K, number[]>();
  for (let round = 0; round < rounds; round++) {
    for (const [name, value] of Object.entries(await measure(round)) as [K, number][]) {
      collected.set(name, [...(collected.get(name) ?? []), value]);
    }
  }
  return Object.fromEntries([...collected].map(([name, values]) => [name, spread(values)])) as Record<K, Spread>;
}

/** Progress for a person watching the run; stdout stays free. */
export function progress(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}
