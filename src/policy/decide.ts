// The decision, in the manner of Cedar's authorizer: data in, one Decision out, naming the entry that
// determined it. A request's operations are normalized (anything that does not normalize fails
// closed), then forbid wins: the profile's forbidden list, and for a Gitea call the guarded-only
// operations no generated or raw tool may perform. Then deny by default: every operation must be
// allowed. Last, the condition checks (resource scopes, argument conditions) may turn the allow into
// a deny. The first step that denies decides, so the reason given is the most fundamental one.
import type { LiveBranchFacts } from './scopes.js';
import type { Decision, DeterminingEntry, FailedCondition } from './decision.js';
import { normalizeName } from './normalize.js';
import type { CompiledProfile, ListEntry } from './profile.js';
import type { Vocabulary } from './vocabulary.js';
import { mapCall, type MappedCall, type OperationMap } from './operation-map.js';
import { forbiddenHint, notAllowedFix, notAllowedHint, normalizeHint, type HolderIndex } from './hints.js';
import type { ReasonCode } from './reasons.js';
import { guardedOnlyDenial } from './guards/guarded-only.js';
import type { GuardedOnly } from './guards/guard-settings.js';

export interface DecisionRequest {
  /** Operation names as written (legacy or canonical); the primary first. All must be allowed. */
  operations: string[];
  /** Service checked; gitea unless stated. */
  service?: string;
  /**
   * The Gitea call being decided, when there is one (a generated or the raw tool): scopes and
   * conditions read its arguments, and it may need no guarded-only operation.
   */
  call?: { operationId: string; arguments: unknown };
  /**
   * Resources the call touches beyond what its arguments name, as `Targets` (e.g. a merge's base
   * branch, from live facts); other keys are ignored. Without a call, `{}` states that the request
   * touches no repository, branch or file.
   */
  targets?: Readonly<Record<string, unknown>>;
  /** The default branch and Gitea's protected flags of the targeted branches, read live (the server). */
  liveBranches?: LiveBranchFacts;
}

/** An extra check on a request the lists allow, e.g. resource scopes; returns what failed (empty: passes). */
export type ConditionCheck = (
  profile: CompiledProfile,
  request: DecisionRequest,
  operations: readonly string[],
) => FailedCondition[];

export interface DecideContext {
  vocabulary: Vocabulary;
  /** Who else holds an operation, for hints (reference profiles). */
  holders?: HolderIndex;
  checks?: readonly ConditionCheck[];
  /** Operations only a guarded built-in tool may perform (policies/guards.yaml): a Gitea call needing one is denied. */
  guardedOnly?: GuardedOnly;
}

export function decide(profile: CompiledProfile, request: DecisionRequest, context: DecideContext): Decision {
  const operations = canonicalOperations(profile, request, context.vocabulary);
  if (!Array.isArray(operations)) return operations;
  return (
    forbiddenDenial(profile, operations, context.holders) ??
    (request.call && context.guardedOnly ? guardedOnlyDenial(operations, context.guardedOnly) : null) ??
    notAllowedDenial(profile, operations, context.holders) ??
    conditionDenial(profile, request, operations, context.checks ?? []) ??
    allow(profile, operations)
  );
}

export interface GiteaCall {
  operationId: string;
  arguments: unknown;
  targets?: DecisionRequest['targets'];
  liveBranches?: LiveBranchFacts;
}

/** A Gitea call (operationId + tool arguments), by a generated or the raw tool: map it, then decide every operation it needs. */
export function decideCall(
  profile: CompiledProfile,
  call: GiteaCall,
  map: OperationMap,
  context: DecideContext,
): Decision {
  return decideMappedCall(profile, call, mapCall(map, call.operationId, call.arguments), map, context);
}

/** decideCall for a call already mapped (the server maps first, so its write-ahead audit event names the operation). */
export function decideMappedCall(
  profile: CompiledProfile,
  call: GiteaCall,
  mapped: MappedCall,
  map: OperationMap,
  context: DecideContext,
): Decision {
  if (!mapped.ok)
    return deny(null, [], mapped.reason, { file: map.file, line: mapped.line, rule: mapped.message }, mapped.hint);
  const request: DecisionRequest = {
    operations: mapped.operations,
    service: profile.service,
    call: { operationId: call.operationId, arguments: call.arguments },
  };
  return decide(
    profile,
    {
      ...request,
      ...(call.targets ? { targets: call.targets } : {}),
      ...(call.liveBranches ? { liveBranches: call.liveBranches } : {}),
    },
    context,
  );
}

/** A denial that happened before any profile list was consulted (bad request, unmapped call). */
export function deny(
  operation: string | null,
  operations: string[],
  reason: ReasonCode,
  determining: DeterminingEntry,
  hint: string,
  fix?: string,
): Decision {
  return { effect: 'deny', operation, operations, reason, determining, failed: [], hint, ...(fix ? { fix } : {}) };
}

/** The request's canonical operations (primary first, no repeats), or the denial of the first name that does not normalize. */
function canonicalOperations(
  profile: CompiledProfile,
  request: DecisionRequest,
  vocabulary: Vocabulary,
): string[] | Decision {
  const service = request.service ?? profile.service;
  if (service !== profile.service) {
    // The lists were normalized for another service; reading them for this one could widen access.
    return deny(
      null,
      [],
      'service_mismatch',
      { file: profile.file, line: null, rule: `profile compiled for ${profile.service}` },
      `compile the profile for service ${service}`,
    );
  }
  const canonical: string[] = [];
  for (const written of request.operations) {
    const result = normalizeName(written, vocabulary, { service });
    if (!result.ok)
      return deny(
        canonical[0] ?? null,
        canonical,
        result.reason,
        requestEntry(written),
        normalizeHint(written, result),
      );
    canonical.push(...result.canonical.filter((name) => !canonical.includes(name)));
  }
  return canonical.length > 0
    ? canonical
    : deny(null, [], 'invalid_request', requestEntry(''), 'name at least one operation');
}

/** Forbid wins: a forbidden entry that does not normalize denies everything; otherwise the first forbidden operation denies. */
function forbiddenDenial(
  profile: CompiledProfile,
  operations: string[],
  holders: HolderIndex | undefined,
): Decision | null {
  const broken = profile.brokenForbidden[0];
  if (broken) {
    return deny(
      operations[0] ?? null,
      operations,
      'forbidden_list_invalid',
      entryOf(profile, broken),
      `this profile denies everything while a forbidden_operations entry does not normalize; a person who maintains the profile must correct it`,
      `fix or remove forbidden_operations entry '${broken.written}' in ` +
        `${where(profile, broken.line)}: while it does not normalize, this profile denies everything`,
    );
  }
  const operation = operations.find((name) => profile.forbiddenBy.has(name));
  if (operation === undefined) return null;
  return deny(
    operations[0] ?? null,
    operations,
    'forbidden',
    entryOf(profile, profile.forbiddenBy.get(operation) as ListEntry),
    forbiddenHint(operation, profile, holders),
  );
}

/** Deny by default: the first operation no allowed entry grants denies. */
function notAllowedDenial(
  profile: CompiledProfile,
  operations: string[],
  holders: HolderIndex | undefined,
): Decision | null {
  const operation = operations.find((name) => !profile.allowed.has(name));
  if (operation === undefined) return null;
  const empty = profile.allowed.size === 0;
  const rule = empty
    ? 'default deny: allowed_operations is empty or missing'
    : `default deny: ${operation} is not in allowed_operations`;
  return deny(
    operations[0] ?? null,
    operations,
    empty ? 'empty_allowed_list' : 'not_allowed',
    { file: profile.file, line: profile.allowedListLine, rule },
    notAllowedHint(operation, profile, holders),
    notAllowedFix(operation, profile),
  );
}

/** Every condition the checks find failing on a list-allowed request; the first failure names the reason, the first with an entry determines. */
function conditionDenial(
  profile: CompiledProfile,
  request: DecisionRequest,
  operations: string[],
  checks: readonly ConditionCheck[],
): Decision | null {
  const [first, ...more] = checks.flatMap((check) => check(profile, request, operations));
  if (first === undefined) return null;
  const failed = [first, ...more];
  const determining = failed.find((f) => f.entry)?.entry ?? grantOf(profile, operations);
  return {
    effect: 'deny',
    operation: operations[0] ?? null,
    operations,
    reason: first.code,
    determining,
    failed,
    hint: failed.map((f) => f.message).join('; '),
  };
}

function allow(profile: CompiledProfile, operations: string[]): Decision {
  return {
    effect: 'allow',
    operation: operations[0] ?? null,
    operations,
    reason: 'allowed',
    determining: grantOf(profile, operations),
    failed: [],
  };
}

/** The allowed entry that granted the primary operation. */
function grantOf(profile: CompiledProfile, operations: string[]): DeterminingEntry {
  return entryOf(profile, profile.allowedBy.get(operations[0] as string) as ListEntry);
}

function entryOf(profile: CompiledProfile, entry: ListEntry): DeterminingEntry {
  return { file: profile.file, line: entry.line, rule: `${entry.list}: ${entry.written}` };
}

function requestEntry(written: string): DeterminingEntry {
  return { file: '<request>', line: null, rule: `operation: ${written}` };
}

function where(profile: CompiledProfile, line: number | null): string {
  return line === null ? profile.file : `${profile.file}:${line}`;
}
