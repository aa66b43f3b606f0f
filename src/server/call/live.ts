// What a call's arguments cannot tell but the live repository can, read from Gitea (never from the
// model's arguments) and only when a rule needs it, so other calls make no extra request.
// - Operations: in Gitea a pull request is also an issue, so closing or editing issue #n through the
//   issue endpoints is a pull request close or edit when #n is one (policies/operations.yaml
//   on_pull_requests); a comment addressed by id is judged by the issue it is on, read from the
//   comment (Gitea ignores the {index} of the deprecated comment routes); unreadable counts as a pull request.
// - Targets: a merge names the pull request, not the branch it lands on; an update of a pull request
//   (base merged or rebased into its head) names it too, not the head branch it pushes to. A ref move
//   (policies/targets.yaml ref_moves) writes the files its commits bring, read from Gitea's compare; a
//   compare against another owner's `owner:branch` reads that owner's fork, whose name Gitea tells.
import {
  readBranchProtected,
  readCompareHeadRepository,
  readDefaultBranch,
  readProtectionRules,
  readRefMoveFiles,
} from '../../gitea/facts.js';
import type { Decision, FailedCondition } from '../../policy/decision.js';
import type { PullFacts } from '../../policy/guards/guard-facts.js';
import type { Fact } from '../../policy/guards/verdict.js';
import type { LiveBranchFacts } from '../../policy/scopes.js';
import { compareHeadOf, newBranchNames, readPath, readRefMove, readTargets } from '../../policy/targets.js';
import { pullRequestOperations, withOperations, type MappedCall } from '../../policy/operation-map.js';
import type { CallContext, GiteaCallContext } from './call-context.js';

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

/** What the live reads add to a call's targets, and why (a denial they cause names it). */
export interface LiveTargets {
  /** decide()'s supplied targets: lists of names, or null for a kind that could not be read. */
  targets: { branches?: string[]; paths?: string[] | null; repositories?: string[] | null };
  /** The live facts behind them, for a denial's failed list. */
  notes: FailedCondition[];
}

const REF_MOVE_FACT =
  'GET /repos/{owner}/{repo}/compare/{onto}...{source}: commits[].files[].filename (the files the move brings)';
const COMPARE_HEAD_FACT =
  "GET /repos/{owner}/{repo}/forks and /repos/{owner}/{repo}: full_name, parent (the compare's head repository)";

/**
 * Targets only Gitea can tell: the branch of the named pull request a merge or update writes (when a
 * branch scope or the protected branches need it), the files a ref move brings, and the repository a
 * compare against `owner:ref` reads. Null when the call needs none.
 */
export async function liveTargets(call: GiteaCallContext, operations: readonly string[]): Promise<LiveTargets | null> {
  const parts = await Promise.all([pullBranches(call, operations), refMoveFiles(call), compareHeadRepository(call)]);
  const found = parts.filter((part): part is LiveTargets => part !== null);
  if (found.length === 0) return null;
  return {
    targets: Object.assign({}, ...found.map((part) => part.targets)) as LiveTargets['targets'],
    notes: found.flatMap((part) => part.notes),
  };
}

async function pullBranches(call: CallContext, operations: readonly string[]): Promise<LiveTargets | null> {
  const { session, live } = call;
  const needed = operations.filter(
    (op) =>
      LIVE_BRANCH.has(op) &&
      (session.profile.scopes.branches.has(op) || session.policy.scopePolicy.protectedBranchOperations.has(op)),
  );
  if (needed.length === 0 || !session.client || !live.ref) return null;
  const pull = await live.pull();
  if (pull.ok)
    return {
      targets: { branches: needed.map((op) => (LIVE_BRANCH.get(op) as (pull: PullFacts) => string)(pull.value)) },
      notes: [],
    };
  session.logger.warn(
    { operations: needed, detail: pull.detail },
    'the branch of the pull request could not be read; the branch checks deny',
  );
  return null;
}

/** The files a ref move brings into the repository, or an unreadable paths target when they cannot be told. */
async function refMoveFiles(call: GiteaCallContext): Promise<LiveTargets | null> {
  const { session, target, entry } = call;
  const spec = session.policy.targets.refMoves.get(entry.operationId);
  if (!spec || !target?.owner || !target.repo) return null;
  const move = readRefMove(spec, call.args);
  const unreadable = (detail: string): LiveTargets => ({
    targets: { paths: null },
    notes: [
      {
        code: 'target_unreadable',
        message: `what this ref move brings cannot be told: ${detail}`,
        fact: REF_MOVE_FACT,
      },
    ],
  });
  if (move === 'unreadable') return unreadable('its source or destination cannot be read from the arguments');
  if (!session.client) return unreadable('no Gitea token is configured');
  const files = await readRefMoveFiles(
    session.client,
    { owner: target.owner, repo: target.repo, ...move },
    session.policy.guards.facts,
  );
  if (!files.ok) return unreadable(files.detail);
  return {
    targets: { paths: files.value.files },
    notes: [
      {
        code: 'path_not_allowed',
        message: `the ref move brings ${files.value.files.length} changed file(s) (compare ${files.value.compare}): ${files.value.files.join(', ') || 'none'}`,
        fact: REF_MOVE_FACT,
      },
    ],
  };
}

/** The repository a compare against another owner's `owner:ref` reads, as Gitea finds it. */
async function compareHeadRepository(call: GiteaCallContext): Promise<LiveTargets | null> {
  const { session, target, entry } = call;
  const spec = session.policy.targets.byOperationId.get(entry.operationId);
  const source =
    spec && spec.repositories !== 'opaque' ? spec.repositories.find((s) => 'compare_head' in s) : undefined;
  if (!source || !('compare_head' in source) || !target?.owner || !target.repo) return null;
  const [basehead] = readPath(call.args, source.compare_head) ?? [];
  const head = typeof basehead === 'string' ? compareHeadOf(basehead, target.owner) : null;
  if (head?.kind !== 'owner') return null;
  const found = session.client
    ? await readCompareHeadRepository(
        session.client,
        target.owner,
        target.repo,
        head.owner,
        session.policy.guards.facts,
      )
    : { ok: false as const, detail: 'no Gitea token is configured' };
  return found.ok
    ? { targets: { repositories: [found.value] }, notes: [] }
    : {
        targets: { repositories: null },
        notes: [
          {
            code: 'target_unreadable',
            message: `the repository ${head.owner}'s compare head lives in cannot be told: ${found.detail}`,
            fact: COMPARE_HEAD_FACT,
          },
        ],
      };
}

/** A denial names the live facts behind the targets that failed it (a note whose code is among its failures). */
export function withLiveTargetNotes(decision: Decision, live: LiveTargets | null): Decision {
  if (decision.effect !== 'deny' || !live) return decision;
  const notes = live.notes.filter((note) => decision.failed.some((failed) => failed.code === note.code));
  return notes.length === 0 ? decision : { ...decision, failed: [...decision.failed, ...notes] };
}

/**
 * For a protected-branch operation: the repository's default_branch and Gitea's `protected` flag of
 * each branch it targets (named by the arguments or read live above), so a branch protected by either
 * is refused whatever it is called. Null when no such operation, no repository or no branch is named.
 */
export async function liveBranchProtection(
  call: GiteaCallContext,
  operations: readonly string[],
  live: LiveTargets | null,
): Promise<LiveBranchFacts | null> {
  const { session, target, entry } = call;
  if (!operations.some((op) => session.policy.scopePolicy.protectedBranchOperations.has(op))) return null;
  if (!session.client || !target?.owner || !target.repo) return null;
  const spec = session.policy.targets.byOperationId.get(entry.operationId);
  const named = readTargets(spec, call.args).branches ?? [];
  const branches = [...new Set([...named, ...(live?.targets.branches ?? [])])];
  if (branches.length === 0) return null;
  const newNames = newBranchNames(spec, call.args);
  const { client } = session;
  const { owner, repo } = target;
  const flagged = branches.filter((b) => !newNames.includes(b));
  const [defaultBranch, rules, ...flags] = await Promise.all([
    readDefaultBranch(client, owner, repo),
    newNames.length > 0 ? readProtectionRules(client, owner, repo) : Promise.resolve(undefined),
    ...flagged.map((b) => readBranchProtected(client, owner, repo, b)),
  ]);
  return {
    repository: `${owner}/${repo}`,
    defaultBranch: defaultBranch as Fact<string>,
    protectedFlags: Object.fromEntries(flagged.map((b, i) => [b, flags[i] as Fact<boolean>])),
    ...(newNames.length > 0 ? { newNames, rules: rules as Fact<string[] | null> } : {}),
  };
}
