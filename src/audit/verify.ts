// Verifies a whole audit log's text and names the first line that breaks the chain. With a public
// key it also checks the signed checkpoints: each one's signature, that the whole log is covered by
// one, and the checkpoint file's copy (a log cut back past it, or replaced, no longer holds it).
import type { KeyObject } from 'node:crypto';
import { checkLink, checkSealedLine } from './chain.js';
import { asCheckpoint, checkCheckpoint } from './checkpoint.js';

export interface AuditVerification {
  ok: boolean;
  /** Lines that verified: the whole log when ok, else the intact prefix before firstBroken. */
  events: number;
  firstBroken?: { line: number; reason: string };
  /** With a public key: how many checkpoints verified, and the last line they cover. */
  signed?: { checkpoints: number; through: number };
}

export interface SignedVerifyOptions {
  publicKey: KeyObject;
  /** The checkpoint file's text; null when it is missing. */
  checkpointCopy: string | null;
  /** A live log: lines after the last checkpoint are expected (the server writes the next one later). */
  allowUnsignedTail?: boolean;
}

export const TRUNCATED_FINAL_LINE = 'truncated final line';

export function verifyAuditLog(text: string, signing?: SignedVerifyOptions): AuditVerification {
  const lines = text.length === 0 ? [] : text.split('\n');
  // A complete log ends with a newline, so the last split piece is empty; anything else is a torn write.
  const torn = lines.length > 0 && lines.pop() !== '';
  let previous: { line: string; seq: number } | null = null;
  let checkpoints = 0;
  let through = 0;
  for (const [i, line] of lines.entries()) {
    const check = checkSealedLine(line);
    if (!check.ok) return broken(i, check.reason);
    const linkProblem = checkLink(check, previous);
    if (linkProblem !== null) return broken(i, linkProblem);
    previous = { line, seq: check.seq };
    const checkpoint = signing ? asCheckpoint(line) : null;
    if (signing && checkpoint) {
      const problem = checkCheckpoint(checkpoint, signing.publicKey);
      if (problem !== null) return broken(i, `signed checkpoint: ${problem}`);
      const unsigned = checkpoint.checkpoint.unsigned_before ?? 0;
      if (unsigned > 0) {
        return broken(
          i,
          `lines ${through + 1} to ${through + unsigned} were not covered by a signature when the server started ` +
            'again (it crashed, or they were written while no server ran); check them by hand and start a new log',
        );
      }
      checkpoints += 1;
      through = check.seq;
    }
  }
  if (torn) return broken(lines.length, TRUNCATED_FINAL_LINE);
  if (!signing) return { ok: true, events: lines.length };
  const problem = signedProblem(lines, through, signing);
  if (problem !== null) return { ok: false, events: through, firstBroken: problem, signed: { checkpoints, through } };
  return { ok: true, events: lines.length, signed: { checkpoints, through } };
}

/** Coverage by checkpoints and agreement with the checkpoint file, once the chain itself holds. */
function signedProblem(
  lines: string[],
  through: number,
  signing: SignedVerifyOptions,
): { line: number; reason: string } | null {
  if (through === 0) {
    return {
      line: 1,
      reason:
        'no signed checkpoint in the log (a log written with a signing key starts with one): it was replaced, or never signed',
    };
  }
  if (through < lines.length && !signing.allowUnsignedTail) {
    return {
      line: through + 1,
      reason:
        `lines ${through + 1} to ${lines.length} come after the last signed checkpoint (line ${through}): appended by someone ` +
        'else, or the server is still running or did not stop cleanly (--allow-unsigned-tail for a live log)',
    };
  }
  if (signing.checkpointCopy === null) {
    return {
      line: lines.length,
      reason: 'the checkpoint file is missing: without it a log cut back to an earlier checkpoint looks whole',
    };
  }
  const copyLine = signing.checkpointCopy.trim();
  const copy = asCheckpoint(copyLine);
  if (copy === null) return { line: lines.length, reason: 'the checkpoint file does not hold a checkpoint' };
  const copyProblem = checkCheckpoint(copy, signing.publicKey);
  if (copyProblem !== null) return { line: lines.length, reason: `the checkpoint file: ${copyProblem}` };
  if (copy.seq > lines.length) {
    return {
      line: lines.length + 1,
      reason: `the log ends at line ${lines.length} but the checkpoint file covers line ${copy.seq}: the log was cut back`,
    };
  }
  if (lines[copy.seq - 1] !== copyLine) {
    return {
      line: copy.seq,
      reason: `line ${copy.seq} is not the checkpoint the checkpoint file holds: the log was replaced or rewritten`,
    };
  }
  return null;
}

/** `intact` events verified; the one after them (1-based line intact + 1) is the first broken. */
function broken(intact: number, reason: string): AuditVerification {
  return { ok: false, events: intact, firstBroken: { line: intact + 1, reason } };
}
