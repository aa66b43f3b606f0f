// Authors' standings for integrity labels, read live from Gitea: in a repository, in an organisation,
// as a member of a team. A fact Gitea does not give us is null (the pure judge then counts the author
// unknown, which ranks with none): never guessed upward. Also the two other live facts labelling and
// secrecy need: whether a ref is a branch, and whether a repository is private.
import type { FactRequest, IntegrityLevel } from '../policy/integrity.js';
import { encodePathValue } from './encode.js';
import { isRecord } from './errors.js';
import { repoPath } from './facts.js';
import type { FactReader } from './gitea-identity.js';

// GetRepoPermissions (routers/api/v1/repo/collaborators.go) answers ToUserAndPermission with the
// AccessMode's name; a site admin's user object says is_admin to an admin caller.
const PERMISSIONS: Readonly<Record<string, IntegrityLevel>> = {
  none: 'none',
  read: 'read',
  write: 'write',
  admin: 'admin',
  owner: 'owner',
};

/** Pages of an organisation's teams read to find a trusted team by name (50 each). */
const TEAM_PAGES = 4;

/** Facts read once per call: the cache lives as long as the call's labelling (or one secrecy check). */
export class StandingReader {
  private readonly cache = new Map<string, Promise<IntegrityLevel | boolean | null>>();
  private readonly repositories = new Map<string, Promise<Record<string, unknown> | null>>();
  private readonly teamIds = new Map<string, Promise<number | null>>();
  /** Repositories whose permission lookups Gitea refused (the token is no admin there): not asked again. */
  private readonly refused = new Set<string>();
  /** GET requests this reader sent (for the benchmark and the tests). */
  requests = 0;

  constructor(private readonly reader: FactReader) {}

  /** The repository object (owner, private, default_branch), or null when it cannot be read. */
  repository(fullName: string): Promise<Record<string, unknown> | null> {
    const key = fullName.toLowerCase();
    let answer = this.repositories.get(key);
    if (!answer) {
      answer = this.get(pathOf(fullName)).then((data) => (isRecord(data) ? data : null));
      this.repositories.set(key, answer);
    }
    return answer;
  }

  /** Whether `ref` names a branch of the repository (GET .../branches/{branch} answers 200). */
  async isBranch(fullName: string, ref: string): Promise<boolean> {
    const slash = fullName.indexOf('/');
    const path =
      slash <= 0 ? null : repoPath(fullName.slice(0, slash), fullName.slice(slash + 1), 'branches', { branch: ref });
    return isRecord(await this.get(path));
  }

  /** What Gitea says about one fact the judge asked for, or null when it will not tell. */
  fact(request: FactRequest): Promise<IntegrityLevel | boolean | null> {
    const where =
      request.kind === 'repository'
        ? request.repository
        : request.kind === 'organisation'
          ? request.organisation
          : request.team;
    const id = `${request.kind}\n${where.toLowerCase()}\n${request.login.toLowerCase()}`;
    let answer = this.cache.get(id);
    if (!answer) {
      answer =
        request.kind === 'repository'
          ? this.repositoryStanding(request.repository, request.login)
          : request.kind === 'organisation'
            ? this.organisationStanding(request.organisation, request.login)
            : this.teamMember(request.team, request.login);
      this.cache.set(id, answer);
    }
    return answer;
  }

  private async repositoryStanding(repository: string, login: string): Promise<IntegrityLevel | null> {
    const key = repository.toLowerCase();
    const base = pathOf(repository);
    if (base === null || this.refused.has(key)) return null;
    const answer = await this.answer(`${base}/collaborators/${encodeURIComponent(login)}/permission`);
    if (answer.status === 403) this.refused.add(key);
    const data = answer.data;
    if (!isRecord(data)) return null;
    const user = data.user;
    if (isRecord(user) && user.is_admin === true) return 'site_admin';
    return typeof data.permission === 'string' ? (PERMISSIONS[data.permission] ?? null) : null;
  }

  // GetUserOrgsPermissions (routers/api/v1/org/org.go) answers anyone who can see the organisation,
  // from the highest access mode of the user's teams there (GetOrgUserMaxAuthorizeLevel).
  private async organisationStanding(organisation: string, login: string): Promise<IntegrityLevel | null> {
    const user = encodePathValue('username', login, false);
    const org = encodePathValue('org', organisation, false);
    if (!user.ok || !org.ok) return null;
    const data = await this.get(`/users/${user.value}/orgs/${org.value}/permissions`);
    if (!isRecord(data)) return null;
    if (data.is_owner === true) return 'owner';
    if (data.is_admin === true) return 'admin';
    if (data.can_write === true) return 'write';
    if (data.can_read === true) return 'read';
    return 'none';
  }

  // A team by name among the organisation's teams the token may list (GET /orgs/{org}/teams, Gitea's
  // ListTeams), then the member (GET /teams/{id}/members/{username}: 200 a member, 404 not one).
  private async teamMember(team: string, login: string): Promise<boolean | null> {
    const id = await this.teamId(team);
    const user = encodePathValue('username', login, false);
    if (id === null || !user.ok) return null;
    const answer = await this.answer(`/teams/${id}/members/${user.value}`);
    return answer.status === 200 ? true : answer.status === 404 ? false : null;
  }

  private teamId(team: string): Promise<number | null> {
    const key = team.toLowerCase();
    let answer = this.teamIds.get(key);
    if (!answer) {
      answer = this.findTeam(team);
      this.teamIds.set(key, answer);
    }
    return answer;
  }

  private async findTeam(team: string): Promise<number | null> {
    const slash = team.indexOf('/');
    const org = encodePathValue('org', team.slice(0, slash), false);
    const name = team.slice(slash + 1).toLowerCase();
    if (slash <= 0 || !org.ok) return null;
    for (let page = 1; page <= TEAM_PAGES; page++) {
      const data = await this.get(`/orgs/${org.value}/teams`, { limit: 50, page });
      if (!Array.isArray(data)) return null;
      const match = data.find((entry) => isRecord(entry) && String(entry.name).toLowerCase() === name);
      if (isRecord(match) && typeof match.id === 'number') return match.id;
      if (data.length < 50) return null;
    }
    return null;
  }

  private async get(path: string | null, query?: Record<string, string | number>): Promise<unknown> {
    if (path === null) return null;
    const answer = await this.answer(path, query);
    return answer.status === 200 ? answer.data : null;
  }

  private async answer(
    path: string,
    query?: Record<string, string | number>,
  ): Promise<{ status: number; data: unknown }> {
    this.requests++;
    try {
      const answer = await this.reader.get(path, query);
      return { status: answer.status, data: answer.status === 200 ? answer.data : null };
    } catch {
      return { status: 0, data: null };
    }
  }
}

function pathOf(fullName: string): string | null {
  const slash = fullName.indexOf('/');
  if (slash <= 0 || slash === fullName.length - 1) return null;
  return repoPath(fullName.slice(0, slash), fullName.slice(slash + 1));
}
