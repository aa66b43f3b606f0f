// Pull request reviews: list, get, create and submit a pending one, with Gitea's rules: the author
// can neither approve nor request changes (422), COMMENT and REQUEST_CHANGES need a body, closed or
// merged pull requests take no reviews. `commit_id` is whatever the caller sends, any string, and only
// defaults to the current head when empty (routers/api/v1/repo.CreatePullReview); submitting a pending
// review takes the head (SubmitPullReview). Official, stale and the dismissal of earlier verdicts
// follow review-rules.ts. The list pages as ListPullReviews
// does: X-Total-Count counts every review, the page then leaves out other users' pending ones.
import { requireSignedIn } from '../auth.js';
import { bodyObject, ok, stringField, type RequestContext, type Route } from '../context.js';
import { notFound, unprocessable } from '../api-errors.js';
import type { Account, Review, ReviewState } from '../model.js';
import { paginate } from '../list-paging.js';
import { presentReview } from '../present.js';
import { recordVerdict } from '../review-rules.js';
import { pathPull, pathRepo, type PullIssue } from './lookup.js';

/** Gitea's preparePullReviewType: the stored state for an event, or the 422 it answers. */
function reviewState(pull: PullIssue, doer: Account, event: string, body: string): ReviewState {
  const isAuthor = pull.user === doer.login;
  let state: ReviewState;
  switch (event) {
    case 'APPROVED':
      if (isAuthor) throw unprocessable('approve your own pull is not allowed');
      return 'APPROVED';
    case 'REQUEST_CHANGES':
      if (isAuthor) throw unprocessable('reject your own pull is not allowed');
      state = 'REQUEST_CHANGES';
      break;
    case 'COMMENT':
      state = 'COMMENT';
      break;
    default:
      return 'PENDING';
  }
  if (body.trim() === '') throw unprocessable(`review event ${event} requires a body`);
  return state;
}

function assertOpen(pull: PullIssue): void {
  if (pull.state === 'closed' || pull.pull.merged) throw unprocessable("can't submit review for a closed or merged PR");
}

function createReview(ctx: RequestContext) {
  const doer = requireSignedIn(ctx.caller);
  const repo = pathRepo(ctx);
  const pull = pathPull(ctx, repo);
  const body = bodyObject(ctx);
  const text = stringField(body, 'body') ?? '';
  const state = reviewState(pull, doer, stringField(body, 'event') ?? '', text);
  if (state !== 'PENDING') assertOpen(pull);
  const commitId = stringField(body, 'commit_id') || pull.pull.headSha;
  const review: Review = {
    id: ctx.state.nextId('review'),
    user: doer.login,
    state,
    body: text,
    commitId,
    dismissed: false,
    official: false,
    stale: false,
    submitted: ctx.state.timestamp(),
  };
  recordVerdict(ctx.state, repo, pull, review, false);
  pull.pull.reviews.push(review);
  if (state !== 'PENDING') recordReviewComment(ctx, pull, review);
  return ok(presentReview(ctx.state, repo, pull, review, doer));
}

/** models/issues.SubmitReview: a submitted review is also a `review` comment of the timeline, after the pushes before it. */
function recordReviewComment(ctx: RequestContext, pull: PullIssue, review: Review): void {
  ctx.state.addEvent(pull, { type: 'review', user: review.user, body: review.body, reviewId: review.id });
}

function reviewParam(ctx: RequestContext, pull: PullIssue): Review {
  const review = pull.pull.reviews.find((r) => r.id === Number(ctx.params.id));
  if (!review) throw notFound();
  return review;
}

function submitReview(ctx: RequestContext) {
  const doer = requireSignedIn(ctx.caller);
  const repo = pathRepo(ctx);
  const pull = pathPull(ctx, repo);
  const review = reviewParam(ctx, pull);
  if (review.user !== doer.login) throw notFound();
  if (review.state !== 'PENDING') throw unprocessable('only a pending review can be submitted');
  const body = bodyObject(ctx);
  const text = stringField(body, 'body') ?? review.body;
  const state = reviewState(pull, doer, stringField(body, 'event') ?? '', text);
  if (state === 'PENDING') throw unprocessable('review event is required');
  assertOpen(pull);
  Object.assign(review, { state, body: text, commitId: pull.pull.headSha, submitted: ctx.state.timestamp() });
  recordVerdict(ctx.state, repo, pull, review, true);
  recordReviewComment(ctx, pull, review);
  return ok(presentReview(ctx.state, repo, pull, review, doer));
}

export const reviewRoutes: Route[] = [
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/pulls/{index}/reviews',
    operationId: 'repoListPullReviews',
    handler: (ctx) => {
      const repo = pathRepo(ctx);
      const pull = pathPull(ctx, repo);
      // The page is cut from every review, then another user's pending ones are left out (a short page).
      const visible = (r: Review) => r.state !== 'PENDING' || r.user === ctx.caller.doer?.login;
      return paginate(ctx, pull.pull.reviews, (page) =>
        page.filter(visible).map((r) => presentReview(ctx.state, repo, pull, r, ctx.caller.doer)),
      );
    },
  },
  {
    method: 'POST',
    path: '/repos/{owner}/{repo}/pulls/{index}/reviews',
    operationId: 'repoCreatePullReview',
    handler: createReview,
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}',
    operationId: 'repoGetPullReview',
    handler: (ctx) => {
      const repo = pathRepo(ctx);
      const pull = pathPull(ctx, repo);
      const review = reviewParam(ctx, pull);
      if (review.state === 'PENDING' && review.user !== ctx.caller.doer?.login) throw notFound();
      return ok(presentReview(ctx.state, repo, pull, review, ctx.caller.doer));
    },
  },
  {
    method: 'POST',
    path: '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}',
    operationId: 'repoSubmitPullReview',
    handler: submitReview,
  },
];
