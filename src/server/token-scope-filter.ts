// Tools follow the token. A Gitea token carries scopes (read:repository, write:issue, ...), and each
// catalog operation needs some (src/catalog/token-scopes.ts, from Gitea's route groups). A namespace
// lists and allows only what both its profile and its token can do: the token's scopes are known
// from the OAuth grant, from the profile's token_scopes, or from Gitea itself, whose refusal names
// the token's scopes; once known lacking, an operation is no longer offered and its calls are
// refused before Gitea, naming the missing scope. Also: the scopes a profile needs (explain, init,
// OAUTH_GITEA_SCOPES) and the scopes a step-up challenge asks for.
import { matchRoute, routeTableOf } from '../catalog/routes.js';
import { minimalTokenScopes, missingTokenScopes, scopeHeld } from '../catalog/token-scopes.js';
import type { CatalogEntry } from '../catalog/types.js';
import { missingScopes, tokenScopesOfRefusal } from '../gitea/errors.js';
import type { Decision } from '../policy/decision.js';
import type { Finding } from '../policy/findings.js';
import { effectiveOperations, tokenVariableOf, type CompiledProfile } from '../policy/profile.js';
import type { PolicySet } from '../policy-files/policy-set.js';
import type { CallRecord } from './call/call-audit.js';
import { deniedRecord, type Outcome } from './call/outcome.js';
import { refusal } from './call/tool-result.js';
import type { Session } from './session.js';
import { possiblePrimaries } from './tool-registry.js';

/** GET /user, the identity check and the sign-in's login: every namespace needs read:user. */
export const IDENTITY_SCOPE = 'read:user';

/** Where the token's scopes were learnt: the OAuth grant, the profile's token_scopes, or Gitea's own refusal. */
export type ScopeSource = 'oauth_grant' | 'token_scopes' | 'gitea';

/**
 * What one token can call. `known` null: nobody said (a static token without token_scopes), so
 * nothing is withheld until Gitea refuses a call: its newer message names the token's scopes, an
 * older one only the scope it required, which is then remembered as lacking.
 */
export class TokenScopeState {
  private current: readonly string[] | null;
  private from: ScopeSource | null;
  private readonly lacking = new Set<string>();

  constructor(known: readonly string[] | null, source: ScopeSource | null) {
    this.current = known;
    this.from = known === null ? null : source;
  }

  get known(): readonly string[] | null {
    return this.current;
  }

  get source(): ScopeSource | null {
    return this.from;
  }

  /** The scopes of `required` the token is known to lack; none when the operation's scopes or the token's are unknown. */
  missing(required: readonly string[] | null): string[] {
    if (required === null) return [];
    const known = this.current === null ? [] : missingTokenScopes(this.current, required);
    // Without read:X there is no write:X either.
    const lacked = required.filter(
      (s) => this.lacking.has(s) || (s.startsWith('write:') && this.lacking.has(`read:${s.slice(6)}`)),
    );
    return [...new Set([...known, ...lacked])];
  }

  /** Gitea refused a call and said which scopes the token carries: from now on that is what it carries. */
  learn(tokenScopes: readonly string[]): void {
    this.current = tokenScopes;
    this.from = 'gitea';
  }

  /** Gitea refused a call for want of this one scope, without saying what the token carries. */
  learnLacking(scope: string): void {
    this.lacking.add(scope);
    this.from ??= 'gitea';
  }
}

/** The token scopes a static namespace knows from its profile (token_scopes), if it declares them. */
export function staticTokenScopes(profile: CompiledProfile): TokenScopeState {
  const declared = profile.data.token_scopes;
  return new TokenScopeState(declared ?? null, declared ? 'token_scopes' : null);
}

/** The minimal scopes for every catalog operation `performs` accepts, and read:user. */
export function tokenScopesFor(entries: readonly CatalogEntry[], performs: (entry: CatalogEntry) => boolean): string[] {
  const needed = new Set<string>([IDENTITY_SCOPE]);
  for (const entry of entries) if (performs(entry)) for (const scope of entry.tokenScopes ?? []) needed.add(scope);
  return minimalTokenScopes(needed);
}

/** Whether the profile may perform some call of this operation (guarded-only ones too: its guarded tools do). */
function performer(policy: PolicySet, profile: CompiledProfile): (entry: CatalogEntry) => boolean {
  const effective = effectiveOperations(profile, policy.vocabulary);
  return (entry) => possiblePrimaries(policy.operationMap, entry.operationId).some((op) => effective.has(op));
}

/** What a profile needs of its token to do everything it allows (explain, init, check). */
export function profileTokenScopes(
  policy: PolicySet,
  profile: CompiledProfile,
  entries: readonly CatalogEntry[],
): string[] {
  return tokenScopesFor(entries, performer(policy, profile));
}

/** What a namespace needs: its profile's operations, less what READ_ONLY and DISABLED_TOOLS take away. */
export function namespaceTokenScopes(session: Session): string[] {
  const performs = performer(session.policy, session.profile);
  const { readOnly, disabledTools } = session.settings;
  return tokenScopesFor(
    session.entries,
    (entry) => performs(entry) && (!readOnly || entry.annotations.readOnly) && !disabledTools.includes(entry.name),
  );
}

/** Stage 6 (decide), after the profile allowed: a call the token is known not to be able to make is refused before Gitea. */
export function tokenScopeRefusal(
  session: Session,
  entry: CatalogEntry,
  decision: Decision,
  target: CallRecord['target'],
): Outcome | null {
  const state = session.registry.tokenScopes;
  const missing = state?.missing(entry.tokenScopes) ?? [];
  if (!state || missing.length === 0) return null;
  const scopes = missing.join(', ');
  const why: Record<ScopeSource, [string, string]> = {
    oauth_grant: [
      `your sign-in was not given the Gitea scope ${scopes}`,
      `Sign in again and consent to ${scopes}; a client that follows the MCP step-up challenge asks for it by itself.`,
    ],
    token_scopes: [
      `the token of ${tokenVariableOf(session.profile)} carries only ${state.known?.join(', ') || 'no scope'} (the profile's token_scopes)`,
      `Ask the operator of this namespace for a token with ${scopes}, or use a namespace whose token has it.`,
    ],
    gitea: [
      state.known
        ? `Gitea refused an earlier call because the token carries only ${state.known.join(', ') || 'no scope'}`
        : `Gitea refused an earlier call because the token lacks ${scopes}`,
      `Ask the operator of this namespace for a token with ${scopes}, or use a namespace whose token has it.`,
    ],
  };
  const [because, hint] = why[state.source ?? 'gitea'];
  return {
    result: refusal('token_scope_missing', `${entry.name} needs the Gitea token scope ${scopes}: ${because}.`, {
      operation: decision.operation,
      operations: decision.operations,
      missing_scopes: missing,
      hint,
    }),
    record: deniedRecord(decision.operation, 'token_scope_missing', target),
  };
}

/** After Gitea answered: a 403 naming the token's scopes is remembered, so the operation is not offered again. */
export function noteScopeRefusal(session: Session, error: { status: number | null; message: string } | null): void {
  if (!error || error.status !== 403) return;
  const required = missingScopes(403, { message: error.message });
  if (required === null) return;
  const carried = tokenScopesOfRefusal(error.message);
  if (carried !== null) session.registry.tokenScopes?.learn(carried);
  // An older Gitea names only what it required: one scope is surely lacking; of several, which is unknown.
  else if (required.length === 1 && required[0]) session.registry.tokenScopes?.learnLacking(required[0]);
}

/**
 * The step-up of per-user OAuth: for a tools/call of an operation this namespace's profile allows,
 * the scopes of `offered` a grant holding `held` must add to make it; null when it lacks none, or
 * when one it lacks is not offered (a new consent could not help; the call's result says why).
 */
export function stepUpScopes(namespace: {
  session: Session;
}): (held: readonly string[], offered: readonly string[], message: unknown) => string[] | null {
  return (held, offered, message) => {
    const { session } = namespace;
    const entry = calledEntry(session, message);
    if (!entry?.tokenScopes) return null;
    const missing = missingTokenScopes(held, entry.tokenScopes);
    if (missing.length === 0) return null;
    const add = missing.map((scope) => offered.find((o) => o === scope) ?? offered.find((o) => scopeHeld([o], scope)));
    return add.every((scope): scope is string => scope !== undefined) ? [...new Set(add)] : null;
  };
}

/** The catalog operation a JSON-RPC tools/call reaches (its tool, gitea_call_operation's or gitea_api_request's), if the profile allows it. */
function calledEntry(session: Session, message: unknown): CatalogEntry | null {
  if (!isRecord(message) || message.method !== 'tools/call' || !isRecord(message.params)) return null;
  const { name, arguments: args } = message.params;
  if (typeof name !== 'string') return null;
  let entry: CatalogEntry | null = null;
  const tool = session.registry.get(name);
  if (tool?.kind === 'gitea') entry = tool.entry;
  else if (name === 'gitea_call_operation' && isRecord(args) && typeof args.tool === 'string') {
    const inner = session.registry.get(args.tool);
    entry = inner?.kind === 'gitea' ? inner.entry : null;
  } else if (name === 'gitea_api_request' && isRecord(args)) {
    const match = matchRoute(routeTableOf(session.entries), String(args.method), String(args.path));
    entry = match.ok ? match.entry : null;
  }
  return entry && performer(session.policy, session.profile)(entry) ? entry : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Each scope a profile needs, with how many operations need it and one of them: explain's "why". */
export function profileScopeNeeds(
  policy: PolicySet,
  profile: CompiledProfile,
  entries: readonly CatalogEntry[],
): Array<{ scope: string; operations: number; example: string }> {
  const performs = performer(policy, profile);
  return profileTokenScopes(policy, profile, entries).map((scope) => {
    const users = entries.filter((e) => performs(e) && (e.tokenScopes ?? []).some((s) => scopeHeld([scope], s)));
    const own = users.filter((e) => (e.tokenScopes ?? []).includes(scope));
    const example = scope === IDENTITY_SCOPE ? 'the identity check (GET /user)' : ((own[0] ?? users[0])?.name ?? '');
    return { scope, operations: users.length, example };
  });
}

/** check's findings on a profile's token_scopes: broader than its operations need, or short of them. */
export function tokenScopeFindings(
  policy: PolicySet,
  profile: CompiledProfile,
  entries: readonly CatalogEntry[],
): Finding[] {
  const declared = profile.data.token_scopes;
  if (declared === undefined) return [];
  const needed = profileTokenScopes(policy, profile, entries);
  const line = profile.lineOf(['token_scopes']);
  const name = profile.name ?? profile.file;
  const findings: Finding[] = [];
  // What the token can do that no operation of the profile needs (write where read is enough, `all`, ...).
  const extra = minimalTokenScopes(declared).filter((scope) => missingTokenScopes(needed, [scope]).length > 0);
  if (extra.length > 0)
    findings.push({
      file: profile.file,
      line,
      severity: 'warning',
      code: 'token_scopes_broader',
      message: `profile ${name} says its token carries ${extra.join(', ')}, more than its operations need (${needed.join(', ')})`,
      fix: `issue a token with only ${needed.join(', ')} and list those in token_scopes`,
    });
  const short = missingTokenScopes(declared, needed);
  if (short.length > 0)
    findings.push({
      file: profile.file,
      line,
      severity: 'warning',
      code: 'token_scopes_short',
      message: `profile ${name} says its token lacks ${short.join(', ')}: the operations needing it are not offered`,
      fix: `issue a token with ${needed.join(', ')}, or leave those operations to another profile`,
    });
  return findings;
}
