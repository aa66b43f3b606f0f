// Arranges, in a started sandbox, what the routes that reach repositories without naming them list:
// alice's stopwatches and tracked times on an issue of acme/widgets and one of acme/gadgets; Actions
// runs (one job each) in acme/widgets, acme/gadgets and alice/dotfiles (a repository of alice's own);
// packages of acme linked to acme/widgets, to acme/gadgets, and to none; alice's notifications about
// acme/widgets, acme/gadgets and erin/notes (private: alice's thread shows no repository, only its URL).
import type { ActionStatus, Repo, SandboxState } from '../../src/sandbox/model.js';
import { newIssue } from '../../src/sandbox/seed.js';

export function arrangeReachWorld(state: SandboxState): void {
  const repo = (owner: string, name: string) => state.repo(owner, name) as Repo;
  const widgets = repo('acme', 'widgets');
  const gadgets = repo('acme', 'gadgets');
  const dotfiles = state.addRepo({
    owner: 'alice',
    name: 'dotfiles',
    private: false,
    description: '',
    defaultBranch: 'main',
  });
  gadgets.issues.push(
    newIssue(state, gadgets, { title: 'Gadget leaks', body: '', user: 'erin', created: state.timestamp() }),
  );
  const widgetsIssue = widgets.issues.find((i) => i.pull === null)?.number ?? 0;
  for (const [target, number] of [
    [widgets, widgetsIssue],
    [gadgets, 1],
  ] as const) {
    state.trackedTimes.push({
      id: state.nextId('tracked_time'),
      repoId: target.id,
      issueNumber: number,
      user: 'alice',
      seconds: 900,
      created: state.timestamp(),
    });
    state.stopwatches.push({ repoId: target.id, issueNumber: number, user: 'alice', created: state.timestamp() });
  }
  const run = (target: Repo, status: ActionStatus) => {
    const id = state.nextId('action_run');
    state.actionRuns.push({
      id,
      repoId: target.id,
      index: id,
      workflowId: 'ci.yml',
      branch: 'main',
      sha: 'a'.repeat(40),
      event: 'push',
      title: `CI of ${target.name}`,
      actor: 'alice',
      status,
      created: state.timestamp(),
      jobs: [{ id: state.nextId('action_job'), name: 'test', status }],
    });
  };
  run(widgets, 'success');
  run(gadgets, 'failure');
  run(dotfiles, 'running');
  const notes = repo('erin', 'notes');
  notes.issues.push(
    newIssue(state, notes, { title: 'Private plans', body: '', user: 'erin', created: state.timestamp() }),
  );
  for (const [target, number] of [
    [widgets, widgetsIssue],
    [gadgets, 1],
    [notes, 1],
  ] as const) {
    state.notifications.push({
      id: state.nextId('notification'),
      user: 'alice',
      repoId: target.id,
      issueNumber: number,
      status: 'unread',
      updated: state.timestamp(),
    });
  }
  for (const [name, linked] of [
    ['widgets-lib', widgets],
    ['gadgets-lib', gadgets],
    ['orphan-lib', null],
  ] as const) {
    state.packages.push({
      id: state.nextId('package_version'),
      owner: 'acme',
      type: 'npm',
      name,
      version: '1.0.0',
      creator: 'admin',
      repoId: linked?.id ?? null,
      created: state.timestamp(),
    });
  }
}
