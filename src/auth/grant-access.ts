// Who may use the namespace, judged at sign-in and again on every call and every refresh: a grant
// belongs to the profile it was given under (a namespace restarted under another profile serves it
// no more), and its person must still be named by that profile's authenticated_users, or be in one
// of its authenticated_teams. Teams are read from Gitea with the person's own token: at sign-in, at
// every refresh, and on a call once the last reading is older than the operator's bound.
import type { GrantRow } from './token-store.js';

/** Who may use the namespace (from its profile), and what the consent page tells them about it. */
export interface NamespaceAccess {
  profileName: string;
  /** authenticated_users, lower-case. */
  users: readonly string[];
  /** authenticated_teams as org/team, lower-case. */
  teams: readonly string[];
}

/** The person may use the namespace: by name (teamsCheckedAt null) or by a team read now. */
export type Admission = { ok: true; teamsCheckedAt: number | null } | { ok: false; reason: string };

/** A grant re-judged: still good (maybe with a fresh team reading), refused (the grant ends), or undecidable now. */
export type Recheck =
  | { kind: 'holds'; teamsCheckedAt: number | null }
  | { kind: 'refused'; reason: string; endsGrant: boolean }
  | { kind: 'unavailable'; reason: string };

export class GrantAccess {
  constructor(
    readonly access: NamespaceAccess,
    /** The person's teams as org/team, lower-case, read from Gitea with their token. */
    private readonly readTeams: (giteaToken: string) => Promise<string[]>,
    /** How old a team reading may be before a call reads it again (OAUTH_TEAMS_MAX_AGE). */
    private readonly teamsMaxAgeMs: number,
    private readonly now: () => number,
  ) {}

  /** At sign-in, with the Gitea token just obtained. */
  async admit(login: string, giteaToken: string): Promise<Admission> {
    if (this.named(login)) return { ok: true, teamsCheckedAt: null };
    const teams = this.access.teams.length === 0 ? [] : await this.readTeams(giteaToken).catch(() => null);
    if (teams !== null && this.inTeam(teams)) return { ok: true, teamsCheckedAt: this.now() };
    return {
      ok: false,
      reason:
        teams === null
          ? `the teams of ${login} could not be read from Gitea, so profile ${this.access.profileName} cannot admit them`
          : this.notNamed(login),
    };
  }

  /**
   * On a call (`refresh` false) or a refresh of our tokens (`refresh` true: teams are always read
   * again). `giteaToken` gives the person's current Gitea token when the teams must be read.
   */
  async recheck(grant: GrantRow, refresh: boolean, giteaToken: () => Promise<string>): Promise<Recheck> {
    const profile = this.access.profileName;
    if (grant.profile === null)
      return {
        kind: 'refused',
        reason: `this sign-in predates grants bound to a profile; sign in again to use profile ${profile}`,
        endsGrant: true,
      };
    if (grant.profile !== profile)
      return {
        kind: 'refused',
        reason: `this sign-in was given under profile ${grant.profile}, and this namespace now serves profile ${profile}; sign in again to consent to it`,
        endsGrant: false,
      };
    if (this.named(grant.login)) return { kind: 'holds', teamsCheckedAt: null };
    if (this.access.teams.length === 0) return { kind: 'refused', reason: this.notNamed(grant.login), endsGrant: true };
    const fresh = grant.teamsCheckedAt !== null && this.now() - grant.teamsCheckedAt <= this.teamsMaxAgeMs;
    if (fresh && !refresh) return { kind: 'holds', teamsCheckedAt: grant.teamsCheckedAt };
    let teams: string[];
    try {
      teams = await this.readTeams(await giteaToken());
    } catch {
      return {
        kind: 'unavailable',
        reason: `the teams of ${grant.login} could not be read from Gitea to confirm they may still use profile ${profile}; try again shortly`,
      };
    }
    return this.inTeam(teams)
      ? { kind: 'holds', teamsCheckedAt: this.now() }
      : { kind: 'refused', reason: this.notNamed(grant.login), endsGrant: true };
  }

  private named(login: string): boolean {
    return this.access.users.includes(login.toLowerCase());
  }

  private inTeam(teams: readonly string[]): boolean {
    return this.access.teams.some((team) => teams.includes(team));
  }

  private notNamed(login: string): string {
    const teams = this.access.teams.length > 0 ? `, nor a member of ${this.access.teams.join(', ')}` : '';
    return `${login} is not among the people the profile ${this.access.profileName} names (authenticated_users / authenticated_teams)${teams}`;
  }
}
