// The signed-in user's stopwatches and tracked times, across every repository: GET /user/stopwatches
// (Gitea routers/api/v1/repo/issue_stopwatch.go GetStopwatches -> convert.ToStopWatches) and GET
// /user/times (routers/api/v1/repo/issue_tracked_time.go ListMyTrackedTimes -> convert.ToTrackedTimeList).
// Neither names a repository: each item carries the repository of its issue.
import { requireSignedIn } from '../auth.js';
import type { RequestContext, Route } from '../context.js';
import type { Repo, SandboxState } from '../model.js';
import { paginate } from '../list-paging.js';
import { presentIssue } from '../present.js';

function issueOf(state: SandboxState, repoId: number, number: number) {
  const repo = state.repos.find((r) => r.id === repoId) as Repo;
  return { repo, issue: repo.issues.find((i) => i.number === number) };
}

/** Gitea's util.SecToHours: whole hours and minutes, e.g. "1h 5m". */
function secToHours(seconds: number): string {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  return [hours > 0 ? `${hours}h` : '', minutes > 0 ? `${minutes}m` : ''].filter(Boolean).join(' ');
}

function stopwatches(ctx: RequestContext) {
  const doer = requireSignedIn(ctx.caller);
  const mine = ctx.state.stopwatches.filter((sw) => sw.user === doer.login);
  return paginate(ctx, mine, (page) =>
    page.map((sw) => {
      const { repo, issue } = issueOf(ctx.state, sw.repoId, sw.issueNumber);
      const seconds = Math.max(0, Math.floor((Date.now() - Date.parse(sw.created)) / 1000));
      return {
        created: sw.created,
        seconds,
        duration: secToHours(seconds),
        issue_index: sw.issueNumber,
        issue_title: issue?.title ?? '',
        repo_owner_name: repo.owner,
        repo_name: repo.name,
      };
    }),
  );
}

function trackedTimes(ctx: RequestContext) {
  const doer = requireSignedIn(ctx.caller);
  const mine = ctx.state.trackedTimes.filter((t) => t.user === doer.login);
  return paginate(ctx, mine, (page) =>
    page.map((t) => {
      const { repo, issue } = issueOf(ctx.state, t.repoId, t.issueNumber);
      return {
        id: t.id,
        created: t.created,
        time: t.seconds,
        user_id: doer.id,
        user_name: doer.login,
        issue_id: issue?.id ?? 0,
        issue: issue ? presentIssue(ctx.state, repo, issue, doer) : null,
      };
    }),
  );
}

export const timeRoutes: Route[] = [
  { method: 'GET', path: '/user/stopwatches', operationId: 'userGetStopWatches', handler: stopwatches },
  { method: 'GET', path: '/user/times', operationId: 'userCurrentTrackedTimes', handler: trackedTimes },
];
