// Per-client rate limit for the MCP path: a token bucket per key that holds `perMinute` requests
// and refills continuously, so a client may burst up to the limit and then runs at the limit's pace.

/** `message`: why, when it is not the limit itself (a shared store that does not answer). */
export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number; message?: string };

/** A limiter: this process's buckets (RateLimiter), or buckets shared by replicas (rate-limit-postgres.ts). */
export interface RateLimit {
  take(key: string): RateDecision | Promise<RateDecision>;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/** Above this many clients, buckets that have refilled completely are forgotten (they carry no state). */
const PRUNE_THRESHOLD = 10_000;

export class RateLimiter implements RateLimit {
  private readonly buckets = new Map<string, Bucket>();
  private readonly refillPerMs: number;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isInteger(perMinute) || perMinute < 1)
      throw new RangeError('rate limit must be a whole number of requests per minute, at least 1');
    this.refillPerMs = perMinute / 60_000;
  }

  take(key: string): RateDecision {
    const bucket = this.refilled(key);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.refillPerMs / 1000)) };
  }

  private refilled(key: string): Bucket {
    const nowMs = this.now();
    const bucket = this.buckets.get(key);
    if (bucket === undefined) {
      if (this.buckets.size >= PRUNE_THRESHOLD) this.pruneFull(nowMs);
      const fresh = { tokens: this.perMinute, updatedMs: nowMs };
      this.buckets.set(key, fresh);
      return fresh;
    }
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (nowMs - bucket.updatedMs) * this.refillPerMs);
    bucket.updatedMs = nowMs;
    return bucket;
  }

  private pruneFull(nowMs: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (nowMs - bucket.updatedMs) * this.refillPerMs >= this.perMinute) this.buckets.delete(key);
    }
  }
}
