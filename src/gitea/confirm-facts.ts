// The facts a confirmation question shows and binds beyond what the guards read: the repository's
// immutable id (GET /repos/{owner}/{repo}: `id`, which a rename keeps and a delete-and-recreate
// changes; services/convert/repository.go innerToRepo) and the pull request's title (GET
// /repos/{owner}/{repo}/pulls/{index}: `title`; convert.ToAPIPullRequest). A fact that cannot be read
// is missing: the question would not show what will happen, so the call is refused.
import type { Fact } from '../policy/guards/verdict.js';
import { isRecord } from './errors.js';
import { repoPath, type PullRef } from './facts.js';
import type { FactReader } from './gitea-identity.js';

export interface RepositoryIdentity {
  id: number;
  fullName: string;
}

async function readObject(
  reader: FactReader,
  what: string,
  path: string | null,
): Promise<Fact<Record<string, unknown>>> {
  if (path === null) return { ok: false, detail: `${what} was not read: a name in its path is not valid.` };
  try {
    const answer = await reader.get(path);
    if (answer.status !== 200 || !isRecord(answer.data))
      return { ok: false, detail: `${what} could not be read (HTTP ${answer.status}).` };
    return { ok: true, value: answer.data };
  } catch {
    return { ok: false, detail: `${what} could not be read (Gitea did not answer).` };
  }
}

export async function readRepositoryIdentity(
  reader: FactReader,
  owner: string,
  repo: string,
): Promise<Fact<RepositoryIdentity>> {
  const what = `Repository ${owner}/${repo}`;
  const answer = await readObject(reader, what, repoPath(owner, repo));
  if (!answer.ok) return answer;
  const { id, full_name: fullName } = answer.value;
  return typeof id === 'number' && typeof fullName === 'string' && fullName !== ''
    ? { ok: true, value: { id, fullName } }
    : { ok: false, detail: `${what} lacks its id or full name.` };
}

export async function readPullTitle(reader: FactReader, ref: PullRef): Promise<Fact<string>> {
  const what = `Pull request #${ref.index} of ${ref.owner}/${ref.repo}`;
  const answer = await readObject(reader, what, repoPath(ref.owner, ref.repo, 'pulls', String(ref.index)));
  if (!answer.ok) return answer;
  const { title } = answer.value;
  return typeof title === 'string' ? { ok: true, value: title } : { ok: false, detail: `${what} lacks its title.` };
}
