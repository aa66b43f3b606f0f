// What a profile gains or loses between two versions, field by field. Every field a profile (or the
// multi-identity config it sits in) can hold has a row in a table saying how a change of it widens
// what an agent may do or read, and the function that compares it: the effective operations (after
// normalization, wildcards and forbidden entries), the identity and token it acts with, who may sign
// in, the resource scopes by what their patterns match (pattern-cover.ts), the integrity floor and its
// lists, the static listing's reach, runtime switching. A field with no row is reported as a gain:
// a change nobody classified fails the gate rather than slipping through it.
import { scopeHeld } from '../catalog/token-scopes.js';
import { rankOf } from './integrity.js';
import { covers } from './pattern-cover.js';
import type { CompiledBudget } from './budgets.js';
import { effectiveOperations, tokenVariableOf, type CompiledProfile } from './profile.js';
import type { PatternList, ScopeKind } from './scope-patterns.js';
import type { Vocabulary } from './vocabulary.js';

export type Direction = 'gain' | 'loss';

/** One change of access, where the new version says it (or, for a field it dropped, where it would be). */
export interface AccessChange {
  direction: Direction;
  /** The field as written: operations, integrity.trusted_users, repositories.write, branches.gitea.branch.push, ... */
  field: string;
  /** What changed, for a person: `+ mallory`, `withhold -> fence`. */
  change: string;
  file: string;
  line: number | null;
}

export interface ProfileDiff {
  gained: AccessChange[];
  lost: AccessChange[];
}

/** The multi-identity config a profile was read from (null for a profile file): what it adds around the profile. */
export interface ConfigFacts {
  file: string;
  runtimeSwitching: boolean;
  runtimeSwitchingLine: number | null;
  /** The Gitea of the identity's environment (environments.<env>.services.gitea.base_url). */
  baseUrl: string | null;
  baseUrlLine: number | null;
}

/** One version of a profile: the profile and, when it sits in a multi-identity config, that config's facts. */
export interface DiffSide {
  profile: CompiledProfile;
  config: ConfigFacts | null;
}

export interface DiffContext {
  vocabulary: Vocabulary;
  /** Catalog domain (toolset) -> the canonical operations its tools perform: what a static listing of it can reach. */
  toolsetOperations: ReadonlyMap<string, ReadonlySet<string>>;
}

type Compare = (before: DiffSide, after: DiffSide, context: DiffContext) => AccessChange[];

export interface FieldRule {
  /** How a change of the field widens what an agent may do or read; "nothing" for a field that grants nothing. */
  widens: string;
  compare: Compare | 'neutral';
}

const neutral = (widens: string): FieldRule => ({ widens, compare: 'neutral' });

/**
 * Profile fields (policies/profile.schema.json), a block's fields as `block.field`. test/diff.test.ts
 * fails when the schema has a field this table does not name: a lane that adds a field adds its row.
 */
export const PROFILE_FIELDS: Readonly<Record<string, FieldRule>> = {
  profile_name: neutral('nothing: the name selects the file; what it holds decides'),
  role: {
    widens: "another role: the guarded tools it may use and the guards' rules on its own pull requests change",
    compare: (before, after) =>
      before.profile.role === after.profile.role
        ? []
        : [
            change('gain', 'role', `${before.profile.role ?? '(none)'} -> ${after.profile.role ?? '(none)'}`, after, [
              'role',
            ]),
          ],
  },
  authenticated_username: {
    widens: 'another Gitea user: the namespace acts with everything that user may do in Gitea',
    compare: (before, after) => {
      const who = (side: DiffSide) =>
        side.profile.data.authenticated_username_from_env !== undefined
          ? `the login in $${side.profile.data.authenticated_username_from_env}`
          : (side.profile.data.authenticated_username ?? '(none)');
      if (who(before).toLowerCase() === who(after).toLowerCase()) return [];
      const path =
        after.profile.data.authenticated_username_from_env !== undefined
          ? 'authenticated_username_from_env'
          : 'authenticated_username';
      return [
        change('gain', 'authenticated_username', `acts as ${who(after)} instead of ${who(before)}`, after, [path]),
      ];
    },
  },
  authenticated_username_from_env: neutral('compared with authenticated_username: which login the namespace acts as'),
  authenticated_users: {
    widens: 'per-user OAuth: another person may sign in to the namespace',
    compare: (before, after) => setChanges('authenticated_users', before, after, 'may sign in'),
  },
  authenticated_teams: {
    widens: "per-user OAuth: another team's members may sign in",
    compare: (before, after) => setChanges('authenticated_teams', before, after, 'its members may sign in'),
  },
  token_source_name: {
    widens:
      "another token variable: the namespace acts with whatever token that variable holds (another user's, an admin's)",
    compare: (before, after) =>
      tokenVariableOf(before.profile) === tokenVariableOf(after.profile)
        ? []
        : [
            change(
              'gain',
              'token_source_name',
              `the token comes from ${tokenVariableOf(after.profile)} instead of ${tokenVariableOf(before.profile)}`,
              after,
              ['token_source_name'],
            ),
          ],
  },
  token_scopes: {
    widens:
      'the token is said to carry more: the namespace offers what those scopes reach (unsaid: whatever Gitea allows)',
    compare: compareTokenScopes,
  },
  audit_label: neutral('nothing: a label of the audit trail'),
  allowed_operations: {
    widens:
      'another operation the profile may perform (compared as the effective operations, forbidden entries applied)',
    compare: compareOperations,
  },
  forbidden_operations: neutral('compared with allowed_operations: a removed forbidden entry is a gained operation'),
  can_approve_prs: neutral('nothing: a claim `check` verifies against the lists'),
  can_merge_prs: neutral('nothing: a claim `check` verifies against the lists'),
  can_push_branches: neutral('nothing: a claim `check` verifies against the lists'),
  can_mutate_issues: neutral('nothing: a claim `check` verifies against the lists'),
  can_author_impl_prs: neutral('nothing: a claim `check` verifies against the lists'),
  toolsets: {
    widens:
      'another domain in the static listing (TOOL_MODE=static reaches only listed tools): its operations the profile may perform',
    compare: compareToolsets,
  },
  repositories: {
    widens: 'a repository the patterns did not match before (or the restriction lifted)',
    compare: (before, after) =>
      (['read', 'write'] as const).flatMap((access) =>
        compareAllow(
          `repositories.${access}`,
          before.profile.scopes.repositories[access],
          after.profile.scopes.repositories[access],
          'repository',
          before,
          after,
        ),
      ),
  },
  branches: {
    widens: 'a branch an operation may target that its patterns did not match before (or its restriction lifted)',
    compare: (before, after) =>
      [...new Set([...before.profile.scopes.branches.keys(), ...after.profile.scopes.branches.keys()])]
        .sort()
        .flatMap((operation) =>
          compareAllow(
            `branches.${operation}`,
            before.profile.scopes.branches.get(operation) ?? null,
            after.profile.scopes.branches.get(operation) ?? null,
            'branch',
            before,
            after,
          ),
        ),
  },
  paths: {
    widens: 'a file path the allow patterns did not match before, or one the deny patterns no longer match',
    compare: (before, after) =>
      (['read', 'write'] as const).flatMap((access) => [
        ...compareAllow(
          `paths.${access}.allow`,
          before.profile.scopes.paths[access].allow,
          after.profile.scopes.paths[access].allow,
          'path',
          before,
          after,
        ),
        ...compareDeny(
          `paths.${access}.deny`,
          before.profile.scopes.paths[access].deny,
          after.profile.scopes.paths[access].deny,
          'path',
          after,
        ),
      ]),
  },
  'confirmations.operations': {
    widens: "an operation no longer confirmed: its calls reach Gitea on the model's word alone",
    compare: compareConfirmedOperations,
  },
  'confirmations.approver': {
    widens: 'four_eyes -> signed_in -> at_client: a weaker proof of who said yes',
    compare: (before, after) => {
      const [was, is] = [approverOf(before), approverOf(after)];
      if (was === is) return [];
      const rank = (approver: string) => ['at_client', 'signed_in', 'four_eyes'].indexOf(approver);
      return [
        change(rank(is) < rank(was) ? 'gain' : 'loss', 'confirmations.approver', `${was} -> ${is}`, after, [
          'confirmations',
          'approver',
        ]),
      ];
    },
  },
  'confirmations.approvers': {
    widens: 'another person whose browser approval counts',
    compare: (before, after) =>
      loginChanges('confirmations.approvers', approversOf(before), approversOf(after), after, 'gain', 'may approve'),
  },
  'confirmations.approver_teams': {
    widens: "another team whose members' browser approval counts",
    compare: (before, after) =>
      loginChanges(
        'confirmations.approver_teams',
        new Set((before.profile.data.confirmations?.approver_teams ?? []).map((t) => t.toLowerCase())),
        new Set((after.profile.data.confirmations?.approver_teams ?? []).map((t) => t.toLowerCase())),
        after,
        'gain',
        'may approve',
      ),
  },
  confirmation_fallback: {
    widens: 'none -> phrase: a client that cannot ask its person passes with a phrase the model can type',
    compare: (before, after) => {
      const [was, is] = [
        before.profile.data.confirmation_fallback ?? 'none',
        after.profile.data.confirmation_fallback ?? 'none',
      ];
      if (was === is) return [];
      return [
        change(is === 'phrase' ? 'gain' : 'loss', 'confirmation_fallback', `${was} -> ${is}`, after, [
          'confirmation_fallback',
        ]),
      ];
    },
  },
  budgets: {
    widens:
      'a budget removed or loosened: more calls of its operations within a window (a budget is kept only by one at least as strict)',
    compare: compareBudgets,
  },
  'integrity.min_level': {
    widens: "a lower floor: text by people of lower standing reaches the agent as is (no block: 'none')",
    compare: (before, after) => {
      const [was, is] = [before.profile.integrity.minLevel, after.profile.integrity.minLevel];
      if (was === is) return [];
      return [
        change(rankOf(is) < rankOf(was) ? 'gain' : 'loss', 'integrity.min_level', `${was} -> ${is}`, after, [
          'integrity',
          'min_level',
        ]),
      ];
    },
  },
  'integrity.below': {
    widens: "withhold -> fence: text below the floor reaches the agent, sanitised and fenced (no block: 'fence')",
    compare: (before, after) => {
      const [was, is] = [before.profile.integrity.below, after.profile.integrity.below];
      if (was === is) return [];
      return [
        change(is === 'fence' ? 'gain' : 'loss', 'integrity.below', `${was} -> ${is}`, after, ['integrity', 'below']),
      ];
    },
  },
  'integrity.trusted_users': {
    widens: 'another trusted person: their text passes the floor whatever their standing',
    compare: (before, after) =>
      loginChanges(
        'integrity.trusted_users',
        before.profile.integrity.trusted,
        after.profile.integrity.trusted,
        after,
        'gain',
        'trusted',
      ),
  },
  'integrity.blocked_users': {
    widens: 'a person no longer blocked: their text is no longer always withheld',
    compare: (before, after) =>
      loginChanges(
        'integrity.blocked_users',
        before.profile.integrity.blocked,
        after.profile.integrity.blocked,
        after,
        'loss',
        'blocked',
      ),
  },
  'integrity.after_untrusted': {
    widens: "same_repository_only -> allow: after untrusted text the session may write anywhere (no block: 'allow')",
    compare: (before, after) => {
      const [was, is] = [before.profile.integrity.afterUntrusted, after.profile.integrity.afterUntrusted];
      if (was === is) return [];
      return [
        change(is === 'allow' ? 'gain' : 'loss', 'integrity.after_untrusted', `${was} -> ${is}`, after, [
          'integrity',
          'after_untrusted',
        ]),
      ];
    },
  },
  // issue 28: the trust domain, the taint's window and secrecy
  'integrity.trusted_teams': {
    widens: "another trusted team: its members' text passes the floor whatever their standing",
    compare: (before, after) =>
      loginChanges(
        'integrity.trusted_teams',
        new Set(before.profile.integrity.trustedTeams),
        new Set(after.profile.integrity.trustedTeams),
        after,
        'gain',
        'trusted',
      ),
  },
  'integrity.trusted_orgs': {
    widens: 'another organisation in the trust domain: standing in its repositories and teams counts',
    compare: (before, after) =>
      loginChanges(
        'integrity.trusted_orgs',
        before.profile.integrity.trustedOrgs,
        after.profile.integrity.trustedOrgs,
        after,
        'gain',
        'in the trust domain',
      ),
  },
  'integrity.taint_expires_after': {
    widens: 'a shorter taint: after untrusted text, writes leave its repository sooner',
    compare: (before, after) =>
      windowChange(
        'integrity.taint_expires_after',
        before.profile.integrity.taintExpiresMs,
        after.profile.integrity.taintExpiresMs,
        after,
      ),
  },
  'secrecy.public_sinks': {
    widens: 'refuse -> allow (or the block removed): after a private read, writes may reach public targets',
    compare: (before, after) => {
      const [was, is] = [before.profile.secrecy.enabled, after.profile.secrecy.enabled];
      if (was === is) return [];
      const text = `${was ? 'refuse' : 'allow'} -> ${is ? 'refuse' : 'allow'}`;
      return [change(is ? 'loss' : 'gain', 'secrecy.public_sinks', text, after, ['secrecy', 'public_sinks'])];
    },
  },
  'secrecy.allowed_sinks': {
    widens: 'another allowed sink: after a private read, writes may reach it',
    compare: (before, after) =>
      loginChanges(
        'secrecy.allowed_sinks',
        new Set((before.profile.data.secrecy?.allowed_sinks ?? []).map((sink) => sink.toLowerCase())),
        new Set((after.profile.data.secrecy?.allowed_sinks ?? []).map((sink) => sink.toLowerCase())),
        after,
        'gain',
        'an allowed sink',
      ),
  },
  'secrecy.expires_after': {
    widens: 'a shorter secrecy window: after a private read, public targets are reachable sooner',
    compare: (before, after) =>
      windowChange('secrecy.expires_after', before.profile.secrecy.expiresMs, after.profile.secrecy.expiresMs, after),
  },
};

/**
 * Fields of a multi-identity config (policies/config.schema.json) around its profiles, by their name
 * (base_url, identities and profile_aliases sit in environments.<env>.services.gitea).
 */
export const CONFIG_FIELDS: Readonly<Record<string, FieldRule>> = {
  allow_runtime_switching: {
    widens: 'false -> true: gitea_activate_profile may turn the namespace into any profile of the file',
    compare: (before, after) => {
      const [was, is] = [before.config?.runtimeSwitching === true, after.config?.runtimeSwitching === true];
      return was === is ? [] : [configChange(is ? 'gain' : 'loss', before, after)];
    },
  },
  base_url: {
    widens: 'another Gitea: the same lists act on another server',
    compare: (before, after) => {
      const [was, is] = [before.config?.baseUrl ?? null, after.config?.baseUrl ?? null];
      if (was === is) return [];
      return [
        {
          direction: 'gain',
          field: 'base_url',
          change: `${was ?? '(GITEA_URL)'} -> ${is ?? '(GITEA_URL)'}`,
          file: after.config?.file ?? after.profile.file,
          line: after.config?.baseUrlLine ?? null,
        },
      ];
    },
  },
  identities: neutral('each identity is compared as a profile, matched by its key; a new one gains all it allows'),
  profile_aliases: neutral('nothing: another name for an identity the file already holds'),
  environments: neutral('its identities, base_url and profile_aliases are compared by their own rows'),
};

/** Everything the newer version gains and loses, field by field (PROFILE_FIELDS, CONFIG_FIELDS). */
export function diffProfiles(before: DiffSide, after: DiffSide, context: DiffContext): ProfileDiff {
  const changes = [
    ...Object.values(PROFILE_FIELDS).flatMap((rule) =>
      rule.compare === 'neutral' ? [] : rule.compare(before, after, context),
    ),
    ...(before.config || after.config
      ? Object.values(CONFIG_FIELDS).flatMap((rule) =>
          rule.compare === 'neutral' ? [] : rule.compare(before, after, context),
        )
      : []),
    ...unclassified(before, after),
  ];
  const order = (a: AccessChange, b: AccessChange) =>
    a.file.localeCompare(b.file) ||
    (a.line ?? 0) - (b.line ?? 0) ||
    a.field.localeCompare(b.field) ||
    a.change.localeCompare(b.change);
  return {
    gained: changes.filter((c) => c.direction === 'gain').sort(order),
    lost: changes.filter((c) => c.direction === 'loss').sort(order),
  };
}

/** A profile that did not exist before (or no longer does): everything it allows, gained (or lost). */
export function wholeProfile(side: DiffSide, direction: Direction, context: DiffContext): AccessChange[] {
  const operations = [...effectiveOperations(side.profile, context.vocabulary)].sort();
  const name = side.profile.name ?? side.profile.file;
  return [
    {
      direction,
      field: 'profile',
      change:
        `${direction === 'gain' ? 'new' : 'removed'} profile ${name}: ${operations.length} ` +
        `operation(s)${operations.length > 0 ? ` (${operations.join(', ')})` : ''}`,
      file: side.profile.file,
      line: side.profile.lineOf([]) ?? null,
    },
  ];
}

/** Blocks whose rows name them field by field (`integrity.min_level`). */
const BLOCKS_BY_FIELD = new Set(['integrity', 'confirmations']);

/** Fields present in either version that no row classifies (a newer schema): each a gain, so the gate fails closed. */
function unclassified(before: DiffSide, after: DiffSide): AccessChange[] {
  const known = new Set(Object.keys(PROFILE_FIELDS));
  const fields = (side: DiffSide) =>
    Object.entries(side.profile.data).flatMap(([key, value]) =>
      BLOCKS_BY_FIELD.has(key) && value && typeof value === 'object'
        ? Object.keys(value).map((sub) => `${key}.${sub}`)
        : [key],
    );
  const all = new Set([...fields(before), ...fields(after)]);
  return [...all]
    .filter((field) => !known.has(field))
    .filter((field) => JSON.stringify(valueAt(before, field)) !== JSON.stringify(valueAt(after, field)))
    .map((field) =>
      change(
        'gain',
        field,
        'changed, and gitea-warden diff has no rule for this field: treated as a widening',
        after,
        field.split('.'),
      ),
    );
}

function valueAt(side: DiffSide, field: string): unknown {
  return field
    .split('.')
    .reduce<unknown>(
      (value, key) => (value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined),
      side.profile.data,
    );
}

/** A change located at `path` in the newer version (or at its nearest written ancestor). */
function change(
  direction: Direction,
  field: string,
  text: string,
  side: DiffSide,
  path: readonly (string | number)[],
): AccessChange {
  return { direction, field, change: text, file: side.profile.file, line: lineNear(side.profile, path) };
}

function lineNear(profile: CompiledProfile, path: readonly (string | number)[]): number | null {
  for (let length = path.length; length > 0; length -= 1) {
    const line = profile.lineOf(path.slice(0, length));
    if (line !== null) return line;
  }
  return null;
}

function configChange(direction: Direction, before: DiffSide, after: DiffSide): AccessChange {
  const is = after.config?.runtimeSwitching === true;
  return {
    direction,
    field: 'allow_runtime_switching',
    change: `${before.config?.runtimeSwitching === true} -> ${is}`,
    file: after.config?.file ?? after.profile.file,
    line: after.config?.runtimeSwitchingLine ?? null,
  };
}

function compareOperations(before: DiffSide, after: DiffSide, context: DiffContext): AccessChange[] {
  const old = effectiveOperations(before.profile, context.vocabulary);
  const now = effectiveOperations(after.profile, context.vocabulary);
  const gained = [...now].filter((name) => !old.has(name)).sort();
  const lost = [...old].filter((name) => !now.has(name)).sort();
  const at = (operation: string, direction: Direction): AccessChange => {
    const entry =
      direction === 'gain'
        ? after.profile.allowedBy.get(operation)
        : (after.profile.forbiddenBy.get(operation) ?? null);
    return {
      direction,
      field: 'operations',
      change: `${direction === 'gain' ? '+' : '-'} ${operation}`,
      file: after.profile.file,
      line: entry?.line ?? after.profile.brokenForbidden[0]?.line ?? after.profile.allowedListLine,
    };
  };
  return [...gained.map((name) => at(name, 'gain')), ...lost.map((name) => at(name, 'loss'))];
}

function compareToolsets(before: DiffSide, after: DiffSide, context: DiffContext): AccessChange[] {
  const effective = effectiveOperations(after.profile, context.vocabulary);
  const domains = (side: DiffSide) => side.profile.data.toolsets ?? [...context.toolsetOperations.keys()];
  const reach = (list: readonly string[]) =>
    new Set(
      list.flatMap((domain) => [...(context.toolsetOperations.get(domain) ?? [])].filter((op) => effective.has(op))),
    );
  const [was, is] = [reach(domains(before)), reach(domains(after))];
  const changes: AccessChange[] = [];
  const listed = (side: DiffSide) =>
    side.profile.data.toolsets === undefined ? 'every domain' : `[${domains(side).join(', ')}]`;
  const gained = [...is].filter((op) => !was.has(op)).sort();
  const lost = [...was].filter((op) => !is.has(op)).sort();
  const summary = (ops: string[]) =>
    `${ops.slice(0, 6).join(', ')}${ops.length > 6 ? `, and ${ops.length - 6} more` : ''}`;
  if (gained.length > 0)
    changes.push(
      change(
        'gain',
        'toolsets',
        `${listed(before)} -> ${listed(after)}: the static listing reaches ${summary(gained)}`,
        after,
        ['toolsets'],
      ),
    );
  if (lost.length > 0)
    changes.push(
      change(
        'loss',
        'toolsets',
        `${listed(before)} -> ${listed(after)}: the static listing no longer reaches ${summary(lost)}`,
        after,
        ['toolsets'],
      ),
    );
  return changes;
}

/**
 * Budgets as constraints: at most `max` calls of a set of operations in any window of `per`. An old
 * budget is kept when one new budget implies it: it counts at least the same operations, and the calls
 * it lets through in the old window (ceil(old window / new window) of its windows) are no more than the
 * old max. One that no new budget implies is a gain; a new one no old budget implies is a loss.
 */
function compareBudgets(before: DiffSide, after: DiffSide): AccessChange[] {
  const implies = (strict: CompiledBudget, loose: CompiledBudget) =>
    [...loose.canonical].every((op) => strict.canonical.has(op)) &&
    Math.ceil(loose.perMs / strict.perMs) * strict.max <= loose.max;
  const text = (budget: CompiledBudget) => `${budget.operations.join(', ')}: at most ${budget.max} per ${budget.per}`;
  const line = lineNear(after.profile, ['budgets']);
  return [
    ...before.profile.budgets
      .filter((old) => !after.profile.budgets.some((now) => implies(now, old)))
      .map((old): AccessChange => ({
        direction: 'gain',
        field: 'budgets',
        change: `- ${text(old)} (no budget as strict remains)`,
        file: after.profile.file,
        line,
      })),
    ...after.profile.budgets
      .filter((now) => !before.profile.budgets.some((old) => implies(old, now)))
      .map((now): AccessChange => ({
        direction: 'loss',
        field: 'budgets',
        change: `+ ${text(now)}`,
        file: after.profile.file,
        line: now.line,
      })),
  ];
}

/**
 * The scopes a profile says its token carries (issue 29): tools follow the token, so a scope the
 * other side did not cover (write:X covers read:X, `all` everything), a dropped `public-only`, or no
 * list at all any more (then every allowed operation is offered until Gitea refuses) is a gain.
 */
function compareTokenScopes(before: DiffSide, after: DiffSide): AccessChange[] {
  const [was, is] = [before.profile.data.token_scopes, after.profile.data.token_scopes];
  if (was === undefined && is === undefined) return [];
  if (is === undefined)
    return [
      change(
        'gain',
        'token_scopes',
        'no longer said: every allowed operation is offered until Gitea refuses one',
        after,
        [],
      ),
    ];
  if (was === undefined)
    return [
      change('loss', 'token_scopes', `now said: only what ${is.join(' ') || 'no scope'} reaches is offered`, after, [
        'token_scopes',
      ]),
    ];
  const gains = [
    ...is.filter((scope) => !scopeHeld(was, scope) && scope !== 'public-only').map((scope) => `+ ${scope}`),
    ...(was.includes('public-only') && !is.includes('public-only') ? ['- public-only (private repositories too)'] : []),
  ];
  const losses = [
    ...was.filter((scope) => !scopeHeld(is, scope) && scope !== 'public-only').map((scope) => `- ${scope}`),
    ...(is.includes('public-only') && !was.includes('public-only') ? ['+ public-only'] : []),
  ];
  return [
    ...gains.map((text) => change('gain', 'token_scopes', text, after, ['token_scopes'])),
    ...losses.map((text) => change('loss', 'token_scopes', text, after, ['token_scopes'])),
  ];
}

/** Set fields of logins or teams (case-insensitive, as Gitea's names are): an added entry is a gain. */
function setChanges(
  field: 'authenticated_users' | 'authenticated_teams',
  before: DiffSide,
  after: DiffSide,
  meaning: string,
): AccessChange[] {
  const lower = (side: DiffSide) => new Set((side.profile.data[field] ?? []).map((name) => name.toLowerCase()));
  const [was, is] = [lower(before), lower(after)];
  const written = after.profile.data[field] ?? [];
  const added = written.filter((name) => !was.has(name.toLowerCase()));
  const removed = (before.profile.data[field] ?? []).filter((name) => !is.has(name.toLowerCase()));
  return [
    ...added.map((name) => change('gain', field, `+ ${name} (${meaning})`, after, [field, written.indexOf(name)])),
    ...removed.map((name) => change('loss', field, `- ${name}`, after, [field])),
  ];
}

/**
 * A profile's own confirmed operations: one it drops is a gain unless a remaining entry (the same name
 * or a `gitea.<area>.*` pattern) still covers it; policies/confirmations.yaml is shared by both sides.
 */
function compareConfirmedOperations(before: DiffSide, after: DiffSide): AccessChange[] {
  const listed = (side: DiffSide) => side.profile.data.confirmations?.operations ?? [];
  const covered = (entry: string, by: readonly string[]) =>
    by.some((other) => other === entry || (other.endsWith('.*') && entry.startsWith(other.slice(0, -1))));
  const [was, is] = [listed(before), listed(after)];
  return [
    ...was
      .filter((entry) => !covered(entry, is))
      .map((entry) =>
        change('gain', 'confirmations.operations', `- ${entry} (no longer confirmed)`, after, [
          'confirmations',
          'operations',
        ]),
      ),
    ...is
      .filter((entry) => !covered(entry, was))
      .map((entry) =>
        change('loss', 'confirmations.operations', `+ ${entry}`, after, [
          'confirmations',
          'operations',
          is.indexOf(entry),
        ]),
      ),
  ];
}

function approverOf(side: DiffSide): string {
  return side.profile.data.confirmations?.approver ?? 'at_client';
}

/** Whose approval counts as the server reads it: the listed approvers, else the profile's own login and authenticated_users. */
function approversOf(side: DiffSide): ReadonlySet<string> {
  const data = side.profile.data;
  const listed = data.confirmations?.approvers ?? [];
  const names = listed.length > 0 ? listed : [data.authenticated_username ?? '', ...(data.authenticated_users ?? [])];
  return new Set(names.filter((name) => name !== '').map((name) => name.toLowerCase()));
}

/** Login or team lists of a block (trusted_users and approvers: an added name gains; blocked_users: a removed one); lower case, as the server compares. */
/** A window (ms) of the profile: shorter is a gain, for what it holds back lapses sooner. */
function windowChange(field: string, was: number, is: number, after: DiffSide): AccessChange[] {
  if (was === is) return [];
  const path = field.split('.');
  return [change(is < was ? 'gain' : 'loss', field, `${was / 1000}s -> ${is / 1000}s`, after, path)];
}

function loginChanges(
  field: string,
  was: ReadonlySet<string>,
  is: ReadonlySet<string>,
  after: DiffSide,
  addedIs: Direction,
  meaning: string,
): AccessChange[] {
  const other: Direction = addedIs === 'gain' ? 'loss' : 'gain';
  const [block, name] = field.split('.') as [string, string];
  const blockData = (after.profile.data as unknown as Record<string, Record<string, unknown> | undefined>)[block];
  const written = ((blockData?.[name] as string[] | undefined) ?? []).map((n) => n.toLowerCase());
  const path = (login: string) => {
    const index = written.indexOf(login);
    return index >= 0 ? [block, name, index] : [block, name];
  };
  return [
    ...[...is]
      .filter((login) => !was.has(login))
      .sort()
      .map((login) => change(addedIs, field, `+ ${login} (${meaning})`, after, path(login))),
    ...[...was]
      .filter((login) => !is.has(login))
      .sort()
      .map((login) => change(other, field, `- ${login} (no longer ${meaning})`, after, path(login))),
  ];
}

/**
 * An allow list (null: no restriction): a new pattern matching a value no old one did is a gain, an old
 * pattern matching a value no new one does is a loss, whatever the spelling.
 */
function compareAllow(
  field: string,
  was: PatternList | null,
  is: PatternList | null,
  kind: ScopeKind,
  before: DiffSide,
  after: DiffSide,
): AccessChange[] {
  const where = (list: PatternList | null, side: DiffSide) => ({
    file: side.profile.file,
    line: list?.line ?? lineNear(side.profile, field.split('.')),
  });
  if (was === null && is === null) return [];
  if (is === null) return [{ direction: 'gain', field, change: 'restriction removed: any value', ...where(is, after) }];
  if (was === null)
    return [
      {
        direction: 'loss',
        field,
        change: `restriction added: ${written(is).join(', ') || '(empty: nothing)'}`,
        ...where(is, after),
      },
    ];
  const nocase = kind === 'repository';
  const [old, now] = [written(was), written(is)];
  return [
    ...patternsOf(is)
      .filter((pattern) => !covers(old, pattern.written, kind, nocase))
      .map((pattern): AccessChange => ({
        direction: 'gain',
        field,
        change: `+ ${pattern.written}`,
        file: after.profile.file,
        line: pattern.line,
      })),
    ...patternsOf(was)
      .filter((pattern) => !covers(now, pattern.written, kind, nocase))
      .map((pattern): AccessChange => ({
        direction: 'loss',
        field,
        change: `- ${pattern.written}`,
        ...where(is, after),
      })),
  ];
}

/** A deny list (null: nothing denied; matched case-insensitively): a value no longer denied is a gain. */
function compareDeny(
  field: string,
  was: PatternList | null,
  is: PatternList | null,
  kind: ScopeKind,
  after: DiffSide,
): AccessChange[] {
  const [old, now] = [written(was), written(is)];
  const line = is?.line ?? lineNear(after.profile, field.split('.').slice(0, -1));
  return [
    ...patternsOf(was)
      .filter((pattern) => !covers(now, pattern.written, kind, true))
      .map((pattern): AccessChange => ({
        direction: 'gain',
        field,
        change: `- ${pattern.written} (no longer denied)`,
        file: after.profile.file,
        line,
      })),
    ...patternsOf(is)
      .filter((pattern) => !covers(old, pattern.written, kind, true))
      .map((pattern): AccessChange => ({
        direction: 'loss',
        field,
        change: `+ ${pattern.written}`,
        file: after.profile.file,
        line: pattern.line,
      })),
  ];
}

function patternsOf(list: PatternList | null): Array<{ written: string; line: number | null }> {
  return list ? [...list.patterns, ...list.broken] : [];
}

function written(list: PatternList | null): string[] {
  return patternsOf(list).map((pattern) => pattern.written);
}
