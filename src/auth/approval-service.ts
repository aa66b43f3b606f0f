// The confirmation page's logic, free of HTTP: a question that needs a signed-in person (signed_in) or
// a second person (four_eyes) waits in the state store as an approval; the person opens its link,
// signs in with Gitea (the same OAuth2 application per-user OAuth uses, our own state and PKCE), and
// only a listed approver who is not excluded sees the question and approves or rejects it, once, in the
// browser that signed in. The Gitea token obtained only names the person; it is never stored. The
// pending call resumes when its client retries (src/server/confirm/stage.ts reads the decision).
import { createHash, randomBytes } from 'node:crypto';
import { UpstreamRefused, type GiteaOAuthClient } from '../gitea/oauth-upstream.js';
import { approverVerdict } from '../policy/confirmations.js';
import type { ApprovalView } from './approval-page.js';
import type { ApprovalRow, ConfirmationStore } from './confirmation-store.js';
import type { Notice } from './consent-page.js';
import { tokenHash, type Sealer } from './sealing.js';

export interface ApprovalServiceOptions {
  store: () => Promise<ConfirmationStore>;
  /** Seals the PKCE verifier between Gitea's redirect and its callback (any replica may take the callback). */
  sealer: Sealer;
  upstream: GiteaOAuthClient;
  /** Where Gitea sends the browser back: <public base>/confirm/callback, registered in the Gitea application. */
  callbackUrl: string;
  giteaUrl: string;
  now?: () => number;
}

/** A page to show (maybe setting a cookie), or a redirect. */
export type ApprovalOutcome =
  | { kind: 'notice'; notice: Notice }
  | { kind: 'approval'; view: ApprovalView; cookie?: Cookie }
  | { kind: 'redirect'; location: string; cookie?: Cookie };

export interface Cookie {
  name: string;
  value: string;
}

/** The browser that opened the page: it alone may take Gitea's answer. */
export const browserCookie = (id: string): string => `gw_confirm_${id}`;
/** The approver signed in on this page: this browser alone may decide. */
export const approverCookie = (id: string): string => `gw_approver_${id}`;

export class ApprovalService {
  private readonly now: () => number;

  constructor(private readonly options: ApprovalServiceOptions) {
    this.now = options.now ?? Date.now;
  }

  /** GET /confirm/:id: the question for the signed-in approver; for anyone else, the way to sign in. */
  async show(id: string, cookies: Record<string, string>): Promise<ApprovalOutcome> {
    const store = await this.options.store();
    const row = await store.getApproval(id);
    const closed = this.closed(row);
    if (closed || !row) return closed ?? unknown();
    const session = cookies[approverCookie(id)];
    if (row.status === 'signed_in' && session && row.sessionHash === tokenHash(session))
      return { kind: 'approval', view: { ...this.view(row), step: 'decide', csrf: session } };
    const browser = randomBytes(32).toString('base64url');
    if (!(await store.bindBrowser(id, tokenHash(browser)))) return unknown();
    return {
      kind: 'approval',
      view: { ...this.view(row), step: 'sign_in', csrf: browser },
      cookie: { name: browserCookie(id), value: browser },
    };
  }

  /** POST /confirm/:id/sign-in: from the page's own form in the browser that saw it, to Gitea. */
  async signIn(
    id: string,
    form: { csrf?: string },
    cookies: Record<string, string>,
    sameOrigin: boolean,
  ): Promise<ApprovalOutcome> {
    if (!sameOrigin) return crossOrigin();
    const store = await this.options.store();
    const row = await store.getApproval(id);
    const closed = this.closed(row);
    if (closed || !row) return closed ?? unknown();
    const browser = cookies[browserCookie(id)];
    if (!form.csrf || form.csrf !== browser || row.browserHash !== tokenHash(browser)) return forged();
    const state = randomBytes(32).toString('base64url');
    const verifier = randomBytes(48).toString('base64url');
    if (
      !(await store.startSignIn(
        id,
        row.browserHash,
        tokenHash(state),
        this.options.sealer.seal(verifier, `approval:${id}`),
      ))
    )
      return unknown();
    return {
      kind: 'redirect',
      location: this.options.upstream.authorizeUrl({
        redirectUri: this.options.callbackUrl,
        state,
        codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
        // Only who the person is (and, for approver teams, which teams they are in).
        scope: row.approverTeams.length > 0 ? 'read:user read:organization' : 'read:user',
      }),
    };
  }

  /** GET /confirm/callback: Gitea names the person; a listed approver who is not excluded may now decide. */
  async callback(
    query: { code?: string; state?: string; error?: string },
    cookies: Record<string, string>,
  ): Promise<ApprovalOutcome> {
    if (!query.state)
      return notice(400, 'Sign-in failed', "Gitea's answer carries no state; open the approval link again.");
    const store = await this.options.store();
    const row = await store.takeByUpstreamState(tokenHash(query.state));
    if (!row)
      return notice(
        400,
        'Sign-in failed',
        'This sign-in answer is unknown, already used, or forged. Open the approval link again.',
      );
    const browser = cookies[browserCookie(row.id)];
    if (!browser || row.browserHash !== tokenHash(browser))
      return notice(
        403,
        'Sign-in refused',
        "Gitea's answer arrived in another browser than the one that opened the approval.",
      );
    const closed = this.closed(row);
    if (closed) return closed;
    if (query.error || !query.code)
      return notice(403, 'Sign-in denied', 'Gitea did not sign you in, so nothing was approved.');
    let login: string;
    let teams: string[] = [];
    try {
      const verifier = this.options.sealer.open(row.upstreamVerifierSealed ?? '', `approval:${row.id}`);
      const tokens = await this.options.upstream.exchangeCode(
        query.code,
        verifier,
        this.options.callbackUrl,
        this.now(),
      );
      login = await this.options.upstream.login(tokens.accessToken);
      if (row.approverTeams.length > 0) teams = await this.options.upstream.teams(tokens.accessToken);
    } catch (error) {
      const why = error instanceof UpstreamRefused ? error.code : 'error';
      return notice(502, 'Sign-in failed', `Gitea did not complete the sign-in (${why}). Nothing was approved.`);
    }
    const verdict = approverVerdict(
      { approvers: row.approvers, teams: row.approverTeams, excluded: row.excluded },
      login,
      teams,
    );
    if (!verdict.ok) return notice(403, 'Not an approver', `${verdict.why} Nothing was approved.`);
    const session = randomBytes(32).toString('base64url');
    if (!(await store.signIn(row.id, login, tokenHash(session)))) return unknown();
    return {
      kind: 'redirect',
      location: `/confirm/${encodeURIComponent(row.id)}`,
      cookie: { name: approverCookie(row.id), value: session },
    };
  }

  /** POST /confirm/:id/decide: the signed-in approver's answer, from the page's own form, once. */
  async decide(
    id: string,
    form: { csrf?: string; decision?: string },
    cookies: Record<string, string>,
    sameOrigin: boolean,
  ): Promise<ApprovalOutcome> {
    if (!sameOrigin) return crossOrigin();
    const session = cookies[approverCookie(id)];
    if (!form.csrf || !session || form.csrf !== session) return forged();
    if (form.decision !== 'approve' && form.decision !== 'reject')
      return notice(400, 'No decision', 'Choose Approve or Reject.');
    const store = await this.options.store();
    const decision = form.decision === 'approve' ? 'approved' : 'rejected';
    const row = await store.decide(id, tokenHash(session), decision);
    if (!row) return (this.closed(await store.getApproval(id)) ?? unknown()) as ApprovalOutcome;
    return decision === 'approved'
      ? notice(
          200,
          'Approved',
          `You approved: ${row.question.title}. The agent's call goes on when its client asks again; you can close this page.`,
        )
      : notice(200, 'Rejected', `You rejected: ${row.question.title}. Nothing reaches Gitea; you can close this page.`);
  }

  private view(row: ApprovalRow): Omit<ApprovalView, 'step' | 'csrf'> {
    return {
      id: row.id,
      namespace: row.namespace,
      title: row.question.title,
      lines: row.question.lines,
      giteaUrl: this.options.giteaUrl,
      approver: row.approverLogin,
      expiresAt: new Date(row.expiresAt).toISOString(),
    };
  }

  /** An approval that can no longer be signed in to or decided: why, for the page. */
  private closed(row: ApprovalRow | undefined): ApprovalOutcome | null {
    if (!row) return null;
    if (row.status === 'approved' || row.status === 'rejected')
      return notice(
        409,
        row.status === 'approved' ? 'Already approved' : 'Already rejected',
        `${row.approverLogin ?? 'An approver'} ${row.status} this already: ${row.question.title}.`,
      );
    if (row.expiresAt < this.now())
      return notice(
        410,
        'Expired',
        'This approval expired; nothing was carried out. The agent asks again if it still needs it.',
      );
    return null;
  }
}

function notice(status: number, title: string, message: string): ApprovalOutcome {
  return { kind: 'notice', notice: { status, title, message } };
}

function unknown(): ApprovalOutcome {
  return notice(404, 'Unknown approval', 'This approval link is unknown, finished or expired.');
}

function crossOrigin(): ApprovalOutcome {
  return notice(
    403,
    'Request refused',
    "The form was not sent from this server's own page (cross-origin POST). Nothing was approved.",
  );
}

function forged(): ApprovalOutcome {
  return notice(
    403,
    'Request refused',
    'The form came without its security token, or from another browser than the one that signed in. Open the approval link again.',
  );
}
