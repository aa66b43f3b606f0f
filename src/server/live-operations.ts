// Operations a call's arguments cannot tell but the live repository can. In Gitea a pull request is
// also an issue, so closing or editing issue #n through the issue endpoints is a pull request close
// or edit when #n is one (policies/operations.yaml on_pull_requests). Read from Gitea, never from the
// model's arguments, only for the operations that need it; unreadable counts as a pull request.
import { readIsPullRequest } from '../gitea/facts.js';
import { pullRequestOperations, withOperations, type MappedCall } from '../policy/operation-map.js';
import type { Session } from './session.js';

export async function withLivePullRequestOperations(session: Session, mapped: MappedCall, args: Record<string, unknown>): Promise<MappedCall> {
  if (!mapped.ok) return mapped;
  const extra = pullRequestOperations(session.policy.operationMap, mapped);
  if (extra.length === 0) return mapped;
  const { owner, repo, index } = args;
  if (session.client && typeof owner === 'string' && typeof repo === 'string' && typeof index === 'number') {
    const isPull = await readIsPullRequest(session.client, { owner, repo, index });
    if (isPull.ok && !isPull.value) return mapped;
    if (!isPull.ok) session.logger.warn({ operations: extra, detail: isPull.detail }, 'could not tell whether the issue is a pull request; its pull request permission is required too');
  }
  return withOperations(mapped, extra);
}
