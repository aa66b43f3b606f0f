// What a principal has read through a namespace (src/policy/integrity-taint.ts), kept where the
// namespace keeps it: in this process over stdio (the process is the session), in the shared state
// store over streamable HTTP, so that a second connection, a second replica or a restart reads the
// same taint. Keyed by namespace (the profile) and principal (the signed-in person, or the profile's
// identity), never by connection.
import {
  mergeRecords,
  stateOf,
  type TaintKey,
  type TaintRecord,
  type TaintState,
  type TaintStore,
} from '../policy/integrity-taint.js';
import type { Namespace } from './session.js';

export class MemoryTaintStore implements TaintStore {
  readonly kind = 'memory';
  private readonly keys = new Map<string, TaintRecord[]>();

  load(key: TaintKey, now: number): Promise<TaintRecord[]> {
    return Promise.resolve((this.keys.get(keyOf(key)) ?? []).filter((record) => record.expires > now));
  }

  save(key: TaintKey, records: readonly TaintRecord[], now: number): Promise<void> {
    const id = keyOf(key);
    const live = (this.keys.get(id) ?? []).filter((record) => record.expires > now);
    this.keys.set(id, mergeRecords([...live, ...records]));
    return Promise.resolve();
  }
}

function keyOf(key: TaintKey): string {
  return `${key.namespace.toLowerCase()}\n${key.principal.toLowerCase()}`;
}

/** One principal's taint in one namespace; shared by every connection of that principal. */
export class TaintTracker {
  private readonly people = new Map<string, TaintTracker>();
  /** What this process last wrote per record, so an unchanged read is not written again at once. */
  private readonly written = new Map<string, number>();

  constructor(
    readonly store: TaintStore,
    readonly key: TaintKey,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Per-user OAuth: each signed-in person is their own principal in this namespace. */
  forPerson(login: string): TaintTracker {
    const id = login.toLowerCase();
    let tracker = this.people.get(id);
    if (!tracker) {
      tracker = new TaintTracker(this.store, { namespace: this.key.namespace, principal: id }, this.clock);
      this.people.set(id, tracker);
    }
    return tracker;
  }

  now(): number {
    return this.clock();
  }

  /** The live state, read from the store (throws when the store cannot be read: the caller refuses). */
  async state(): Promise<TaintState> {
    const now = this.clock();
    return stateOf(await this.store.load(this.key, now), now);
  }

  /**
   * Adds what a read touched. A record this process wrote less than a tenth of its lifetime ago is not
   * written again (the expiry only moves later, and any replica may read it): one write per read call at
   * most, usually none.
   */
  async record(records: readonly TaintRecord[]): Promise<void> {
    const now = this.clock();
    const fresh = records.filter((record) => {
      const id = `${record.kind}\n${record.repository}`;
      const at = this.written.get(id);
      return at === undefined || now - at > (record.expires - record.since) / 10 || record.kind === 'untrusted';
    });
    if (fresh.length === 0) return;
    await this.store.save(this.key, fresh, now);
    for (const record of fresh) this.written.set(`${record.kind}\n${record.repository}`, now);
  }
}

/**
 * Keeps the namespace's taint in `store` from now on (the shared state store over streamable HTTP), for
 * the same namespace and principal: called once at start, before the first call.
 */
export function keepTaintIn(namespace: Namespace, store: TaintStore): void {
  const { taint } = namespace.session;
  namespace.session = { ...namespace.session, taint: new TaintTracker(store, taint.key) };
}
