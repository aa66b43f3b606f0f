// POST /markdown (Gitea routers/api/v1/misc/markup.go Markdown -> routers/common/markup.go
// RenderMarkup): text/html. `Context` is a URL path /{owner}/{repo}/...: links are made under it, so
// in gfm and comment mode an issue reference #N points into that repository. `Mode` other than
// markdown, gfm, comment, wiki or file is a 422. The rendering is a small subset: paragraphs, escaping
// and issue references.
import { bodyObject, stringField, type RequestContext, type Route } from '../context.js';
import { unprocessable } from '../api-errors.js';

const MODES = new Set(['', 'markdown', 'gfm', 'comment', 'wiki', 'file']);

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;');
}

function render(ctx: RequestContext) {
  const body = bodyObject(ctx);
  const mode = body.Wiki === true ? 'wiki' : (stringField(body, 'Mode') ?? '');
  if (!MODES.has(mode)) throw unprocessable(`Unknown mode: ${mode}`);
  const context = stringField(body, 'Context') ?? '';
  const [owner, repo] = context.replace(/^\//, '').split('/');
  const linked = mode !== '' && mode !== 'markdown' && owner && repo;
  const paragraphs = (stringField(body, 'Text') ?? '')
    .split(/\n{2,}/)
    .filter((p) => p.trim() !== '')
    .map((p) => {
      const html = escapeHtml(p.trim());
      return linked
        ? html.replace(
            /(^|\s)#(\d+)\b/g,
            (_, lead: string, n: string) =>
              `${lead}<a href="${ctx.state.baseUrl}/${owner}/${repo}/issues/${n}" class="ref-issue">#${n}</a>`,
          )
        : html;
    });
  return {
    status: 200,
    body: paragraphs.map((p) => `<p>${p}</p>\n`).join(''),
    headers: { 'Content-Type': 'text/html;charset=utf-8' },
  };
}

export const markupRoutes: Route[] = [
  { method: 'POST', path: '/markdown', operationId: 'renderMarkdown', handler: render },
];
