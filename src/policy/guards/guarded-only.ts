// Operations that only a guarded built-in tool may perform (policies/guards.yaml guarded_only). A
// generated or raw Gitea call needing one is denied for every profile, whatever its lists allow;
// the guarded tool decides its own operations without this step and then judges live facts.
import type { Decision } from '../decision.js';
import type { GuardedOnly } from './settings.js';
import type { Vocabulary } from '../vocabulary.js';

/** guarded_only entries that are not canonical operations: they would guard nothing, so loading fails on them. */
export function unknownGuardedOperations(guardedOnly: GuardedOnly, vocabulary: Vocabulary): string[] {
  return Object.keys(guardedOnly).filter((operation) => !vocabulary.operations.has(operation));
}

/** The operations no generated or raw tool may perform. */
export function guardedOperations(guardedOnly: GuardedOnly): ReadonlySet<string> {
  return new Set(Object.keys(guardedOnly));
}

/** A list-allowed decision needing a guarded-only operation becomes a guarded_tool_only denial; others pass unchanged. */
export function applyGuardedOnly(decision: Decision, guardedOnly: GuardedOnly): Decision {
  if (decision.decision !== 'allow') return decision;
  const operation = decision.operations.find((op) => Object.hasOwn(guardedOnly, op));
  if (operation === undefined) return decision;
  const tool = guardedOnly[operation]?.tool ?? 'its guarded tool';
  const message = `${operation} may only be performed through ${tool}, which checks live facts first; generated and raw tools are refused for every profile.`;
  return {
    ...decision,
    decision: 'deny',
    reason: 'guarded_tool_only',
    determining: { file: 'policies/guards.yaml', line: null, rule: `guarded_only: ${operation} -> ${tool}` },
    failed: [...decision.failed, { code: 'guarded_tool_only', message }],
    hint: `Use ${tool} instead (gitea_resolve_task_capability names the namespace that may).`,
  };
}
