// The budget stage: the last check before Gitea. A call the profile's budgets count is counted in the
// state store, on the store's clock, per person and namespace, so every replica sharing the store sees
// one count; the judgement itself (is this call over, when does it fit) is src/policy/budgets.ts.
// Counting is a compare-and-swap of the budget's window (its call times), retried when another replica
// got there first; a store that does not answer refuses the call (budget_unavailable), never lets it by.
import type { AuditBudget } from '../../audit/event.js';
import { budgetsFor, describeBudget, judgeBudget, type CompiledBudget } from '../../policy/budgets.js';
import type { Decision } from '../../policy/decision.js';
import { budgetRefusals } from '../../telemetry/instruments.js';
import { shownPath } from '../../shared/paths.js';
import type { Session } from '../session.js';
import type { CallRecord } from './call-audit.js';
import { deniedRecord, type Outcome } from './outcome.js';
import { refusal } from './tool-result.js';

/** One budget's window as the store holds it: the times (ms) of the calls it counted, and the store's clock now. */
export interface BudgetWindow {
  stamps: number[];
  /** Changes with every write; null when the store holds nothing for the key yet. */
  version: number | null;
  now: number;
}

/** Where budgets are counted: the shared state store (src/auth/budget-store.ts) or this process (MemoryBudgetStore). */
export interface BudgetStore {
  read(key: string): Promise<BudgetWindow>;
  /** Writes `stamps` if the window is still at `version`; false when another call changed it first. */
  swap(key: string, version: number | null, stamps: readonly number[]): Promise<boolean>;
}

/** Counts in this process only: a namespace without a shared store (a restart starts every window afresh). */
export class MemoryBudgetStore implements BudgetStore {
  private readonly windows = new Map<string, { stamps: number[]; version: number }>();

  constructor(private readonly clock: () => number = Date.now) {}

  read(key: string): Promise<BudgetWindow> {
    const held = this.windows.get(key);
    return Promise.resolve({ stamps: [...(held?.stamps ?? [])], version: held?.version ?? null, now: this.clock() });
  }

  swap(key: string, version: number | null, stamps: readonly number[]): Promise<boolean> {
    const held = this.windows.get(key);
    if ((held?.version ?? null) !== version) return Promise.resolve(false);
    this.windows.set(key, { stamps: [...stamps], version: (version ?? 0) + 1 });
    return Promise.resolve(true);
  }
}

/** Attempts at one window before the store counts as not answering: only a storm of replicas racing needs more than two. */
const SWAP_ATTEMPTS = 8;

type Taken =
  | {
      kind: 'taken';
      budgets: AuditBudget[];
      /** Gives the counted call back (a guarded action whose checks refused it wrote nothing). */
      release(): Promise<void>;
    }
  | { kind: 'refused'; outcome: Outcome };

/**
 * Counts the call against every budget its operations fall under, or refuses it. A call refused by a
 * later budget gives back what the earlier ones counted, so a refusal spends nothing.
 */
export async function takeBudgets(session: Session, decision: Decision, target: CallRecord['target']): Promise<Taken> {
  const budgets = budgetsFor(session.profile.budgets, decision.operations);
  if (budgets.length === 0) return { kind: 'taken', budgets: [], release: () => Promise.resolve() };
  const store = session.budgets;
  const taken: Array<{ key: string; at: number }> = [];
  const shown: AuditBudget[] = [];
  for (const budget of budgets) {
    const key = budgetKey(session, budget);
    let counted: Counted;
    try {
      counted = await count(store, key, budget);
    } catch {
      counted = { kind: 'unavailable' };
    }
    if (counted.kind !== 'counted') {
      await giveBack(store, taken);
      return { kind: 'refused', outcome: refuse(session, decision, budget, counted, target) };
    }
    taken.push({ key, at: counted.at });
    shown.push(auditBudget(budget, counted.used, null));
  }
  return { kind: 'taken', budgets: shown, release: () => giveBack(store, taken) };
}

/**
 * Whether the budgets would refuse the call now, counting nothing: asked before a person is asked to
 * confirm it, so nobody confirms a call the budget then refuses. The count itself still happens after
 * the answer (takeBudgets), where a call that raced in between is refused as usual.
 */
export async function peekBudgets(
  session: Session,
  decision: Decision,
  target: CallRecord['target'],
): Promise<Outcome | null> {
  for (const budget of budgetsFor(session.profile.budgets, decision.operations)) {
    let peeked: Exclude<Counted, { kind: 'counted' }> | null;
    try {
      const window = await session.budgets.read(budgetKey(session, budget));
      const judged = judgeBudget(budget, window.stamps, window.now);
      peeked = judged.over
        ? { kind: 'over', used: judged.used, freesAt: judged.freesAt as number, now: window.now }
        : null;
    } catch {
      peeked = { kind: 'unavailable' };
    }
    if (peeked) return refuse(session, decision, budget, peeked, target);
  }
  return null;
}

type Counted =
  | { kind: 'counted'; at: number; used: number }
  | { kind: 'over'; used: number; freesAt: number; now: number }
  | { kind: 'unavailable' };

async function count(store: BudgetStore, key: string, budget: CompiledBudget): Promise<Counted> {
  for (let attempt = 0; attempt < SWAP_ATTEMPTS; attempt++) {
    const window = await store.read(key);
    const judged = judgeBudget(budget, window.stamps, window.now);
    if (judged.over) return { kind: 'over', used: judged.used, freesAt: judged.freesAt as number, now: window.now };
    if (await store.swap(key, window.version, judged.next))
      return { kind: 'counted', at: window.now, used: judged.used };
  }
  return { kind: 'unavailable' };
}

/** Best effort: a give-back that fails leaves the call counted, which errs on the side of fewer calls. */
async function giveBack(store: BudgetStore, taken: ReadonlyArray<{ key: string; at: number }>): Promise<void> {
  for (const { key, at } of taken) {
    try {
      for (let attempt = 0; attempt < SWAP_ATTEMPTS; attempt++) {
        const window = await store.read(key);
        const index = window.stamps.indexOf(at);
        if (index < 0) break;
        const stamps = window.stamps.filter((_, i) => i !== index);
        if (await store.swap(key, window.version, stamps)) break;
      }
    } catch {
      // the store stopped answering: the call stays counted
    }
  }
}

/** Per namespace (the profile) and person (the signed-in login, else the namespace's verified or configured login). */
function budgetKey(session: Session, budget: CompiledBudget): string {
  const { profile } = session;
  const person =
    session.signedIn?.login ?? session.identity.login() ?? profile.data.authenticated_username ?? 'unknown';
  return `${profile.name ?? profile.file}|${person.toLowerCase()}|${budget.key}`;
}

function refuse(
  session: Session,
  decision: Decision,
  budget: CompiledBudget,
  counted: Exclude<Counted, { kind: 'counted' }>,
  target: CallRecord['target'],
): Outcome {
  const { profile } = session;
  const namespace = profile.name ?? profile.file;
  const entry = `${shownPath(profile.file)}${budget.line === null ? '' : `:${budget.line}`}`;
  const about = { operations: budget.operations, max: budget.max, per: budget.per, entry };
  if (counted.kind === 'unavailable') {
    budgetRefusals.record(1, { namespace, operation: decision.operation ?? '', reason: 'budget_unavailable' });
    const result = refusal(
      'budget_unavailable',
      'The store that counts call budgets does not answer; the call is refused.',
      {
        reason: 'budget_unavailable',
        operation: decision.operation,
        budget: about,
        hint: 'Retry shortly; if it persists, the operator should check the state store (OAUTH_STORE).',
      },
    );
    return {
      result,
      record: {
        ...deniedRecord(decision.operation, 'budget_unavailable', target),
        budgets: [auditBudget(budget, null, null)],
      },
    };
  }
  budgetRefusals.record(1, { namespace, operation: decision.operation ?? '', reason: 'budget_exceeded' });
  const freesAt = new Date(counted.freesAt).toISOString();
  const retryAfter = Math.max(1, Math.ceil((counted.freesAt - counted.now) / 1000));
  const result = refusal(
    'budget_exceeded',
    `Call budget spent: ${describeBudget(budget)} (${entry}); the next call fits at ${freesAt}, in ${retryAfter} s.`,
    {
      reason: 'budget_exceeded',
      operation: decision.operation,
      budget: { ...about, used: counted.used, window_seconds: budget.perMs / 1000 },
      frees_at: freesAt,
      retry_after_seconds: retryAfter,
      hint: `Nothing reached Gitea. Wait until ${freesAt}, or ask the operator whether the budget at ${entry} fits this work.`,
    },
  );
  return {
    result,
    record: {
      ...deniedRecord(decision.operation, 'budget_exceeded', target),
      budgets: [auditBudget(budget, counted.used, freesAt)],
    },
  };
}

function auditBudget(budget: CompiledBudget, used: number | null, freesAt: string | null): AuditBudget {
  return { operations: [...budget.operations], max: budget.max, per: budget.per, used, frees_at: freesAt };
}
