// The pages a person sees during sign-in: the consent page (who asks, where that identity comes
// from, and in plain words what an agent may and may not do, where, for how long, and how to take it
// back) and the notices that end a flow (denied, refused, expired, replayed). Plain HTML, no script,
// every value escaped; the HTTP layer adds the headers that stop framing.
import type { ProfileWords } from '../policy/profile-words.js';

export interface ConsentView {
  parkId: string;
  csrf: string;
  clientName: string;
  /** Where the client's identity comes from: a verified metadata document, or its own registration. */
  clientSource: { kind: 'registered' } | { kind: 'document'; url: string; host: string };
  redirectUri: string;
  namespace: string;
  resource: string;
  profile: ProfileWords;
  /** The Gitea token scopes the grant asks for. */
  scopes: string[];
  giteaUrl: string;
  /** How long the sign-in lasts unless revoked (the refresh token's lifetime). */
  grantDays: number;
}

export interface Notice {
  status: number;
  title: string;
  message: string;
  /** Where the person can go on: back to the application with the OAuth error, when there is one. */
  link?: { href: string; label: string };
}

const style = `body{font-family:system-ui,sans-serif;max-width:44rem;margin:2.5rem auto;padding:0 1rem;line-height:1.5;color:#1b1f24}
h1{font-size:1.5rem}h2{font-size:1.1rem;margin:1.4rem 0 .3rem}dt{font-weight:600}dd{margin:0 0 .7rem 0}
ul{margin:.2rem 0 .6rem;padding-left:1.3rem}.verified{color:#116329}.unverified{color:#9a6700}
.never li{color:#82071e}code{font-size:.95em}button{font-size:1rem;padding:.5rem 1.2rem;margin:1rem .8rem 0 0}`;

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

const list = (items: readonly string[], id: string, cls = ''): string =>
  `<ul id="${id}"${cls ? ` class="${cls}"` : ''}>${items.map((item) => `<li>${escapeHtml(item)}</li>`).join('')}</ul>`;

export function renderConsent(view: ConsentView): string {
  const e = escapeHtml;
  const identity =
    view.clientSource.kind === 'document'
      ? `<span class="verified">verified: its description is published at ${e(view.clientSource.host)}</span> (${e(view.clientSource.url)})`
      : '<span class="unverified">registered itself, unverified</span>: the name is its own claim, nobody vouched for it';
  const { profile } = view;
  const never =
    profile.never.length > 0
      ? `<h2>It may never</h2>${list(profile.never, 'may-never', 'never')}`
      : '<h2>It may never</h2><p id="may-never">do anything the list above does not name.</p>';
  const paths = profile.paths.length > 0 ? `<h2>Path limits</h2>${list(profile.paths, 'paths')}` : '';
  return page(
    `Allow ${view.clientName}?`,
    `
<h1>Allow <span id="client-name">${e(view.clientName)}</span> to act as you?</h1>
<p>An application asks to use the gitea-warden namespace <strong id="namespace">${e(view.namespace)}</strong> with your Gitea account.
If you allow it here, Gitea (${e(view.giteaUrl)}) asks you to sign in.</p>
<dl>
<dt>Application</dt><dd>${e(view.clientName)} — <span id="client-source">${identity}</span></dd>
<dt>It receives the sign-in at</dt><dd id="redirect-uri">${e(view.redirectUri)}</dd>
<dt>Namespace</dt><dd>${e(view.namespace)} (${e(view.resource)})</dd>
</dl>
<h2>What an agent may do for you, as the ${e(profile.role)} role, in ${e(profile.repositories)}</h2>
${list(profile.may, 'may')}
${never}
${paths}
<h2>Gitea access it asks for</h2>
<p id="scopes">${view.scopes.map((s) => `<code>${e(s)}</code>`).join(', ')}: nothing beyond these, and Gitea still enforces your own permissions.</p>
<h2>How long, and how to take it back</h2>
<p id="duration">The sign-in lasts ${view.grantDays} days unless you end it sooner; the application renews its one-hour access on the way.
To end it, sign out in the application, or revoke <em>gitea-warden</em> in Gitea under
Settings → Applications → Authorized OAuth2 Applications (that ends every sign-in through it at once).
Removing you from the profile ends it on the next call.</p>
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
