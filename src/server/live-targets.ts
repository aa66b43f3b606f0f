// Targets a call's arguments do not name but the live repository does: a merge names the pull
// request, not the branch it lands on. Read from Gitea (never from the model's arguments), and only
// when a branch scope needs it, so other calls make no extra request.
import { readPull } from '../gitea/facts.js';
import type { Session } from './session.js';

const MERGE = 'gitea.pr.merge';

/** Branches for decide()'s targets: the live base of the pull request a merge lands on; none when not needed or unreadable (the scope then denies). */
export async function liveMergeTargets(session: Session, operations: readonly string[], args: Record<string, unknown>): Promise<{ branches: string[] } | null> {
  if (!operations.includes(MERGE) || !session.profile.scopes.branches.has(MERGE)) return null;
  if (!session.client || typeof args.owner !== 'string' || typeof args.repo !== 'string' || typeof args.index !== 'number') return null;
  const pull = await readPull(session.client, { owner: args.owner, repo: args.repo, index: args.index });
  if (pull.ok) return { branches: [pull.value.baseRef] };
  session.logger.warn({ operation: MERGE, detail: pull.detail }, 'the base branch of the merge could not be read; the branch scope denies');
  return null;
}
