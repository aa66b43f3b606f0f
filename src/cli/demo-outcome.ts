// What one demo call came to, read from the tool result the way a person reads it: ALLOW (the
// server let it through to Gitea), DENY (a policy, guard or server refusal, with its reason code)
// or ERROR (allowed, but Gitea or the arguments failed). Also: does it match what the story expects?
import { isRecord } from '../gitea/errors.js';
import type { CallOutcome } from './demo-namespace.js';

export type Verdict = 'allow' | 'deny' | 'error';

export interface Observed {
  verdict: Verdict;
  /** The reason code of a denial or the error kind; 'allowed' for an allow. */
  reason: string;
  httpStatus: number | null;
  /** Indented lines for a person: the determining entry, failed checks, guard checks, the hint. */
  details: string[];
  /** The result payload (for an allowed Gitea call, `data` holds Gitea's answer). */
  payload: Record<string, unknown>;
}

/** What the story expects: an allow, or a denial with this reason (null: any denial by the policy layer). */
export type Expected = { verdict: 'allow' } | { verdict: 'deny'; reason: string };

// Arguments that failed the schema or a crash are faults of the call, not decisions.
const ERROR_KINDS = new Set(['invalid_arguments', 'internal_error']);

export function observe(outcome: CallOutcome): Observed {
  if (outcome.kind === 'protocol_error') {
    const unknownTool = /Unknown tool/i.test(outcome.message);
    return {
      verdict: 'deny',
      reason: unknownTool ? 'unknown_tool' : 'protocol_error',

      httpStatus: null,
      details: [unknownTool ? 'not served here: this namespace does not list the tool at all' : outcome.message],
      payload: {},
    };
  }
  const { payload } = outcome;
  const status = typeof payload.status === 'number' ? payload.status : null;
  if (!outcome.isError)
    return { verdict: 'allow', reason: 'allowed', httpStatus: status, details: checkLines(payload), payload };
  const error = isRecord(payload.error) ? payload.error : {};
  const kind = text(error.kind) ?? 'error';
  const fromGitea = payload.request !== null && typeof error.status === 'number';
  if (fromGitea || ERROR_KINDS.has(kind)) {
    return {
      verdict: 'error',
      reason: kind,
      httpStatus: typeof error.status === 'number' ? error.status : null,
      details: lines(text(error.message)),
      payload,
    };
  }
  return {
    verdict: 'deny',
    reason: text(error.reason) ?? kind,
    httpStatus: null,
    details: refusalLines(error),
    payload,
  };
}

/** null when the observation is what the story expected, else what differs, in words. */
export function mismatch(expected: Expected, observed: Observed): string | null {
  const differs =
    expected.verdict !== observed.verdict || (expected.verdict === 'deny' && expected.reason !== observed.reason);
  return differs ? `expected ${describeExpected(expected)}, got ${describeObserved(observed)}` : null;
}

export function describeObserved(observed: Observed): string {
  return observed.verdict === 'allow' ? 'ALLOW' : `${observed.verdict.toUpperCase()} ${observed.reason}`;
}

export function describeExpected(expected: Expected): string {
  return expected.verdict === 'allow' ? 'ALLOW' : `DENY ${expected.reason}`;
}

function refusalLines(error: Record<string, unknown>): string[] {
  const determining = isRecord(error.determining) ? error.determining : null;
  const entry = determining ? text(determining.entry) : null;
  const rule = determining ? text(determining.rule) : null;
  const failed = Array.isArray(error.failed) ? error.failed.filter(isRecord) : [];
  return [
    ...(entry ? [`determining entry: ${entry}${rule ? ` (${rule})` : ''}`] : []),
    ...failed.map((f) => `failed: ${text(f.code) ?? '?'}: ${text(f.message) ?? ''}`.trimEnd()),
    ...checkLines(error),
    ...(text(error.hint) ? [`hint: ${text(error.hint)}`] : lines(text(error.message))),
  ];
}

/** The guard checks a guarded tool reports (its `checks`, on the payload or its report). */
function checkLines(source: Record<string, unknown>): string[] {
  const holder = Array.isArray(source.checks) ? source : isRecord(source.report) ? source.report : {};
  const checks = Array.isArray(holder.checks) ? holder.checks.filter(isRecord) : [];
  const action = text(holder.action);
  return [
    // A check's code names its failure (confirmation_mismatch): a passed one reads better as its detail alone.
    ...checks.map((c) =>
      c.passed === true
        ? `check passed: ${text(c.detail) ?? text(c.code) ?? '?'}`
        : `check FAILED: ${text(c.code) ?? '?'}${text(c.detail) ? ` (${text(c.detail)})` : ''}`,
    ),
    ...(action ? [`action: ${action}`] : []),
  ];
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function lines(value: string | null): string[] {
  return value ? [value] : [];
}
