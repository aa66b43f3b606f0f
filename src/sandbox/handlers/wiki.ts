// A repository's wiki, as routers/api/v1/repo/wiki.go serves it: the page list (WikiPageMetaData),
// one page with its content, sidebar and footer base64-encoded (getWikiPage, wikiContentsByEntry),
// its revisions, and the writes that only wiki writers may make (reqRepoWriter(unit.TypeWiki)).
import { createHash } from 'node:crypto';
import { requireSignedIn } from '../auth.js';
import { bodyObject, ok, stringField, type RequestContext, type Route } from '../context.js';
import { ApiError, notFound } from '../api-errors.js';
import type { Account, Repo, SandboxState, WikiPage } from '../model.js';
import { paginate } from '../list-paging.js';
import { pathRepo } from './lookup.js';

type Json = Record<string, unknown>;

/** wiki_service.UserTitleToWebPath: the page's path in URLs, spaces as dashes. */
const webPath = (title: string): string => title.trim().replace(/ /g, '-');
/** wiki_service.WebPathToUserTitle: a path back to the title it names. */
const titleOf = (path: string): string => path.replace(/-/g, ' ').trim();

function pagesOf(state: SandboxState, repo: Repo): WikiPage[] {
  let pages = state.wikis.get(repo.id);
  if (!pages) {
    pages = [];
    state.wikis.set(repo.id, pages);
  }
  return pages;
}

function findPage(state: SandboxState, repo: Repo, name: string): WikiPage | undefined {
  const wanted = titleOf(name).toLowerCase();
  return pagesOf(state, repo).find((page) => page.title.toLowerCase() === wanted);
}

/** Records a commit of the wiki that sets one page's content (the page is created when new). */
export function addWikiCommit(
  state: SandboxState,
  repo: Repo,
  title: string,
  content: string,
  author: Account,
  message: string,
): WikiPage {
  const date = state.timestamp();
  const sha = createHash('sha1')
    .update(JSON.stringify([repo.id, 'wiki', title, content, message, date]))
    .digest('hex');
  let page = findPage(state, repo, title);
  if (!page) {
    page = { title, content, commits: [] };
    pagesOf(state, repo).push(page);
  }
  page.content = content;
  page.commits.unshift({ sha, message, author: author.login, date });
  return page;
}

function presentCommit(state: SandboxState, commit: WikiPage['commits'][number]): Json {
  const account = state.account(commit.author);
  const person = {
    name: account?.fullName || commit.author,
    email: account?.email ?? '',
    date: commit.date,
  };
  return { sha: commit.sha, author: person, commiter: person, message: commit.message };
}

/** convert.ToWikiPageMetaData. */
function metaData(state: SandboxState, repo: Repo, page: WikiPage): Json {
  const sub = webPath(page.title);
  return {
    title: page.title,
    html_url: `${state.baseUrl}/${repo.owner}/${repo.name}/wiki/${encodeURIComponent(sub)}`,
    sub_url: sub,
    last_commit: page.commits[0] ? presentCommit(state, page.commits[0]) : null,
  };
}

const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/** getWikiPage: the page's content, and the wiki's _Sidebar and _Footer pages, base64-encoded. */
function presentPage(state: SandboxState, repo: Repo, page: WikiPage): Json {
  return {
    ...metaData(state, repo, page),
    content_base64: base64(page.content),
    commit_count: page.commits.length,
    sidebar: base64(findPage(state, repo, '_Sidebar')?.content ?? ''),
    footer: base64(findPage(state, repo, '_Footer')?.content ?? ''),
  };
}

/** CreateWikiPageOptions: the title and the decoded content (400 when it is not base64). */
function pageInput(ctx: RequestContext): { title: string; content: string; message: string } {
  const body = bodyObject(ctx);
  const encoded = stringField(body, 'content_base64') ?? '';
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded.replace(/\s+/g, '')))
    throw new ApiError(400, 'invalid base64 encoding of content');
  return {
    title: (stringField(body, 'title') ?? '').trim(),
    content: Buffer.from(encoded, 'base64').toString('utf8'),
    message: stringField(body, 'message') ?? '',
  };
}

export const wikiRoutes: Route[] = [
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/wiki/pages',
    operationId: 'repoGetWikiPages',
    handler: (ctx) => {
      const repo = pathRepo(ctx);
      const pages = pagesOf(ctx.state, repo);
      if (pages.length === 0) throw notFound();
      return paginate(ctx, pages, (page) => page.map((p) => metaData(ctx.state, repo, p)));
    },
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/wiki/page/{pageName}',
    operationId: 'repoGetWikiPage',
    handler: (ctx) => {
      const repo = pathRepo(ctx);
      const page = findPage(ctx.state, repo, ctx.params.pageName ?? '');
      if (!page) throw notFound();
      return ok(presentPage(ctx.state, repo, page));
    },
  },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/wiki/revisions/{pageName}',
    operationId: 'repoGetWikiPageRevisions',
    handler: (ctx) => {
      const repo = pathRepo(ctx);
      const page = findPage(ctx.state, repo, ctx.params.pageName || 'Home');
      if (!page) throw notFound();
      return {
        status: 200,
        body: { commits: page.commits.map((c) => presentCommit(ctx.state, c)), count: page.commits.length },
        headers: { 'X-Total-Count': String(page.commits.length) },
      };
    },
  },
  {
    method: 'POST',
    path: '/repos/{owner}/{repo}/wiki/new',
    operationId: 'repoCreateWikiPage',
    handler: (ctx) => {
      const repo = pathRepo(ctx, 'write');
      const doer = requireSignedIn(ctx.caller);
      const input = pageInput(ctx);
      if (input.title === '') throw new ApiError(400, 'emptyTitle');
      if (findPage(ctx.state, repo, input.title)) throw new ApiError(400, 'IsErrWikiAlreadyExists');
      const message = input.message || `Add '${input.title}'`;
      const page = addWikiCommit(ctx.state, repo, input.title, input.content, doer, message);
      return ok(presentPage(ctx.state, repo, page), 201);
    },
  },
  {
    method: 'PATCH',
    path: '/repos/{owner}/{repo}/wiki/page/{pageName}',
    operationId: 'repoEditWikiPage',
    handler: (ctx) => {
      const repo = pathRepo(ctx, 'write');
      const doer = requireSignedIn(ctx.caller);
      const page = findPage(ctx.state, repo, ctx.params.pageName ?? '');
      if (!page) throw notFound();
      const input = pageInput(ctx);
      if (input.title !== '') page.title = input.title;
      const message = input.message || `Update '${page.title}'`;
      addWikiCommit(ctx.state, repo, page.title, input.content, doer, message);
      return ok(presentPage(ctx.state, repo, page));
    },
  },
];
