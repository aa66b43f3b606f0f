// GET /ready, kept apart from GET /health (the process answers): ready means a call could be served
// now. Gitea answers and the token is the profile's user (GET /user; without a profile token, GET
// /version), the audit log can be written, and every state store answers. An answer is at most
// READY_INTERVAL_MS old: a probe that finds an older one waits for a fresh round (each check at most
// CHECK_TIMEOUT_MS), so a stopped Gitea or database shows within seconds, while a namespace nobody
// probes sends Gitea nothing, and probes arriving together share one round.
import { access, constants } from 'node:fs/promises';
import type { Session } from '../server/session.js';

/** The oldest answer /ready gives; the issue asks for a check at least every 10 s. */
export const READY_INTERVAL_MS = 5_000;
/** One check that takes longer has failed. */
const CHECK_TIMEOUT_MS = 3_000;

export type CheckState = 'ok' | 'failing' | 'pending';

export interface ReadyReport {
  ready: boolean;
  checks: Record<string, CheckState>;
  /** ISO time of the last completed round, null before the first. */
  checked_at: string | null;
}

/** A store that can say whether it answers (the token store's driver, the budget windows). */
export type StoreProbe = () => Promise<void>;

export class Readiness {
  private report: ReadyReport;
  private checkedAtMs = -Infinity;
  private running: Promise<void> | null = null;

  /**
   * `gitea` replaces the identity check where the namespace has no token of its own (per-user OAuth):
   * then Gitea answering is what can be checked.
   */
  constructor(
    private readonly session: () => Session,
    private readonly stores: Readonly<Record<string, StoreProbe>>,
    private readonly gitea?: StoreProbe,
    private readonly intervalMs = READY_INTERVAL_MS,
  ) {
    const checks: Record<string, CheckState> = { gitea: 'pending', audit: 'pending' };
    for (const name of Object.keys(stores)) checks[name] = 'pending';
    this.report = { ready: false, checks, checked_at: null };
  }

  /** The report, checked again first when it is older than the interval. */
  async current(): Promise<ReadyReport> {
    if (performance.now() - this.checkedAtMs >= this.intervalMs) await this.check();
    return this.report;
  }

  /** One round of every check (a round under way is shared). */
  check(): Promise<void> {
    this.running ??= this.round().finally(() => (this.running = null));
    return this.running;
  }

  private async round(): Promise<void> {
    const session = this.session();
    const probes: Record<string, () => Promise<void>> = {
      gitea: this.gitea ?? (() => giteaAnswers(session)),
      audit: () => auditWritable(session),
      ...this.stores,
    };
    const names = Object.keys(probes);
    const results = await Promise.all(names.map((name) => withTimeout((probes[name] as () => Promise<void>)())));
    const checks: Record<string, CheckState> = {};
    names.forEach((name, i) => (checks[name] = results[i] ? 'ok' : 'failing'));
    this.report = { ready: results.every(Boolean), checks, checked_at: new Date().toISOString() };
    this.checkedAtMs = performance.now();
  }
}

/** GET /user answers 200 with the profile's login (a token) or GET /version answers 200 (no profile token). */
async function giteaAnswers(session: Session): Promise<void> {
  if (session.client === null) throw new Error('no Gitea token');
  const answer = await session.client.get('/user');
  if (answer.status !== 200) throw new Error(`GET /user: ${answer.status}`);
  const login = (answer.data as { login?: unknown } | null)?.login;
  const expected = session.profile.data.authenticated_username;
  if (typeof login !== 'string' || (expected !== undefined && login.toLowerCase() !== expected.toLowerCase()))
    throw new Error('the token is not the profile user');
}

async function auditWritable(session: Session): Promise<void> {
  if (!session.audit.writable()) throw new Error('audit log closed');
  if (!session.audit.path.startsWith('postgres://')) await access(session.audit.path, constants.W_OK);
}

/** True when `probe` settles fine within the timeout. */
async function withTimeout(probe: Promise<void>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      probe.then(
        () => true,
        () => false,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
