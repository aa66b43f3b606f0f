// Issues (list, get, create, edit), their comments (also by id), repository labels and issue labels.
// Pull requests are issues too, as in Gitea: they share the numbering and show in issue lists.
import { accessLevel, atLeast, requireSignedIn } from '../auth.js';
import { bodyObject, noContent, ok, stringField, type RequestContext, type Route } from '../context.js';
import { forbidden, notFound, unprocessable } from '../api-errors.js';
import type { Comment, Issue, Label, Repo } from '../model.js';
import { paginate } from '../list-paging.js';
import { presentComment, presentIssue, presentLabel } from '../present.js';
import { newIssue } from '../seed.js';
import { pathIssue, pathRepo } from './lookup.js';
import { addCrossReferences } from './timeline.js';

function listIssues(ctx: RequestContext) {
  const repo = pathRepo(ctx);
  const state = ctx.query.get('state') ?? 'open';
  const type = ctx.query.get('type');
  const q = (ctx.query.get('q') ?? '').toLowerCase();
  const labels = (ctx.query.get('labels') ?? '').split(',').filter((l) => l !== '');
  const selected = repo.issues
    .filter((i) => state === 'all' || i.state === state)
    .filter((i) => !type || (type === 'pulls') === (i.pull !== null))
    .filter((i) => i.title.toLowerCase().includes(q))
    .filter((i) => labels.every((name) => i.labels.some((id) => repo.labels.find((l) => l.id === id)?.name === name)))
    .reverse();
  return paginate(ctx, selected, (page) => page.map((i) => presentIssue(ctx.state, repo, i, ctx.caller.doer)));
}

function labelsByIdOrName(repo: Repo, values: unknown[]): Label[] {
  return values.map((value) => {
    const label = repo.labels.find((l) => l.id === value || l.name === value);
    if (!label) throw unprocessable(`label does not exist [id: ${String(value)}]`);
    return label;
  });
}

function createIssue(ctx: RequestContext) {
  const doer = requireSignedIn(ctx.caller);
  const repo = pathRepo(ctx);
  const body = bodyObject(ctx);
  const title = stringField(body, 'title') ?? '';
  if (title.trim() === '') throw unprocessable('[Title]: Required');
  const issue = newIssue(ctx.state, repo, {
    title,
    body: stringField(body, 'body') ?? '',
    user: doer.login,
    created: ctx.state.timestamp(),
  });
  if (Array.isArray(body.labels)) {
    if (!atLeast(accessLevel(ctx.state, repo, doer), 'write')) throw forbidden('user is not allowed to set labels');
    issue.labels = labelsByIdOrName(repo, body.labels).map((l) => l.id);
  }
  if (body.closed === true) {
    issue.state = 'closed';
    issue.closedAt = issue.created;
  }
  repo.issues.push(issue);
  addCrossReferences(ctx.state, repo, issue, doer, `${issue.title}\n${issue.body}`, null);
  return ok(presentIssue(ctx.state, repo, issue, doer), 201);
}

function editableIssue(ctx: RequestContext, repo: Repo): Issue {
  const doer = requireSignedIn(ctx.caller);
  const issue = pathIssue(ctx, repo);
  if (issue.user !== doer.login && !atLeast(accessLevel(ctx.state, repo, doer), 'write'))
    throw forbidden('user is not allowed to edit this issue');
  return issue;
}

function editIssue(ctx: RequestContext) {
  const repo = pathRepo(ctx);
  const issue = editableIssue(ctx, repo);
  const body = bodyObject(ctx);
  const state = stringField(body, 'state');
  if (state !== undefined && state !== 'open' && state !== 'closed')
    throw unprocessable('[State]: must be open or closed');
  if (state === 'open' && issue.pull?.merged) throw forbidden('cannot reopen a merged pull request');
  const at = ctx.state.timestamp();
  const title = stringField(body, 'title');
  // issue_service.ChangeTitle: a new title leaves a change_title comment with the old and the new one.
  if (title !== undefined && title !== issue.title && ctx.caller.doer)
    ctx.state.addEvent(issue, {
      type: 'change_title',
      user: ctx.caller.doer.login,
      body: '',
      oldTitle: issue.title,
      newTitle: title,
    });
  issue.title = title ?? issue.title;
  issue.body = stringField(body, 'body') ?? issue.body;
  if (state !== undefined && state !== issue.state) {
    issue.state = state;
    issue.closedAt = state === 'closed' ? at : null;
  }
  issue.updated = at;
  return ok(presentIssue(ctx.state, repo, issue, ctx.caller.doer), 201);
}

function createComment(ctx: RequestContext) {
  const doer = requireSignedIn(ctx.caller);
  const repo = pathRepo(ctx);
  const issue = pathIssue(ctx, repo);
  const text = stringField(bodyObject(ctx), 'body') ?? '';
  if (text.trim() === '') throw unprocessable('[Body]: Required');
  const at = ctx.state.timestamp();
  const comment = { id: ctx.state.nextId('comment'), user: doer.login, body: text, created: at, updated: at };
  issue.comments.push(comment);
  issue.updated = at;
  addCrossReferences(ctx.state, repo, issue, doer, text, comment);
  return ok(presentComment(ctx.state, repo, issue, comment, doer), 201);
}

/**
 * The comment the path's {id} names, with its issue: Gitea's GetCommentByID then LoadIssue, 404 when it
 * belongs to another repository. Any {index} of the (deprecated) route is ignored, as in Gitea.
 */
function pathComment(ctx: RequestContext, repo: Repo): { issue: Issue; comment: Comment } {
  const id = Number(ctx.params.id);
  for (const issue of repo.issues) {
    const comment = issue.comments.find((c) => c.id === id);
    if (comment) return { issue, comment };
  }
  throw notFound();
}

/** editIssueComment / deleteIssueComment: the poster, or CanWriteIssuesOrPulls(comment.Issue.IsPull). */
function writableComment(ctx: RequestContext): { repo: Repo; issue: Issue; comment: Comment } {
  const doer = requireSignedIn(ctx.caller);
  const repo = pathRepo(ctx);
  const { issue, comment } = pathComment(ctx, repo);
  if (comment.user !== doer.login && !atLeast(accessLevel(ctx.state, repo, doer), 'write'))
    throw forbidden('user is not allowed to change this comment');
  return { repo, issue, comment };
}

function editComment(ctx: RequestContext) {
  const { repo, issue, comment } = writableComment(ctx);
  const text = stringField(bodyObject(ctx), 'body');
  if (text === undefined) throw unprocessable('[Body]: Required');
  comment.body = text;
  comment.updated = ctx.state.timestamp();
  return ok(presentComment(ctx.state, repo, issue, comment, ctx.caller.doer));
}

function deleteComment(ctx: RequestContext) {
  const { issue, comment } = writableComment(ctx);
  issue.comments = issue.comments.filter((c) => c !== comment);
  return noContent();
}

function createLabel(ctx: RequestContext) {
  const repo = pathRepo(ctx, 'write');
  const body = bodyObject(ctx);
  const name = stringField(body, 'name') ?? '';
  const color = (stringField(body, 'color') ?? '').replace(/^#/, '');
  if (name.trim() === '') throw unprocessable('[Name]: Required');
  if (!/^([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(color)) throw unprocessable('invalid color');
  const label: Label = {
    id: ctx.state.nextId('label'),
    name,
    color,
    description: stringField(body, 'description') ?? '',
  };
  repo.labels.push(label);
  return ok(presentLabel(ctx.state, repo, label), 201);
}

function addLabels(ctx: RequestContext) {
  const repo = pathRepo(ctx, 'write');
  const issue = pathIssue(ctx, repo);
  const values = bodyObject(ctx).labels;
  if (!Array.isArray(values)) throw unprocessable('[Labels]: Required');
  for (const label of labelsByIdOrName(repo, values)) if (!issue.labels.includes(label.id)) issue.labels.push(label.id);
  issue.updated = ctx.state.timestamp();
  return ok(issueLabels(repo, issue).map((l) => presentLabel(ctx.state, repo, l)));
}

function issueLabels(repo: Repo, issue: Issue): Label[] {
  return repo.labels.filter((l) => issue.labels.includes(l.id));
}

export const issueRoutes: Route[] = [
  { method: 'GET', path: '/repos/{owner}/{repo}/issues', operationId: 'issueListIssues', handler: listIssues },
  { method: 'POST', path: '/repos/{owner}/{repo}/issues', operationId: 'issueCreateIssue', handler: createIssue },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/issues/{index}',
    operationId: 'issueGetIssue',
    handler: (ctx) => {
      const repo = pathRepo(ctx);
      return ok(presentIssue(ctx.state, repo, pathIssue(ctx, repo), ctx.caller.doer));
    },
  },
  { method: 'PATCH', path: '/repos/{owner}/{repo}/issues/{index}', operationId: 'issueEditIssue', handler: editIssue },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/issues/{index}/comments',
    operationId: 'issueGetComments',
    handler: (ctx) => {
      const repo = pathRepo(ctx);
      const issue = pathIssue(ctx, repo);
      return ok(issue.comments.map((c) => presentComment(ctx.state, repo, issue, c, ctx.caller.doer)));
    },
  },
  {
    method: 'POST',
    path: '/repos/{owner}/{repo}/issues/{index}/comments',
    operationId: 'issueCreateComment',
    handler: createComment,
  },
  {
    // GetIssueComment: the comment, readable with the repository (CanReadIssuesOrPulls).
    method: 'GET',
    path: '/repos/{owner}/{repo}/issues/comments/{id}',
    operationId: 'issueGetComment',
    handler: (ctx) => {
      const repo = pathRepo(ctx);
      const { issue, comment } = pathComment(ctx, repo);
      return ok(presentComment(ctx.state, repo, issue, comment, ctx.caller.doer));
    },
  },
  {
    method: 'PATCH',
    path: '/repos/{owner}/{repo}/issues/comments/{id}',
    operationId: 'issueEditComment',
    handler: editComment,
  },
  {
    method: 'PATCH',
    path: '/repos/{owner}/{repo}/issues/{index}/comments/{id}',
    operationId: 'issueEditCommentDeprecated',
    handler: editComment,
  },
  {
    method: 'DELETE',
    path: '/repos/{owner}/{repo}/issues/comments/{id}',
    operationId: 'issueDeleteComment',
    handler: deleteComment,
  },
  {
    method: 'DELETE',
    path: '/repos/{owner}/{repo}/issues/{index}/comments/{id}',
    operationId: 'issueDeleteCommentDeprecated',
    handler: deleteComment,
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/labels',
    operationId: 'issueListLabels',
    handler: (ctx) => {
      const repo = pathRepo(ctx);
      return paginate(ctx, repo.labels, (page) => page.map((l) => presentLabel(ctx.state, repo, l)));
    },
  },
  { method: 'POST', path: '/repos/{owner}/{repo}/labels', operationId: 'issueCreateLabel', handler: createLabel },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/issues/{index}/labels',
    operationId: 'issueGetLabels',
    handler: (ctx) => {
      const repo = pathRepo(ctx);
      return ok(issueLabels(repo, pathIssue(ctx, repo)).map((l) => presentLabel(ctx.state, repo, l)));
    },
  },
  {
    method: 'POST',
    path: '/repos/{owner}/{repo}/issues/{index}/labels',
    operationId: 'issueAddLabel',
    handler: addLabels,
  },
];
