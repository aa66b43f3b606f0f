// Sudo never makes two people. Gitea's sudo() (routers/api/v1/api.go) lets a site admin's token act as
// any user: a pull request opened, a commit made, an approval or a merge under sudo is recorded as
// that user's, so one session could author a change as bob and approve or merge it as itself, or the
// reverse. Judging by "every identity the session can act as" could never pass honestly (an admin can
// act as anyone), so every mutation under sudo is refused except the few policies/guards.yaml lists
// (sudo.mutations_allowed); reads under sudo are not refused for it.
import type { FailedCondition } from '../decision.js';
import type { Vocabulary } from '../vocabulary.js';

export const SUDO_OPERATION = 'gitea.admin.sudo';

export interface SudoRule {
  /** Mutations a call may make under sudo; every other mutation is refused. */
  mutationsAllowed: ReadonlySet<string>;
  /** Where the rule is written, for the denial's determining entry. */
  file: string;
  line: number | null;
}

/** The sudo_not_independent failure of a call that names sudo (it then needs gitea.admin.sudo) and mutates. */
export function sudoFailures(operations: readonly string[], vocabulary: Vocabulary, rule: SudoRule): FailedCondition[] {
  if (!operations.includes(SUDO_OPERATION)) return [];
  const refused = operations.filter(
    (op) => op !== SUDO_OPERATION && vocabulary.operations.get(op)?.risk !== 'read' && !rule.mutationsAllowed.has(op),
  );
  if (refused.length === 0) return [];
  const allowed = [...rule.mutationsAllowed];
  return [
    {
      code: 'sudo_not_independent',
      message:
        `${refused.join(', ')} under sudo would be recorded as the named user's, so one session would act as two people; ` +
        `make the call from that person's own namespace (sudo may only read${allowed.length > 0 ? `, or ${allowed.join(', ')}` : ''})`,
      entry: { file: rule.file, line: rule.line, rule: 'sudo.mutations_allowed' },
    },
  ];
}
