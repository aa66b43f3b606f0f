// The confirmation page over HTTP (src/auth/approval-service.ts holds the logic): GET /confirm/:id,
// POST /confirm/:id/sign-in, GET /confirm/callback (Gitea's redirect), POST /confirm/:id/decide. Every
// answer is uncacheable and unframeable; the forms must come from this origin; the cookies live under
// /confirm only, HttpOnly, SameSite=Lax (Gitea's redirect back is a top-level GET from another site).
import express, { type Request, type Response, type Router } from 'express';
import { renderApproval } from '../auth/approval-page.js';
import type { ApprovalOutcome, ApprovalService } from '../auth/approval-service.js';
import { renderNotice } from '../auth/consent-page.js';
import type { Session } from '../server/session.js';

/**
 * The confirmation page of a namespace whose profile wants a signed-in or second person's approval,
 * served at `base` (the public base URL); null when its approver is the person at the client. The
 * namespace's start-up already refused a profile that needs the page without the OAuth application.
 */
export function confirmationPages(session: Pick<Session, 'confirm' | 'settings' | 'env'>, base: string): Router | null {
  const { confirm, settings, env } = session;
  if (confirm.settings.approver === 'at_client' || !settings.oauthClientId || !env.OAUTH_CLIENT_SECRET) return null;
  const app = {
    giteaUrl: settings.giteaUrl,
    clientId: settings.oauthClientId,
    clientSecret: env.OAUTH_CLIENT_SECRET,
    timeoutMs: settings.timeoutMs,
  };
  return approvalRoutes(confirm.approvalService(app, base), base);
}

/** The routes of the confirmation page of a server whose public base URL is `base`. */
export function approvalRoutes(service: ApprovalService, base: string): Router {
  const origin = new URL(base).origin;
  const secure = new URL(base).protocol === 'https:';
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: '8kb' });
  // Registered before /confirm/:id, so the callback is never read as an approval named "callback".
  router.get('/confirm/callback', async (req, res) => {
    const query = { code: text(req.query.code), state: text(req.query.state), error: text(req.query.error) };
    send(res, await service.callback(query, cookiesOf(req)), secure);
  });
  router.get('/confirm/:id', async (req, res) => {
    send(res, await service.show(String(req.params.id), cookiesOf(req)), secure);
  });
  router.post('/confirm/:id/sign-in', form, async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    send(
      res,
      await service.signIn(String(req.params.id), { csrf: text(body.csrf) }, cookiesOf(req), sameOrigin(req, origin)),
      secure,
    );
  });
  router.post('/confirm/:id/decide', form, async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const answer = { csrf: text(body.csrf), decision: text(body.decision) };
    send(res, await service.decide(String(req.params.id), answer, cookiesOf(req), sameOrigin(req, origin)), secure);
  });
  return router;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A form POST must come from this server's own page: its Origin, else Sec-Fetch-Site, must say so. */
function sameOrigin(req: Request, origin: string): boolean {
  const sent = req.headers.origin;
  if (sent !== undefined) return sent === origin;
  return req.headers['sec-fetch-site'] === 'same-origin';
}

function cookiesOf(req: Request): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) cookies[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return cookies;
}

function send(res: Response, outcome: ApprovalOutcome, secure: boolean): void {
  res.set({
    'Cache-Control': 'no-store',
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
    // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with the form.
    'Referrer-Policy': 'same-origin',
    'X-Content-Type-Options': 'nosniff',
  });
  if ('cookie' in outcome && outcome.cookie) {
    const flags = `Path=/confirm; HttpOnly; SameSite=Lax; Max-Age=900${secure ? '; Secure' : ''}`;
    res.append('Set-Cookie', `${outcome.cookie.name}=${outcome.cookie.value}; ${flags}`);
  }
  if (outcome.kind === 'redirect') {
    res.redirect(303, outcome.location);
    return;
  }
  if (outcome.kind === 'approval') {
    res.status(200).type('html').send(renderApproval(outcome.view));
    return;
  }
  res.status(outcome.notice.status).type('html').send(renderNotice(outcome.notice));
}
