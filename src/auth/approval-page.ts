// The confirmation page a person sees when a call needs a signed-in or a second person's approval:
// first a way to sign in with Gitea, then the same question the person at the client would see, with
// Approve and Reject. Plain HTML, no script, every value escaped; the HTTP layer adds the headers that
// stop framing and caching.
import { escapeHtml } from './consent-page.js';

export interface ApprovalView {
  id: string;
  namespace: string;
  title: string;
  lines: readonly string[];
  giteaUrl: string;
  /** The signed-in approver, once there is one. */
  approver: string | null;
  expiresAt: string;
  /** sign_in: nobody has signed in in this browser yet; decide: the signed-in approver may answer. */
  step: 'sign_in' | 'decide';
  /** The form's token, equal to this browser's cookie for the page. */
  csrf: string;
}

const style = `body{font-family:system-ui,sans-serif;max-width:44rem;margin:3rem auto;padding:0 1rem;line-height:1.5}
ul{padding-left:1.2rem}li{margin:.2rem 0;overflow-wrap:anywhere}button{font-size:1rem;padding:.5rem 1.2rem;margin-right:.8rem}`;

export function renderApproval(view: ApprovalView): string {
  const e = escapeHtml;
  const action = `/confirm/${encodeURIComponent(view.id)}`;
  const body =
    view.step === 'sign_in'
      ? `<h1>An agent asks for an approval</h1>
<p>An agent of the gitea-warden namespace <strong id="namespace">${e(view.namespace)}</strong> waits for a person's approval
before it carries out an action that cannot be undone. Sign in with Gitea (${e(view.giteaUrl)}) to see what it is and decide.
Only the approvers the namespace's profile names may approve.</p>
<form method="post" action="${action}/sign-in">
<input type="hidden" name="csrf" value="${e(view.csrf)}">
<button type="submit" id="sign-in">Sign in with Gitea</button>
</form>`
      : `<h1 id="title">${e(view.title)}?</h1>
<p>Signed in as <strong id="approver">${e(view.approver ?? '')}</strong>. An agent of the namespace
<strong id="namespace">${e(view.namespace)}</strong> will do exactly this once you approve:</p>
<ul id="facts">${view.lines.map((line) => `<li>${e(line)}</li>`).join('')}</ul>
<p>Nothing happens unless you approve. This approval expires at ${e(view.expiresAt)}; a push or a retarget in between voids it.</p>
<form method="post" action="${action}/decide">
<input type="hidden" name="csrf" value="${e(view.csrf)}">
<button type="submit" name="decision" value="approve" id="approve">Approve</button>
<button type="submit" name="decision" value="reject" id="reject">Reject</button>
</form>`;
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Approval: ${e(view.namespace)}</title>` +
    `<meta name="viewport" content="width=device-width"><style>${style}</style></head><body>${body}</body></html>`
  );
}
