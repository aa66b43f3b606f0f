// The pages a person sees during sign-in: the consent page (what they are about to allow, and to
// whom) and the notices that end a flow (denied, refused, expired, replayed). Plain HTML, no script,
// every value escaped; the HTTP layer adds the headers that stop framing.

export interface ConsentView {
  parkId: string;
  csrf: string;
  clientName: string;
  redirectUri: string;
  namespace: string;
  resource: string;
  /** What the namespace's profile lets an agent do, as a sentence. */
  summary: string;
  giteaUrl: string;
}

export interface Notice {
  status: number;
  title: string;
  message: string;
  /** Where the person can go on: back to the application with the OAuth error, when there is one. */
  link?: { href: string; label: string };
}

const style = `body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;line-height:1.5}
dt{font-weight:600}dd{margin:0 0 .8rem 0}button{font-size:1rem;padding:.5rem 1.2rem;margin-right:.8rem}`;

export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

function page(title: string, body: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>` +
    `<meta name="viewport" content="width=device-width"><style>${style}</style></head><body>${body}</body></html>`
  );
}

export function renderConsent(view: ConsentView): string {
  const e = escapeHtml;
  return page(
    `Allow ${view.clientName}?`,
    `
<h1>Allow <span id="client-name">${e(view.clientName)}</span> to act as you?</h1>
<p>An application asks to use the gitea-warden namespace <strong id="namespace">${e(view.namespace)}</strong> with your Gitea account.
After you allow it here, Gitea (${e(view.giteaUrl)}) asks you to sign in.</p>
<dl>
<dt>Application</dt><dd>${e(view.clientName)}</dd>
<dt>It receives the sign-in at</dt><dd id="redirect-uri">${e(view.redirectUri)}</dd>
<dt>Namespace</dt><dd>${e(view.namespace)} (${e(view.resource)})</dd>
<dt>What an agent may do there</dt><dd id="summary">${e(view.summary)}</dd>
</dl>
<p>Gitea still enforces your own permissions; the namespace's profile decides what the agent may do with them.</p>
<form method="post" action="/oauth/consent">
<input type="hidden" name="request" value="${e(view.parkId)}">
<input type="hidden" name="csrf" value="${e(view.csrf)}">
<button type="submit" name="decision" value="approve" id="approve">Allow and sign in with Gitea</button>
<button type="submit" name="decision" value="deny" id="deny">Deny</button>
</form>`,
  );
}

export function renderNotice(notice: Notice): string {
  const link = notice.link
    ? `<p><a id="continue" href="${escapeHtml(notice.link.href)}">${escapeHtml(notice.link.label)}</a></p>`
    : '';
  return page(
    notice.title,
    `<h1 id="title">${escapeHtml(notice.title)}</h1><p id="message">${escapeHtml(notice.message)}</p>${link}`,
  );
}
