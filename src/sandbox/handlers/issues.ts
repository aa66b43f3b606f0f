// Issues (list, get, create, edit), their comments, repository labels and issue labels.
// Pull requests are issues too, as in Gitea: they share the numbering and show in issue lists.
import { accessLevel, atLeast, requireSignedIn } from '../auth.js';
import { bodyObject, ok, stringField, type RequestContext, type Route } from '../context.js';
import { forbidden, unprocessable } from '../errors.js';
import type { Issue, Label, Repo } from '../model.js';
import { paginate } from '../pagination.js';
import { presentComment, presentIssue, presentLabel } from '../present.js';
import { newIssue } from '../seed.js';
import { pathIssue, pathRepo } from './lookup.js';

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
  issue.title = stringField(body, 'title') ?? issue.title;
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
  return ok(presentComment(ctx.state, repo, issue, comment, doer), 201);
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
