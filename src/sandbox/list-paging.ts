// Gitea's list paging: `page` (1-based) and `limit`, default page size DEFAULT_PAGING_NUM = 30,
// capped at MAX_RESPONSE_ITEMS = 50 (Gitea's [api] defaults); `X-Total-Count` and a `Link` header
// with rel next, last, first, prev in Gitea's order, each URL keeping the other query parameters.
import type { RequestContext, Reply } from './context.js';

export const DEFAULT_PAGE_SIZE = 30;
export const MAX_RESPONSE_ITEMS = 50;

function positiveInt(value: string | null): number {
  const n = Number.parseInt(value ?? '', 10);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

export function listOptions(query: URLSearchParams): { page: number; limit: number } {
  const limit = positiveInt(query.get('limit'));
  return {
    page: Math.max(positiveInt(query.get('page')), 1),
    limit: limit === 0 ? DEFAULT_PAGE_SIZE : Math.min(limit, MAX_RESPONSE_ITEMS),
  };
}

function linkHeader(ctx: RequestContext, page: number, limit: number, total: number): string {
  const last = Math.max(Math.ceil(total / limit), 1);
  const link = (target: number, rel: string): string => {
    const query = new URLSearchParams(ctx.query);
    query.set('page', String(target));
    query.set('limit', String(limit));
    return `<${ctx.state.baseUrl}${ctx.pathname}?${query.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
  if (page > 1) links.push(link(1, 'first'), link(Math.min(page - 1, last), 'prev'));
  return links.join(',');
}

/** One page of `items` as a 200 reply with Gitea's paging headers; `wrap` shapes the body. */
export function paginate<T>(ctx: RequestContext, items: T[], wrap: (page: T[]) => unknown = (page) => page): Reply {
  const { page, limit } = listOptions(ctx.query);
  const slice = items.slice((page - 1) * limit, page * limit);
  const headers: Record<string, string> = { 'X-Total-Count': String(items.length) };
  const link = linkHeader(ctx, page, limit, items.length);
  if (link !== '') headers.Link = link;
  return { status: 200, body: wrap(slice), headers };
}
