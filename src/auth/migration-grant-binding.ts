// Store step 3 (the authz lane's, issue 29): a grant names the profile it was given under and when the
// person's team membership was last read from Gitea, so every call and refresh can check both; a
// grant that ends keeps why (its next call and refresh say so); a parked request keeps the client's
// name and where that identity comes from, for the consent page.
// Grants from before this step have no profile and are refused: their holders sign in again.
import type { Migration } from './migrations.js';

export const GRANT_BINDING: Migration = {
  version: 3,
  description: 'grants bound to their profile; team checks dated; why a grant ended; parked requests name their client',
  statements: [
    'ALTER TABLE oauth_grants ADD COLUMN profile TEXT',
    'ALTER TABLE oauth_grants ADD COLUMN teams_checked_at BIGINT',
    'ALTER TABLE oauth_grants ADD COLUMN ended_reason TEXT',
    'ALTER TABLE oauth_parks ADD COLUMN client_name TEXT',
    'ALTER TABLE oauth_parks ADD COLUMN client_source TEXT',
  ],
};
