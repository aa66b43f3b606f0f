// What `gitea-warden doctor` asks Gitea before any client is wired: does the URL answer, does the
// token belong to the profile's user, can it read what the profile's work needs, can that user see
// the repositories the profile names. Only reads; each answer is read as Gitea means it:
//   GET /version                     public: the server answers, and which version
//   GET /user                        200 the token's login; 401 the token is refused; 403 naming
//                                    read:user (tokenRequiresScopes) the token lacks that scope
//   GET /repos/search?limit=1        needs read:repository (the repository route group)
//   GET /repos/{o}/{r}/issues?limit=1  needs read:issue (the issue route group)
//   GET /repos/{o}/{r}               200 with permissions {admin, push, pull}; 404 not visible to the user
// A token's write scopes cannot be seen without writing: doctor says so rather than guess.
import { giteaErrorMessage, isRecord, missingScopes } from './errors.js';
import { GiteaReadError } from './http.js';
import type { FactReader } from './gitea-identity.js';

export interface Probe {
  /** What was checked, in a few words. */
  name: string;
  /** true passed, false failed, null not checked (with why in `detail`). */
  ok: boolean | null;
  detail: string;
  fix?: string;
}

export interface Expectations {
  /** The login the profile acts as. */
  login: string | null;
  /** The token's variable, to name it in fixes. */
  tokenVariable: string;
  /** owner/repo of every repository the profile names exactly. */
  repositories: readonly string[];
  /** Whether the profile may write (a repository the user cannot push to will refuse its writes). */
  writes: boolean;
}

/** The probes in order; a Gitea that does not answer, or a token it refuses, ends them early. */
export async function readiness(reader: FactReader, origin: string, expected: Expectations): Promise<Probe[]> {
  const probes: Probe[] = [];
  const version = await read(reader, '/version');
  if (version.kind === 'failure') {
    probes.push({ name: 'Gitea', ok: false, detail: version.message, fix: version.hint ?? 'check GITEA_URL' });
    return probes;
  }
  const name = isRecord(version.data) && typeof version.data.version === 'string' ? version.data.version : 'unknown';
  probes.push(
    version.status === 200
      ? { name: 'Gitea', ok: true, detail: `${origin} answers: Gitea ${name}` }
      : {
          name: 'Gitea',
          ok: false,
          detail: `${origin}/api/v1/version answered ${version.status}: not a Gitea API`,
          fix: 'check GITEA_URL (the Gitea base URL, without /api/v1)',
        },
  );
  if (version.status !== 200) return probes;

  const user = await read(reader, '/user');
  if (user.kind === 'failure') {
    probes.push({ name: 'token', ok: false, detail: user.message, ...(user.hint ? { fix: user.hint } : {}) });
    return probes;
  }
  if (user.status === 401) {
    probes.push({
      name: 'token',
      ok: false,
      detail: `Gitea refused the token in ${expected.tokenVariable} (401): wrong, revoked or expired`,
      fix: `create a token for ${expected.login ?? 'the profile user'} (Settings > Applications) and put it in ${expected.tokenVariable}`,
    });
    return probes;
  }
  const lacking = missingScopes(user.status, user.data);
  if (lacking !== null) {
    probes.push({
      name: 'scopes',
      ok: false,
      detail: `the token lacks ${lacking.join(', ')}: GET /user, the identity check, answers 403`,
      fix: `give the token in ${expected.tokenVariable} the read:user scope as well as its operations' scopes`,
    });
    return probes;
  }
  const login =
    user.status === 200 && isRecord(user.data) && typeof user.data.login === 'string' ? user.data.login : null;
  if (login === null) {
    probes.push({
      name: 'identity',
      ok: false,
      detail: `GET /user answered ${user.status}: ${giteaErrorMessage(user.status, user.data)}`,
    });
    return probes;
  }
  probes.push({ name: 'token', ok: true, detail: `${expected.tokenVariable} is a token of ${login}, with read:user` });
  const sameLogin = expected.login !== null && expected.login.toLowerCase() === login.toLowerCase();
  probes.push(
    sameLogin
      ? { name: 'identity', ok: true, detail: `${login} is the profile's user` }
      : {
          name: 'identity',
          ok: false,
          detail: `the token is ${login}'s, the profile is for ${expected.login ?? 'nobody named'}: every write would be refused`,
          fix: `put a token of ${expected.login ?? 'the profile user'} in ${expected.tokenVariable}, or use the profile written for ${login}`,
        },
  );

  probes.push(await scopeProbe(reader, 'read:repository', '/repos/search', { limit: 1 }, expected.tokenVariable));
  const [first] = expected.repositories;
  probes.push(
    first === undefined
      ? {
          name: 'read:issue',
          ok: null,
          detail: 'not checked: the profile names no single repository to read issues of',
        }
      : await scopeProbe(reader, 'read:issue', `/repos/${pathOf(first)}/issues`, { limit: 1 }, expected.tokenVariable),
  );
  for (const repository of expected.repositories)
    probes.push(await repositoryProbe(reader, repository, login, expected.writes));
  probes.push({
    name: 'write scopes',
    ok: null,
    detail:
      "not checked: a token's write scopes show only when it writes; a missing one is refused as token_scope_missing, naming it",
  });
  return probes;
}

async function scopeProbe(
  reader: FactReader,
  scope: string,
  path: string,
  query: Record<string, number>,
  variable: string,
): Promise<Probe> {
  const answer = await read(reader, path, query);
  if (answer.kind === 'failure') return { name: scope, ok: false, detail: answer.message };
  const lacking = missingScopes(answer.status, answer.data);
  if (lacking !== null)
    return {
      name: scope,
      ok: false,
      detail: `the token lacks ${lacking.join(', ')}`,
      fix: `give the token in ${variable} that scope (or its write: form)`,
    };
  return answer.status === 200
    ? { name: scope, ok: true, detail: `the token reads (${scope} or more)` }
    : {
        name: scope,
        ok: false,
        detail: `GET ${path} answered ${answer.status}: ${giteaErrorMessage(answer.status, answer.data)}`,
      };
}

async function repositoryProbe(reader: FactReader, repository: string, login: string, writes: boolean): Promise<Probe> {
  const answer = await read(reader, `/repos/${pathOf(repository)}`);
  if (answer.kind === 'failure') return { name: repository, ok: false, detail: answer.message };
  if (answer.status === 404)
    return {
      name: repository,
      ok: false,
      detail: `${login} cannot see ${repository} (404: no such repository, or no access)`,
      fix: `check the name in the profile's repositories, or give ${login} access to it in Gitea`,
    };
  if (answer.status !== 200 || !isRecord(answer.data))
    return { name: repository, ok: false, detail: `GET /repos/${repository} answered ${answer.status}` };
  const permissions = isRecord(answer.data.permissions) ? answer.data.permissions : {};
  const level = permissions.admin === true ? 'admin' : permissions.push === true ? 'write' : 'read';
  if (writes && level === 'read')
    return {
      name: repository,
      ok: false,
      detail: `${login} may only read ${repository}: the profile's writes there will be refused by Gitea`,
      fix: `give ${login} write access to ${repository} in Gitea, or drop it from the profile's repositories`,
    };
  return { name: repository, ok: true, detail: `${login} has ${level} access` };
}

type Answer = { kind: 'answer'; status: number; data: unknown } | { kind: 'failure'; message: string; hint?: string };

async function read(reader: FactReader, path: string, query?: Record<string, number>): Promise<Answer> {
  try {
    const result = await reader.get(path, query);
    return { kind: 'answer', status: result.status, data: result.data };
  } catch (error) {
    if (error instanceof GiteaReadError)
      return { kind: 'failure', message: error.message, ...(error.hint ? { hint: error.hint } : {}) };
    throw error;
  }
}

function pathOf(repository: string): string {
  return repository
    .split('/')
    .map((part) => encodeURIComponent(part))
    .join('/');
}
