// The taint: what a principal has read through a namespace, kept as records with an expiry so that it
// outlives a connection (streamable HTTP has none to hang it on) and reaches every replica through the
// shared store. Two judges read it before a write: integrity (after text below the floor, writes stay
// in that text's repository, and only while nothing else was read) and secrecy (after a private
// repository, no write reaches a public target the profile does not name). Pure: `now` is an argument.
import { durationMs, type IntegritySettings } from './integrity.js';
import { describeLabel, type ItemLabel } from './integrity-walk.js';
import { firstMatch, type PatternList } from './scope-patterns.js';

/** The item that tainted a session, as the audit trail and a refusal name it. */
export interface TaintSource {
  type: string;
  id: number | string | null;
  author: string | null;
  origin?: ItemLabel['origin'];
  repository: string | null;
  level: string;
}

/**
 * One stored fact about what a principal read through a namespace. `repository` is lower case, `*`
 * for a read that named no single repository. The store keeps one record per kind and repository,
 * the earliest `since` and the latest `expires`.
 */
export interface TaintRecord {
  kind: 'read' | 'untrusted' | 'private';
  repository: string;
  /** The tainting item (kind untrusted). */
  source: TaintSource | null;
  since: number;
  expires: number;
}

/** Whose taint: the namespace (its profile) and the principal (the signed-in person, or the profile's identity). */
export interface TaintKey {
  namespace: string;
  principal: string;
}

/** Where taint records live: in memory (src/server/taint-tracker.ts) or the shared store (src/auth/taint-store.ts). */
export interface TaintStore {
  /** 'memory', or the shared store's dialect (sqlite, postgres), for gitea_server_status. */
  readonly kind: string;
  /** The records of a key that have not expired at `now`. */
  load(key: TaintKey, now: number): Promise<TaintRecord[]>;
  /** Adds records: one per kind and repository, the earliest `since` (with its source) and the latest `expires` kept. */
  save(key: TaintKey, records: readonly TaintRecord[], now: number): Promise<void>;
}

export interface TaintState {
  /** Items below the floor read, earliest first, one per repository. */
  readonly untrusted: ReadonlyArray<{ repository: string; source: TaintSource; since: number; expires: number }>;
  /** Repositories read (lower case; `*` for a read that named none). */
  readonly read: ReadonlySet<string>;
  /** Private repositories read, with when the secrecy window closes. */
  readonly privateReads: ReadonlyArray<{ repository: string; since: number; expires: number }>;
}

export const CLEAN: TaintState = { untrusted: [], read: new Set(), privateReads: [] };

const ANY = '*';

/** The records a read adds: every repository it touched, the first untrusted item per repository, the private ones. */
export function readRecords(
  now: number,
  ttl: { integrityMs: number; secrecyMs: number },
  read: {
    repositories: readonly (string | null)[];
    untrusted: readonly ItemLabel[];
    privateRepositories: readonly string[];
  },
): TaintRecord[] {
  const records = new Map<string, TaintRecord>();
  const add = (record: TaintRecord) => {
    const key = `${record.kind}\n${record.repository}`;
    if (!records.has(key)) records.set(key, record);
  };
  const until = now + ttl.integrityMs;
  for (const repository of read.repositories)
    add({ kind: 'read', repository: repository?.toLowerCase() ?? ANY, source: null, since: now, expires: until });
  for (const label of read.untrusted)
    add({
      kind: 'untrusted',
      repository: label.repository?.toLowerCase() ?? ANY,
      source: sourceOf(label),
      since: now,
      expires: until,
    });
  for (const repository of read.privateRepositories)
    add({
      kind: 'private',
      repository: repository.toLowerCase(),
      source: null,
      since: now,
      expires: now + ttl.secrecyMs,
    });
  return [...records.values()];
}

export function sourceOf(label: ItemLabel): TaintSource {
  return {
    type: label.type,
    id: label.id,
    author: label.author,
    ...(label.origin ? { origin: label.origin } : {}),
    repository: label.repository,
    level: label.level,
  };
}

/** The live state from stored records (expired ones dropped), the earliest untrusted item first. */
export function stateOf(records: readonly TaintRecord[], now: number): TaintState {
  const live = records.filter((record) => record.expires > now);
  const untrusted = live
    .filter((record) => record.kind === 'untrusted' && record.source !== null)
    .sort((a, b) => a.since - b.since || a.repository.localeCompare(b.repository))
    .map((record) => ({
      repository: record.repository,
      source: record.source as TaintSource,
      since: record.since,
      expires: record.expires,
    }));
  const read = new Set(live.filter((record) => record.kind === 'read').map((record) => record.repository));
  const privateReads = live
    .filter((record) => record.kind === 'private')
    .sort((a, b) => a.since - b.since)
    .map(({ repository, since, expires }) => ({ repository, since, expires }));
  return { untrusted, read, privateReads };
}

/** Records merged as the store merges them: one per kind and repository, earliest since, latest expiry. */
export function mergeRecords(records: readonly TaintRecord[]): TaintRecord[] {
  const merged = new Map<string, TaintRecord>();
  for (const record of records) {
    const key = `${record.kind}\n${record.repository}`;
    const known = merged.get(key);
    if (!known) merged.set(key, { ...record });
    else {
      if (record.since < known.since) {
        known.since = record.since;
        known.source = record.source ?? known.source;
      }
      known.expires = Math.max(known.expires, record.expires);
    }
  }
  return [...merged.values()];
}

export interface TaintRefusal {
  code: 'untrusted_content_taint' | 'secrecy_public_sink';
  message: string;
}

/**
 * With `after_untrusted: same_repository_only`, a principal that has read content below its floor
 * may write only to the repository that content came from, and only while it has read no other:
 * whatever it writes may carry what another repository held to where the untrusted author asked.
 */
export function judgeTaint(
  settings: IntegritySettings,
  state: TaintState,
  write: { repository: string | null },
  now: number,
): TaintRefusal | null {
  const first = state.untrusted[0];
  if (settings.afterUntrusted !== 'same_repository_only' || first === undefined) return null;
  const origins = new Set(state.untrusted.map((entry) => entry.repository));
  const origin = origins.size === 1 && first.repository !== ANY ? first.repository : null;
  const by = `${describeLabel(first.source)} in ${first.source.repository ?? 'an unknown repository'}`;
  const until = lapse(Math.max(...state.untrusted.map((entry) => entry.expires)), now);
  const target = write.repository?.toLowerCase() ?? null;
  if (origin === null || target !== origin) {
    const where = write.repository ?? 'no single repository';
    const allowed = origin ?? (origins.size > 1 ? 'no repository (it came from several)' : 'that repository');
    const message = `this session read untrusted content (${by}); ${until} it may write only to ${allowed}, not to ${where}`;
    return { code: 'untrusted_content_taint', message };
  }
  const other = [...state.read].filter((repository) => repository !== origin).sort()[0];
  if (other !== undefined) {
    const which = other === ANY ? 'data that names no single repository' : other;
    const message = `this session read untrusted content (${by}) and also ${which}; ${until} a write could carry that data where the untrusted author asked`;
    return { code: 'untrusted_content_taint', message };
  }
  return null;
}

/** A profile's `secrecy:` block as written. */
export interface SecrecyData {
  public_sinks?: 'refuse' | 'allow';
  /** Repositories (owner/repo globs) and URL prefixes a write may reach after a private read. */
  allowed_sinks?: string[];
  expires_after?: string;
}

export interface SecrecySettings {
  enabled: boolean;
  repositories: PatternList | null;
  urls: readonly string[];
  expiresMs: number;
}

/** Off without a block, or with `public_sinks: allow`. */
export function compileSecrecy(
  data: SecrecyData | undefined,
  repositories: (written: string[]) => PatternList,
): SecrecySettings {
  const sinks = data?.allowed_sinks ?? [];
  const urls = sinks.filter((sink) => /^https?:\/\//i.test(sink));
  const names = sinks.filter((sink) => !urls.includes(sink));
  return {
    enabled: data !== undefined && (data.public_sinks ?? 'refuse') === 'refuse',
    repositories: names.length > 0 ? repositories(names) : null,
    urls,
    expiresMs: durationMs(data?.expires_after ?? '8h') ?? 8 * 3_600_000,
  };
}

/** Where a write can carry data: a repository (public, private or unknown), a URL, or a public target with no repository. */
export type Sink =
  | { kind: 'repository'; repository: string; visibility: 'public' | 'private' | 'unknown' }
  | { kind: 'url'; url: string }
  | { kind: 'public_target'; operation: string };

/** After a private read, a write may reach a private repository, or a sink the profile names; nothing public. */
export function judgeSecrecy(
  settings: SecrecySettings,
  state: TaintState,
  sinks: readonly Sink[],
  now: number,
): TaintRefusal | null {
  const first = state.privateReads[0];
  if (!settings.enabled || first === undefined) return null;
  const until = lapse(Math.max(...state.privateReads.map((entry) => entry.expires)), now);
  for (const sink of sinks) {
    if (sinkAllowed(settings, sink)) continue;
    const what =
      sink.kind === 'repository'
        ? `${sink.visibility === 'public' ? 'the public repository' : 'the repository (visibility unknown)'} ${sink.repository}`
        : sink.kind === 'url'
          ? `the URL ${sink.url}`
          : `a public target (${sink.operation})`;
    const message =
      `this session read the private repository ${first.repository}; ${until} it writes to nothing public, and ${what} is not ` +
      `among the profile's secrecy.allowed_sinks`;
    return { code: 'secrecy_public_sink', message };
  }
  return null;
}

function sinkAllowed(settings: SecrecySettings, sink: Sink): boolean {
  if (sink.kind === 'repository')
    return (
      sink.visibility === 'private' ||
      (settings.repositories !== null && firstMatch(settings.repositories, sink.repository) !== undefined)
    );
  if (sink.kind === 'url')
    return settings.urls.some((prefix) => sink.url.toLowerCase().startsWith(prefix.toLowerCase()));
  return false;
}

/** How long until a window closes, as a refusal says it: `for another 7h 59m`. */
function lapse(expires: number, now: number): string {
  const left = Math.max(0, Math.ceil((expires - now) / 60_000));
  const hours = Math.floor(left / 60);
  const minutes = left % 60;
  return `for another ${hours > 0 ? `${hours}h ` : ''}${minutes}m`;
}
