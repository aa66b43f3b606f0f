// Which calls a person must confirm, what the question shows, and how an answer is judged: the pure
// side of the confirm stage (src/server/confirm/). policies/confirmations.yaml names the operations
// for every profile; a profile's `confirmations:` block adds operations and says whose approval
// counts. Nothing here reads a clock, Gitea or the environment: facts and the time come in.
import type { DeterminingEntry } from './decision.js';
import type { Finding } from './findings.js';
import { normalizeName } from './normalize.js';
import type { CompiledProfile } from './profile.js';
import type { Vocabulary } from './vocabulary.js';

export const APPROVERS = ['at_client', 'signed_in', 'four_eyes'] as const;
/** Whose answer counts: the person at the MCP client, a listed person signed in with Gitea, or a second person. */
export type Approver = (typeof APPROVERS)[number];
export type ConfirmationFallback = 'none' | 'phrase';

/** One operation that needs a person, and where it is written. */
export interface ConfirmationRule {
  operation: string;
  /** Only calls of this guarded tool need it; null: every call with the operation. */
  through: string | null;
  file: string;
  line: number | null;
}

/** policies/confirmations.yaml, as loaded. */
export interface ConfirmationPolicy {
  file: string;
  rules: readonly ConfirmationRule[];
  expiresAfterSeconds: number;
}

/** A profile's `confirmations:` block as written. */
export interface ProfileConfirmations {
  operations?: string[];
  approver?: Approver;
  approvers?: string[];
  approver_teams?: string[];
}

/** Who may answer a browser approval: the listed logins and teams, never the excluded logins. */
export interface ApproverRule {
  approvers: readonly string[];
  teams: readonly string[];
  /** Logins whose approval does not count (four eyes: the namespace's own, the signed-in caller's). */
  excluded: readonly string[];
}

/** One namespace's confirmations: the rules of the policy file and the profile, and whose answer counts. */
export interface ConfirmationSettings {
  rules: readonly ConfirmationRule[];
  approver: Approver;
  /** Where the approver is set: the profile's line, or the policy file for the default. */
  approverSource: DeterminingEntry;
  /** For signed_in and four_eyes; lower-case. */
  approverRule: ApproverRule;
  fallback: ConfirmationFallback;
  expiresAfterMs: number;
}

/** The policy file's rules and the profile's block, compiled once per namespace. */
export function confirmationSettings(
  policy: ConfirmationPolicy,
  profile: CompiledProfile,
  vocabulary: Vocabulary,
): ConfirmationSettings {
  const block = profile.data.confirmations ?? {};
  const added = (block.operations ?? []).flatMap((written, index): ConfirmationRule[] => {
    const normalized = normalizeName(written, vocabulary, { service: profile.service, allowPatterns: true });
    const line = profile.lineOf(['confirmations', 'operations', index]);
    // An entry that does not normalize is an error finding: such a profile does not load.
    return normalized.ok
      ? normalized.canonical.map((operation) => ({ operation, through: null, file: profile.file, line }))
      : [];
  });
  const approver = block.approver ?? 'at_client';
  const own = profile.data.authenticated_username?.toLowerCase() ?? null;
  const listed = (block.approvers ?? []).map((login) => login.toLowerCase());
  const teams = (block.approver_teams ?? []).map((team) => team.toLowerCase());
  const signedInDefault = [...(own === null ? [] : [own]), ...(profile.data.authenticated_users ?? [])].map((login) =>
    login.toLowerCase(),
  );
  return {
    rules: [...policy.rules, ...added],
    approver,
    approverSource:
      block.approver === undefined
        ? { file: policy.file, line: null, rule: 'approver: at_client (default)' }
        : { file: profile.file, line: profile.lineOf(['confirmations', 'approver']), rule: `approver: ${approver}` },
    approverRule: {
      approvers: approver === 'signed_in' && listed.length === 0 && teams.length === 0 ? signedInDefault : listed,
      teams,
      excluded: approver === 'four_eyes' && own !== null ? [own] : [],
    },
    fallback: profile.data.confirmation_fallback ?? 'none',
    expiresAfterMs: policy.expiresAfterSeconds * 1000,
  };
}

/** A call that needs a person: the rule that says so and whose answer counts. */
export interface Requirement {
  rule: ConfirmationRule;
  approver: Approver;
}

/** The rule for the call's first operation (the primary one leads) that has one, limited to its tool where it says so. */
export function requiredConfirmation(
  settings: ConfirmationSettings,
  call: { operations: readonly string[]; tool: string },
): Requirement | null {
  for (const operation of call.operations) {
    const rule = settings.rules.find(
      (r) => r.operation === operation && (r.through === null || r.through === call.tool),
    );
    if (rule) return { rule, approver: settings.approver };
  }
  return null;
}

/** What the call will do, read live just before the question (and again before acting). */
export interface ConfirmSubject {
  operation: string;
  /** The operation's meaning from policies/vocabulary.yaml. */
  meaning: string;
  tool: string;
  /** The profile the namespace serves. */
  namespace: string;
  /** The login Gitea will record as the actor; null when unverified. */
  actor: string | null;
  repository: { fullName: string; id: number | null } | null;
  pullRequest: { number: number; title: string | null; headSha: string; headRef: string; baseRef: string } | null;
  /** A branch the call deletes, with the tip it loses. */
  branch: { name: string; sha: string | null } | null;
  /** The Gitea request, for a generated tool. */
  request: { method: string; path: string } | null;
  /** Further effects a person should know (merge style, the head branch deleted after a merge). */
  notes: readonly string[];
}

export interface ConfirmQuestion {
  /** One line: what will happen. */
  title: string;
  /** The facts, one per line. */
  lines: string[];
  /** The elicitation's message: title, facts and what the answer means. */
  message: string;
}

const TITLES: Record<string, (s: ConfirmSubject) => string | null> = {
  'gitea.pr.merge': (s) =>
    s.pullRequest ? `Merge pull request #${s.pullRequest.number}${titleOf(s)}${into(s)}` : null,
  'gitea.pr.force_merge': (s) =>
    s.pullRequest
      ? `Force-merge pull request #${s.pullRequest.number}${titleOf(s)}${into(s)}, bypassing branch protection`
      : null,
  'gitea.branch.delete': (s) => (s.branch ? `Delete branch ${s.branch.name}${inRepo(s)}` : null),
  'gitea.repo.delete': (s) => (s.repository ? `Delete repository ${s.repository.fullName} and everything in it` : null),
  'gitea.pr.close': (s) =>
    s.pullRequest ? `Close pull request #${s.pullRequest.number}${titleOf(s)}${inRepo(s)} as already landed` : null,
};

const titleOf = (s: ConfirmSubject): string => (s.pullRequest?.title ? ` "${oneLine(s.pullRequest.title)}"` : '');
const into = (s: ConfirmSubject): string => `${s.pullRequest ? ` into ${s.pullRequest.baseRef}` : ''}${inRepo(s)}`;
const inRepo = (s: ConfirmSubject): string => (s.repository ? ` of ${s.repository.fullName}` : '');
/** Gitea text (a title) shown on one line, bounded: it cannot add lines of its own to the question. */
const oneLine = (text: string): string => {
  const flat = text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 119)}…` : flat;
};

/** The question a person answers: exactly what will happen, from live facts. */
export function confirmationQuestion(subject: ConfirmSubject, expiresAfterMs: number): ConfirmQuestion {
  const title =
    TITLES[subject.operation]?.(subject) ??
    `${subject.meaning}${subject.request ? `: ${subject.request.method} ${subject.request.path}` : ''}${inRepo(subject)}`;
  const { repository: repo, pullRequest: pull, branch } = subject;
  const lines = [
    `Operation: ${subject.operation} (${subject.meaning}), through ${subject.tool}`,
    ...(repo ? [`Repository: ${repo.fullName}${repo.id === null ? '' : ` (id ${repo.id})`}`] : []),
    ...(pull
      ? [
          `Pull request: #${pull.number}${pull.title ? ` "${oneLine(pull.title)}"` : ''} (${pull.headRef} into ${pull.baseRef})`,
          `Head commit: ${pull.headSha}`,
        ]
      : []),
    ...(branch ? [`Branch deleted: ${branch.name}${branch.sha ? ` at ${branch.sha}` : ''}`] : []),
    ...(subject.request ? [`Gitea request: ${subject.request.method} ${subject.request.path}`] : []),
    ...subject.notes.map(oneLine),
    `Acts as: ${subject.actor ?? 'an unverified identity'} (namespace ${subject.namespace})`,
  ];
  const minutes = Math.max(1, Math.round(expiresAfterMs / 60_000));
  const message = [
    `${title}?`,
    '',
    ...lines,
    '',
    `Nothing happens unless you confirm. Your answer holds for ${minutes} minute${minutes === 1 ? '' : 's'} and for this exact ` +
      'state only: a push or a retarget in between voids it.',
  ].join('\n');
  return { title, lines, message };
}

/** What a confirmation is bound to: who asked, for which call, and the live facts the question showed. */
export interface ConfirmBinding {
  /** The profile and the login the call runs as. */
  principal: string;
  operation: string;
  tool: string;
  /** A digest of the call's arguments (without the confirmation options). */
  arguments: string;
  /** owner/repo as the call names it. */
  repository: string | null;
  pullRequest: number | null;
  /** Live facts: the repository's immutable id, the head the guard read, the base, the tip of the branch deleted. */
  repositoryId: number | null;
  headSha: string | null;
  baseRef: string | null;
  branchSha: string | null;
}

const CALL_FIELDS = ['principal', 'operation', 'tool', 'arguments', 'repository', 'pullRequest'] as const;
const FACT_FIELDS = ['repositoryId', 'headSha', 'baseRef', 'branchSha'] as const;
export type FactField = (typeof FACT_FIELDS)[number];

export type BindingVerdict =
  | { kind: 'same' }
  /** The answer belongs to another call: other principal, operation, tool, arguments, repository or pull request. */
  | { kind: 'transplanted'; fields: string[] }
  /** The same call, but Gitea changed in between (a push, a retarget, a recreated repository). */
  | { kind: 'changed'; changes: Array<{ fact: FactField; asked: string | null; now: string | null }> };

/** Compares the binding an answer carries with the call now: a different call first, then changed facts. */
export function compareBinding(asked: ConfirmBinding, now: ConfirmBinding): BindingVerdict {
  const fields = CALL_FIELDS.filter((field) => asked[field] !== now[field]);
  if (fields.length > 0) return { kind: 'transplanted', fields: [...fields] };
  const changes = FACT_FIELDS.filter((fact) => !sameFact(asked[fact], now[fact])).map((fact) => ({
    fact,
    asked: shown(asked[fact]),
    now: shown(now[fact]),
  }));
  return changes.length > 0 ? { kind: 'changed', changes } : { kind: 'same' };
}

function sameFact(a: string | number | null, b: string | number | null): boolean {
  return typeof a === 'string' && typeof b === 'string' ? a.toLowerCase() === b.toLowerCase() : a === b;
}

function shown(value: string | number | null): string | null {
  return value === null ? null : String(value);
}

const FACT_WORDS: Record<FactField, string> = {
  repositoryId: 'the repository id (deleted and recreated?)',
  headSha: 'the head commit (a push?)',
  baseRef: 'the target branch (a retarget?)',
  branchSha: "the branch's tip (a push?)",
};

/** One sentence saying what changed between the question and the answer. */
export function describeChanges(changes: Extract<BindingVerdict, { kind: 'changed' }>['changes']): string {
  return changes
    .map((c) => `${FACT_WORDS[c.fact]} was ${c.asked ?? 'unknown'} and is now ${c.now ?? 'unknown'}`)
    .join('; ');
}

/** The person's answer to one question, as the client relayed it. */
export type AnswerVerdict =
  | { kind: 'confirmed' }
  | { kind: 'declined'; how: 'declined' | 'cancelled' | 'unchecked' }
  /** No answer (or none of the shape asked for) to this question in the round. */
  | { kind: 'missing' };

/** `response` is the client's ElicitResult: accept with `{ confirm: true }` confirms; anything else does not. */
export function judgeAnswer(response: unknown, field = 'confirm'): AnswerVerdict {
  if (response === null || typeof response !== 'object') return { kind: 'missing' };
  const { action, content } = response as { action?: unknown; content?: unknown };
  if (action === 'decline') return { kind: 'declined', how: 'declined' };
  if (action === 'cancel') return { kind: 'declined', how: 'cancelled' };
  if (action !== 'accept') return { kind: 'missing' };
  // A URL-mode answer carries no content: only the approval page's record can confirm it.
  if (field === '') return { kind: 'confirmed' };
  const value =
    content !== null && typeof content === 'object' ? (content as Record<string, unknown>)[field] : undefined;
  return value === true ? { kind: 'confirmed' } : { kind: 'declined', how: 'unchecked' };
}

/** Whether a person who signed in may approve: listed by login or team, and not excluded. */
export function approverVerdict(
  rule: ApproverRule,
  login: string,
  teams: readonly string[],
): { ok: true } | { ok: false; why: string } {
  const who = login.toLowerCase();
  if (rule.excluded.includes(who))
    return {
      ok: false,
      why: `${login} is the namespace's own account or the caller; a second person must approve (four eyes).`,
    };
  const listed = rule.approvers.includes(who) || teams.some((team) => rule.teams.includes(team.toLowerCase()));
  return listed
    ? { ok: true }
    : {
        ok: false,
        why: `${login} is not among the approvers the profile names (confirmations.approvers / approver_teams).`,
      };
}

/** Findings about a profile's `confirmations:` block and `confirmation_fallback`, for `check` and loading. */
export function confirmationFindings(profile: CompiledProfile, vocabulary: Vocabulary): Finding[] {
  const block = profile.data.confirmations;
  const findings: Finding[] = [];
  (block?.operations ?? []).forEach((written, index) => {
    const normalized = normalizeName(written, vocabulary, { service: profile.service, allowPatterns: true });
    if (!normalized.ok)
      findings.push({
        file: profile.file,
        line: profile.lineOf(['confirmations', 'operations', index]),
        severity: 'error',
        code: normalized.reason,
        message: `confirmations.operations entry '${written}': ${normalized.message}; it would ask for nothing`,
        fix: 'use a canonical operation of policies/vocabulary.yaml or a gitea.<area>.* pattern',
      });
  });
  if (
    block?.approver === 'four_eyes' &&
    (block.approvers ?? []).length === 0 &&
    (block.approver_teams ?? []).length === 0
  )
    findings.push({
      file: profile.file,
      line: profile.lineOf(['confirmations', 'approver']),
      severity: 'error',
      code: 'approvers_missing',
      message: 'confirmations.approver is four_eyes but the profile names no approvers, so nobody could approve',
      fix: 'list the second persons in confirmations.approvers (logins) or confirmations.approver_teams (org/team)',
    });
  if (profile.data.confirmation_fallback === 'phrase')
    findings.push({
      file: profile.file,
      line: profile.lineOf(['confirmation_fallback']),
      severity: 'warning',
      code: 'confirmation_fallback_phrase',
      message:
        'confirmation_fallback: phrase lets a client without elicitation confirm the reconciler tools with their typed phrase, which a model can type itself',
      fix: 'remove it once the clients of this namespace support elicitation',
    });
  return findings;
}
