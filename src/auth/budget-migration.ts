// Step 5 of the state store's schema (issue 30): the call budgets' windows, one row per budget,
// person and namespace, holding the times of the calls counted in the window (at most the budget's
// max of them). `version` makes every write a compare-and-swap, so replicas never count past a budget.
import type { Migration } from './migrations.js';

export const BUDGET_MIGRATION: Migration = {
  version: 5,
  description: 'call budget windows',
  statements: [
    `CREATE TABLE budget_windows (
      key TEXT PRIMARY KEY,
      stamps TEXT NOT NULL,
      version BIGINT NOT NULL)`,
  ],
};
