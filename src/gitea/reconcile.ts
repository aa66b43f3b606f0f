// The guarded reconciler actions: gather the live facts, hand them to the judge the server passes in
// (src/policy decides, this side only reads and writes), and act only when every check passed.
// The write follows the proof immediately: the branch tip and the pull request head are read again
// right before the delete or the close, and a move since the proof refuses (Gitea offers no
// compare-and-delete, so the window left is the time between that read and the write).
// The report lists every check and the evidence, so the server can audit it.
import type { CleanupFacts, CleanupRequest } from '../policy/guards/cleanup-branch-guard.js';
import type { BranchFacts, LandingFacts, PullFacts } from '../policy/guards/guard-facts.js';
import type { UnmovedFacts } from '../policy/guards/unmoved-guard.js';
import type { ReconcileFacts } from '../policy/guards/reconcile-landed-guard.js';
import type { FactBounds } from '../policy/guards/guard-settings.js';
import type { Fact, GuardCheck, GuardVerdict } from '../policy/guards/verdict.js';
import { readBranch, readLanding, readOpenPulls, readProtectionRules, readPull, type PullRef } from './facts.js';
import type { FactReader, GiteaWriter, WriteResult } from './gitea-identity.js';

/** held: every check passed, and the write waits for a person's confirmation (the gate said no, for now). */
export type ReconcileAction = 'deleted' | 'closed' | 'refused' | 'failed' | 'held';

/** Asked once every check passed, just before the write, with the evidence: true lets the write happen. */
export type WriteGate = (evidence: ReconcileReport['evidence']) => Promise<boolean>;

export interface ReconcileReport {
  checks: GuardCheck[];
  evidence: Record<string, string | number | boolean | null>;
  action: ReconcileAction;
  /** When the checks passed but Gitea refused the write: what failed, without secrets. */
  failure?: string;
}

export interface GiteaSides {
  reader: FactReader;
  writer: GiteaWriter;
  /** The server's confirm stage; absent: nothing stands between the checks and the write. */
  gate?: WriteGate;
}

function passed(verdict: GuardVerdict): boolean {
  return verdict.checks.length > 0 && verdict.checks.every((c) => c.passed);
}

function valueOf<T>(fact: Fact<T>): T | null {
  return fact.ok ? fact.value : null;
}

function landingEvidence(
  pull: Fact<PullFacts>,
  target: Fact<BranchFacts>,
  landing: Fact<LandingFacts>,
): ReconcileReport['evidence'] {
  const p = valueOf(pull);
  const t = valueOf(target);
  const l = valueOf(landing);
  const child = l
    ? (l.commits.find((c) => c.parents.some((parent) => parent.toLowerCase() === l.commit.toLowerCase()))?.sha ?? null)
    : null;
  return {
    pr_number: p?.number ?? null,
    pr_state: p ? (p.merged ? 'merged' : p.state) : null,
    head_ref: p?.headRef ?? null,
    head_sha: p?.headSha ?? null,
    target_branch: t?.name ?? p?.baseRef ?? null,
    target_sha: t?.sha ?? null,
    compare: l ? `${l.commit}...${l.target}` : null,
    // The commit on the target whose parent is the proven commit; null when it is the tip itself or unproven.
    landed_via: child,
  };
}

/** Runs one write; any non-2xx answer or exception is a failure described by status only. */
async function write(what: string, action: () => Promise<WriteResult>): Promise<string | null> {
  try {
    const { status } = await action();
    return status >= 200 && status < 300 ? null : `${what} failed (HTTP ${status}).`;
  } catch {
    return `${what} failed (Gitea did not answer).`;
  }
}

/** The judges of a guarded action: its proof, and the re-read right before the write. */
export interface ActionJudges<F> {
  judge: (facts: F) => GuardVerdict;
  unmoved: (facts: UnmovedFacts) => GuardVerdict;
}

export async function cleanupMergedPrBranch(
  gitea: GiteaSides,
  request: CleanupRequest,
  judges: ActionJudges<CleanupFacts>,
  bounds: FactBounds,
): Promise<ReconcileReport> {
  const { reader, writer } = gitea;
  const { owner, repo, branch: name } = request;
  const [pull, branch, protections, openPulls] = await Promise.all([
    readPull(reader, { owner, repo, index: request.prNumber }),
    readBranch(reader, owner, repo, name),
    readProtectionRules(reader, owner, repo),
    readOpenPulls(reader, owner, repo, bounds),
  ]);
  // What a deletion loses is the branch's own tip: that is the commit proven landed.
  const landing = await readLanding(
    reader,
    owner,
    repo,
    baseOf(pull),
    branch.ok ? { ok: true, value: branch.value.sha } : branch,
  );
  const verdict = judges.judge({ pull, ...landing, branch, protections, openPulls });
  const evidence = {
    ...landingEvidence(pull, landing.target, landing.landing),
    branch: name,
    branch_sha: valueOf(branch)?.sha ?? null,
  };
  if (!passed(verdict)) return { checks: verdict.checks, evidence, action: 'refused' };
  if (gitea.gate && !(await gitea.gate(evidence))) return { checks: verdict.checks, evidence, action: 'held' };
  // Read again after the person's confirmation, right before the write: the proof must still hold.
  const [branchNow, pullNow] = await Promise.all([
    readBranch(reader, owner, repo, name),
    readPull(reader, { owner, repo, index: request.prNumber }),
  ]);
  const checks = [
    ...verdict.checks,
    ...judges.unmoved({
      branch: { name, judged: valueOf(branch)?.sha ?? null, now: branchNow },
      head: { number: request.prNumber, judged: valueOf(pull)?.headSha ?? null, now: pullNow },
    }).checks,
  ];
  if (!checks.every((c) => c.passed)) return { checks, evidence, action: 'refused' };
  const failure = await write(`Deleting branch ${name}`, () => writer.deleteBranch(owner, repo, name));
  return failure ? { checks, evidence, action: 'failed', failure } : { checks, evidence, action: 'deleted' };
}

export async function reconcileAlreadyLandedPr(
  gitea: GiteaSides,
  ref: PullRef,
  judges: ActionJudges<ReconcileFacts>,
): Promise<ReconcileReport> {
  const { reader, writer } = gitea;
  const pull = await readPull(reader, ref);
  const landing = await readLanding(
    reader,
    ref.owner,
    ref.repo,
    baseOf(pull),
    pull.ok ? { ok: true, value: pull.value.headSha } : pull,
  );
  const verdict = judges.judge({ pull, ...landing });
  const evidence = landingEvidence(pull, landing.target, landing.landing);
  if (!passed(verdict)) return { checks: verdict.checks, evidence, action: 'refused' };
  if (gitea.gate && !(await gitea.gate(evidence))) return { checks: verdict.checks, evidence, action: 'held' };
  // Read again after the person's confirmation, right before the write: the proof must still hold.
  const pullNow = await readPull(reader, ref);
  const checks = [
    ...verdict.checks,
    ...judges.unmoved({ head: { number: ref.index, judged: valueOf(pull)?.headSha ?? null, now: pullNow } }).checks,
  ];
  if (!checks.every((c) => c.passed)) return { checks, evidence, action: 'refused' };
  // The comment goes first: the pull request is never closed without the evidence on record.
  const failure =
    (await write('Recording the evidence comment', () =>
      writer.commentIssue(ref.owner, ref.repo, ref.index, landedComment(evidence)),
    )) ?? (await write(`Closing pull request #${ref.index}`, () => writer.closePull(ref.owner, ref.repo, ref.index)));
  return failure ? { checks, evidence, action: 'failed', failure } : { checks, evidence, action: 'closed' };
}

function baseOf(pull: Fact<PullFacts>): Fact<string> {
  return pull.ok ? { ok: true, value: pull.value.baseRef } : pull;
}

export function landedComment(evidence: ReconcileReport['evidence']): string {
  return [
    'Closed by gitea-warden (reconcile_already_landed_pr): the head of this pull request has already landed on its target branch.',
    '',
    `- Pull request head: \`${evidence.head_sha}\` (${evidence.head_ref})`,
    `- Target branch: \`${evidence.target_branch}\` at \`${evidence.target_sha}\`, fetched just before closing`,
    evidence.landed_via
      ? `- Compare \`${evidence.compare}\`: the head is a parent of \`${evidence.landed_via}\`, which the target branch contains`
      : `- Compare \`${evidence.compare}\`: the head is the target branch's tip`,
  ].join('\n');
}
