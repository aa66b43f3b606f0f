// The profile model and its compiler. A profile compiles ONCE into Sets of canonical operations,
// keeping where each entry was written (file, line) so every decision can point at it. Deciding
// afterwards does no parsing.
import type { ConfirmationFallback, ProfileConfirmations } from './confirmations.js';
import { compileBudgets, type BudgetData, type CompiledBudget } from './budgets.js';
import { compileIntegrity, type IntegrityData, type IntegritySettings } from './integrity.js';
import { compileSecrecy, type SecrecyData, type SecrecySettings } from './integrity-taint.js';
import { normalizeName, type Normalized } from './normalize.js';
import { compilePatternList } from './scope-patterns.js';
import { compileScopes, type CompiledScopes, type ScopeData } from './scopes.js';
import type { Vocabulary } from './vocabulary.js';

export const ROLES = ['issue-manager', 'author', 'reviewer', 'merger', 'owner', 'reconciler'] as const;
export type Role = (typeof ROLES)[number];

export const CAPABILITY_FLAGS = [
  'can_approve_prs',
  'can_merge_prs',
  'can_push_branches',
  'can_mutate_issues',
  'can_author_impl_prs',
] as const;
export type CapabilityFlag = (typeof CAPABILITY_FLAGS)[number];

/** A profile as written. Inline profiles carry only the lists; fields left out are not checked. */
export interface ProfileData {
  profile_name?: string;
  role?: Role;
  authenticated_username?: string;
  /** Per-user OAuth: who may sign in (logins; org/team whose members may). */
  authenticated_users?: string[];
  authenticated_teams?: string[];
  /** Instead of authenticated_username: the environment variable holding the login (serve resolves it). */
  authenticated_username_from_env?: string;
  allowed_operations?: string[];
  forbidden_operations?: string[];
  token_source_name?: string;
  /** The Gitea scopes the token carries (src/server/token-scope-filter.ts), when the profile declares them. */
  token_scopes?: string[];
  audit_label?: string;
  can_approve_prs?: boolean;
  can_merge_prs?: boolean;
  can_push_branches?: boolean;
  can_mutate_issues?: boolean;
  can_author_impl_prs?: boolean;
  toolsets?: string[];
  repositories?: ScopeData['repositories'];
  branches?: ScopeData['branches'];
  paths?: ScopeData['paths'];
  integrity?: IntegrityData;
  secrecy?: SecrecyData;
  /** Who confirms what cannot be undone, besides policies/confirmations.yaml (docs/confirmations.md). */
  confirmations?: ProfileConfirmations;
  /** `phrase`: the reconciler tools take their typed phrase from a client that cannot ask its person. */
  confirmation_fallback?: ConfirmationFallback;
  /** Call budgets: at most `max` calls of `operations` per `per`, per person and namespace. */
  budgets?: BudgetData[];
}

export type ListName = 'allowed_operations' | 'forbidden_operations';

export interface ListEntry {
  list: ListName;
  index: number;
  /** The entry as written. */
  written: string;
  line: number | null;
  result: Normalized;
}

export interface CompiledProfile {
  file: string;
  service: string;
  data: Readonly<ProfileData>;
  name: string | null;
  role: Role | null;
  /** Canonical operations granted, each with the first entry that granted it. */
  allowed: ReadonlySet<string>;
  forbidden: ReadonlySet<string>;
  allowedBy: ReadonlyMap<string, ListEntry>;
  forbiddenBy: ReadonlyMap<string, ListEntry>;
  /** Forbidden entries that did not normalize: while any exists, every request is denied. */
  brokenForbidden: ListEntry[];
  /** Allowed entries that did not normalize: they grant nothing. */
  brokenAllowed: ListEntry[];
  entries: ListEntry[];
  /** Resource scopes (repositories, branches, paths), patterns compiled. */
  scopes: CompiledScopes;
  /** The integrity floor, trusted and blocked users, and what a session may do after untrusted content. */
  integrity: IntegritySettings;
  /** After a private read, writes reach nothing public the profile does not name (off without a secrecy: block). */
  secrecy: SecrecySettings;
  /** The call budgets, compiled (src/policy/budgets.ts). */
  budgets: readonly CompiledBudget[];
  /** Line of the allowed_operations key (or of the profile) for default denials. */
  allowedListLine: number | null;
  /** Line of any field of the profile, as recorded at load time (null for inline profiles). */
  lineOf: (path: readonly (string | number)[]) => number | null;
}

export interface ProfileSource {
  data: ProfileData;
  file: string;
  /** Line of the node at a path inside the profile; absent for inline profiles. */
  lineOf?: (path: readonly (string | number)[]) => number | null;
}

export function compileProfile(
  source: ProfileSource,
  vocabulary: Vocabulary,
  service = vocabulary.service,
): CompiledProfile {
  const lineOf = source.lineOf ?? (() => null);
  const entries = (['allowed_operations', 'forbidden_operations'] as const).flatMap((list) =>
    (source.data[list] ?? []).map((written, index): ListEntry => ({
      list,
      index,
      written,
      line: lineOf([list, index]),
      result: normalizeName(written, vocabulary, { service, allowPatterns: true }),
    })),
  );
  const allowedBy = grantIndex(entries, 'allowed_operations');
  const forbiddenBy = grantIndex(entries, 'forbidden_operations');
  const broken = entries.filter((entry) => !entry.result.ok);
  const scopes = compileScopes(source.data, vocabulary, service, lineOf);
  return {
    file: source.file,
    service,
    data: source.data,
    name: source.data.profile_name ?? null,
    role: source.data.role ?? null,
    allowed: new Set(allowedBy.keys()),
    forbidden: new Set(forbiddenBy.keys()),
    allowedBy,
    forbiddenBy,
    brokenForbidden: broken.filter((entry) => entry.list === 'forbidden_operations'),
    brokenAllowed: broken.filter((entry) => entry.list === 'allowed_operations'),
    entries,
    scopes,
    integrity: compileIntegrity(source.data.integrity, scopes.repositories.write),
    secrecy: compileSecrecy(source.data.secrecy, (names) =>
      compilePatternList('secrecy.allowed_sinks', 'repository', names, (i) =>
        lineOf(i === null ? ['secrecy', 'allowed_sinks'] : ['secrecy', 'allowed_sinks', i]),
      ),
    ),
    budgets: compileBudgets(source.data.budgets, vocabulary, service, lineOf),
    allowedListLine: lineOf(['allowed_operations']),
    lineOf,
  };
}

function grantIndex(entries: ListEntry[], list: ListName): Map<string, ListEntry> {
  const index = new Map<string, ListEntry>();
  for (const entry of entries) {
    if (entry.list !== list || !entry.result.ok) continue;
    for (const name of entry.result.canonical) if (!index.has(name)) index.set(name, entry);
  }
  return index;
}

/** The vocabulary operations this profile may actually perform: allowed, not forbidden, no broken forbidden entry. */
export function effectiveOperations(profile: CompiledProfile, vocabulary: Vocabulary): Set<string> {
  if (profile.brokenForbidden.length > 0) return new Set();
  return new Set(
    [...vocabulary.operations.keys()].filter((name) => profile.allowed.has(name) && !profile.forbidden.has(name)),
  );
}

/** What each capability flag claims, as the operations that carry it (any one of them is enough). */
export const CAPABILITY_OPERATIONS: Readonly<Record<CapabilityFlag, readonly string[]>> = {
  can_approve_prs: ['gitea.pr.approve'],
  can_merge_prs: ['gitea.pr.merge'],
  can_push_branches: ['gitea.branch.push', 'gitea.repo.commit'],
  can_mutate_issues: [
    'gitea.issue.create',
    'gitea.issue.edit',
    'gitea.issue.close',
    'gitea.issue.label',
    'gitea.issue.delete',
  ],
  can_author_impl_prs: ['gitea.pr.create'],
};

/** The one environment variable a profile's token comes from: its token_source_name, else GITEA_TOKEN. */
export function tokenVariableOf(profile: Pick<CompiledProfile, 'data'>): string {
  return profile.data.token_source_name ?? 'GITEA_TOKEN';
}
