// Where the audit log lives by default: the state directory, never the working tree of a repository.
import { join, resolve } from 'node:path';

/**
 * The log's path when AUDIT_LOG (a serve setting) is not given: `$XDG_STATE_HOME/gitea-warden/audit.jsonl`;
 * else `$HOME/.local/state/gitea-warden/audit.jsonl`; else `.data/audit.jsonl` below the working directory.
 */
export function defaultAuditPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.XDG_STATE_HOME) return join(resolve(env.XDG_STATE_HOME), 'gitea-warden', 'audit.jsonl');
  if (env.HOME) return join(env.HOME, '.local', 'state', 'gitea-warden', 'audit.jsonl');
  return resolve('.data', 'audit.jsonl');
}
