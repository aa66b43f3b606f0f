// How the demo reads on a terminal: chapters, narration, one line per call (namespace, tool,
// ALLOW/DENY and reason, ✓ or ✗ against the expectation), indented details, and the summary table.
// Colour only when the output is a terminal and NO_COLOR is unset.
import type { Observed } from './demo-outcome.js';

export interface Row {
  namespace: string;
  call: string;
  expected: string;
  actual: string;
  /** What differs from the expectation; null when it matched. */
  problem: string | null;
}

export interface AuditCheck {
  namespace: string;
  file: string;
  ok: boolean;
  /** "ok: N events, chain intact" or the first broken line, as `gitea-warden audit verify` says it. */
  verdict: string;
}

type Paint = (text: string) => string;

const NAMESPACE_WIDTH = 11;
const CALL_WIDTH = 49;

export class Printer {
  private readonly bold: Paint;
  private readonly dim: Paint;
  private readonly green: Paint;
  private readonly red: Paint;

  constructor(
    private readonly out: NodeJS.WritableStream | null,
    colour: boolean,
  ) {
    const ansi = (code: number): Paint => (colour ? (text) => `\u001b[${code}m${text}\u001b[0m` : (text) => text);
    this.bold = ansi(1);
    this.dim = ansi(2);
    this.green = ansi(32);
    this.red = ansi(31);
  }

  chapter(title: string): void {
    this.write(`\n${this.bold(title)}\n`);
  }

  say(text: string): void {
    this.write(`${this.dim(text)}\n`);
  }

  call(row: Row, observed: Observed): void {
    const mark = row.problem === null ? this.green('✓') : this.red('✗');
    const paint = observed.verdict === 'allow' ? this.green : this.red;
    const status = observed.httpStatus === null ? '' : ` (HTTP ${observed.httpStatus})`;
    this.write(
      `  ${mark} ${row.namespace.padEnd(NAMESPACE_WIDTH)} ${row.call.padEnd(CALL_WIDTH)} → ${paint(row.actual)}${status}\n`,
    );
    for (const line of observed.details) this.detail(line);
    if (row.problem !== null) this.detail(this.red(`MISMATCH: ${row.problem}`));
  }

  detail(text: string): void {
    this.write(`        ${text}\n`);
  }

  summary(rows: readonly Row[], audits: readonly AuditCheck[], stopped: string | null): void {
    this.chapter('7. Summary: expected and actual decisions');
    const widths = [NAMESPACE_WIDTH, CALL_WIDTH, 28];
    this.write(`    ${['namespace', 'call', 'expected'].map((h, i) => h.padEnd(widths[i] ?? 0)).join(' ')} actual\n`);
    for (const row of rows) {
      const mark = row.problem === null ? this.green('✓') : this.red('✗');
      this.write(
        `  ${mark} ${[row.namespace, row.call, row.expected].map((c, i) => c.padEnd(widths[i] ?? 0)).join(' ')} ${row.actual}\n`,
      );
    }
    if (stopped !== null) this.write(this.red(`\n  The story stopped early: ${stopped}\n`));
    this.write(
      `\n${this.bold('Audit logs')} (one hash-chained log per namespace; check one with: gitea-warden audit verify <file>)\n`,
    );
    for (const audit of audits) {
      this.write(
        `  ${audit.ok ? this.green('✓') : this.red('✗')} ${audit.namespace.padEnd(NAMESPACE_WIDTH)} ${audit.file}\n        ${audit.verdict}\n`,
      );
    }
  }

  conclusion(mismatches: readonly string[]): void {
    if (mismatches.length === 0) {
      this.write(`\n${this.green('Every decision was the expected one.')}\n`);
      return;
    }
    this.write(`\n${this.red(`${mismatches.length} mismatch(es):`)}\n`);
    for (const mismatch of mismatches) this.write(`  - ${mismatch}\n`);
  }

  private write(text: string): void {
    this.out?.write(text);
  }
}
