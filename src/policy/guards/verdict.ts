// What every guard returns, and how a guard verdict turns a passed list decision into a denial.
// A guard lists each condition it judged; a fact that could not be gathered is a failed check
// (fact_unavailable), never a skipped one.
import type { Decision, FailedCondition } from '../decision.js';
import type { ReasonCode } from '../reasons.js';
import { FACT_SOURCES, type FactName } from './guard-facts.js';

export interface GuardCheck {
  /** Listed code (reasons.ts) of the condition, e.g. self_merge; on failure, the specific reason (head_sha_mismatch). */
  code: ReasonCode;
  passed: boolean;
  /** One sentence for a person: names, refs and SHAs only, never a secret. */
  detail: string;
  /** The live fact(s) the condition was judged on (FACT_SOURCES), absent for a condition on the request or the policy. */
  fact?: string;
}

export interface GuardVerdict {
  /** Which guard judged: self_review, merge, cleanup_branch, reconcile_landed, or several joined by '+'. */
  guard: string;
  checks: GuardCheck[];
}

/** Where the setting that made a guard judge is written: a denial cites it as its determining entry. */
export interface GuardSource {
  file: string;
  line: number | null;
}

const GUARDS_FILE: GuardSource = { file: 'policies/guards.yaml', line: null };

/** A fact read live from Gitea: its value, or why it could not be read. */
export type Fact<T> = { ok: true; value: T } | { ok: false; detail: string };

const FACT_UNAVAILABLE = 'fact_unavailable';

// Self-review and self-merge lead every refusal: they are the conditions no setting can lift.
const LEADING_CODES = ['self_review', 'self_merge'];

const HINTS: Partial<Record<ReasonCode, string>> = {
  self_review: 'Review through a namespace whose Gitea identity is not the pull request author (gitea-reviewer).',
  self_merge: 'Merge through a namespace whose Gitea identity is not the pull request author (gitea-merger).',
  own_pull_request:
    'This role edits and closes only the pull requests its own user opened; ask their author, or the owner.',
  pr_author_unknown: 'Gitea did not report the pull request author; check the pull request exists and retry.',
  fact_unavailable:
    'A fact needed to judge the call could not be read from Gitea; check the repository, the pull request and the token, then retry.',
  head_sha_missing: 'Pass the pull request head SHA you reviewed as body.head_commit_id.',
  head_sha_mismatch:
    'The pull request head moved since you read it; review the new head and pass its SHA as body.head_commit_id.',
  no_independent_approval: 'Get an approval from someone who is neither the author nor the merger.',
  approval_stale: 'The approvals are on an older head; ask for a fresh approval of the current head.',
  changes_requested: 'An official reviewer requests changes; address them and ask that reviewer for a new review.',
  branch_deleted_by_default:
    'Pass body.delete_branch_after_merge: false; delete the branch later through gitea_cleanup_merged_pr_branch.',
  pr_not_open: 'Only an open pull request can be merged or reconciled.',
  branch_not_pr_head: "Name the pull request's own head branch.",
  head_repo_mismatch: 'The head branch lives in another repository (a fork); clean it up there.',
  pr_not_merged: 'Only the head branch of a merged pull request can be cleaned up.',
  head_not_landed:
    'The commit is not proven to be on the target branch (squash and rebase merges are never proven); keep the branch or the pull request.',
  branch_protected: 'Gitea protects this branch; it is never cleaned up by a tool.',
  branch_protected_by_policy: 'policies/targets.yaml lists this branch under protected_branches.',
  branch_preserved: 'policies/guards.yaml lists this branch under cleanup.preserved_refs.',
  branch_in_use:
    'Open pull requests still use this branch as head or base (Gitea closes them when it is deleted); merge, retarget or close them first.',
  approval_base_changed:
    'The pull request was retargeted after the approval; ask for a fresh approval against the new base.',
  approval_unseen_head:
    'The approval names a commit that was not the head when it was given; ask for a fresh approval of the current head.',
  review_head_mismatch:
    'Review the current head: leave body.commit_id out (the live head is used) or pass the head you read.',
  branch_moved: 'The branch moved after it was judged; nothing was deleted. Check it again and retry.',
  head_moved: 'The pull request head moved after it was judged; nothing was closed. Check it again and retry.',
};

export function check(
  code: ReasonCode,
  passed: boolean,
  detail: string,
  facts: FactName | FactName[] = [],
): GuardCheck {
  const names = [facts].flat();
  return names.length === 0
    ? { code, passed, detail }
    : { code, passed, detail, fact: names.map((n) => FACT_SOURCES[n]).join('; ') };
}

/** The failed checks, self-review and self-merge first, otherwise in the guards' order. */
export function failedChecks(verdict: GuardVerdict): GuardCheck[] {
  const failed = verdict.checks.filter((c) => !c.passed);
  const rank = (c: GuardCheck): number =>
    LEADING_CODES.includes(c.code) ? LEADING_CODES.indexOf(c.code) : LEADING_CODES.length;
  return failed
    .map((c, i) => ({ c, i }))
    .sort((a, b) => rank(a.c) - rank(b.c) || a.i - b.i)
    .map(({ c }) => c);
}

/** Joins verdicts of several guards that ran for one call, keeping each guard's order. */
export function combineVerdicts(verdicts: GuardVerdict[]): GuardVerdict {
  return { guard: verdicts.map((v) => v.guard).join('+'), checks: verdicts.flatMap((v) => v.checks) };
}

/**
 * A passed list decision stays allowed only if every guard check passed; otherwise it becomes a denial
 * listing every failed condition (self-review and self-merge first). A denial is returned unchanged.
 */
export function applyGuardVerdict(
  decision: Decision,
  verdict: GuardVerdict,
  source: GuardSource = GUARDS_FILE,
): Decision {
  if (decision.effect !== 'allow') return decision;
  const failed = failedChecks(verdict);
  const first = failed[0];
  if (!first) return decision;
  const conditions: FailedCondition[] = failed.map((c) => ({
    code: c.code,
    message: c.detail,
    ...(c.fact ? { fact: c.fact } : {}),
  }));
  const hints = [...new Set(failed.map((c) => HINTS[c.code] ?? `Resolve ${c.code} and retry.`))];
  return {
    ...decision,
    effect: 'deny',
    reason: first.code,
    determining: { ...source, rule: `guard ${verdict.guard}: ${first.code}` },
    failed: [...decision.failed, ...conditions],
    hint: hints.join(' '),
  };
}

type FactValues<T> = { [K in keyof T]: T[K] extends Fact<infer V> ? V : never };

/**
 * Collects checks in a fixed order. A condition is judged only when every fact it needs was read;
 * otherwise its first missing fact is reported, once per fact, as a failed fact_unavailable check in that place.
 */
export class CheckList {
  readonly checks: GuardCheck[] = [];
  private readonly reported = new Set<string>();

  add(...checks: GuardCheck[]): this {
    this.checks.push(...checks);
    return this;
  }

  need<T extends Record<string, Fact<unknown>>>(
    facts: T,
    judge: (values: FactValues<T>) => GuardCheck | GuardCheck[],
  ): this {
    const missing = Object.entries(facts).filter(([, fact]) => !fact.ok);
    const [first] = missing;
    if (!first) {
      const values = Object.fromEntries(
        Object.entries(facts).map(([name, fact]) => [name, fact.ok ? fact.value : null]),
      );
      return this.add(...[judge(values as FactValues<T>)].flat());
    }
    // One missing fact per unjudged condition: later facts often depend on the first (no PR, no compare).
    if (missing.some(([name]) => this.reported.has(name))) return this;
    const [name, fact] = first;
    this.reported.add(name);
    return this.add(
      check(
        FACT_UNAVAILABLE,
        false,
        fact.ok ? '' : fact.detail,
        Object.hasOwn(FACT_SOURCES, name) ? (name as FactName) : [],
      ),
    );
  }

  verdict(guard: string): GuardVerdict {
    return { guard, checks: this.checks };
  }
}
