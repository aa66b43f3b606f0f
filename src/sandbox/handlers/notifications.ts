// GET /notifications: the signed-in user's notification threads across every repository (Gitea
// routers/api/v1/notify/user.go ListNotifications: unread and pinned ones unless all=true, newest
// first, X-Total-Count). services/convert ToNotificationThread embeds the repository only while the
// user may still read it (without permissions) and names it again in the subject's API URL.
import { accessLevel, requireSignedIn } from '../auth.js';
import type { RequestContext, Route } from '../context.js';
import type { Notification, Repo } from '../model.js';
import { paginate } from '../list-paging.js';
import { presentRepo } from '../present.js';

function presentThread(ctx: RequestContext, n: Notification): Record<string, unknown> {
  const { state } = ctx;
  const repo = state.repos.find((r) => r.id === n.repoId) as Repo;
  const issue = repo.issues.find((i) => i.number === n.issueNumber);
  const kind = issue?.pull ? 'pulls' : 'issues';
  let repository: Record<string, unknown> | null = null;
  if (accessLevel(state, repo, ctx.caller.doer) !== 'none') {
    const { permissions: _dropped, ...shown } = presentRepo(state, repo, ctx.caller.doer);
    repository = shown;
  }
  return {
    id: n.id,
    repository,
    subject: {
      title: issue?.title ?? '',
      url: `${state.baseUrl}/api/v1/repos/${repo.owner}/${repo.name}/${kind}/${n.issueNumber}`,
      html_url: `${state.baseUrl}/${repo.owner}/${repo.name}/${kind}/${n.issueNumber}`,
      latest_comment_url: '',
      latest_comment_html_url: '',
      type: issue?.pull ? 'Pull' : 'Issue',
      state: issue?.state ?? 'open',
    },
    unread: n.status === 'unread',
    pinned: n.status === 'pinned',
    updated_at: n.updated,
    url: `${state.baseUrl}/api/v1/notifications/threads/${n.id}`,
  };
}

function listNotifications(ctx: RequestContext) {
  const doer = requireSignedIn(ctx.caller);
  const all = ctx.query.get('all') === 'true';
  const mine = ctx.state.notifications
    .filter((n) => n.user === doer.login && (all || n.status !== 'read'))
    .sort((a, b) => b.updated.localeCompare(a.updated) || b.id - a.id);
  return paginate(ctx, mine, (page) => page.map((n) => presentThread(ctx, n)));
}

export const notificationRoutes: Route[] = [
  { method: 'GET', path: '/notifications', operationId: 'notifyGetList', handler: listNotifications },
];
