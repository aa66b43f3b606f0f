// Who is calling and what they may do, as Gitea decides it: `Authorization: token|Bearer <t>` or
// `Basic <login:password>`, `Sudo` (header or query) for site admins only, and the repository
// access level from ownership, organization teams, collaborators and visibility.
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError, forbidden, notFound, unauthorized } from './api-errors.js';
import type { AccessLevel, Account, Repo, SandboxState } from './model.js';
import { oauthAccessToken } from './oauth2-tokens.js';

export type AuthMethod = 'token' | 'basic' | 'none';

export interface Caller {
  /** The acting account (after Sudo), null when anonymous. */
  doer: Account | null;
  method: AuthMethod;
  /** The token's scopes (models/auth/access_token_scope.go); null when no token was used. */
  scopes: string[] | null;
}

function decodeBasic(value: string): { login: string; password: string } | null {
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : { login: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function credentialOwner(
  state: SandboxState,
  header: string,
): { account: Account; method: AuthMethod; scopes: string[] | null } {
  const [scheme = '', value = ''] = header.trim().split(/\s+/, 2);
  const kind = scheme.toLowerCase();
  if (kind === 'token' || kind === 'bearer') {
    const token = state.tokens.find((t) => t.value === value);
    if (!token) {
      const oauth = oauthAccessToken(state, value);
      if (!oauth) throw unauthorized('invalid username, password or token');
      return { account: oauth.account, method: 'token', scopes: oauth.scopes };
    }
    const account = state.account(token.owner);
    if (!account) throw unauthorized('invalid username, password or token');
    return { account, method: 'token', scopes: token.scopes };
  }
  if (kind === 'basic') {
    const basic = decodeBasic(value);
    const account = basic ? state.account(basic.login) : undefined;
    if (!basic || !account || account.isOrg || account.password !== basic.password) {
      throw unauthorized('invalid username, password or token');
    }
    return { account, method: 'basic', scopes: null };
  }
  throw unauthorized('invalid username, password or token');
}

export function authenticate(state: SandboxState, headers: IncomingHttpHeaders, query: URLSearchParams): Caller {
  const header = headers.authorization;
  if (header === undefined) return { doer: null, method: 'none', scopes: null };
  const { account, method, scopes } = credentialOwner(state, header);
  const sudoHeader = headers.sudo;
  const sudo = (Array.isArray(sudoHeader) ? sudoHeader[0] : sudoHeader) ?? query.get('sudo') ?? '';
  if (sudo === '') return { doer: account, method, scopes };
  if (!account.isAdmin) throw forbidden('Only administrators allowed to sudo.');
  const target = state.account(sudo);
  if (!target || target.isOrg) throw notFound('GetUserByName');
  return { doer: target, method, scopes };
}

export function requireSignedIn(caller: Caller): Account {
  if (!caller.doer) throw unauthorized();
  return caller.doer;
}

const rank: Record<AccessLevel, number> = { none: 0, read: 1, write: 2, admin: 3 };

export function atLeast(level: AccessLevel, wanted: AccessLevel): boolean {
  return rank[level] >= rank[wanted];
}

function higher(a: AccessLevel, b: AccessLevel): AccessLevel {
  return rank[a] >= rank[b] ? a : b;
}

/** Access from ownership, site admin, organization teams and collaboration, ignoring visibility. */
export function memberLevel(state: SandboxState, repo: Repo, doer: Account | null): AccessLevel {
  if (!doer) return 'none';
  if (doer.isAdmin || doer.login.toLowerCase() === repo.owner.toLowerCase()) return 'admin';
  let level: AccessLevel = 'none';
  for (const team of state.teams.get(repo.owner.toLowerCase()) ?? []) {
    if (!team.members.some((m) => m.toLowerCase() === doer.login.toLowerCase())) continue;
    level = higher(level, team.permission === 'owner' ? 'admin' : team.permission);
  }
  return higher(level, repo.collaborators.get(doer.login) ?? 'none');
}

export function accessLevel(state: SandboxState, repo: Repo, doer: Account | null): AccessLevel {
  return higher(repo.private ? 'none' : 'read', memberLevel(state, repo, doer));
}

/**
 * The repository if the caller may see it at `wanted` level. Gitea hides what one cannot read (404)
 * and refuses what one can read but not change (403; 401 first when anonymous).
 */
export function repoFor(state: SandboxState, caller: Caller, owner: string, name: string, wanted: AccessLevel): Repo {
  const repo = state.repo(owner, name);
  if (!repo) throw notFound();
  const level = accessLevel(state, repo, caller.doer);
  if (level === 'none') throw notFound();
  if (atLeast(level, wanted)) return repo;
  if (!caller.doer) throw unauthorized();
  throw new ApiError(403, `user does not have ${wanted} permission on ${repo.owner}/${repo.name}`);
}
