// Two stages of integrity (docs/integrity.md). "taint", before execution: a principal that has read
// content below its profile's floor writes only where that content came from (integrity), and one that
// has read a private repository writes to nothing public the profile does not name (secrecy). "label",
// after the result scope: every object with text is labelled with its author's standing in the
// profile's trust domain, text below the floor withheld or fenced, and what was read recorded.
import type { AuditIntegrity } from '../../audit/event.js';
import type { ExecutionResult, IntegrityBlock, SuccessPayload } from '../../gitea/envelope.js';
import { StandingReader } from '../../gitea/standing.js';
import type { Decision } from '../../policy/decision.js';
import {
  judgeSecrecy,
  judgeTaint,
  readRecords,
  sourceOf,
  type Sink,
  type TaintRefusal,
  type TaintSource,
  type TaintState,
} from '../../policy/integrity-taint.js';
import type { ItemLabel } from '../../policy/integrity-walk.js';
import { labelAnswer } from '../integrity-labels.js';
import type { Session } from '../session.js';
import type { GiteaCallContext } from './call-context.js';

/** A call whose operations are all reads (risk class read in policies/vocabulary.yaml). */
export function isRead(call: GiteaCallContext, operations: readonly string[]): boolean {
  const { vocabulary } = call.session.policy;
  return (
    operations.length > 0 && operations.every((operation) => vocabulary.operations.get(operation)?.risk === 'read')
  );
}

const STORE_DOWN =
  'the taint store cannot be read, so whether this session read untrusted or private content is unknown';

/** Stage "taint": an allowed write becomes a denial after untrusted content (it leaves its repository) or private content (it reaches a public sink). */
export async function applyTaint(
  call: GiteaCallContext,
  decision: Decision,
): Promise<{ decision: Decision; source: TaintSource | null }> {
  if (decision.effect === 'deny' || isRead(call, decision.operations)) return { decision, source: null };
  const { profile, taint } = call.session;
  const integrityOn = profile.integrity.afterUntrusted === 'same_repository_only';
  if (!integrityOn && !profile.secrecy.enabled) return { decision, source: null };
  let state: TaintState;
  try {
    state = await taint.state();
  } catch {
    return { decision: refuse(call, decision, { code: 'taint_store_unavailable', message: STORE_DOWN }), source: null };
  }
  const now = taint.now();
  const source = state.untrusted[0]?.source ?? null;
  const tainted = judgeTaint(profile.integrity, state, { repository: repositoryOf(call) }, now);
  if (tainted) return { decision: refuse(call, decision, tainted), source };
  if (!profile.secrecy.enabled || state.privateReads.length === 0) return { decision, source: null };
  const secret = judgeSecrecy(profile.secrecy, state, await sinksOf(call), now);
  return { decision: secret ? refuse(call, decision, secret) : decision, source: null };
}

type Refusal = TaintRefusal | { code: 'taint_store_unavailable'; message: string };

function refuse(call: GiteaCallContext, decision: Decision, verdict: Refusal): Decision {
  const { profile } = call.session;
  const where =
    verdict.code === 'secrecy_public_sink'
      ? { path: ['secrecy', 'public_sinks'], rule: 'secrecy.public_sinks: refuse' }
      : { path: ['integrity', 'after_untrusted'], rule: 'integrity.after_untrusted: same_repository_only' };
  const hint =
    verdict.code === 'untrusted_content_taint'
      ? `Untrusted content decides nothing here: write only to the repository it came from, in a session that has read no other repository, ` +
        `or wait until the taint lapses (integrity.taint_expires_after in ${profile.file}).`
      : verdict.code === 'secrecy_public_sink'
        ? `Private content stays private: write to a private repository, name the target in secrecy.allowed_sinks of ${profile.file}, or ` +
          `wait until the window closes (secrecy.expires_after).`
        : 'Check the state store (the server log names it); writes are refused until it answers.';
  return {
    ...decision,
    effect: 'deny',
    reason: verdict.code,
    failed: [{ code: verdict.code, message: verdict.message }],
    determining: { file: profile.file, line: profile.lineOf(where.path), rule: where.rule },
    hint,
  };
}

/** Where a write can carry data (policies/integrity.yaml secrecy): its repository, a URL, a public target. */
async function sinksOf(call: GiteaCallContext): Promise<Sink[]> {
  const { secrecy } = call.session.policy.integrity;
  const operation = call.entry.operationId;
  if (secrecy.noSink.has(operation)) return [];
  const sinks: Sink[] = [];
  const url = secrecy.urlArguments.get(operation);
  if (url) {
    const value = valueAt(call.args, url);
    sinks.push({ kind: 'url', url: typeof value === 'string' ? value : '(no URL)' });
  }
  if (secrecy.publicTargets.has(operation)) sinks.push({ kind: 'public_target', operation });
  const repository = repositoryOf(call);
  const created = secrecy.privateArguments.get(operation);
  const edited = secrecy.visibilityArguments.get(operation);
  const flag = created ? valueAt(call.args, created) : edited ? valueAt(call.args, edited) : undefined;
  if (created && flag !== true) sinks.push({ kind: 'public_target', operation });
  if (repository !== null) {
    const visibility =
      flag === false ? 'public' : flag === true ? 'private' : await visibilityOf(call.session, repository);
    sinks.push({ kind: 'repository', repository, visibility });
  } else if (!created && !url && sinks.length === 0) {
    // A write that names no repository (a profile, an organisation, a key): public unless listed otherwise.
    sinks.push({ kind: 'public_target', operation });
  }
  return sinks;
}

async function visibilityOf(session: Session, repository: string): Promise<'public' | 'private' | 'unknown'> {
  if (!session.client) return 'unknown';
  const answer = await new StandingReader(session.client).repository(repository);
  return answer?.private === true ? 'private' : answer?.private === false ? 'public' : 'unknown';
}

/** Stage "label": the answer with its items labelled and held back; null integrity when it carries none. */
export async function labelExecuted(
  call: GiteaCallContext,
  operations: readonly string[],
  executed: ExecutionResult,
): Promise<{ executed: ExecutionResult; integrity: AuditIntegrity | null; recorded: boolean }> {
  if (executed.isError) return { executed, integrity: null, recorded: true };
  const { session, entry, args } = call;
  const { payload } = executed;
  const labelled = await labelAnswer({
    catalog: session.policy.integrity,
    settings: session.profile.integrity,
    entry,
    args,
    data: payload.data,
    reader: session.client,
    self: selfOf(session),
  });
  const untrusted = labelled?.untrusted ?? [];
  const recorded = await recordRead(call, operations, labelled?.repositories ?? [], untrusted, payload.data);
  if (labelled === null || labelled.labels.length === 0) return { executed, integrity: null, recorded };
  const settings = session.profile.integrity;
  const block: IntegrityBlock = {
    floor: settings.minLevel,
    below: settings.below,
    lowest: labelled.lowest,
    withheld: labelled.untrusted.filter((label) => label.text === 'withheld').length,
    fenced: labelled.untrusted.filter((label) => label.text === 'fenced').length,
    items: labelled.labels,
  };
  const { data: _replaced, ...frame } = payload;
  const labelledPayload: SuccessPayload = { ...frame, integrity: block, data: labelled.data };
  const first = untrusted[0];
  const integrity: AuditIntegrity = {
    lowest: labelled.lowest,
    withheld: idsOf(labelled.untrusted, 'withheld'),
    fenced: idsOf(labelled.untrusted, 'fenced'),
    ...(first ? { tainted_by: auditSource(sourceOf(first)) } : {}),
  };
  return { executed: { isError: false, payload: labelledPayload }, integrity, recorded };
}

/** The login the namespace acts as: the signed-in person, else the profile's identity. */
export function selfOf(session: Session): string | null {
  return session.signedIn?.login ?? session.profile.data.authenticated_username ?? null;
}

/** At most this many repositories' visibility is read per call; the rest count as private. */
const VISIBILITY_READS = 10;

/**
 * Records what a read touched: the repositories (for integrity), the untrusted items, and (secrecy
 * on) the private repositories among them. False when the store would not take it: the caller then
 * withholds the answer, since a taint that was not recorded would not hold the next write back.
 */
async function recordRead(
  call: GiteaCallContext,
  operations: readonly string[],
  itemRepositories: ReadonlyArray<string | null>,
  untrusted: readonly ItemLabel[],
  data: unknown,
): Promise<boolean> {
  const { session } = call;
  const { profile, taint } = session;
  // Untrusted text taints whatever call brought it; the repositories read count for reads only.
  const read = isRead(call, operations);
  if (!read && untrusted.length === 0) return true;
  const repositories = read ? [repositoryOf(call), ...itemRepositories] : [];
  const privateRepositories: string[] = [];
  if (read && profile.secrecy.enabled) {
    const known = visibilityIn(data);
    const distinct = [
      ...new Set(repositories.filter((name): name is string => name !== null).map((n) => n.toLowerCase())),
    ];
    let reads = 0;
    for (const repository of distinct) {
      let visibility: 'public' | 'private' | 'unknown' | undefined = known.get(repository);
      if (visibility === undefined) {
        visibility = reads < VISIBILITY_READS ? await visibilityOf(session, repository) : 'unknown';
        reads++;
      }
      if (visibility !== 'public') privateRepositories.push(repository);
    }
  }
  const records = readRecords(
    taint.now(),
    { integrityMs: profile.integrity.taintExpiresMs, secrecyMs: profile.secrecy.expiresMs },
    { repositories, untrusted, privateRepositories },
  );
  try {
    await taint.record(records);
    return true;
  } catch {
    return false;
  }
}

/** Repositories whose visibility the answer itself states (Repository objects: full_name and private). */
function visibilityIn(data: unknown): Map<string, 'public' | 'private'> {
  const found = new Map<string, 'public' | 'private'>();
  const visit = (value: unknown, depth: number): void => {
    if (depth > 6 || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
      return;
    }
    const object = value as Record<string, unknown>;
    if (typeof object.full_name === 'string' && typeof object.private === 'boolean')
      found.set(object.full_name.toLowerCase(), object.private ? 'private' : 'public');
    for (const inner of Object.values(object)) if (inner !== null && typeof inner === 'object') visit(inner, depth + 1);
  };
  visit(data, 0);
  return found;
}

/** The audit trail of a taint refusal: the item that tainted the session. */
export function taintEvidence(source: TaintSource | null): AuditIntegrity | null {
  return source ? { lowest: null, withheld: [], fenced: [], tainted_by: auditSource(source) } : null;
}

function auditSource(source: TaintSource): NonNullable<AuditIntegrity['tainted_by']> {
  return {
    type: source.type,
    id: source.id,
    author: source.author,
    repository: source.repository,
    level: source.level,
  };
}

function idsOf(labels: readonly ItemLabel[], text: ItemLabel['text']): Array<number | string | null> {
  return labels.filter((label) => label.text === text).map((label) => label.id);
}

function repositoryOf(call: GiteaCallContext): string | null {
  const target = call.target;
  return target?.owner && target.repo ? `${target.owner}/${target.repo}` : null;
}

function valueAt(value: unknown, path: readonly string[]): unknown {
  let at = value;
  for (const key of path) {
    if (at === null || typeof at !== 'object' || Array.isArray(at)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}
