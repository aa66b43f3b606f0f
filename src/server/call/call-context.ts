// One tool call's context, made once after its arguments passed the tool's schema. What the call
// names is read from the arguments here and nowhere else (the target, the sudo user, the head it
// expects), and the live facts read for it are read at most once and shared: the pull request feeds
// the live targets, the guards and the ownership checks from the same answer.
import type { AuditTarget } from '../../audit/event.js';
import type { CatalogEntry } from '../../catalog/types.js';
import { readCommentOnPullRequest, readIsPullRequest, readPull, type PullRef } from '../../gitea/facts.js';
import type { PullFacts } from '../../policy/guards/guard-facts.js';
import type { Fact } from '../../policy/guards/verdict.js';
import type { MappedCall } from '../../policy/operation-map.js';
import type { Session } from '../session.js';

/** owner / repo / number a call names; the number is `index` (generated tools) or `pr_number` (built-in tools). */
export type CallTarget = AuditTarget;

export interface CallContext {
  /** The session the call took at its start; it keeps it to the end. */
  readonly session: Session;
  /** The arguments as validated; stages read what the call names from the fields below, not from here. */
  readonly args: Readonly<Record<string, unknown>>;
  readonly target: CallTarget | null;
  /** The user named by `sudo`, which Gitea acts as instead of the token's owner; null when none. */
  readonly sudo: string | null;
  /** The head SHA the call says it expects (body.head_commit_id of a merge, body.commit_id of a review). */
  readonly expectedHead: string | null;
  /** body.delete_branch_after_merge of a merge; null when absent (Gitea then applies the repository default). */
  readonly deleteBranch: boolean | null;
  /** Live facts read for this call, each at most once. */
  readonly live: LiveReads;
}

/** A call of a generated tool (or the raw tool's resolved operation): its catalog entry and its operations. */
export interface GiteaCallContext extends CallContext {
  readonly entry: CatalogEntry;
  /** The canonical operations mapped from the operationId and the arguments (before the live facts). */
  readonly mapped: MappedCall;
}

/** What a call's arguments name, read once at the start (an invalid call is audited with it too). */
export function callTargetOf(args: unknown): CallTarget | null {
  if (!isObject(args)) return null;
  const owner = text(args.owner);
  const repo = text(args.repo);
  const index = number(args.index) ?? number(args.pr_number);
  return owner === null && repo === null && index === null ? null : { owner, repo, index };
}

/** The context of a call whose arguments passed the schema; `target` is what callTargetOf read. */
export function callContext(session: Session, args: Record<string, unknown>, target: CallTarget | null): CallContext {
  const given = args.body;
  const body = isObject(given) ? given : {};
  return {
    session,
    args,
    target,
    sudo: nonEmpty(args.sudo),
    expectedHead: nonEmpty(body.head_commit_id) ?? nonEmpty(body.commit_id),
    deleteBranch: typeof body.delete_branch_after_merge === 'boolean' ? body.delete_branch_after_merge : null,
    live: new LiveReads(session, pullRefOf(target), target),
  };
}

/** The pull request (or issue) a target names, when it names all three parts. */
export function pullRefOf(target: CallTarget | null): PullRef | null {
  if (target === null || target.owner === null || target.repo === null || target.index === null) return null;
  return { owner: target.owner, repo: target.repo, index: target.index };
}

/**
 * The reads of the numbered issue or pull request the call names, each made at most once for the
 * call (the answer is kept, failure included). Without a token or a named number every read is a
 * missing fact, which whoever reads it judges as a denial.
 */
export class LiveReads {
  private pullRead: Promise<Fact<PullFacts>> | null = null;
  private isPullRead: Promise<Fact<boolean>> | null = null;
  private commentRead: Promise<Fact<boolean>> | null = null;

  constructor(
    private readonly session: Session,
    readonly ref: PullRef | null,
    private readonly target: CallTarget | null = null,
  ) {}

  /** The pull request #index, as Gitea answers now. */
  pull(): Promise<Fact<PullFacts>> {
    this.pullRead ??= this.read(
      (client, ref) => readPull(client, ref),
      'The call names no pull request number to read.',
    );
    return this.pullRead;
  }

  /** Whether issue #index is a pull request (Gitea's issue carries `pull_request` then). */
  isPullRequest(): Promise<Fact<boolean>> {
    this.isPullRead ??= this.read(
      (client, ref) => readIsPullRequest(client, ref),
      'The call names no issue number to read.',
    );
    return this.isPullRead;
  }

  /** Whether comment `id` of the named repository sits on a pull request (the comment's own issue). */
  commentOnPullRequest(id: number): Promise<Fact<boolean>> {
    const { client } = this.session;
    const owner = this.target?.owner ?? null;
    const repo = this.target?.repo ?? null;
    if (owner === null || repo === null) return Promise.resolve({ ok: false, detail: 'The call names no repository.' });
    if (client === null)
      return Promise.resolve({ ok: false, detail: 'No Gitea token is configured, so nothing can be read.' });
    this.commentRead ??= readCommentOnPullRequest(client, { owner, repo }, id);
    return this.commentRead;
  }

  private read<T>(
    reader: (client: NonNullable<Session['client']>, ref: PullRef) => Promise<Fact<T>>,
    unnamed: string,
  ): Promise<Fact<T>> {
    const { client } = this.session;
    if (this.ref === null) return Promise.resolve({ ok: false, detail: unnamed });
    if (client === null)
      return Promise.resolve({ ok: false, detail: 'No Gitea token is configured, so nothing can be read.' });
    return reader(client, this.ref);
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function number(value: unknown): number | null {
  return typeof value === 'number' ? value : null;
}

function nonEmpty(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}
