// The decision: a request's operations against one compiled profile. Forbidden wins, deny by default,
// anything that does not normalize fails closed. Later checks (resource scopes, argument conditions)
// plug in as ConditionChecks that contribute FailedConditions to an otherwise allowed request.
import type { Decision, DeterminingEntry, FailedCondition } from './decision.js';
import { normalizeName } from './normalize.js';
import type { CompiledProfile, ListEntry } from './profile.js';
import type { Vocabulary } from './vocabulary.js';
import { mapCall, type MappedCall, type OperationMap } from './operation-map.js';
import { forbiddenHint, notAllowedHint, normalizeHint, type HolderIndex } from './hints.js';
import { applyGuardedOnly } from './guards/guarded-only.js';
import type { GuardedOnly } from './guards/settings.js';

export interface DecisionRequest {
  /** Operation names as written (legacy or canonical); the primary first. All must be allowed. */
  operations: string[];
  /** Service checked; gitea unless stated. */
  service?: string;
  /** The Gitea call being decided, when there is one: scopes and conditions read its arguments. */
  call?: { operationId: string; arguments: unknown };
  /**
   * Resources the call touches beyond what its arguments name, as `Targets` (e.g. a merge's base
   * branch, from live facts); other keys are ignored. Without a call, `{}` states that the request
   * touches no repository, branch or file.
   */
  targets?: Readonly<Record<string, unknown>>;
}

/** An extra check on a request the lists allow, e.g. resource scopes; returns what failed (empty: passes). */
export type ConditionCheck = (profile: CompiledProfile, request: DecisionRequest, operations: readonly string[]) => FailedCondition[];

export interface DecideContext {
  vocabulary: Vocabulary;
  /** Who else holds an operation, for hints (reference profiles). */
  holders?: HolderIndex;
  checks?: readonly ConditionCheck[];
  /** Operations only a guarded built-in tool may perform (policies/guards.yaml): a Gitea call needing one is denied. */
  guardedOnly?: GuardedOnly;
}

export function decide(profile: CompiledProfile, request: DecisionRequest, context: DecideContext): Decision {
  const service = request.service ?? profile.service;
  if (service !== profile.service) {
    // The lists were normalized for another service; reading them for this one could widen access.
    return deny(null, [], 'service_mismatch', { file: profile.file, line: null, rule: `profile compiled for ${profile.service}` }, `compile the profile for service ${service}`);
  }
  const canonical: string[] = [];
  for (const written of request.operations) {
    const result = normalizeName(written, context.vocabulary, { service });
    if (!result.ok) {
      return deny(canonical[0] ?? null, canonical, result.reason, inputEntry(written), normalizeHint(written, result));
    }
    canonical.push(...result.canonical.filter((name) => !canonical.includes(name)));
  }
  if (canonical.length === 0) return deny(null, [], 'invalid_request', inputEntry(''), 'name at least one operation');
  const listDecision = decideList(profile, canonical, context.holders);
  if (listDecision.decision === 'deny') return listDecision;
  const failed = (context.checks ?? []).flatMap((check) => check(profile, request, canonical));
  if (failed.length === 0) return listDecision;
  const determining = failed.find((f) => f.entry)?.entry ?? listDecision.determining;
  return { ...listDecision, decision: 'deny', reason: 'condition_failed', determining, failed, hint: failed.map((f) => f.message).join('; ') };
}

export interface GiteaCall {
  operationId: string;
  arguments: unknown;
  targets?: DecisionRequest['targets'];
}

/** A Gitea call (operationId + tool arguments), by a generated or the raw tool: map it, then decide every operation it needs. */
export function decideCall(profile: CompiledProfile, call: GiteaCall, map: OperationMap, context: DecideContext): Decision {
  return decideMappedCall(profile, call, mapCall(map, call.operationId, call.arguments), map, context);
}

/** decideCall for a call already mapped (the server maps first, so its write-ahead audit event names the operation). */
export function decideMappedCall(profile: CompiledProfile, call: GiteaCall, mapped: MappedCall, map: OperationMap, context: DecideContext): Decision {
  if (!mapped.ok) return deny(null, [], mapped.reason, { file: map.file, line: mapped.line, rule: mapped.message }, mapped.hint);
  const request: DecisionRequest = { operations: mapped.operations, service: profile.service, call: { operationId: call.operationId, arguments: call.arguments } };
  const decision = decide(profile, call.targets ? { ...request, targets: call.targets } : request, context);
  return context.guardedOnly ? applyGuardedOnly(decision, context.guardedOnly) : decision;
}

/** The list decision over canonical operations: every one must be allowed and none forbidden. */
export function decideList(profile: CompiledProfile, operations: readonly string[], holders?: HolderIndex): Decision {
  const primary = operations[0] ?? null;
  const ops = [...operations];
  const broken = profile.brokenForbidden[0];
  if (broken) {
    return deny(primary, ops, 'forbidden_list_invalid', entryOf(profile, broken),
      `fix or remove forbidden_operations entry '${broken.written}' in ${where(profile, broken.line)}: while it does not normalize, this profile denies everything`);
  }
  for (const operation of ops) {
    const entry = profile.forbiddenBy.get(operation);
    if (entry) return deny(primary, ops, 'forbidden', entryOf(profile, entry), forbiddenHint(operation, profile, holders));
  }
  for (const operation of ops) {
    if (profile.allowed.has(operation)) continue;
    const empty = profile.allowed.size === 0;
    return deny(primary, ops, empty ? 'empty_allowed_list' : 'not_allowed', defaultDenyEntry(profile, operation, empty), notAllowedHint(operation, profile, holders));
  }
  const grant = profile.allowedBy.get(primary as string) as ListEntry;
  return { decision: 'allow', operation: primary, operations: ops, reason: 'allowed', determining: entryOf(profile, grant), failed: [] };
}

/** A denial that happened before any profile list was consulted (bad request, unmapped call). */
export function deny(operation: string | null, operations: string[], reason: string, determining: DeterminingEntry, hint: string): Decision {
  return { decision: 'deny', operation, operations, reason, determining, failed: [], hint };
}

function entryOf(profile: CompiledProfile, entry: ListEntry): DeterminingEntry {
  return { file: profile.file, line: entry.line, rule: `${entry.list}: ${entry.written}` };
}

function defaultDenyEntry(profile: CompiledProfile, operation: string, empty: boolean): DeterminingEntry {
  const rule = empty ? 'default deny: allowed_operations is empty or missing' : `default deny: ${operation} is not in allowed_operations`;
  return { file: profile.file, line: profile.allowedListLine, rule };
}

function inputEntry(written: string): DeterminingEntry {
  return { file: '<request>', line: null, rule: `operation: ${written}` };
}

function where(profile: CompiledProfile, line: number | null): string {
  return line === null ? profile.file : `${profile.file}:${line}`;
}
