// Keeps a result inside the model's budget: arrays cut to maxItems, then (if the serialized
// envelope is still over maxChars) long strings shortened, then list items dropped, and as a last
// resort the data replaced by a cut-off text. Reports what was cut so the note can say how to page on.
import { pageItems, type Pagination } from './pagination.js';

export interface Cuts {
  /** JSON paths of arrays cut to maxItems, with their original lengths. */
  arrays: { path: string; total: number }[];
  /** Items of the page's list that made it into the result, when fewer than Gitea returned. */
  listShown: number | null;
  listTotal: number | null;
  stringsShortenedTo: number | null;
  /** A text body cut to fit: characters shown of the total. */
  textCut: { shown: number; total: number } | null;
  dataCutToText: boolean;
  binaryOmitted: boolean;
}

export interface Bounded {
  data: unknown;
  cuts: Cuts;
}

/** Strings are never shortened below this; past it, list items are dropped instead. */
const MIN_STRING_LIMIT = 200;
const MAX_WALK_DEPTH = 128;
/** Room kept for the `truncated` note itself. */
const NOTE_RESERVE = 600;

/**
 * `overhead` is the serialized size of the envelope without its data.
 * Binary content is kept whole or omitted: half a base64 body is of no use.
 */
export function boundData(data: unknown, maxItems: number, maxChars: number, overhead: number): Bounded {
  const cuts: Cuts = {
    arrays: [],
    listShown: null,
    listTotal: null,
    stringsShortenedTo: null,
    textCut: null,
    dataCutToText: false,
    binaryOmitted: false,
  };
  const budget = Math.max(0, maxChars - overhead - NOTE_RESERVE);
  if (isBinary(data)) return { data: boundBinary(data, budget, cuts), cuts };
  let bounded = cutArrays(data, maxItems, '$', cuts, 0);
  const list = pageItems(bounded);
  if (list && list.length < (pageItems(data)?.length ?? 0)) {
    cuts.listShown = list.length;
    cuts.listTotal = pageItems(data)?.length ?? null;
  }
  if (size(bounded) <= budget) return { data: bounded, cuts };
  if (typeof bounded === 'string') {
    const text = fitText(bounded, budget);
    cuts.textCut = { shown: text.length - 1, total: bounded.length };
    return { data: text, cuts };
  }
  const limit = longestFittingStringLimit(bounded, budget);
  bounded = shortenStrings(bounded, limit, 0);
  cuts.stringsShortenedTo = limit;
  if (size(bounded) <= budget) return { data: bounded, cuts };
  const dropped = dropListItems(bounded, budget, cuts);
  if (dropped !== null) return { data: dropped, cuts };
  cuts.dataCutToText = true;
  return { data: fitText(JSON.stringify(bounded), budget), cuts };
}

/** The longest prefix (plus `…`) whose JSON form fits: escapes make serialized text longer than the raw. */
function fitText(text: string, budget: number): string {
  let low = 0;
  let high = Math.min(text.length, budget);
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (size(`${text.slice(0, middle)}…`) <= budget) low = middle;
    else high = middle - 1;
  }
  return `${text.slice(0, low)}…`;
}

function size(value: unknown): number {
  return JSON.stringify(value ?? null).length;
}

function isBinary(data: unknown): data is { content_base64: string | null; size: number } {
  return (
    typeof data === 'object' && data !== null && 'content_base64' in data && 'content_type' in data && 'size' in data
  );
}

function boundBinary(data: { content_base64: string | null }, budget: number, cuts: Cuts): unknown {
  if ((data.content_base64?.length ?? 0) <= budget) return data;
  cuts.binaryOmitted = true;
  return { ...data, content_base64: null };
}

/** A copy with every array cut to maxItems; `value` itself when no array in it is longer. */
function cutArrays(value: unknown, maxItems: number, path: string, cuts: Cuts, depth: number): unknown {
  if (typeof value !== 'object' || value === null || depth > MAX_WALK_DEPTH) return value;
  if (Array.isArray(value)) {
    if (value.length > maxItems) cuts.arrays.push({ path, total: value.length });
    const items = value
      .slice(0, maxItems)
      .map((item, index) => cutArrays(item, maxItems, `${path}[${index}]`, cuts, depth + 1));
    return items.length === value.length && items.every((item, index) => item === value[index]) ? value : items;
  }
  const entries = Object.entries(value);
  const cut = entries.map(([key, item]) => [key, cutArrays(item, maxItems, `${path}.${key}`, cuts, depth + 1)]);
  // fromEntries defines properties, so a `__proto__` key from JSON stays a plain key.
  return cut.every(([, item], index) => item === entries[index]?.[1]) ? value : Object.fromEntries(cut);
}

/** The largest per-string length at which the data fits (binary search), but at least MIN_STRING_LIMIT. */
function longestFittingStringLimit(data: unknown, budget: number): number {
  let low = MIN_STRING_LIMIT;
  let high = Math.max(MIN_STRING_LIMIT, budget);
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (size(shortenStrings(data, middle, 0)) <= budget) low = middle;
    else high = middle - 1;
  }
  return low;
}

function shortenStrings(value: unknown, limit: number, depth: number): unknown {
  if (typeof value === 'string') {
    return value.length <= limit ? value : `${value.slice(0, limit)}…[${value.length - limit} more chars]`;
  }
  if (typeof value !== 'object' || value === null || depth > MAX_WALK_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => shortenStrings(item, limit, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shortenStrings(item, limit, depth + 1)]));
}

/** Keeps the longest prefix of the page's list that fits (binary search on the count). */
function dropListItems(data: unknown, budget: number, cuts: Cuts): unknown {
  const list = pageItems(data);
  if (!list || list.length === 0) return null;
  const withItems = (count: number): unknown =>
    Array.isArray(data) ? list.slice(0, count) : { ...(data as object), data: list.slice(0, count) };
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (size(withItems(middle)) <= budget) low = middle;
    else high = middle - 1;
  }
  if (low === 0) return null;
  cuts.listTotal = cuts.listTotal ?? list.length;
  cuts.listShown = low;
  return withItems(low);
}

/** What was cut and how to get the rest; null when nothing was. */
export function truncationNote(
  cuts: Cuts,
  pagination: Pagination | null,
  maxItems: number,
  maxChars: number,
): string | null {
  const parts: string[] = [];
  if (cuts.listShown !== null && cuts.listTotal !== null)
    parts.push(`only the first ${cuts.listShown} of ${cuts.listTotal} items returned by Gitea are shown`);
  const nested = cuts.arrays.filter((cut) => cut.path !== '$' && cut.path !== '$.data');
  if (nested.length > 0)
    parts.push(
      `nested arrays cut to ${maxItems} items at ${nested
        .slice(0, 3)
        .map((cut) => cut.path)
        .join(', ')}${nested.length > 3 ? ', …' : ''}`,
    );
  if (cuts.stringsShortenedTo !== null)
    parts.push(`strings longer than ${cuts.stringsShortenedTo} characters were shortened`);
  if (cuts.textCut)
    parts.push(
      `the text was cut after ${cuts.textCut.shown} of ${cuts.textCut.total} characters to fit ${maxChars} characters`,
    );
  if (cuts.dataCutToText)
    parts.push(`the data was cut to fit ${maxChars} characters and is shown as partial JSON text`);
  if (cuts.binaryOmitted)
    parts.push(
      `the binary content is larger than the response budget of ${maxChars} characters (MAX_TOOL_RESPONSE_CHARS) and was omitted`,
    );
  if (parts.length === 0) return null;
  return `${capitalize(parts.join('; '))}. ${pagingHint(cuts, pagination)}`;
}

function pagingHint(cuts: Cuts, pagination: Pagination | null): string {
  if (cuts.binaryOmitted) return 'Raise MAX_TOOL_RESPONSE_CHARS to receive it.';
  const shown = cuts.listShown;
  if (pagination && shown !== null && shown > 0) {
    const offset = (pagination.page - 1) * (pagination.limit ?? shown);
    if (offset % shown === 0) return `To see the rest, call again with limit=${shown} and page=${offset / shown + 2}.`;
    return `To see the rest, lower limit to ${shown} or less and page on.`;
  }
  if (pagination) return 'Lower limit to get smaller pages, or fetch single items to read them in full.';
  return 'Narrow the request (filters, a single item) to see the rest.';
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
