// Integrity: who wrote the text a result carries, judged by the profile's trust domain. Trust is the
// profile's, not the repository's: an author passes the floor by being named (trusted_users, a
// trusted team), or by their standing in a repository the profile may write or an organisation it
// names. Standing in any other repository (an outsider's own, a fork, a stranger's) counts as none.
// Pure: standings arrive as facts read by src/gitea/standing.ts; nothing here reads a clock or the
// network. See docs/integrity.md for the model, integrity-walk.ts for where text sits in an answer.
import { firstMatch, type PatternList } from './scope-patterns.js';

/** A person's standing, lowest first. `unknown` ranks with `none`: fail closed. */
export const INTEGRITY_LEVELS = [
  'blocked',
  'unknown',
  'none',
  'read',
  'write',
  'admin',
  'owner',
  'site_admin',
  'trusted',
] as const;
export type IntegrityLevel = (typeof INTEGRITY_LEVELS)[number];

/** The levels a profile may name as its floor. */
export const FLOOR_LEVELS = ['none', 'read', 'write', 'admin', 'owner'] as const;
export type FloorLevel = (typeof FLOOR_LEVELS)[number];

const RANK: Readonly<Record<IntegrityLevel, number>> = {
  blocked: -1,
  unknown: 0,
  none: 0,
  read: 1,
  write: 2,
  admin: 3,
  owner: 4,
  site_admin: 4,
  trusted: 5,
};

export function rankOf(level: IntegrityLevel): number {
  return RANK[level];
}

export function higherOf(a: IntegrityLevel, b: IntegrityLevel): IntegrityLevel {
  return RANK[b] > RANK[a] ? b : a;
}

/** How long a taint lasts unless the profile says otherwise. */
export const DEFAULT_TAINT_EXPIRY = '8h';

/** A profile's `integrity:` block as written. */
export interface IntegrityData {
  min_level?: FloorLevel;
  below?: 'withhold' | 'fence';
  trusted_users?: string[];
  blocked_users?: string[];
  /** `org/team`: the team's members pass the floor (membership read from Gitea). */
  trusted_teams?: string[];
  /** Organisations whose repositories are in the trust domain, and whose members stand by their teams. */
  trusted_orgs?: string[];
  after_untrusted?: 'allow' | 'same_repository_only';
  /** A duration (`90s`, `30m`, `8h`, `2d`) after the last untrusted read; then the taint lapses. */
  taint_expires_after?: string;
}

export interface IntegritySettings {
  minLevel: FloorLevel;
  below: 'withhold' | 'fence';
  trusted: ReadonlySet<string>;
  blocked: ReadonlySet<string>;
  /** `org/team`, lower case. */
  trustedTeams: readonly string[];
  trustedOrgs: ReadonlySet<string>;
  /** The profile's repositories.write scope as written; null when it sets none (then only named organisations count). */
  writeScope: PatternList | null;
  /** Organisations in the domain: those named, and the owner of each literal pattern of the write scope. */
  domainOrgs: ReadonlySet<string>;
  afterUntrusted: 'allow' | 'same_repository_only';
  taintExpiresMs: number;
}

/** A profile without an `integrity:` block labels every item and holds nothing back. */
export function compileIntegrity(
  data: IntegrityData | undefined,
  writeScope: PatternList | null = null,
): IntegritySettings {
  const lower = (names: string[] | undefined) => new Set((names ?? []).map((name) => name.toLowerCase()));
  const trustedOrgs = lower(data?.trusted_orgs);
  const domainOrgs = new Set(trustedOrgs);
  for (const pattern of writeScope?.patterns ?? []) {
    const owner = pattern.written.split('/')[0] ?? '';
    if (owner !== '' && !/[*?[\]{}()!+@]/.test(owner)) domainOrgs.add(owner.toLowerCase());
  }
  return {
    minLevel: data?.min_level ?? 'none',
    below: data?.below ?? 'fence',
    trusted: lower(data?.trusted_users),
    blocked: lower(data?.blocked_users),
    trustedTeams: [...lower(data?.trusted_teams)],
    trustedOrgs,
    writeScope,
    domainOrgs,
    afterUntrusted: data?.after_untrusted ?? 'allow',
    taintExpiresMs: durationMs(data?.taint_expires_after ?? DEFAULT_TAINT_EXPIRY) ?? durationMs(DEFAULT_TAINT_EXPIRY)!,
  };
}

const UNIT_MS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90s`, `30m`, `8h`, `2d` in milliseconds; null when it is not such a duration (the schema refuses it first). */
export function durationMs(written: string): number | null {
  const match = /^([1-9][0-9]{0,5})([smhd])$/.exec(written.trim());
  return match ? Number(match[1]) * (UNIT_MS[match[2] as string] as number) : null;
}

export function ownerOf(repository: string): string {
  return (repository.split('/')[0] ?? '').toLowerCase();
}

/** A repository in the profile's trust domain: one it may write (its write scope says so) or of an organisation it names. */
export function inDomain(settings: IntegritySettings, repository: string): boolean {
  if (settings.trustedOrgs.has(ownerOf(repository))) return true;
  return settings.writeScope !== null && firstMatch(settings.writeScope, repository) !== undefined;
}

/** A fact the judge needs from Gitea to place an author. */
export type FactRequest =
  | { kind: 'repository'; repository: string; login: string }
  | { kind: 'organisation'; organisation: string; login: string }
  | { kind: 'team'; team: string; login: string };

/**
 * What Gitea said, keyed by factKey: a level (repository or organisation standing), true or false
 * (team membership), or null when it would not tell. A key that is absent has not been asked.
 */
export type StandingFacts = ReadonlyMap<string, IntegrityLevel | boolean | null>;

export function factKey(request: FactRequest): string {
  const where =
    request.kind === 'repository'
      ? request.repository
      : request.kind === 'organisation'
        ? request.organisation
        : request.team;
  return `${request.kind}\n${where.toLowerCase()}\n${request.login.toLowerCase()}`;
}

export interface AuthorJudgement {
  level: IntegrityLevel;
  /** The text lives in a repository outside the trust domain (its standing there counted as none). */
  outside: boolean;
  /** Facts that could raise the level, not asked yet. */
  need: FactRequest[];
}

/**
 * An author's level for text in `repository` (null: no repository, e.g. a user's profile). In a
 * domain repository: Gitea's standing there (exact), or, when Gitea will not tell, the standing in
 * the named organisation that owns it. Elsewhere: the standing in the organisations the profile names.
 * Then, still below the floor, membership of a trusted team. `self` is the identity the namespace acts as.
 */
export function judgeAuthor(
  settings: IntegritySettings,
  login: string,
  repository: string | null,
  facts: StandingFacts,
  self: string | null,
): AuthorJudgement {
  const who = login.toLowerCase();
  if (settings.blocked.has(who)) return { level: 'blocked', outside: false, need: [] };
  if (settings.trusted.has(who) || (self !== null && self.toLowerCase() === who))
    return { level: 'trusted', outside: false, need: [] };
  const need: FactRequest[] = [];
  const ask = (request: FactRequest): IntegrityLevel | boolean | null | undefined => {
    const key = factKey(request);
    if (!facts.has(key)) {
      need.push(request);
      return undefined;
    }
    return facts.get(key);
  };
  let level: IntegrityLevel = repository === null ? 'unknown' : 'none';
  const domain = repository !== null && inDomain(settings, repository);
  if (repository !== null && domain) {
    const owner = ownerOf(repository);
    if (owner === who) return { level: 'owner', outside: false, need: [] };
    const exact = ask({ kind: 'repository', repository, login });
    level = typeof exact === 'string' ? exact : 'unknown';
    // In a named organisation's repository Gitea's exact standing there decides (it counts the teams);
    // elsewhere in the domain, or when Gitea will not tell, the standing in the named organisations counts too.
    const decided = typeof exact === 'string' && settings.trustedOrgs.has(owner);
    if (exact !== undefined && !decided && isBelow(settings, level))
      level = told(level, orgLevel(ask, [...settings.trustedOrgs], login));
  } else {
    level = told(level, orgLevel(ask, [...settings.trustedOrgs], login));
  }
  // Teams are asked only once the cheaper facts leave the author below the floor.
  if (need.length === 0 && rankOf(level) < RANK[settings.minLevel]) {
    for (const team of settings.trustedTeams) {
      if (ask({ kind: 'team', team, login }) === true) return { level: 'trusted', outside: false, need: [] };
    }
  }
  return { level, outside: repository !== null && !domain, need };
}

/** What Gitea told replaces what was assumed when it ranks as high (none for unknown). */
function told(assumed: IntegrityLevel, answer: IntegrityLevel | null): IntegrityLevel {
  return answer !== null && rankOf(answer) >= rankOf(assumed) ? answer : assumed;
}

function orgLevel(
  ask: (request: FactRequest) => IntegrityLevel | boolean | null | undefined,
  organisations: readonly string[],
  login: string,
): IntegrityLevel | null {
  let best: IntegrityLevel | null = null;
  for (const organisation of organisations) {
    const answer = ask({ kind: 'organisation', organisation, login });
    if (typeof answer === 'string') best = best === null ? answer : higherOf(best, answer);
  }
  return best;
}

/** Below the profile's floor (a blocked author always is). */
export function isBelow(settings: IntegritySettings, level: IntegrityLevel): boolean {
  return level === 'blocked' || RANK[level] < RANK[settings.minLevel];
}
