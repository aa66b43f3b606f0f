// The repositories one item of a Gitea result belongs to, read from the item and what it embeds: a
// Repository's full_name; a `repository`, `repo` or `head_repository` object (Repository or
// RepositoryMeta); StopWatch's repo_owner_name/repo_name; a TrackedTime's `issue`; a notification's
// `subject`; and every API URL (`.../api/v1/repos/{owner}/{repo}/...`) in url, run_url and the
// subject's URLs. Null when nothing names a repository or something names one unreadably: the
// caller removes such an item (fail closed).

type Json = Record<string, unknown>;

const NESTED_REPOSITORIES = ['repository', 'repo', 'head_repository'] as const;
const URL_FIELDS = ['url', 'run_url', 'latest_comment_url'] as const;
const API_REPOSITORY_URL = /\/api\/v1\/repos\/([^/?#]+)\/([^/?#]+)(?:[/?#]|$)/;

export function itemRepositories(item: unknown): string[] | null {
  const found = new Set<string>();
  return isObject(item) && collect(item, found) && found.size > 0 ? [...found] : null;
}

/** Adds what `item` names to `found`; false when something names a repository unreadably. */
function collect(item: Json, found: Set<string>): boolean {
  if ('full_name' in item) return add(found, repositoryName(item));
  for (const key of NESTED_REPOSITORIES) {
    const nested = item[key];
    if (nested === undefined || nested === null) continue;
    if (!add(found, isObject(nested) ? repositoryName(nested) : null)) return false;
  }
  if ('repo_owner_name' in item || 'repo_name' in item) {
    const owner = item.repo_owner_name;
    const name = item.repo_name;
    if (!add(found, typeof owner === 'string' && typeof name === 'string' && owner && name ? `${owner}/${name}` : null))
      return false;
  }
  for (const key of ['issue', 'subject'] as const) {
    const nested = item[key];
    if (isObject(nested) && !collect(nested, found)) return false;
  }
  for (const key of URL_FIELDS) {
    const url = item[key];
    const match = typeof url === 'string' ? API_REPOSITORY_URL.exec(url) : null;
    if (match) add(found, `${decode(match[1] as string)}/${decode(match[2] as string)}`);
  }
  return true;
}

/** A Repository's full_name, or a RepositoryMeta's owner and name. */
function repositoryName(repository: Json): string | null {
  if (typeof repository.full_name === 'string' && repository.full_name.includes('/')) return repository.full_name;
  const owner = isObject(repository.owner) ? repository.owner.login : repository.owner;
  return typeof owner === 'string' && typeof repository.name === 'string' && owner && repository.name
    ? `${owner}/${repository.name}`
    : null;
}

function add(found: Set<string>, name: string | null): boolean {
  if (name === null) return false;
  found.add(name);
  return true;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
