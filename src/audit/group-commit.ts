// Group commit, shared by the file log and the table: items queued while a write is in flight go
// into the next write together, so concurrent events share one fsync (or one transaction). Each
// item's promise settles with its own batch, after that batch's write returned: the write-ahead
// promise holds per event, and a lone caller waits for nobody.
interface Pending<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

export class GroupCommit<T, R> {
  private pending: Pending<T, R>[] = [];
  private flushing: Promise<void> | null = null;

  /** `writeBatch` gets the queued items in order and returns one result per item, or rejects for all. */
  constructor(private readonly writeBatch: (items: T[]) => Promise<R[]>) {}

  push(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  /** Resolves once nothing is queued or being written. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0);
      try {
        const results = await this.writeBatch(batch.map((p) => p.item));
        batch.forEach((p, i) => p.resolve(results[i] as R));
      } catch (error) {
        for (const p of batch) p.reject(error);
      }
    }
    this.flushing = null;
  }
}
