// Verifies a whole audit log's text and names the first line that breaks the chain.
import { checkLink, checkSealedLine } from './chain.js';

export interface AuditVerification {
  ok: boolean;
  /** Events that verified: the whole log when ok, else the intact prefix before firstBroken. */
  events: number;
  firstBroken?: { line: number; reason: string };
}

export const TRUNCATED_FINAL_LINE = 'truncated final line';

export function verifyAuditLog(text: string): AuditVerification {
  if (text.length === 0) return { ok: true, events: 0 };
  const lines = text.split('\n');
  // A complete log ends with a newline, so the last split piece is empty; anything else is a torn write.
  const torn = lines.pop() !== '';
  let previous: { line: string; seq: number } | null = null;
  for (const [i, line] of lines.entries()) {
    const check = checkSealedLine(line);
    if (!check.ok) return broken(i, check.reason);
    const linkProblem = checkLink(check, previous);
    if (linkProblem !== null) return broken(i, linkProblem);
    previous = { line, seq: check.seq };
  }
  if (torn) return broken(lines.length, TRUNCATED_FINAL_LINE);
  return { ok: true, events: lines.length };
}

/** `intact` events verified; the one after them (1-based line intact + 1) is the first broken. */
function broken(intact: number, reason: string): AuditVerification {
  return { ok: false, events: intact, firstBroken: { line: intact + 1, reason } };
}
