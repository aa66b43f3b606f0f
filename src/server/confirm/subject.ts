// What a pending call will do, read live for its question and its binding: a generated tool's call
// (the pull request as its guard read it, the repository's id, the request line) or a guarded
// action's (the evidence its judge passed, the repository's id, the pull request's title). A fact
// that cannot be read leaves the question unable to say what will happen: the call is refused.
import { readPullTitle, readRepositoryIdentity, type RepositoryIdentity } from '../../gitea/confirm-facts.js';
import { encodePath } from '../../gitea/encode.js';
import type { ReconcileReport } from '../../gitea/reconcile.js';
import type { FactReader } from '../../gitea/gitea-identity.js';
import type { ConfirmBinding, ConfirmSubject, Requirement } from '../../policy/confirmations.js';
import type { Fact } from '../../policy/guards/verdict.js';
import type { BuiltinTool } from '../builtin/builtin-tool.js';
import { isObject, type CallContext, type GiteaCallContext } from '../call/call-context.js';
import { argumentsDigest } from './request-state.js';

/** A call the confirm stage judges: its rule, the question's facts, the binding and the typed phrase. */
export interface PendingCall {
  requirement: Requirement;
  subject: ConfirmSubject;
  binding: ConfirmBinding;
  /** The phrase this tool accepts under confirmation_fallback: phrase, and the one typed; null: none. */
  phrase: { expected: string; given: string | null } | null;
}

const NO_READER: FactReader = { get: () => Promise.reject(new Error('no Gitea token')) };

/** The profile and the login the call runs as: who an answer belongs to. */
export function principalOf(call: CallContext): string {
  const { session } = call;
  return `${session.profile.name ?? session.profile.file}/${session.identity.login() ?? ''}`;
}

/** A generated tool's call (a merge, a repository delete, whatever a profile adds). */
export async function pendingGiteaCall(call: GiteaCallContext, requirement: Requirement): Promise<Fact<PendingCall>> {
  const { session, target, entry, args } = call;
  const reader = session.client ?? NO_READER;
  const repository = await repositoryOf(reader, target?.owner ?? null, target?.repo ?? null);
  if (!repository.ok) return repository;
  const ref = call.live.ref;
  const pullOperation = requirement.rule.operation.startsWith('gitea.pr.') && ref !== null;
  const [pull, title] = pullOperation
    ? await Promise.all([call.live.pull(), readPullTitle(reader, ref)])
    : [null, null];
  if (pull && !pull.ok) return pull;
  if (title && !title.ok) return title;
  const path = encodePath(entry, args);
  const facts = pull?.ok ? pull.value : null;
  const subject: ConfirmSubject = {
    ...common(call, requirement, entry.name, repository.value),
    pullRequest:
      facts && title?.ok
        ? {
            number: facts.number,
            title: title.value,
            headSha: facts.headSha,
            headRef: facts.headRef,
            baseRef: facts.baseRef,
          }
        : null,
    branch: null,
    request: path.ok ? { method: entry.method, path: path.value } : null,
    notes: mergeNotes(requirement.rule.operation, args),
  };
  return {
    ok: true,
    value: {
      requirement,
      subject,
      binding: {
        ...callBinding(call, requirement, entry.name, repository.value),
        pullRequest: ref?.index ?? null,
        headSha: facts?.headSha ?? null,
        baseRef: facts?.baseRef ?? null,
        branchSha: null,
      },
      phrase: null,
    },
  };
}

/** A guarded action whose every check passed: its evidence is what the judge saw, and what the binding holds. */
export async function pendingGuardedAction(
  call: CallContext,
  tool: BuiltinTool,
  requirement: Requirement,
  evidence: ReconcileReport['evidence'],
): Promise<Fact<PendingCall>> {
  const { session, live } = call;
  const reader = session.client ?? NO_READER;
  const ref = live.ref;
  if (ref === null) return { ok: false, detail: 'The call names no pull request.' };
  const [repository, title] = await Promise.all([
    repositoryOf(reader, ref.owner, ref.repo),
    readPullTitle(reader, ref),
  ]);
  if (!repository.ok) return repository;
  if (!title.ok) return title;
  const text = (key: string): string | null => (typeof evidence[key] === 'string' ? (evidence[key] as string) : null);
  const headSha = text('head_sha');
  const baseRef = text('target_branch');
  const branch = text('branch');
  if (headSha === null || baseRef === null)
    return { ok: false, detail: "The guard's evidence lacks the head commit or the target branch." };
  const subject: ConfirmSubject = {
    ...common(call, requirement, tool.name, repository.value),
    pullRequest: { number: ref.index, title: title.value, headSha, headRef: text('head_ref') ?? '', baseRef },
    branch: branch === null ? null : { name: branch, sha: text('branch_sha') },
    request: null,
    notes:
      requirement.rule.operation === 'gitea.pr.close'
        ? [
            `Landed: the head commit is on ${baseRef}${text('target_sha') ? ` at ${text('target_sha')}` : ''}` +
              `${text('landed_via') ? ` (a parent of ${text('landed_via')})` : ' (its tip)'}`,
            'An evidence comment is posted on the pull request before it is closed.',
          ]
        : [],
  };
  const given = isObject(call.args) && typeof call.args.confirmation === 'string' ? call.args.confirmation : null;
  return {
    ok: true,
    value: {
      requirement,
      subject,
      binding: {
        ...callBinding(call, requirement, tool.name, repository.value),
        pullRequest: ref.index,
        headSha,
        baseRef,
        branchSha: text('branch_sha'),
      },
      phrase: tool.confirmationPhrase ? { expected: tool.confirmationPhrase(call.args), given } : null,
    },
  };
}

async function repositoryOf(
  reader: FactReader,
  owner: string | null,
  repo: string | null,
): Promise<Fact<RepositoryIdentity | null>> {
  if (owner === null || repo === null) return { ok: true, value: null };
  return readRepositoryIdentity(reader, owner, repo);
}

function common(
  call: CallContext,
  requirement: Requirement,
  tool: string,
  repository: RepositoryIdentity | null,
): Pick<ConfirmSubject, 'operation' | 'meaning' | 'tool' | 'namespace' | 'actor' | 'repository'> {
  const { session } = call;
  const operation = requirement.rule.operation;
  return {
    operation,
    meaning: session.policy.vocabulary.operations.get(operation)?.meaning ?? operation,
    tool,
    namespace: session.profile.name ?? session.profile.file,
    actor: call.sudo ?? session.identity.login(),
    repository,
  };
}

function callBinding(
  call: CallContext,
  requirement: Requirement,
  tool: string,
  repository: RepositoryIdentity | null,
): Omit<ConfirmBinding, 'pullRequest' | 'headSha' | 'baseRef' | 'branchSha'> {
  const { target } = call;
  return {
    principal: principalOf(call),
    operation: requirement.rule.operation,
    tool,
    arguments: argumentsDigest(call.args),
    repository: target?.owner != null && target.repo != null ? `${target.owner}/${target.repo}`.toLowerCase() : null,
    repositoryId: repository?.id ?? null,
  };
}

/** What else a merge does, from its body: Gitea's merge style, the head branch deleted or not. */
function mergeNotes(operation: string, args: Readonly<Record<string, unknown>>): string[] {
  if (operation !== 'gitea.pr.merge' && operation !== 'gitea.pr.force_merge') return [];
  const body = isObject(args.body) ? args.body : {};
  const deleteBranch = body.delete_branch_after_merge;
  return [
    `Merge style: ${typeof body.do === 'string' ? body.do : 'unspecified'}`,
    `Head branch deleted after the merge: ${deleteBranch === true ? 'yes' : deleteBranch === false ? 'no' : "the repository's default"}`,
  ];
}
