// What a call's arguments cannot tell but the live repository can, read from Gitea (never from the
// model's arguments) and only when a rule needs it, so other calls make no extra request.
// - Operations: in Gitea a pull request is also an issue, so closing or editing issue #n through the
//   issue endpoints is a pull request close or edit when #n is one (policies/operations.yaml
//   on_pull_requests); a comment addressed by id is judged by the issue it is on, read from the
//   comment (Gitea ignores the {index} of the deprecated comment routes); unreadable counts as a pull request.
// - Targets: a merge names the pull request, not the branch it lands on; an update of a pull request
//   (base merged or rebased into its head) names it too, not the head branch it pushes to.
import { readBranchProtected, readDefaultBranch } from '../../gitea/facts.js';
import type { Decision, FailedCondition } from '../../policy/decision.js';
import type { PullFacts } from '../../policy/guards/facts.js';
import type { Fact } from '../../policy/guards/verdict.js';
import type { LiveBranchFacts } from '../../policy/scopes.js';
import { readTargets } from '../../policy/targets.js';
import { pullRequestOperations, withOperations, type MappedCall } from '../../policy/operation-map.js';
import type { CallContext, GiteaCallContext } from './context.js';

/** The operations a call needs once live facts are read, and the fact that added any. */
export interface LiveOperations {
  mapped: MappedCall;
  /** Why pull request operations were added: a denial they cause names it in its failed list. */
  fact: FailedCondition | null;
}

const IS_PULL_REQUEST_FACT = 'GET /repos/{owner}/{repo}/issues/{index}: pull_request';
const COMMENT_ON_PULL_FACT = 'GET /repos/{owner}/{repo}/issues/comments/{id}: pull_request_url';
/** Routes that address a comment by id; Gitea ignores the {index} of the deprecated ones. */
const COMMENT_ROUTE = /\/issues\/(?:\{index\}\/)?comments\/\{id\}(?:\/|$)/;

/**
 * The mapped operations plus the pull request ones when what the call names is on a pull request:
 * the issue #index, or for a comment route the comment's own issue (never the route's {index}).
 */
export async function liveOperations(call: GiteaCallContext, mapped: MappedCall): Promise<LiveOperations> {
  if (!mapped.ok) return { mapped, fact: null };
  const { session, live, entry } = call;
  const extra = pullRequestOperations(session.policy.operationMap, mapped);
  if (extra.length === 0) return { mapped, fact: null };
  const commentId = COMMENT_ROUTE.test(entry.path) && typeof call.args.id === 'number' ? call.args.id : null;
  const subject = commentId !== null ? `comment ${commentId}` : live.ref ? `#${live.ref.index}` : 'the issue';
  const needs = `so this issue route also needs ${extra.join(', ')} (policies/operations.yaml on_pull_requests)`;
  let why = `${subject} is ${commentId !== null ? 'on ' : ''}a pull request, ${needs}`;
  if (session.client && (commentId !== null || live.ref)) {
    const isPull = commentId !== null ? await live.commentOnPullRequest(commentId) : await live.isPullRequest();
    if (isPull.ok && !isPull.value) return { mapped, fact: null };
    if (!isPull.ok) {
      why = `whether ${subject} is ${commentId !== null ? 'on ' : ''}a pull request could not be read (${isPull.detail}); it counts as one, ${needs}`;
      session.logger.warn(
        { operations: extra, detail: isPull.detail },
        'could not tell whether the issue is a pull request; its pull request permission is required too',
      );
    }
  }
  return {
    mapped: withOperations(mapped, extra),
    fact: {
      code: 'issue_is_pull_request',
      message: why,
      fact: commentId !== null ? COMMENT_ON_PULL_FACT : IS_PULL_REQUEST_FACT,
    },
  };
}

/**
 * A denial names the pull request fact when that fact caused it: the same request decided without
 * the added operations (`withoutThem`) would have been allowed.
 */
export function withLiveOperationsFact(
  decision: Decision,
  live: LiveOperations,
  withoutThem: () => Decision,
): Decision {
  if (decision.effect !== 'deny' || live.fact === null || withoutThem().effect !== 'allow') return decision;
  return { ...decision, failed: [...decision.failed, live.fact] };
}

/** The branch of the named pull request each operation writes. */
const LIVE_BRANCH: ReadonlyMap<string, (pull: PullFacts) => string> = new Map([
  ['gitea.pr.merge', (pull) => pull.baseRef],
  ['gitea.pr.update_branch', (pull) => pull.headRef],
]);

/** Branches for decide()'s targets, read from the pull request; none when not needed or unreadable (the scope or protected branches then deny). */
export async function liveTargets(
  call: CallContext,
  operations: readonly string[],
): Promise<{ branches: string[] } | null> {
  const { session, live } = call;
  const needed = operations.filter(
    (op) =>
      LIVE_BRANCH.has(op) &&
      (session.profile.scopes.branches.has(op) || session.policy.scopePolicy.protectedBranchOperations.has(op)),
  );
  if (needed.length === 0 || !session.client || !live.ref) return null;
  const pull = await live.pull();
  if (pull.ok)
    return { branches: needed.map((op) => (LIVE_BRANCH.get(op) as (pull: PullFacts) => string)(pull.value)) };
  session.logger.warn(
    { operations: needed, detail: pull.detail },
    'the branch of the pull request could not be read; the branch checks deny',
  );
  return null;
}

/**
 * For a protected-branch operation: the repository's default_branch and Gitea's `protected` flag of
 * each branch it targets (named by the arguments or read live above), so a branch protected by either
 * is refused whatever it is called. Null when no such operation, no repository or no branch is named.
 */
export async function liveBranchProtection(
  call: GiteaCallContext,
  operations: readonly string[],
  live: { branches: string[] } | null,
): Promise<LiveBranchFacts | null> {
  const { session, target, entry } = call;
  if (!operations.some((op) => session.policy.scopePolicy.protectedBranchOperations.has(op))) return null;
  if (!session.client || !target?.owner || !target.repo) return null;
  const named = readTargets(session.policy.targets.byOperationId.get(entry.operationId), call.args).branches ?? [];
  const branches = [...new Set([...named, ...(live?.branches ?? [])])];
  if (branches.length === 0) return null;
  const { client } = session;
  const { owner, repo } = target;
  const [defaultBranch, ...flags] = await Promise.all([
    readDefaultBranch(client, owner, repo),
    ...branches.map((b) => readBranchProtected(client, owner, repo, b)),
  ]);
  return {
    repository: `${owner}/${repo}`,
    defaultBranch: defaultBranch as Fact<string>,
    protectedFlags: Object.fromEntries(branches.map((b, i) => [b, flags[i] as Fact<boolean>])),
  };
}
