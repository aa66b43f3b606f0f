// An issue's timeline (every comment type in id order), the cross-references a mention creates, and
// issue dependencies with the comments they leave on both issues.
import { accessLevel, requireSignedIn } from '../auth.js';
import { bodyObject, ok, stringField, type RequestContext, type Route } from '../context.js';
import { notFound, unprocessable } from '../api-errors.js';
import type { Account, Comment, Issue, Repo, SandboxState, TimelineEvent } from '../model.js';
import { listOptions } from '../list-paging.js';
import { presentIssue, presentTimelineComment } from '../present.js';
import { pathIssue, pathRepo } from './lookup.js';

/** A plain comment or another kind, as one timeline entry. */
export type TimelineEntry = { kind: 'comment'; comment: Comment } | { kind: 'event'; event: TimelineEvent };

/** issues_model.FindComments with CommentTypeUndefined: every comment of the issue, oldest first (created, id). */
export function timelineOf(issue: Issue): TimelineEntry[] {
  const entries: TimelineEntry[] = [
    ...issue.comments.map((comment) => ({ kind: 'comment' as const, comment })),
    ...issue.events.map((event) => ({ kind: 'event' as const, event })),
  ];
  const id = (entry: TimelineEntry): number => (entry.kind === 'comment' ? entry.comment.id : entry.event.id);
  return entries.sort((a, b) => id(a) - id(b));
}

/**
 * routers/api/v1/repo.isXRefCommentAccessible: a cross-reference from another repository shows only to
 * whoever can read that repository's issues.
 */
function accessible(state: SandboxState, repo: Repo, entry: TimelineEntry, viewer: Account | null): boolean {
  if (entry.kind === 'comment' || !entry.event.refIssue || entry.event.refIssue.repoId === repo.id) return true;
  const from = state.repoById(entry.event.refIssue.repoId);
  return from !== undefined && accessLevel(state, from, viewer) !== 'none';
}

/**
 * routers/api/v1/repo.ListIssueCommentsAndTimeline: one page of the issue's comments (page, limit),
 * then the entries the caller may not see left out; X-Total-Count is the number this page returns,
 * not the total, so a page can be short or empty before the end.
 */
function listTimeline(ctx: RequestContext) {
  const repo = pathRepo(ctx);
  const issue = pathIssue(ctx, repo);
  const { page, limit } = listOptions(ctx.query);
  const viewer = ctx.caller.doer;
  const shown = timelineOf(issue)
    .slice((page - 1) * limit, page * limit)
    .filter((entry) => accessible(ctx.state, repo, entry, viewer))
    .map((entry) => presentTimelineComment(ctx.state, repo, issue, entry, viewer));
  return { status: 200, body: shown, headers: { 'X-Total-Count': String(shown.length) } };
}

const REFERENCE = /(?:^|[\s(])(?:([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+))?#(\d+)\b/g;

/**
 * models/issues.AddCrossReferences (issue_xref.go): each `#N` or `owner/repo#N` the text mentions gets
 * an issue_ref (from an issue), pull_ref (from a pull request) or comment_ref (from a comment) comment
 * naming the mentioning issue, unless it is the same issue or the author cannot read the other
 * repository's issues (verifyReferencedIssue).
 */
export function addCrossReferences(
  state: SandboxState,
  repo: Repo,
  from: Issue,
  doer: Account,
  text: string,
  comment: Comment | null,
): void {
  const seen = new Set<string>();
  for (const match of text.matchAll(REFERENCE)) {
    const [, owner, name, number] = match;
    const target = owner && name ? state.repo(owner, name) : repo;
    if (!target || accessLevel(state, target, doer) === 'none') continue;
    const issue = target.issues.find((i) => i.number === Number(number));
    const key = `${target.id}#${number}`;
    if (!issue || issue === from || seen.has(key)) continue;
    seen.add(key);
    state.addEvent(issue, {
      type: comment ? 'comment_ref' : from.pull ? 'pull_ref' : 'issue_ref',
      user: doer.login,
      body: '',
      refIssue: { repoId: repo.id, number: from.number },
      ...(comment ? { refCommentId: comment.id } : {}),
    });
  }
}

/**
 * routers/api/v1/repo.CreateIssueDependency: the issue in the path depends on the one in the body (any
 * repository the caller can read); issues_model.CreateIssueDependencyComment leaves an add_dependency
 * comment on each, naming the other as dependent_issue.
 */
function createDependency(ctx: RequestContext) {
  const doer = requireSignedIn(ctx.caller);
  const repo = pathRepo(ctx, 'write');
  const issue = pathIssue(ctx, repo);
  const body = bodyObject(ctx);
  const other = ctx.state.repo(stringField(body, 'owner') ?? repo.owner, stringField(body, 'repo') ?? repo.name);
  if (!other || accessLevel(ctx.state, other, doer) === 'none') throw notFound('the issue does not exist');
  const dependency = other.issues.find((i) => i.number === body.index);
  if (!dependency) throw notFound('the issue does not exist');
  if (dependency === issue) throw unprocessable('issue cannot depend on itself');
  ctx.state.addEvent(issue, {
    type: 'add_dependency',
    user: doer.login,
    body: '',
    dependentIssue: { repoId: other.id, number: dependency.number },
  });
  ctx.state.addEvent(dependency, {
    type: 'add_dependency',
    user: doer.login,
    body: '',
    dependentIssue: { repoId: repo.id, number: issue.number },
  });
  return ok(presentIssue(ctx.state, repo, issue, doer), 201);
}

export const timelineRoutes: Route[] = [
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/issues/{index}/timeline',
    operationId: 'issueGetCommentsAndTimeline',
    handler: listTimeline,
  },
  {
    method: 'POST',
    path: '/repos/{owner}/{repo}/issues/{index}/dependencies',
    operationId: 'issueCreateIssueDependencies',
    handler: createDependency,
  },
];
