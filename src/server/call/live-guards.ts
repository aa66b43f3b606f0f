// The guards stage of a call: the live-fact guards its operations need (self-review, merge), judged
// over facts read now; a decision that passed the profile may become a denial. The pull request is
// the call's own read (shared with its live targets), so a scoped merge reads it once. A review
// verdict that passed carries the head the guard read (policies/guards.yaml verdict_head).
import { gatherCallFacts } from '../../gitea/facts.js';
import type { FactReader } from '../../gitea/gitea-identity.js';
import type { Decision } from '../../policy/decision.js';
import { callGuardEntry, callGuardsFor, judgeCall, type CallGuard } from '../../policy/guards/call-guards.js';
import { mergeSettingsFor } from '../../policy/guards/guard-settings.js';
import { applyGuardVerdict, combineVerdicts } from '../../policy/guards/verdict.js';
import { isObject, type CallContext, type GiteaCallContext } from './call-context.js';

const ROLES_FILE = { file: 'policies/roles.yaml', line: null };

export async function applyLiveGuards(call: CallContext, decision: Decision): Promise<Decision> {
  const { session, target, live } = call;
  const table = session.policy.callGuards;
  const ownOnly =
    session.profile.role === null ? undefined : session.policy.invariants.ownPullRequests.get(session.profile.role);
  const owned = decision.operations.some((op) => ownOnly?.has(op) === true);
  const guards: CallGuard[] = [...callGuardsFor(decision.operations, table), ...(owned ? ['ownership' as const] : [])];
  if (guards.length === 0) return decision;
  // Without a token every fact is missing, which the guards judge as a denial.
  const reader: FactReader = session.client ?? { get: () => Promise.reject(new Error('no Gitea token')) };
  const facts = await gatherCallFacts(
    reader,
    guards,
    {
      owner: target?.owner ?? '',
      repo: target?.repo ?? '',
      index: live.ref?.index ?? null,
      identity: call.sudo ?? session.identity.login(),
      expectedHeadSha: call.expectedHead,
      deleteBranch: call.deleteBranch,
      ...(live.ref ? { pull: live.pull() } : {}),
    },
    session.policy.guards.facts,
  );
  const merge = mergeSettingsFor(session.policy.guards, session.profile.name ?? '');
  // The denial cites the call_guards line of the first guard that failed.
  const verdicts = guards.map((guard) => judgeCall([guard], facts, merge));
  const failing = guards.find((_, i) => verdicts[i]?.checks.some((c) => !c.passed));
  const source =
    failing === 'ownership' ? ROLES_FILE : failing ? callGuardEntry(table, failing, decision.operations) : undefined;
  return applyGuardVerdict(decision, combineVerdicts(verdicts), source);
}

/**
 * The arguments the call is executed with: for an approval or request for changes through an
 * operation of guards.yaml verdict_head that names no commit, the head the self-review guard read
 * (Gitea would otherwise store whatever head it reads itself, perhaps one pushed since).
 */
export async function executedArguments(
  call: GiteaCallContext,
  decision: Decision,
): Promise<Readonly<Record<string, unknown>>> {
  const field = call.session.policy.guards.verdict_head[call.entry.operationId];
  if (
    field === undefined ||
    !callGuardsFor(decision.operations, call.session.policy.callGuards).includes('self_review')
  )
    return call.args;
  const body = isObject(call.args.body) ? call.args.body : {};
  if (typeof body[field] === 'string' && body[field] !== '') return call.args;
  const pull = await call.live.pull();
  // The guard passed on this very read; a failed read was already a denial.
  return pull.ok ? { ...call.args, body: { ...body, [field]: pull.value.headSha } } : call.args;
}
