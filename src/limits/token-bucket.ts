/** Outcome of one request against a bucket. */
export interface Decision {
  allowed: boolean;
  /** Whole tokens left after this request. */
  remaining: number;
  /** Seconds until a token is available (≥ 1), for Retry-After. */
  retryAfter: number;
  /** Seconds until the bucket is full again. */
  reset: number;
}

/** The decision for a bucket holding `tokens` after the request, refilled at perMinute / 60 s. */
export function decisionFor(allowed: boolean, tokens: number, perMinute: number): Decision {
  const rate = perMinute / 60_000; // tokens per ms
  return {
    allowed,
    remaining: Math.floor(tokens),
    retryAfter: Math.max(1, Math.ceil((1 - tokens) / rate / 1000)),
    reset: Math.max(0, Math.ceil((perMinute - tokens) / rate / 1000)),
  };
}

interface Bucket {
  tokens: number;
  updated: number;
}

/**
 * Token buckets: capacity = the per-minute limit, refilled continuously at limit / 60 s. A decision
 * is synchronous, so concurrent requests in one process cannot race.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private lastEviction = -Infinity;

  constructor(private readonly now: () => number = () => performance.now()) {}

  take(id: string, perMinute: number): Decision {
    const now = this.now();
    const rate = perMinute / 60_000; // tokens per ms
    const bucket = this.buckets.get(id) ?? { tokens: perMinute, updated: now };
    bucket.tokens = Math.min(perMinute, bucket.tokens + (now - bucket.updated) * rate);
    bucket.updated = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    this.buckets.set(id, bucket);
    if (this.buckets.size > 100_000) this.evictFull(now);
    return decisionFor(allowed, bucket.tokens, perMinute);
  }

  /** Whether a request would be allowed, without taking a token. */
  peek(id: string, perMinute: number): boolean {
    return this.level(id, perMinute) >= 1;
  }

  /** Tokens in the bucket now (full when unknown), without taking one. */
  level(id: string, perMinute: number): number {
    const bucket = this.buckets.get(id);
    if (!bucket) return perMinute;
    return Math.min(perMinute, bucket.tokens + (this.now() - bucket.updated) * (perMinute / 60_000));
  }

  /**
   * Buckets idle long enough to be full again carry no state. At most one scan a second: above the
   * threshold a scan on every request would make each one cost the whole map (review L6).
   */
  private evictFull(now: number): void {
    if (now - this.lastEviction < 1_000) return;
    this.lastEviction = now;
    for (const [id, b] of this.buckets) if (now - b.updated > 60_000) this.buckets.delete(id);
  }
}
