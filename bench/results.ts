// The shape of bench/results.json: everything one `npm run bench` measured, on which machine.
import type { AuditAppendFigures } from './audit-append.js';
import type { DecisionFigures } from './decision-engines.js';
import type { ScalingPoint } from './scaling.js';
import type { ProtocolFigures } from './protocol-figures.js';
import type { OverheadFigures } from './server-overhead.js';
import type { ListingFigures, RecallFigures, StartupFigures } from './startup.js';
import type { Spread } from './stats.js';
import type { TokenVerificationFigures } from './token-verification.js';
import type { TracingFigures } from './tracing.js';

export interface Machine {
  cpu: string;
  cores: number;
  memoryGigabytes: number;
  os: string;
  node: string;
}

export interface RedactionFigures {
  inputBytes: number;
  issues: number;
  exactOnlyMBps: Spread;
  maskMBps: Spread;
  textMaskMBps: Spread;
  /** A ~5 MB .tar.gz download opened and redacted inside; absent in results written before it was measured. */
  archive?: { archiveBytes: number; inflatedBytes: number; files: number; archiveMBps: Spread };
}

export interface AuditFigures {
  events: number;
  fsync: AuditAppendFigures['fsync'];
  sequentialPerSecond: Spread;
  concurrentPerSecond: Spread;
}

export interface IntegrityFigures {
  items: number;
  calls: number;
  pureMs: Spread;
  cachedMs: Spread;
  cachedLookups: number;
  uncachedMs: Spread;
  uncachedLookups: number;
  /** The taint store's read and judgement before a write; absent in results of older runs. */
  taintReadMs?: Spread;
  taintRecords?: number;
}

export interface BenchResults {
  date: string;
  machine: Machine;
  rounds: number;
  decisions: DecisionFigures;
  scaling: ScalingPoint[];
  /** null when the server could not be measured; `skipped` says why. */
  overhead: OverheadFigures | null;
  /** Per-user OAuth: what verifying a bearer token adds to a call (absent in results of older runs). */
  tokenVerification?: TokenVerificationFigures | null;
  /** OpenTelemetry tracing off and on (absent in results of older runs). */
  tracing?: TracingFigures | null;
  /** Per reference namespace and tool mode; null when it could not be measured. */
  startup: StartupFigures[] | null;
  /** MCP SDK v2 in both eras against a bare relay and the v1-SDK build (absent in results of older runs). */
  protocol?: ProtocolFigures | null;
  skipped: string[];
  listings: ListingFigures[];
  recall: RecallFigures;
  redaction: RedactionFigures;
  audit: AuditFigures;
  /** Absent in results written before integrity labels were measured. */
  integrity?: IntegrityFigures;
}
