// Targets a call's arguments do not name but the live repository does: a merge names the pull
// request, not the branch it lands on; an update of a pull request (base merged or rebased into its
// head) names it too, not the head branch it pushes to. Read from Gitea (never from the model's
// arguments), and only when a branch scope or the protected branches need it, so other calls make
// no extra request.
import { readPull } from '../gitea/facts.js';
import type { PullFacts } from '../policy/guards/facts.js';
import type { Session } from './session.js';

/** The branch of the named pull request each operation writes. */
const LIVE_BRANCH: ReadonlyMap<string, (pull: PullFacts) => string> = new Map([
  ['gitea.pr.merge', (pull) => pull.baseRef],
  ['gitea.pr.update_branch', (pull) => pull.headRef],
]);

/** Branches for decide()'s targets, read from the pull request; none when not needed or unreadable (the scope or protected branches then deny). */
export async function livePullTargets(session: Session, operations: readonly string[], args: Record<string, unknown>): Promise<{ branches: string[] } | null> {
  const needed = operations.filter((op) => LIVE_BRANCH.has(op) && (session.profile.scopes.branches.has(op) || session.policy.scopePolicy.protectedBranchOperations.has(op)));
  if (needed.length === 0) return null;
  if (!session.client || typeof args.owner !== 'string' || typeof args.repo !== 'string' || typeof args.index !== 'number') return null;
  const pull = await readPull(session.client, { owner: args.owner, repo: args.repo, index: args.index });
  if (pull.ok) return { branches: needed.map((op) => (LIVE_BRANCH.get(op) as (pull: PullFacts) => string)(pull.value)) };
  session.logger.warn({ operations: needed, detail: pull.detail }, 'the branch of the pull request could not be read; the branch checks deny');
  return null;
}
