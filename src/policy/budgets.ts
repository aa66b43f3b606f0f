// Call budgets, the pure half: a profile's `budgets:` compiled once (operation names and patterns
// normalized, windows in milliseconds), which budgets a call counts against, and the judgement of one
// budget given the times of the calls it already counted. Counting (reading and writing those times
// in the shared store, on its clock) is I/O and lives in the server (src/server/call/budget.ts).
import { normalizeName } from './normalize.js';
import type { Vocabulary } from './vocabulary.js';

/** One budget as written: at most `max` calls of `operations` per `per` (30s, 15m, 1h, 1d). */
export interface BudgetData {
  operations: string[];
  max: number;
  per: string;
}

export interface CompiledBudget {
  /** Place in the profile's budgets list. */
  index: number;
  /** As written, for people (explain, refusals, the audit event). */
  operations: readonly string[];
  /** Every canonical operation it counts (patterns expanded). */
  canonical: ReadonlySet<string>;
  max: number;
  per: string;
  perMs: number;
  line: number | null;
  /** What it counts (operations and window, not max): raising the max keeps the calls already counted. */
  key: string;
  /** Names that normalize to no canonical operation: the namespace refuses to start with them. */
  unknown: readonly string[];
}

const UNIT_MS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** The longest window: a month; counts beyond it belong to reports, not to a guard. */
export const MAX_WINDOW_MS = 31 * 86_400_000;

/** `30s`, `15m`, `1h`, `7d` in milliseconds; null for anything else or a window over 31 days. */
export function parseWindow(text: string): number | null {
  const match = /^([1-9][0-9]{0,5})(s|m|h|d)$/.exec(text);
  if (!match) return null;
  const ms = Number(match[1]) * (UNIT_MS[match[2] as string] as number);
  return ms <= MAX_WINDOW_MS ? ms : null;
}

export function compileBudgets(
  data: readonly BudgetData[] | undefined,
  vocabulary: Vocabulary,
  service: string,
  lineOf: (path: readonly (string | number)[]) => number | null,
): CompiledBudget[] {
  return (data ?? []).map((budget, index) => {
    const canonical = new Set<string>();
    const unknown: string[] = [];
    for (const name of budget.operations) {
      const result = normalizeName(name, vocabulary, { service, allowPatterns: true });
      if (result.ok) for (const op of result.canonical) canonical.add(op);
      else unknown.push(name);
    }
    const perMs = parseWindow(budget.per);
    if (perMs === null) unknown.push(`per: ${budget.per}`);
    return {
      index,
      operations: [...budget.operations],
      canonical,
      max: budget.max,
      per: budget.per,
      perMs: perMs ?? MAX_WINDOW_MS,
      line: lineOf(['budgets', index]),
      key: `${[...budget.operations].sort().join(',')}/${budget.per}`,
      unknown,
    };
  });
}

/** The budgets a call with these canonical operations counts against (each once). */
export function budgetsFor(budgets: readonly CompiledBudget[], operations: readonly string[]): CompiledBudget[] {
  return budgets.filter((budget) => operations.some((op) => budget.canonical.has(op)));
}

export interface BudgetJudgement {
  /** True when the call would pass the budget's max within its window. */
  over: boolean;
  /** Calls counted in the window now, this one included when it fits. */
  used: number;
  /** When over: the earliest time (ms) a call fits again. */
  freesAt: number | null;
  /** The times to keep counting: the window's calls, plus this one when it fits. */
  next: number[];
}

/**
 * One budget, given the times (ms) of the calls it counted and the store's clock: a sliding window,
 * so `max` calls fit in any stretch of `per`. Over the budget, the call fits again once the oldest
 * call that keeps the count at `max` leaves the window.
 */
export function judgeBudget(
  budget: Pick<CompiledBudget, 'max' | 'perMs'>,
  stamps: readonly number[],
  now: number,
): BudgetJudgement {
  const since = now - budget.perMs;
  // A time past `now` (a clock set back) still counts: forgetting it would let calls through.
  const kept = stamps.filter((at) => at > since).sort((a, b) => a - b);
  if (kept.length >= budget.max) {
    const oldest = kept[kept.length - budget.max] as number;
    return { over: true, used: kept.length, freesAt: oldest + budget.perMs, next: kept };
  }
  return { over: false, used: kept.length + 1, freesAt: null, next: [...kept, now] };
}

/** `20 per 1h` style text of a budget, for people. */
export function describeBudget(budget: Pick<CompiledBudget, 'operations' | 'max' | 'per'>): string {
  return `at most ${budget.max} ${budget.operations.join(', ')} per ${budget.per}`;
}
