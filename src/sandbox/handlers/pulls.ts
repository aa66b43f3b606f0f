// Pull requests: list, get, create, edit, "is merged", and merge with Gitea's checks in Gitea's
// order: merged (405) -> closed (404) -> permission (405) -> [manually-merged stops checking here]
// -> branch protection approvals unless an admin forces (405) -> head_commit_id (409) -> merge
// commit; then the head branch deletion ShouldDeleteBranchAfterMerge decides.
import { accessLevel, atLeast, requireSignedIn } from '../auth.js';
import { bodyObject, noContent, ok, stringField, type RequestContext, type Route } from '../context.js';
import { ApiError, conflict, forbidden, notFound, unprocessable } from '../api-errors.js';
import { mergePull, mergeTrees } from '../merge.js';
import { ancestors, copyCommits, mergeBase, openingPushContent, type Account, type Repo } from '../model.js';
import { deleteBranchClosingPulls } from './branches.js';
import { paginate } from '../list-paging.js';
import { presentPull, protectionFor } from '../present.js';
import { newIssue } from '../seed.js';
import { compareHead, pathPull, pathRepo, type PullIssue } from './lookup.js';
import { addCrossReferences } from './timeline.js';

const methodNotAllowed = (message: string): ApiError => new ApiError(405, message);

function pulls(repo: Repo): PullIssue[] {
  return repo.issues.filter((i): i is PullIssue => i.pull !== null);
}

function listPulls(ctx: RequestContext) {
  const repo = pathRepo(ctx);
  const state = ctx.query.get('state') ?? 'open';
  const base = ctx.query.get('base_branch');
  const poster = ctx.query.get('poster');
  const selected = pulls(repo)
    .filter((p) => state === 'all' || p.state === state)
    .filter((p) => !base || p.pull.base === base)
    .filter((p) => !poster || p.user === poster)
    .reverse();
  return paginate(ctx, selected, (page) => page.map((p) => presentPull(ctx.state, repo, p, ctx.caller.doer)));
}

/** issues_model.ErrPullRequestAlreadyExists, as the API's 409 words it. */
function alreadyExists(existing: PullIssue, headRepoId: number, baseRepoId: number, base: string) {
  const ids = `id: ${existing.id}, issue_id: ${existing.id}, head_repo_id: ${headRepoId}, base_repo_id: ${baseRepoId}`;
  return conflict(
    `pull request already exists for these targets [${ids}, head_branch: ${existing.pull.head}, base_branch: ${base}]`,
  );
}

/**
 * routers/api/v1/repo.CreatePullRequest: `head` is a branch of this repository, or `owner:branch` of
 * that owner's fork (parseCompareInfo); services/pull.NewPullRequest then copies the head into the base
 * repository (PushToBaseRepo, refs/pull/N/head) and starts the timeline with a pull_push comment.
 */
function createPull(ctx: RequestContext) {
  const doer = requireSignedIn(ctx.caller);
  const repo = pathRepo(ctx);
  const body = bodyObject(ctx);
  const base = stringField(body, 'base') ?? '';
  const title = stringField(body, 'title') ?? '';
  if (title.trim() === '') throw unprocessable('[Title]: Required');
  const { repo: headRepo, ref: head } = compareHead(ctx, repo, stringField(body, 'head') ?? '');
  const headSha = headRepo.branches.get(head);
  const baseSha = repo.branches.get(base);
  if (headSha === undefined || baseSha === undefined) throw notFound();
  copyCommits(headRepo, repo, headSha);
  if (ancestors(repo, baseSha).has(headSha))
    throw unprocessable('Invalid PullRequest: There are no changes between the head and the base');
  const existing = pulls(repo).find(
    (p) => p.state === 'open' && p.pull.headRepoId === headRepo.id && p.pull.head === head && p.pull.base === base,
  );
  if (existing) throw alreadyExists(existing, headRepo.id, repo.id, base);
  const issue = newIssue(ctx.state, repo, {
    title,
    body: stringField(body, 'body') ?? '',
    user: doer.login,
    created: ctx.state.timestamp(),
  });
  const pull: PullIssue = Object.assign(issue, {
    pull: {
      head,
      headRepoId: headRepo.id,
      base,
      headSha,
      mergeBase: mergeBase(repo, baseSha, headSha) ?? baseSha,
      merged: false,
      mergedAt: null,
      mergedBy: null,
      mergeCommitSha: null,
      reviews: [],
    },
  });
  repo.issues.push(pull);
  const opened = openingPushContent(repo, baseSha, headSha);
  if (opened) ctx.state.addEvent(pull, { type: 'pull_push', user: doer.login, body: JSON.stringify(opened) });
  addCrossReferences(ctx.state, repo, pull, doer, `${pull.title}\n${pull.body}`, null);
  return ok(presentPull(ctx.state, repo, pull, doer), 201);
}

function editPull(ctx: RequestContext) {
  const doer = requireSignedIn(ctx.caller);
  const repo = pathRepo(ctx);
  const pull = pathPull(ctx, repo);
  if (pull.user !== doer.login && !atLeast(accessLevel(ctx.state, repo, doer), 'write'))
    throw forbidden('user is not allowed to edit this pull request');
  const body = bodyObject(ctx);
  const state = stringField(body, 'state');
  if (state !== undefined && state !== 'open' && state !== 'closed')
    throw unprocessable('[State]: must be open or closed');
  // routers/api/v1/repo.EditPullRequest: a state change of a merged pull request is 412.
  if (state !== undefined && state !== pull.state && pull.pull.merged) {
    throw new ApiError(412, 'cannot change state of this pull request, it was already merged');
  }
  const title = stringField(body, 'title');
  const text = stringField(body, 'body');
  if (title !== undefined) pull.title = title;
  if (text !== undefined) pull.body = text;
  const at = ctx.state.timestamp();
  if (state !== undefined && state !== pull.state) {
    pull.state = state;
    pull.closedAt = state === 'closed' ? at : null;
  }
  pull.updated = at;
  const base = stringField(body, 'base') ?? '';
  if (!pull.pull.merged && base !== '' && base !== pull.pull.base) changeTargetBranch(ctx, repo, pull, base);
  return ok(presentPull(ctx.state, repo, pull, doer), 201);
}

/**
 * Gitea's EditPullRequest with a new base: pull_service.ChangeTargetBranch, after the state change. The
 * reviews stay as they are (neither stale nor dismissed), and a change_target_branch comment records the move.
 */
function changeTargetBranch(ctx: RequestContext, repo: Repo, pull: PullIssue, base: string): void {
  const baseSha = repo.branches.get(base);
  if (baseSha === undefined) throw notFound(`new base '${base}' not exist`);
  if (pull.state === 'closed')
    throw unprocessable(`issue is closed [id: ${pull.id}, repo_id: ${repo.id}, index: ${pull.number}]`);
  const existing = pulls(repo).find(
    (p) =>
      p !== pull &&
      p.state === 'open' &&
      p.pull.headRepoId === pull.pull.headRepoId &&
      p.pull.head === pull.pull.head &&
      p.pull.base === base,
  );
  if (existing) throw alreadyExists(existing, pull.pull.headRepoId, repo.id, base);
  const oldRef = pull.pull.base;
  pull.pull.base = base;
  pull.pull.mergeBase = mergeBase(repo, baseSha, pull.pull.headSha) ?? baseSha;
  const doer = ctx.caller.doer?.login ?? pull.user;
  ctx.state.addEvent(pull, { type: 'change_target_branch', user: doer, body: '', oldRef, newRef: base });
}

/**
 * Branch protection's review checks, on the official flags SubmitReview keeps: MergeBlockedByRejectedReview
 * (official, undismissed REQUEST_CHANGES) and GetGrantedApprovalsCount (official, undismissed approvals,
 * not stale when stale approvals are dismissed).
 */
function protectionProblem(repo: Repo, pull: PullIssue): string | null {
  const protection = protectionFor(repo, pull.pull.base);
  if (!protection) return null;
  const counted = pull.pull.reviews.filter((r) => r.official && !r.dismissed);
  if (protection.blockOnRejectedReviews && counted.some((r) => r.state === 'REQUEST_CHANGES'))
    return 'there are requested changes';
  const approvals = counted.filter(
    (r) => r.state === 'APPROVED' && !(protection.dismissStaleApprovals && r.stale),
  ).length;
  return approvals < protection.requiredApprovals ? 'does not have enough approvals' : null;
}

/** services/pull.CheckPullMergeable; MergeCheckTypeManually returns right after the permission check. */
function checkMergeable(
  ctx: RequestContext,
  repo: Repo,
  pull: PullIssue,
  doer: Account,
  force: boolean,
  manually: boolean,
): void {
  if (pull.pull.merged) throw methodNotAllowed('');
  if (pull.state === 'closed') throw notFound();
  const level = accessLevel(ctx.state, repo, doer);
  if (!atLeast(level, 'write')) throw methodNotAllowed('User not allowed to merge PR');
  if (manually) return;
  if (!ctx.state.repoById(pull.pull.headRepoId)?.branches.has(pull.pull.head) || !repo.branches.has(pull.pull.base))
    throw methodNotAllowed('Please try again later');
  const problem = protectionProblem(repo, pull);
  if (problem !== null && !(force && atLeast(level, 'admin'))) throw methodNotAllowed(problem);
}

const mergeStyles = ['merge', 'rebase', 'rebase-merge', 'squash', 'fast-forward-only', 'manually-merged'];

function merge(ctx: RequestContext) {
  const doer = requireSignedIn(ctx.caller);
  const repo = pathRepo(ctx, 'write');
  const pull = pathPull(ctx, repo);
  // Go decodes JSON field names case-insensitively, so `Do` and `do` both work against Gitea.
  const body = Object.fromEntries(Object.entries(bodyObject(ctx)).map(([k, v]) => [k.toLowerCase(), v]));
  const style = stringField(body, 'do') ?? '';
  if (!mergeStyles.includes(style)) throw unprocessable('[Do]: Required');
  checkMergeable(ctx, repo, pull, doer, body.force_merge === true, style === 'manually-merged');
  if (style === 'manually-merged')
    return markManuallyMerged(ctx, repo, pull, doer, stringField(body, 'merge_commit_id') ?? '');
  if (style !== 'merge' && style !== 'squash' && style !== 'fast-forward-only') {
    throw methodNotAllowed(`${style} is not allowed an allowed merge style for this repository`);
  }
  const expected = stringField(body, 'head_commit_id') ?? '';
  if (expected !== '' && expected !== pull.pull.headSha) throw conflict('head out of date');
  const title = stringField(body, 'merge_title_field') ?? '';
  const message =
    title.trim() ||
    `Merge pull request '${pull.title}' (#${pull.number}) from ${pull.pull.head} into ${pull.pull.base}`;
  if (style === 'merge') mergePull(ctx.state, repo, pull, { doer: doer.login, message, deleteBranch: false });
  else landWithoutMergeCommit(ctx, repo, pull, doer, style, message);
  const option = body.delete_branch_after_merge;
  if (shouldDeleteBranchAfterMerge(repo, typeof option === 'boolean' ? option : null))
    deleteHeadAfterMerge(ctx, repo, pull);
  return { status: 200 };
}

/** services/pull.ShouldDeleteBranchAfterMerge (Gitea 1.25+): no option given means the repository default. */
function shouldDeleteBranchAfterMerge(repo: Repo, option: boolean | null): boolean {
  return option ?? repo.defaultDeleteBranchAfterMerge;
}

/**
 * services/pull.MergedManually: no check but permission (done), no head_commit_id; the repository
 * must allow it, and merge_commit_id must be a commit of the base branch; it need not contain the head.
 */
function markManuallyMerged(ctx: RequestContext, repo: Repo, pull: PullIssue, doer: Account, commit: string) {
  if (!repo.allowManualMerge)
    throw methodNotAllowed('manually-merged is not allowed an allowed merge style for this repository');
  const baseHead = repo.branches.get(pull.pull.base);
  if (baseHead === undefined || !repo.commits.has(commit) || !ancestors(repo, baseHead).has(commit))
    throw conflict('Wrong commit ID');
  const at = ctx.state.timestamp();
  Object.assign(pull.pull, { merged: true, mergedAt: at, mergedBy: doer.login, mergeCommitSha: commit });
  Object.assign(pull, { state: 'closed', closedAt: at, updated: at });
  return { status: 200 };
}

/** squash: one new commit on the base; fast-forward-only: the base moves to the head. */
function landWithoutMergeCommit(
  ctx: RequestContext,
  repo: Repo,
  pull: PullIssue,
  doer: Account,
  style: string,
  message: string,
): void {
  const baseHead = repo.branches.get(pull.pull.base) as string;
  let landed = pull.pull.headSha;
  if (style === 'fast-forward-only') {
    if (!ancestors(repo, pull.pull.headSha).has(baseHead)) throw conflict('merge push out of date');
  } else {
    const tree = (sha: string | null) => (sha ? (repo.commits.get(sha)?.tree ?? {}) : {});
    landed = ctx.state.addCommit(repo, {
      parents: [baseHead],
      message,
      author: { name: doer.fullName || doer.login, email: doer.email, login: doer.login },
      date: ctx.state.timestamp(),
      tree: mergeTrees(tree(mergeBase(repo, baseHead, pull.pull.headSha)), tree(baseHead), tree(pull.pull.headSha)),
    }).sha;
  }
  const at = ctx.state.timestamp();
  ctx.state.moveBranch(repo, pull.pull.base, landed);
  Object.assign(pull.pull, {
    merged: true,
    mergedAt: at,
    mergedBy: doer.login,
    mergeCommitSha: landed,
    mergeBase: baseHead,
  });
  Object.assign(pull, { state: 'closed', closedAt: at, updated: at });
}

/** repo_service.DeleteBranchAfterMerge: skipped silently for the default branch, a protected one, or one another open PR heads. */
function deleteHeadAfterMerge(ctx: RequestContext, repo: Repo, pull: PullIssue): void {
  const head = pull.pull.head;
  if (pull.pull.headRepoId !== repo.id) return;
  if (head === repo.defaultBranch || protectionFor(repo, head)) return;
  if (pulls(repo).some((p) => p !== pull && p.state === 'open' && p.pull.head === head)) return;
  deleteBranchClosingPulls(ctx.state, repo, head);
}

export const pullRoutes: Route[] = [
  { method: 'GET', path: '/repos/{owner}/{repo}/pulls', operationId: 'repoListPullRequests', handler: listPulls },
  { method: 'POST', path: '/repos/{owner}/{repo}/pulls', operationId: 'repoCreatePullRequest', handler: createPull },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/pulls/{index}',
    operationId: 'repoGetPullRequest',
    handler: (ctx) => {
      const repo = pathRepo(ctx);
      return ok(presentPull(ctx.state, repo, pathPull(ctx, repo), ctx.caller.doer));
    },
  },
  {
    method: 'PATCH',
    path: '/repos/{owner}/{repo}/pulls/{index}',
    operationId: 'repoEditPullRequest',
    handler: editPull,
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/pulls/{index}/merge',
    operationId: 'repoPullRequestIsMerged',
    handler: (ctx) => {
      const pull = pathPull(ctx, pathRepo(ctx));
      if (!pull.pull.merged) throw notFound();
      return noContent();
    },
  },
  {
    method: 'POST',
    path: '/repos/{owner}/{repo}/pulls/{index}/merge',
    operationId: 'repoMergePullRequest',
    handler: merge,
  },
];
