// What page the model got, how big it really was, and where the next one is. Gitea caps `limit`
// silently and echoes the requested limit in its Link header, so the applied size is inferred
// from the items returned whenever the page is not the last one.

import type { ResponseHeaders } from './http.js';

export interface Pagination {
  page: number;
  /** The page size Gitea applied, when observable; else the requested one; null if neither is known. */
  limit: number | null;
  total_count: number | null;
  next_page: number | null;
  last_page: number | null;
  /** Items the server removed from this page because they lie outside the profile's repository scope. */
  removed_by_scope?: number;
}

export interface PageRequest {
  page: number | null;
  limit: number | null;
}

/** The items of a page: the array itself, or the `data` array of Gitea's search envelopes. */
export function pageItems(data: unknown): unknown[] | null {
  if (Array.isArray(data)) return data;
  if (typeof data === 'object' && data !== null && Array.isArray((data as { data?: unknown }).data)) {
    return (data as { data: unknown[] }).data;
  }
  return null;
}

export function requestedPage(args: Record<string, unknown>): PageRequest {
  return { page: positiveInt(args.page), limit: positiveInt(args.limit ?? args.per_page) };
}

export function readPagination(headers: ResponseHeaders, requested: PageRequest, data: unknown): Pagination {
  const links = parseLinkHeader(headers.get('link'));
  const total = nonNegativeInt(headers.get('x-total-count'));
  const page = requested.page ?? 1;
  const itemCount = pageItems(data)?.length ?? null;
  const linkedNext = links.get('next') ?? null;
  const morePages = linkedNext !== null || (page === 1 && total !== null && itemCount !== null && total > itemCount);
  const limit = appliedLimit(page, requested.limit, itemCount, total, morePages);
  const lastPage = links.get('last') ?? (total !== null && limit ? Math.max(1, Math.ceil(total / limit)) : null);
  const nextPage = linkedNext ?? (total !== null && limit && page * limit < total ? page + 1 : null);
  return {
    page,
    limit,
    total_count: total,
    next_page: nextPage,
    last_page: lastPage ?? (nextPage === null ? page : null),
  };
}

function appliedLimit(
  page: number,
  requested: number | null,
  items: number | null,
  total: number | null,
  hasNext: boolean,
): number | null {
  if (items === null) return requested;
  // A page with a successor is full: its length is the page size Gitea used.
  if (hasNext && items > 0) return items;
  // The last page of several: earlier pages were full, so their size follows from the total.
  if (total !== null && page > 1) {
    const size = (total - items) / (page - 1);
    if (Number.isInteger(size) && size > 0) return size;
  }
  return requested;
}

/** `<https://host/api/v1/x?page=3&limit=50>; rel="next", ...` -> rel -> page number. */
function parseLinkHeader(header: string | null): Map<string, number> {
  const pages = new Map<string, number>();
  for (const part of (header ?? '').split(',')) {
    const match = /<([^>]*)>\s*;\s*rel="?([a-z]+)"?/i.exec(part);
    if (!match?.[1] || !match[2]) continue;
    const page = positiveInt(new URLSearchParams(match[1].split('?')[1] ?? '').get('page'));
    if (page !== null) pages.set(match[2].toLowerCase(), page);
  }
  return pages;
}

function positiveInt(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : null;
}

function nonNegativeInt(value: string | null): number | null {
  const n = value === null || value.trim() === '' ? NaN : Number(value);
  return Number.isInteger(n) && n >= 0 ? n : null;
}
