// The decision as data. One object feeds the tool result, the audit event, `explain` and `decide`.
import type { ReasonCode } from './reasons.js';

export type Effect = 'allow' | 'deny';

/** The entry that determined the outcome: a profile line, a policy rule, or the default deny. */
export interface DeterminingEntry {
  /** File the entry lives in (a profile, policies/*.yaml), or '<default>' / '<inline>'. */
  file: string;
  /** 1-based line in that file, when known. */
  line: number | null;
  /** The rule as written, e.g. `forbidden_operations: gitea.pr.merge` or `default deny`. */
  rule: string;
}

/** One condition a guard, scope or argument rule checked and found failing. */
export interface FailedCondition {
  /** Listed code (reasons.ts), e.g. self_merge, head_sha_mismatch, repository_out_of_scope. */
  code: ReasonCode;
  /** One sentence for a person. Never a secret, never a raw argument value beyond names and refs. */
  message: string;
  /** The profile or policy entry the condition comes from (file:line), when known. */
  entry?: DeterminingEntry;
  /** The live Gitea fact (endpoint and fields) a guard condition was judged on, or could not read. */
  fact?: string;
}

/**
 * The decision with every file it names (determining entry, failed entries, the hint's mention) as
 * `show` displays it; the server and the policy commands both show files through shownPath.
 */
export function withShownFiles(decision: Decision, show: (file: string) => string): Decision {
  const file = decision.determining.file;
  const hint = decision.hint?.split(file).join(show(file));
  const fix = decision.fix?.split(file).join(show(file));
  const failed = decision.failed.map((f) => (f.entry ? { ...f, entry: { ...f.entry, file: show(f.entry.file) } } : f));
  return {
    ...decision,
    determining: { ...decision.determining, file: show(file) },
    failed,
    ...(hint !== undefined ? { hint } : {}),
    ...(fix !== undefined ? { fix } : {}),
  };
}

export interface Decision {
  effect: Effect;
  /** The primary canonical operation, or null when the request could not be normalized/mapped. */
  operation: string | null;
  /** Every canonical operation the call needs (primary first); all must be allowed. */
  operations: string[];
  /** Listed reason code (reasons.ts): allowed, forbidden, not_allowed, unknown_operation, ... */
  reason: ReasonCode;
  determining: DeterminingEntry;
  /** Every failed condition when guards, scopes or conditions ran (self-review and self-merge first). */
  failed: FailedCondition[];
  /** For a denial: what can be done about it, as the agent reads it (a namespace to use, a person to ask; never a profile edit). */
  hint?: string;
  /** For a denial, for people only (explain, decide; never a tool result): the profile edit that would change it. */
  fix?: string;
}
