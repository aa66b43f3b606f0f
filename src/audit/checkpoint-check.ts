// What a signing writer checks before it extends an existing log, as `audit verify --public-key`
// would, with the key's public half: the checkpoint file must hold a checkpoint this key signed, and
// the log must hold that line byte for byte at its seq (else the copy is missing, forged, or of another
// log: refused). Every line after the last checkpoint that verifies is unsigned, and the start
// checkpoint names them. With a high-water mark (high-water.ts) the log must also be the chain the
// mark records, at or past its checkpoint: a deleted, rolled-back or swapped log is refused, unless an
// operator retired the mark.
import type { FileHandle } from 'node:fs/promises';
import { readFile } from 'node:fs/promises';
import { checkLink, checkSealedLine, sha256Hex } from './chain.js';
import { asCheckpoint, checkCheckpoint, type CheckpointLine, type Signer } from './checkpoint.js';
import type { HighWaterMark, HighWaterRecord } from './high-water.js';

/** A start the writer refuses: the message names the log, what was found and what to do. */
export class AuditStartRefused extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
    fix: string,
  ) {
    super(`audit log ${path}: ${reason}; refusing to append. ${fix}`);
    this.name = 'AuditStartRefused';
  }
}

export interface StartFindings {
  /** Lines no checkpoint of this key covers (a crash, or lines written while no server ran). */
  unsigned: { from: number; to: number } | null;
  /** SHA-256 of the first line: the chain's id in the high-water mark; null for an empty log. */
  chain: string | null;
}

const KEEP_EVIDENCE = (path: string) =>
  `Keep the log and ${path}.checkpoint as evidence, run 'gitea-warden audit verify ${path} --public-key PUB'`;

/** The checks, for a log whose last line is `head.seq` (0: empty) and whose size is `size` bytes. */
export async function checkSignedStart(
  path: string,
  handle: FileHandle,
  size: number,
  headSeq: number,
  signer: Signer,
  highWater: HighWaterMark | undefined,
): Promise<StartFindings> {
  const copyPath = `${path}.checkpoint`;
  const copyText = await readFile(copyPath, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  const mark = highWater ? await highWater.read() : null;
  const live = mark !== null && mark.retired === undefined ? mark : null;
  if (headSeq === 0) {
    if (copyText !== null) {
      const seq = asCheckpoint(copyText.trim())?.seq;
      throw new AuditStartRefused(
        path,
        `the log is empty but its checkpoint file ${copyPath} names line ${seq ?? '?'} (the log was emptied or deleted)`,
        `${KEEP_EVIDENCE(path)}; then move both aside and start a new log (see 'gitea-warden audit new-log').`,
      );
    }
    if (live) throw deletedLog(path, live, highWater as HighWaterMark);
    return { unsigned: null, chain: null };
  }
  if (copyText === null) {
    throw new AuditStartRefused(
      path,
      `its checkpoint file ${copyPath} is missing, so nothing shows whether the log was cut back or rewritten`,
      `${KEEP_EVIDENCE(path)}; then move the log aside and start a new one (see 'gitea-warden audit new-log').`,
    );
  }
  const copyLine = copyText.trim();
  const copy = asCheckpoint(copyLine);
  const copyProblem =
    copy === null ? 'it holds no checkpoint' : !checkSealedLine(copyLine).ok ? 'its line does not verify' : null;
  const signatureProblem = copy !== null && copyProblem === null ? checkCheckpoint(copy, signer.publicKey) : null;
  if (copy === null || copyProblem !== null || signatureProblem !== null) {
    throw new AuditStartRefused(
      path,
      `its checkpoint file ${copyPath} is not a checkpoint this key signed (${copyProblem ?? signatureProblem}): it was forged or replaced`,
      `${KEEP_EVIDENCE(path)}; then move both aside and start a new log.`,
    );
  }
  if (copy.seq > headSeq) {
    throw new AuditStartRefused(
      path,
      `the log ends at line ${headSeq} but its checkpoint file covers line ${copy.seq} (the log was cut back)`,
      `${KEEP_EVIDENCE(path)}; then move both aside and start a new log.`,
    );
  }
  const from = Math.min(copy.seq, live?.seq ?? copy.seq);
  const lines = await readLinesFromEnd(handle, size, headSeq - from + 1);
  const lineAt = (seq: number) => lines[seq - from] ?? '';
  checkTail(path, lines, from);
  if (lineAt(copy.seq) !== copyLine) {
    throw new AuditStartRefused(
      path,
      `line ${copy.seq} is not the checkpoint its checkpoint file holds (the log was replaced or rewritten)`,
      `${KEEP_EVIDENCE(path)}; then move both aside and start a new log.`,
    );
  }
  const chain = sha256Hex(await readFirstLine(handle, size));
  if (live) checkAgainstMark(path, live, highWater as HighWaterMark, { chain, copy, lineAt });
  let lastSigned = copy.seq;
  for (let seq = copy.seq + 1; seq <= headSeq; seq++) {
    const checkpoint = asCheckpoint(lineAt(seq));
    if (checkpoint !== null && checkCheckpoint(checkpoint, signer.publicKey) === null) lastSigned = seq;
  }
  return { unsigned: lastSigned < headSeq ? { from: lastSigned + 1, to: headSeq } : null, chain };
}

function deletedLog(path: string, mark: HighWaterRecord, highWater: HighWaterMark): AuditStartRefused {
  return new AuditStartRefused(
    path,
    `the log is gone or empty, but the high-water mark ${highWater.file} says it held a signed chain through ` +
      `line ${mark.seq} (it was deleted)`,
    `Find the log; to start a new one there on purpose, run 'gitea-warden audit new-log ${path} --signing-key KEY' ` +
      "as the user that owns the signing key's directory.",
  );
}

function checkAgainstMark(
  path: string,
  mark: HighWaterRecord,
  highWater: HighWaterMark,
  found: { chain: string; copy: CheckpointLine; lineAt: (seq: number) => string },
): void {
  const fix =
    `${KEEP_EVIDENCE(path)}; to start a new log there on purpose, move both aside and run ` +
    `'gitea-warden audit new-log ${path} --signing-key KEY'.`;
  if (found.chain !== mark.chain) {
    throw new AuditStartRefused(
      path,
      `the log is another chain than the one the high-water mark ${highWater.file} records (it was replaced)`,
      fix,
    );
  }
  if (found.copy.seq < mark.seq || sha256Hex(found.lineAt(mark.seq)) !== mark.head) {
    throw new AuditStartRefused(
      path,
      `the high-water mark ${highWater.file} records a checkpoint at line ${mark.seq} that the log and its ` +
        `checkpoint file no longer reach (they were rolled back to an earlier state)`,
      fix,
    );
  }
}

/** Every line from `from` on must be sealed and follow the one before it. */
function checkTail(path: string, lines: string[], from: number): void {
  let previous: { line: string; seq: number } | null = null;
  for (const [i, line] of lines.entries()) {
    const check = checkSealedLine(line);
    const problem = !check.ok ? check.reason : previous === null ? null : checkLink(check, previous);
    if (problem !== null) {
      throw new AuditStartRefused(
        path,
        `line ${from + i} does not verify (${problem})`,
        `${KEEP_EVIDENCE(path)}; then move both aside and start a new log.`,
      );
    }
    if (check.ok) previous = { line, seq: check.seq };
  }
}

const CHUNK = 64 * 1024;

/** The last `count` lines of a file that ends with a newline, reading backwards from the end. */
async function readLinesFromEnd(handle: FileHandle, size: number, count: number): Promise<string[]> {
  const chunks: Buffer[] = [];
  let start = size;
  let newlines = 0;
  while (start > 0 && newlines <= count) {
    const length = Math.min(CHUNK, start);
    start -= length;
    const chunk = Buffer.alloc(length);
    await handle.read(chunk, 0, length, start);
    chunks.unshift(chunk);
    newlines += chunk.reduce((n, byte) => (byte === 0x0a ? n + 1 : n), 0);
  }
  const lines = Buffer.concat(chunks).toString('utf8').slice(0, -1).split('\n');
  return lines.slice(-count);
}

async function readFirstLine(handle: FileHandle, size: number): Promise<string> {
  const parts: Buffer[] = [];
  for (let position = 0; position < size; position += CHUNK) {
    const chunk = Buffer.alloc(Math.min(CHUNK, size - position));
    await handle.read(chunk, 0, chunk.length, position);
    const end = chunk.indexOf(0x0a);
    if (end >= 0) {
      parts.push(chunk.subarray(0, end));
      break;
    }
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}
