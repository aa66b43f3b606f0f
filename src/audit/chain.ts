// The hash chain: how an event becomes a sealed line, and how one sealed line is checked.
// Each line carries `prev` = SHA-256 of the previous line's exact text (so a dropped, inserted,
// reordered or re-serialised line breaks the link after it) and `hash` = SHA-256 of its own
// canonical content including `seq` and `prev` (so an edited line fails on its own).
// Limit: cutting whole events off the end leaves a shorter chain that still verifies; only a
// copy of the last hash kept elsewhere (an anchor) can show that.
import { createHash } from 'node:crypto';
import type { AuditBudget, AuditEvent, AuditEvidence, AuditIntegrity, ChainedAuditEvent } from './event.js';

/** `prev` of the first event: there is no previous line. */
export const GENESIS_PREV = '0'.repeat(64);

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** JSON with object keys sorted at every depth, so the hash does not depend on key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function contentHash(fields: Omit<ChainedAuditEvent, 'hash'>): string {
  return sha256Hex(canonicalJson(fields));
}

/**
 * Seals one event as the next line of the chain. Only the known fields are copied, so a stray
 * property on the caller's object (an argument value, say) never reaches the file.
 */
export function sealEvent(
  event: AuditEvent,
  time: string,
  seq: number,
  prev: string,
): { event: ChainedAuditEvent; line: string } {
  const unsealed: Omit<ChainedAuditEvent, 'hash'> = {
    seq,
    time: event.time ?? time,
    phase: event.phase,
    call_id: event.call_id,
    profile: event.profile,
    audit_label: event.audit_label,
    login: event.login,
    tool: event.tool,
    operation: event.operation,
    decision: event.decision,
    reason: event.reason,
    target:
      event.target === null ? null : { owner: event.target.owner, repo: event.target.repo, index: event.target.index },
    status: event.status,
    http_status: event.http_status,
    argument_names: [...event.argument_names],
    ...(event.evidence ? { evidence: scalarsOf(event.evidence) } : {}),
    ...(event.integrity ? { integrity: integrityOf(event.integrity) } : {}),
    ...(event.budgets ? { budgets: event.budgets.map(budgetOf) } : {}),
    prev,
  };
  const sealed: ChainedAuditEvent = { ...unsealed, hash: contentHash(unsealed) };
  return { event: sealed, line: JSON.stringify(sealed) };
}

/** The integrity record field by field, ids as scalars: nothing else rides along. */
function integrityOf(integrity: AuditIntegrity): AuditIntegrity {
  const ids = (list: readonly unknown[]) =>
    list.filter((id): id is number | string | null => id === null || ['string', 'number'].includes(typeof id));
  const by = integrity.tainted_by;
  return {
    lowest: integrity.lowest,
    withheld: ids(integrity.withheld),
    fenced: ids(integrity.fenced),
    ...(by
      ? { tainted_by: { type: by.type, id: by.id, author: by.author, repository: by.repository, level: by.level } }
      : {}),
  };
}

/** One call budget field by field. */
function budgetOf(budget: AuditBudget): AuditBudget {
  return {
    operations: budget.operations.filter((name) => typeof name === 'string'),
    max: budget.max,
    per: budget.per,
    used: budget.used,
    frees_at: budget.frees_at,
  };
}

/** A copy holding only scalar values, so nothing nested rides along. */
function scalarsOf(evidence: AuditEvidence): AuditEvidence {
  const scalar = (value: unknown) => value === null || ['string', 'number', 'boolean'].includes(typeof value);
  return Object.fromEntries(Object.entries(evidence).filter(([, value]) => scalar(value)));
}

export type LineCheck = { ok: true; seq: number; prev: string } | { ok: false; reason: string };

/** Checks one line on its own: JSON object, numeric seq, hex prev, and a hash that matches the content. */
export function checkSealedLine(line: string): LineCheck {
  if (line.length === 0) return { ok: false, reason: 'empty line' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return { ok: false, reason: 'not valid JSON' };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    return { ok: false, reason: 'not a JSON object' };
  const { hash, ...rest } = parsed as Record<string, unknown>;
  if (!Number.isInteger(rest.seq)) return { ok: false, reason: 'seq missing or not an integer' };
  if (typeof rest.prev !== 'string' || !/^[0-9a-f]{64}$/.test(rest.prev))
    return { ok: false, reason: 'prev missing or not a SHA-256 hex digest' };
  if (typeof hash !== 'string') return { ok: false, reason: 'hash missing' };
  if (sha256Hex(canonicalJson(rest)) !== hash)
    return { ok: false, reason: 'hash does not match the content (line edited)' };
  return { ok: true, seq: rest.seq as number, prev: rest.prev };
}

/** Checks that a line follows the one before it (or starts the chain when `previous` is null). */
export function checkLink(
  check: { seq: number; prev: string },
  previous: { line: string; seq: number } | null,
): string | null {
  const expectedSeq = previous === null ? 1 : previous.seq + 1;
  const expectedPrev = previous === null ? GENESIS_PREV : sha256Hex(previous.line);
  if (check.prev !== expectedPrev) {
    return previous === null
      ? 'prev is not the genesis value (the log does not start at its first event)'
      : 'prev does not match the previous line (a line was dropped, inserted, reordered or edited)';
  }
  if (check.seq !== expectedSeq) return `seq is ${check.seq}, expected ${expectedSeq}`;
  return null;
}

/** Seals `events` in order after the head `{seq, prev}`: their lines, the sealed events and the new head. */
export function sealBatch(events: readonly AuditEvent[], time: string, head: { seq: number; prev: string }) {
  let { seq, prev } = head;
  const lines: string[] = [];
  const sealed: ChainedAuditEvent[] = [];
  for (const event of events) {
    seq += 1;
    const next = sealEvent(event, time, seq, prev);
    lines.push(next.line);
    sealed.push(next.event);
    prev = sha256Hex(next.line);
  }
  return { lines, sealed, head: { seq, prev } };
}
