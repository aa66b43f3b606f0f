// Where the audit log lives by default: the state directory, never the working tree of a repository.
import { join, resolve } from 'node:path';

/**
 * The log's path when AUDIT_LOG (a serve setting) is not given: `audit-<profile>.jsonl` in
 * `$XDG_STATE_HOME/gitea-warden/`, else `$HOME/.local/state/gitea-warden/`, else `.data/` below the
 * working directory. One file per profile, because a log has one writer and the reference layout
 * runs one namespace per profile side by side.
 */
export function defaultAuditPath(profileName: string, env: NodeJS.ProcessEnv = process.env): string {
  const file = `audit-${profileName.replace(/[^A-Za-z0-9_.-]/g, '_')}.jsonl`;
  if (env.XDG_STATE_HOME) return join(resolve(env.XDG_STATE_HOME), 'gitea-warden', file);
  if (env.HOME) return join(env.HOME, '.local', 'state', 'gitea-warden', file);
  return resolve('.data', file);
}

/** The n-th per-process log of a default path: n = 1 is the path itself, then `audit-x.2.jsonl`, ... */
export function perProcessAuditPath(defaultPath: string, n: number): string {
  return n === 1 ? defaultPath : defaultPath.replace(/\.jsonl$/, `.${n}.jsonl`);
}
