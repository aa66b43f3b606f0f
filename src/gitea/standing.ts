// Authors' standings for integrity labels, read live from Gitea. A standing Gitea does not give us is
// left out of the map (the pure judge labels it unknown, which ranks with none): never guessed upward.
import type { IntegrityLevel, StandingKey } from '../policy/integrity.js';
import { isRecord } from './errors.js';
import { repoPath } from './facts.js';
import type { FactReader } from './types.js';

// GetRepoPermissions (routers/api/v1/repo/collaborators.go) answers ToUserAndPermission with the
// AccessMode's name; a site admin's user object says is_admin to an admin caller.
const PERMISSIONS: Readonly<Record<string, IntegrityLevel>> = {
  none: 'none',
  read: 'read',
  write: 'write',
  admin: 'admin',
  owner: 'owner',
};

/** Standings read once per call and repository: the cache lives as long as the call's labelling. */
export class StandingReader {
  private readonly cache = new Map<string, Promise<IntegrityLevel | null>>();
  private readonly repositories = new Map<string, Promise<Record<string, unknown> | null>>();
  /** GET requests this reader sent (for the benchmark and the tests). */
  requests = 0;

  constructor(private readonly reader: FactReader) {}

  /** The repository object (owner, default_branch), or null when it cannot be read. */
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

  /** Each key's level, or null where Gitea did not tell. */
  standings(keys: readonly StandingKey[]): Promise<Array<StandingKey & { level: IntegrityLevel | null }>> {
    return Promise.all(keys.map(async (key) => ({ ...key, level: await this.standing(key) })));
  }

  private standing(key: StandingKey): Promise<IntegrityLevel | null> {
    const id = `${key.repository.toLowerCase()}\n${key.login.toLowerCase()}`;
    let answer = this.cache.get(id);
    if (!answer) {
      answer = this.readStanding(key);
      this.cache.set(id, answer);
    }
    return answer;
  }

  private async readStanding(key: StandingKey): Promise<IntegrityLevel | null> {
    const base = pathOf(key.repository);
    const login = encodeURIComponent(key.login);
    const data = base === null ? null : await this.get(`${base}/collaborators/${login}/permission`);
    if (isRecord(data)) {
      const user = data.user;
      if (isRecord(user) && user.is_admin === true) return 'site_admin';
      return typeof data.permission === 'string' ? (PERMISSIONS[data.permission] ?? null) : null;
    }
    // Only admins and repository admins may ask about others (GetRepoPermissions answers 403): the
    // owner of a personal repository is still known from the repository itself.
    const repository = await this.repository(key.repository);
    const owner = isRecord(repository?.owner) ? repository.owner.login : null;
    return typeof owner === 'string' && owner.toLowerCase() === key.login.toLowerCase() ? 'owner' : null;
  }

  private async get(path: string | null): Promise<unknown> {
    if (path === null) return null;
    this.requests++;
    try {
      const answer = await this.reader.get(path);
      return answer.status === 200 ? answer.data : null;
    } catch {
      return null;
    }
  }
}

function pathOf(fullName: string): string | null {
  const slash = fullName.indexOf('/');
  if (slash <= 0 || slash === fullName.length - 1) return null;
  return repoPath(fullName.slice(0, slash), fullName.slice(slash + 1));
}
