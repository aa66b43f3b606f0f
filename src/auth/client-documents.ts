// Clients identified by the URL of their metadata document: fetched under ./document-fetch.ts's
// checks, read by ./clients.ts's rules, its client_id equal to its own URL (so a document cannot
// speak for another URL), and kept in a bounded cache: at most MAX_ENTRIES documents, each for as
// long as its Cache-Control allows within [MIN_TTL, MAX_TTL] (FAILURE_TTL for a refusal, so a
// client cannot make this server fetch the same URL on every request). One fetch per URL at a time.
import { checkMetadata, type ResolvedClient } from './clients.js';
import { fetchDocument, type DocumentFetchPolicy } from './document-fetch.js';
import { AuthFailure } from './auth-failure.js';

const MAX_ENTRIES = 200;
const DEFAULT_TTL_MS = 5 * 60_000;
const MIN_TTL_MS = 60_000;
const MAX_TTL_MS = 24 * 3600_000;
const FAILURE_TTL_MS = 30_000;

type Entry = { client: ResolvedClient; expiresAt: number } | { refusal: string; expiresAt: number };

export class ClientDocuments {
  private readonly cache = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<Entry>>();

  constructor(
    readonly policy: DocumentFetchPolicy,
    private readonly now: () => number = Date.now,
  ) {}

  /** The client the document at `url` describes; AuthFailure invalid_client naming why it was refused. */
  async resolve(url: string): Promise<ResolvedClient> {
    const entry = await this.entry(url);
    if ('refusal' in entry)
      throw new AuthFailure('invalid_client', `the client metadata document ${url} was refused: ${entry.refusal}`);
    return entry.client;
  }

  /** How many documents are held (for tests of the bound). */
  get size(): number {
    return this.cache.size;
  }

  private async entry(url: string): Promise<Entry> {
    const cached = this.cache.get(url);
    if (cached && cached.expiresAt > this.now()) {
      // Most recently used last: the oldest is the one dropped when the cache is full.
      this.cache.delete(url);
      this.cache.set(url, cached);
      return cached;
    }
    const running = this.inFlight.get(url);
    if (running) return running;
    const work = this.load(url).finally(() => this.inFlight.delete(url));
    this.inFlight.set(url, work);
    return work;
  }

  private async load(url: string): Promise<Entry> {
    const fetched = await fetchDocument(url, this.policy);
    let entry: Entry;
    if (!fetched.ok) entry = { refusal: fetched.reason, expiresAt: this.now() + FAILURE_TTL_MS };
    else {
      try {
        entry = { client: clientOf(url, fetched.text), expiresAt: this.now() + ttl(fetched.cacheControl) };
      } catch (error) {
        const reason = error instanceof AuthFailure ? error.message : 'its content is unusable';
        entry = { refusal: reason, expiresAt: this.now() + FAILURE_TTL_MS };
      }
    }
    this.cache.delete(url);
    this.cache.set(url, entry);
    while (this.cache.size > MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
    return entry;
  }
}

function clientOf(url: string, text: string): ResolvedClient {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new AuthFailure('invalid_client_metadata', 'it is not valid JSON');
  }
  const clientId = (data as { client_id?: unknown } | null)?.client_id;
  if (clientId !== url)
    throw new AuthFailure(
      'invalid_client_metadata',
      `its client_id (${typeof clientId === 'string' ? clientId : 'missing'}) is not its own URL`,
    );
  const meta = checkMetadata(data, 'document');
  const host = new URL(url).host;
  return {
    clientId: url,
    name: meta.client_name ?? host,
    redirectUris: meta.redirect_uris,
    secret: null,
    source: { kind: 'document', url, host },
  };
}

/** Cache-Control max-age within the bounds; no-store or no-cache: the shortest time, never zero (a fetch per request). */
function ttl(cacheControl: string | null): number {
  if (cacheControl === null) return DEFAULT_TTL_MS;
  if (/\bno-(store|cache)\b/i.test(cacheControl)) return MIN_TTL_MS;
  const maxAge = /\bmax-age=(\d+)/i.exec(cacheControl)?.[1];
  if (maxAge === undefined) return DEFAULT_TTL_MS;
  return Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, Number(maxAge) * 1000));
}
