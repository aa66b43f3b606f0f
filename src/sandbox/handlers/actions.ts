// Actions runs and jobs listed at user and organization level: every run of every repository the
// owner owns. Gitea routers/api/v1/user/action.go and routers/api/v1/org/action.go call
// routers/api/v1/shared/action.go ListRuns / ListJobs with the owner's id (an organization's only for
// its owners), which answer ActionWorkflowRunsResponse / ActionWorkflowJobsResponse with Link and
// X-Total-Count headers; each item is converted by services/convert ToActionWorkflowRun (it embeds the
// repository) and ToActionWorkflowJob (it names the repository only in its API URLs).
import { requireSignedIn } from '../auth.js';
import type { RequestContext, Route } from '../context.js';
import { forbidden, notFound } from '../api-errors.js';
import type { Account, ActionRun, ActionStatus, Repo, SandboxState } from '../model.js';
import { paginate } from '../list-paging.js';
import { presentRepo, presentUser } from '../present.js';

/** services/convert ToActionsStatus: Gitea's run status as GitHub's status and conclusion. */
function statusOf(status: ActionStatus): { status: string; conclusion: string } {
  if (status === 'success' || status === 'failure') return { status: 'completed', conclusion: status };
  return { status: status === 'running' ? 'in_progress' : 'queued', conclusion: '' };
}

function repoOf(state: SandboxState, run: ActionRun): Repo {
  return state.repos.find((r) => r.id === run.repoId) as Repo;
}

function presentRun(state: SandboxState, run: ActionRun, viewer: Account): Record<string, unknown> {
  const repo = repoOf(state, run);
  const actor = state.account(run.actor);
  const user = actor ? presentUser(state, actor, viewer) : null;
  return {
    id: run.id,
    url: `${state.baseUrl}/api/v1/repos/${repo.owner}/${repo.name}/actions/runs/${run.id}`,
    html_url: `${state.baseUrl}/${repo.owner}/${repo.name}/actions/runs/${run.index}`,
    run_number: run.index,
    run_attempt: 1,
    started_at: run.created,
    completed_at: run.status === 'success' || run.status === 'failure' ? run.created : null,
    event: run.event,
    display_title: run.title,
    head_branch: run.branch,
    head_sha: run.sha,
    ...statusOf(run.status),
    path: `${run.workflowId}@refs/heads/${run.branch}`,
    repository: presentRepo(state, repo, viewer),
    repository_id: repo.id,
    trigger_actor: user,
    actor: user,
  };
}

function presentJob(state: SandboxState, run: ActionRun, index: number): Record<string, unknown> {
  const repo = repoOf(state, run);
  const job = run.jobs[index] as ActionRun['jobs'][number];
  const api = `${state.baseUrl}/api/v1/repos/${repo.owner}/${repo.name}`;
  return {
    id: job.id,
    url: `${api}/actions/jobs/${job.id}`,
    html_url: `${state.baseUrl}/${repo.owner}/${repo.name}/actions/runs/${run.index}/jobs/${index}`,
    run_id: run.id,
    run_url: `${api}/actions/runs/${run.id}`,
    name: job.name,
    labels: ['ubuntu-latest'],
    run_attempt: 1,
    head_sha: run.sha,
    head_branch: run.branch,
    ...statusOf(job.status),
    runner_id: 0,
    runner_name: '',
    steps: [],
    created_at: run.created,
    started_at: run.created,
    completed_at: job.status === 'success' || job.status === 'failure' ? run.created : null,
  };
}

/** The runs of every repository `owner` owns, newest first (FindRunOptions orders by id desc). */
function runsOf(state: SandboxState, owner: Account): ActionRun[] {
  const owned = new Set(
    state.repos.filter((r) => r.owner.toLowerCase() === owner.login.toLowerCase()).map((r) => r.id),
  );
  return state.actionRuns.filter((run) => owned.has(run.repoId)).sort((a, b) => b.id - a.id);
}

function listRuns(ctx: RequestContext, owner: Account, viewer: Account) {
  const runs = runsOf(ctx.state, owner);
  return paginate(ctx, runs, (page) => ({
    total_count: runs.length,
    workflow_runs: page.map((run) => presentRun(ctx.state, run, viewer)),
  }));
}

function listJobs(ctx: RequestContext, owner: Account) {
  const jobs = runsOf(ctx.state, owner).flatMap((run) => run.jobs.map((_, index) => ({ run, index })));
  return paginate(ctx, jobs, (page) => ({
    total_count: jobs.length,
    jobs: page.map(({ run, index }) => presentJob(ctx.state, run, index)),
  }));
}

/** The organization of the path, once the caller owns it (reqOrgOwnership) or is a site admin. */
function ownedOrg(ctx: RequestContext): { org: Account; doer: Account } {
  const doer = requireSignedIn(ctx.caller);
  const org = ctx.state.account(ctx.params.org ?? '');
  if (!org || !org.isOrg) throw notFound();
  const owners = (ctx.state.teams.get(org.login.toLowerCase()) ?? []).filter((t) => t.permission === 'owner');
  if (!doer.isAdmin && !owners.some((t) => t.members.some((m) => m.toLowerCase() === doer.login.toLowerCase()))) {
    throw forbidden('must be an organization owner');
  }
  return { org, doer };
}

export const actionRoutes: Route[] = [
  {
    method: 'GET',
    path: '/user/actions/runs',
    operationId: 'getUserWorkflowRuns',
    handler: (ctx) => {
      const doer = requireSignedIn(ctx.caller);
      return listRuns(ctx, doer, doer);
    },
  },
  {
    method: 'GET',
    path: '/user/actions/jobs',
    operationId: 'getUserWorkflowJobs',
    handler: (ctx) => listJobs(ctx, requireSignedIn(ctx.caller)),
  },
  {
    method: 'GET',
    path: '/orgs/{org}/actions/runs',
    operationId: 'getOrgWorkflowRuns',
    handler: (ctx) => {
      const { org, doer } = ownedOrg(ctx);
      return listRuns(ctx, org, doer);
    },
  },
  {
    method: 'GET',
    path: '/orgs/{org}/actions/jobs',
    operationId: 'getOrgWorkflowJobs',
    handler: (ctx) => listJobs(ctx, ownedOrg(ctx).org),
  },
];
