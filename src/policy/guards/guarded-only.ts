// Operations that only a guarded built-in tool may perform (policies/guards.yaml guarded_only). A
// generated or raw Gitea call needing one is denied for every profile, whatever its lists allow;
// the guarded tool decides its own operations without this step (its request names no call) and
// then judges live facts.
import type { Decision } from '../decision.js';
import type { GuardedOnly } from './guard-settings.js';
import type { Vocabulary } from '../vocabulary.js';

/** guarded_only entries that are not canonical operations: they would guard nothing, so loading fails on them. */
export function unknownGuardedOperations(guardedOnly: GuardedOnly, vocabulary: Vocabulary): string[] {
  return Object.keys(guardedOnly).filter((operation) => !vocabulary.operations.has(operation));
}

/** The operations no generated or raw tool may perform. */
export function guardedOperations(guardedOnly: GuardedOnly): ReadonlySet<string> {
  return new Set(Object.keys(guardedOnly));
}

/**
 * The guarded_tool_only denial of a Gitea call needing a guarded-only operation, or null. It is a
 * forbid that holds for every profile, so it is decided before default deny and resource scopes.
 */
export function guardedOnlyDenial(operations: readonly string[], guardedOnly: GuardedOnly): Decision | null {
  const operation = operations.find((op) => Object.hasOwn(guardedOnly, op));
  if (operation === undefined) return null;
  const tool = guardedOnly[operation]?.tool ?? 'its guarded tool';
  const message = `${operation} may only be performed through ${tool}, which checks live facts first; generated and raw tools are refused for every profile.`;
  // When the guarded operation is an extra an argument asks for (a merge deleting its branch), the call works without that argument.
  const extra =
    operation === operations[0]
      ? ''
      : `Make the call without the argument that asks for ${operation}, and use ${tool} for it`;
  return {
    effect: 'deny',
    operation: operations[0] ?? null,
    operations: [...operations],
    reason: 'guarded_tool_only',
    determining: { file: 'policies/guards.yaml', line: null, rule: `guarded_only: ${operation} -> ${tool}` },
    failed: [{ code: 'guarded_tool_only', message }],
    hint: `${extra || `Use ${tool} instead`} (gitea_resolve_task_capability names the namespace that may).`,
  };
}
