// The shared state store's part for confirmations (step 2 of src/auth/migrations.ts): the spent
// confirmations, so a used or declined answer is refused on every replica, and the browser approvals
// of the four-eyes page, so any replica can show, decide and resume them. One-shot changes are one
// conditional statement each (INSERT ... ON CONFLICT DO NOTHING, UPDATE ... WHERE status RETURNING),
// so two replicas cannot both take the same answer.
import type { Migration } from './migrations.js';
import { asNumber, asText, type Row, type SqlDriver } from './sql-driver.js';

export const CONFIRMATIONS_MIGRATION: Migration = {
  version: 2,
  description: 'spent confirmations and browser approvals',
  statements: [
    // The id of a sealed confirmation state once it was used, declined or voided; kept until it expires.
    `CREATE TABLE confirmation_spent (
      state_id TEXT PRIMARY KEY,
      outcome TEXT NOT NULL,
      spent_at BIGINT NOT NULL,
      expires_at BIGINT NOT NULL)`,
    'CREATE INDEX confirmation_spent_expiry ON confirmation_spent (expires_at)',
    // A question waiting for a person signed in with Gitea on the confirmation page (signed_in, four_eyes).
    `CREATE TABLE confirmation_approvals (
      id TEXT PRIMARY KEY,
      namespace TEXT NOT NULL,
      question TEXT NOT NULL,
      approvers TEXT NOT NULL,
      approver_teams TEXT NOT NULL,
      excluded TEXT NOT NULL,
      browser_hash TEXT,
      upstream_state_hash TEXT UNIQUE,
      upstream_verifier_sealed TEXT,
      session_hash TEXT,
      approver_login TEXT,
      status TEXT NOT NULL,
      decided_at BIGINT,
      expires_at BIGINT NOT NULL,
      created_at BIGINT NOT NULL)`,
  ],
};

/** pending: nobody signed in yet; signed_in: an approver may decide; approved / rejected: decided, for good. */
export type ApprovalStatus = 'pending' | 'signed_in' | 'approved' | 'rejected';

export interface ApprovalRow {
  id: string;
  namespace: string;
  /** What the page shows: the question's title and lines, as the person at the client would see them. */
  question: { title: string; lines: string[] };
  /** Lower-case logins and org/team names whose approval counts, and logins whose never does. */
  approvers: string[];
  approverTeams: string[];
  excluded: string[];
  /** Hash of the page cookie of the browser that started the sign-in. */
  browserHash: string | null;
  upstreamStateHash: string | null;
  upstreamVerifierSealed: string | null;
  /** Hash of the signed-in approver's page cookie. */
  sessionHash: string | null;
  approverLogin: string | null;
  status: ApprovalStatus;
  decidedAt: number | null;
  expiresAt: number;
}

/** Statuses in which a person may still sign in (again) and decide. */
const OPEN = "status IN ('pending', 'signed_in')";

export class ConfirmationStore {
  private lastPurge = 0;

  constructor(
    private readonly driver: SqlDriver,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Marks a confirmation state spent (used, declined, voided) on every replica; false when it already
   * was, which makes the answer a replay. Rows past their expiry are purged now and then: an expired
   * state is refused by its own expiry.
   */
  async spend(stateId: string, outcome: string, expiresAt: number): Promise<boolean> {
    const now = this.now();
    if (now - this.lastPurge > 60_000) {
      this.lastPurge = now;
      await this.q('DELETE FROM confirmation_spent WHERE expires_at < $1', [now]);
      await this.q('DELETE FROM confirmation_approvals WHERE expires_at < $1', [now - 24 * 3600_000]);
    }
    const rows = await this.q(
      'INSERT INTO confirmation_spent (state_id, outcome, spent_at, expires_at) VALUES ($1, $2, $3, $4) ON CONFLICT (state_id) DO NOTHING RETURNING state_id',
      [stateId, outcome, now, expiresAt],
    );
    return rows.length === 1;
  }

  async isSpent(stateId: string): Promise<boolean> {
    return (await this.q('SELECT state_id FROM confirmation_spent WHERE state_id = $1', [stateId])).length === 1;
  }

  async putApproval(
    row: Pick<ApprovalRow, 'id' | 'namespace' | 'question' | 'approvers' | 'approverTeams' | 'excluded' | 'expiresAt'>,
  ): Promise<void> {
    await this.q(
      `INSERT INTO confirmation_approvals (id, namespace, question, approvers, approver_teams, excluded, status, expires_at, created_at)
        VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8)`,
      [
        row.id,
        row.namespace,
        JSON.stringify(row.question),
        row.approvers.join(' '),
        row.approverTeams.join('\n'),
        row.excluded.join(' '),
        row.expiresAt,
        this.now(),
      ],
    );
  }

  async getApproval(id: string): Promise<ApprovalRow | undefined> {
    const row = (await this.q('SELECT * FROM confirmation_approvals WHERE id = $1', [id]))[0];
    return row && approvalOf(row);
  }

  /** The page was shown to the browser holding this cookie (its hash): it may start a sign-in. */
  async bindBrowser(id: string, browserHash: string): Promise<boolean> {
    const rows = await this.q(
      `UPDATE confirmation_approvals SET browser_hash = $2 WHERE id = $1 AND ${OPEN} AND expires_at >= $3 RETURNING id`,
      [id, browserHash, this.now()],
    );
    return rows.length === 1;
  }

  /** The browser that saw the page goes to Gitea with this state; false when the approval is no longer open. */
  async startSignIn(
    id: string,
    browserHash: string,
    upstreamStateHash: string,
    verifierSealed: string,
  ): Promise<boolean> {
    const rows = await this.q(
      `UPDATE confirmation_approvals SET upstream_state_hash = $3, upstream_verifier_sealed = $4
        WHERE id = $1 AND browser_hash = $2 AND ${OPEN} AND expires_at >= $5 RETURNING id`,
      [id, browserHash, upstreamStateHash, verifierSealed, this.now()],
    );
    return rows.length === 1;
  }

  /** Gitea's callback: the open approval with this state, taken once (a replayed callback finds nothing). */
  async takeByUpstreamState(stateHash: string): Promise<ApprovalRow | undefined> {
    const row = (
      await this.q(
        `UPDATE confirmation_approvals SET upstream_state_hash = NULL WHERE upstream_state_hash = $1 AND ${OPEN} RETURNING *`,
        [stateHash],
      )
    )[0];
    return row && approvalOf(row);
  }

  /** A listed approver signed in: the page now lets the browser holding this session decide. */
  async signIn(id: string, login: string, sessionHash: string): Promise<boolean> {
    const rows = await this.q(
      `UPDATE confirmation_approvals SET status = 'signed_in', approver_login = $2, session_hash = $3
        WHERE id = $1 AND ${OPEN} AND expires_at >= $4 RETURNING id`,
      [id, login, sessionHash, this.now()],
    );
    return rows.length === 1;
  }

  /** The signed-in approver's decision, once: undefined when it is not theirs to make (any more). */
  async decide(id: string, sessionHash: string, decision: 'approved' | 'rejected'): Promise<ApprovalRow | undefined> {
    const now = this.now();
    const row = (
      await this.q(
        `UPDATE confirmation_approvals SET status = $3, decided_at = $4
          WHERE id = $1 AND session_hash = $2 AND status = 'signed_in' AND expires_at >= $4 RETURNING *`,
        [id, sessionHash, decision, now],
      )
    )[0];
    return row && approvalOf(row);
  }

  close(): Promise<void> {
    return this.driver.close();
  }

  private q(sql: string, params: readonly unknown[]): Promise<Row[]> {
    return this.driver.query(sql, params);
  }
}

const list = (value: unknown, separator: string): string[] =>
  String(value ?? '')
    .split(separator)
    .filter(Boolean);

function approvalOf(row: Row): ApprovalRow {
  return {
    id: String(row.id),
    namespace: String(row.namespace),
    question: JSON.parse(String(row.question)) as ApprovalRow['question'],
    approvers: list(row.approvers, ' '),
    approverTeams: list(row.approver_teams, '\n'),
    excluded: list(row.excluded, ' '),
    browserHash: asText(row.browser_hash),
    upstreamStateHash: asText(row.upstream_state_hash),
    upstreamVerifierSealed: asText(row.upstream_verifier_sealed),
    sessionHash: asText(row.session_hash),
    approverLogin: asText(row.approver_login),
    status: String(row.status) as ApprovalStatus,
    decidedAt: row.decided_at === null || row.decided_at === undefined ? null : asNumber(row.decided_at),
    expiresAt: asNumber(row.expires_at),
  };
}
