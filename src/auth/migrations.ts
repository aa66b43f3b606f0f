// The token store's schema, as numbered steps applied in order and recorded in
// oauth_schema_migrations. A released step never changes; a new need is a new step.
// The SQL is the common subset of SQLite and PostgreSQL (TEXT, BIGINT, INTEGER).
import { CONFIRMATIONS_MIGRATION } from './confirmation-store.js';
import type { SqlDriver } from './sql-driver.js';
import { asNumber } from './sql-driver.js';
import { BUDGET_MIGRATION } from './budget-migration.js';

export interface Migration {
  version: number;
  description: string;
  statements: readonly string[];
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'clients, parked authorizations, grants, codes and tokens',
    statements: [
      `CREATE TABLE oauth_clients (
        client_id TEXT PRIMARY KEY,
        metadata TEXT NOT NULL,
        secret_sealed TEXT,
        created_at BIGINT NOT NULL)`,
      // A parked /authorize request, waiting for consent and then for Gitea's callback.
      `CREATE TABLE oauth_parks (
        id TEXT PRIMARY KEY,
        client_id TEXT NOT NULL,
        redirect_uri TEXT NOT NULL,
        code_challenge TEXT NOT NULL,
        client_state TEXT,
        scopes TEXT NOT NULL,
        resource TEXT NOT NULL,
        browser_hash TEXT,
        upstream_state_hash TEXT UNIQUE,
        upstream_verifier_sealed TEXT,
        status TEXT NOT NULL,
        expires_at BIGINT NOT NULL)`,
      // One sign-in of one person for one client and one namespace (resource); never shared.
      `CREATE TABLE oauth_grants (
        id TEXT PRIMARY KEY,
        login TEXT NOT NULL,
        client_id TEXT NOT NULL,
        resource TEXT NOT NULL,
        scopes TEXT NOT NULL,
        gitea_access_sealed TEXT,
        gitea_refresh_sealed TEXT,
        gitea_expires_at BIGINT NOT NULL,
        version INTEGER NOT NULL,
        revoked INTEGER NOT NULL,
        created_at BIGINT NOT NULL)`,
      `CREATE TABLE oauth_codes (
        code_hash TEXT PRIMARY KEY,
        grant_id TEXT NOT NULL REFERENCES oauth_grants(id),
        client_id TEXT NOT NULL,
        redirect_uri TEXT NOT NULL,
        code_challenge TEXT NOT NULL,
        resource TEXT NOT NULL,
        used INTEGER NOT NULL,
        expires_at BIGINT NOT NULL)`,
      `CREATE TABLE oauth_tokens (
        token_hash TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        grant_id TEXT NOT NULL REFERENCES oauth_grants(id),
        client_id TEXT NOT NULL,
        expires_at BIGINT NOT NULL,
        revoked INTEGER NOT NULL,
        rotated INTEGER NOT NULL)`,
      'CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id)',
    ],
  },
  CONFIRMATIONS_MIGRATION,
  BUDGET_MIGRATION,
];

/** Applies every step the store has not recorded yet; returns the versions applied now. */
export async function migrate(driver: SqlDriver, steps: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  return driver.exclusive(async (query) => {
    await query(
      'CREATE TABLE IF NOT EXISTS oauth_schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at BIGINT NOT NULL)',
    );
    const done = new Set(
      (await query('SELECT version FROM oauth_schema_migrations')).map((row) => asNumber(row.version)),
    );
    const known = Math.max(0, ...steps.map((s) => s.version));
    const newer = [...done].filter((v) => v > known);
    if (newer.length > 0)
      throw new Error(
        `the token store has schema version ${Math.max(...newer)}, newer than this gitea-warden knows (${known}); upgrade gitea-warden`,
      );
    const applied: number[] = [];
    for (const step of steps) {
      if (done.has(step.version)) continue;
      for (const statement of step.statements) await query(statement);
      await query('INSERT INTO oauth_schema_migrations (version, description, applied_at) VALUES ($1, $2, $3)', [
        step.version,
        step.description,
        Date.now(),
      ]);
      applied.push(step.version);
    }
    return applied;
  });
}
