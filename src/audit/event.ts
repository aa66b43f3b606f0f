// What one audit event says. The caller (the server pipeline) fills the content; the log adds the
// chain fields. Only names and codes live here: never argument values, never a token.
import type { Effect } from '../policy/decision.js';

export type AuditPhase = 'write_ahead' | 'result';

/** Outcome of the call so far: 'pending' before execution, then ok / denied / error, or asked (it waits for a person). */
export type AuditStatus = 'pending' | 'ok' | 'denied' | 'error' | 'asked';

export interface AuditTarget {
  owner: string | null;
  repo: string | null;
  /** Issue or pull request number, when the call names one. */
  index: number | null;
}

export interface AuditEvent {
  /** ISO 8601; when omitted the log's clock fills it. */
  time?: string;
  phase: AuditPhase;
  /** Links the write-ahead event and the result event of one call. */
  call_id: string;
  profile: string;
  audit_label: string | null;
  /** The Gitea login verified at start (GET /user), not the one claimed. */
  login: string | null;
  tool: string;
  /** Canonical operation, e.g. gitea.pr.merge; null when the request could not be mapped. */
  operation: string | null;
  /** null in a write-ahead event written before the decision. */
  decision: Effect | null;
  reason: string | null;
  target: AuditTarget | null;
  status: AuditStatus;
  /** Gitea's HTTP status when the call reached Gitea. */
  http_status: number | null;
  /** Sorted argument names from argumentNames(); never values. */
  argument_names: string[];
  /** Guarded tools only: the facts they judged (SHAs, refs, numbers, check codes); never a secret. */
  evidence?: AuditEvidence;
  /** Integrity labels of the result: what was withheld or fenced, and the item that tainted the session. */
  integrity?: AuditIntegrity;
  /** Result events of calls a call budget counts (issue 30): each budget, how much of it is used, when a refused call fits. */
  budgets?: AuditBudget[];
}

export interface AuditBudget {
  operations: string[];
  max: number;
  per: string;
  /** Calls counted in the window, this one included when it was counted; null when the store did not answer. */
  used: number | null;
  /** A refused call: when the next one fits (ISO 8601). */
  frees_at: string | null;
}

export interface AuditIntegrity {
  lowest: string | null;
  withheld: Array<number | string | null>;
  fenced: Array<number | string | null>;
  tainted_by?: {
    type: string;
    id: number | string | null;
    author: string | null;
    repository: string | null;
    level: string;
  };
}

export type AuditEvidence = Record<string, string | number | boolean | null>;

/** An event as stored: content plus its place in the chain. */
export interface ChainedAuditEvent
  extends
    Required<Omit<AuditEvent, 'evidence' | 'integrity' | 'budgets'>>,
    Pick<AuditEvent, 'evidence' | 'integrity' | 'budgets'> {
  /** 1-based; equals the line number in the file. */
  seq: number;
  /** SHA-256 (hex) of the previous line's exact text, or GENESIS_PREV for the first event. */
  prev: string;
  /** SHA-256 (hex) of the canonical JSON of every other field (prev and seq included). */
  hash: string;
}

/** Sorted top-level argument names, plus `body.<key>` for the keys of an object `body`. Never values. */
export function argumentNames(args: Record<string, unknown>): string[] {
  const names = Object.keys(args);
  const body = args.body;
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    names.push(...Object.keys(body).map((key) => `body.${key}`));
  }
  return names.sort();
}
