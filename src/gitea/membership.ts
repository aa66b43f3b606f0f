// Whether a login a profile trusts by name belongs to anything the profile names, asked of Gitea for
// `check`: a trusted name nobody on the team holds (a sandbox name copied along, a typo, a login
// that does not exist yet and anyone may register) lets a stranger's text pass the integrity floor.
// Each question is one read whose answer means what Gitea means by it:
//   GET /repos/{owner}/{repo}/collaborators/{login}  repoCheckCollaborator (repo.IsCollaborator):
//       204 an explicit collaborator, 404 not one, 422 no such user
//   GET /orgs/{org}/members/{login}                  orgIsMember (org.IsMember): 204 a member, 404 not one
//       (or no such organization: a personal owner); 303 when the asking token's user is outside the
//       organization, which therefore cannot be told
//   GET /users/{login}/repos?limit=1                 userListRepos (UserAssignmentAPI): 404 no such user
import type { FactReader } from './gitea-identity.js';

/** What the profile names that a trusted person may belong to. */
export interface TrustDomain {
  /** Owners (users or organizations) of the repositories it names, and the organizations of its teams. */
  owners: readonly string[];
  /** owner/repo of every repository it names exactly. */
  repositories: readonly string[];
  /** Logins it names directly (authenticated_username, authenticated_users). */
  people: readonly string[];
}

export type Membership =
  | { verdict: 'member'; via: string }
  /** Gitea has no user of that name. */
  | { verdict: 'no_such_user' }
  /** A user, but none of `asked` counts them in. */
  | { verdict: 'outside'; asked: string[] }
  /** The profile names nothing to belong to, and the user exists. */
  | { verdict: 'nothing_named' }
  /** Gitea could not tell (the token cannot see an organization's members, an error). */
  | { verdict: 'unknown'; detail: string };

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const segment = (value: string) => encodeURIComponent(value);

export async function membershipOf(reader: FactReader, login: string, domain: TrustDomain): Promise<Membership> {
  const person = domain.people.find((name) => same(name, login));
  if (person !== undefined) return { verdict: 'member', via: `named by the profile (${person})` };
  const owner = domain.owners.find((name) => same(name, login));
  if (owner !== undefined) return { verdict: 'member', via: `owner ${owner}` };
  const unknown: string[] = [];
  for (const repository of domain.repositories) {
    const [repoOwner, repo] = repository.split('/') as [string, string];
    const answer = await ask(reader, `/repos/${segment(repoOwner)}/${segment(repo)}/collaborators/${segment(login)}`);
    if (answer === 204) return { verdict: 'member', via: `collaborator of ${repository}` };
    if (answer === 422) return { verdict: 'no_such_user' };
    if (answer !== 404) unknown.push(`${repository}: ${describe(answer)}`);
  }
  for (const org of domain.owners) {
    const answer = await ask(reader, `/orgs/${segment(org)}/members/${segment(login)}`);
    if (answer === 204) return { verdict: 'member', via: `member of ${org}` };
    if (answer !== 404) unknown.push(`${org}: ${describe(answer)}`);
  }
  const exists = await ask(reader, `/users/${segment(login)}/repos`, { limit: 1 });
  if (exists === 404) return { verdict: 'no_such_user' };
  if (exists !== 200) return { verdict: 'unknown', detail: `whether ${login} exists: ${describe(exists)}` };
  if (unknown.length > 0) return { verdict: 'unknown', detail: unknown.join('; ') };
  const asked = [...domain.owners, ...domain.repositories];
  return asked.length === 0 ? { verdict: 'nothing_named' } : { verdict: 'outside', asked };
}

/** The status of one read, or the failure's kind; never its message (it may quote the URL). */
async function ask(
  reader: FactReader,
  path: string,
  query?: Record<string, string | number | boolean>,
): Promise<number | string> {
  try {
    return (await reader.get(path, query)).status;
  } catch (error) {
    return (error as { kind?: string }).kind ?? 'error';
  }
}

function describe(answer: number | string): string {
  if (answer === 303 || answer === 302) return "the token's user is not in that organization, so Gitea does not tell";
  if (answer === 401 || answer === 403) return `Gitea refused the token (${answer})`;
  return typeof answer === 'number' ? `Gitea answered ${answer}` : answer;
}
