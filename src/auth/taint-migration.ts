// Step 4 of the shared state store's schema: what each principal read through each namespace, so that
// the integrity taint and the secrecy window outlive a connection and reach every replica
// (src/auth/taint-store.ts, docs/integrity.md). One row per namespace, principal, kind and repository.
import type { Migration } from './migrations.js';

export const TAINT_MIGRATION: Migration = {
  version: 4,
  description: 'integrity taints: what each principal read through each namespace, with expiry',
  statements: [
    `CREATE TABLE integrity_taints (
      namespace TEXT NOT NULL,
      principal TEXT NOT NULL,
      kind TEXT NOT NULL,
      repository TEXT NOT NULL,
      source TEXT,
      since_at BIGINT NOT NULL,
      expires_at BIGINT NOT NULL,
      PRIMARY KEY (namespace, principal, kind, repository))`,
    'CREATE INDEX integrity_taints_expiry ON integrity_taints (expires_at)',
  ],
};
