import { TokenBuckets, type Decision } from './token-bucket.js';

/** Token-bucket decisions, in this process or in a store shared by every replica. */
export interface RateLimiter {
  /** Takes a token from bucket `id` (capacity perMinute) if one is there. */
  take(id: string, perMinute: number): Promise<Decision>;
  /** Whether a request would be allowed, without taking a token. */
  peek(id: string, perMinute: number): Promise<boolean>;
  close(): Promise<void>;
}

/** One node: buckets in this process (synchronous underneath, so requests cannot race). */
export class LocalRateLimiter implements RateLimiter {
  constructor(private readonly buckets = new TokenBuckets()) {}

  async take(id: string, perMinute: number): Promise<Decision> {
    return this.buckets.take(id, perMinute);
  }

  async peek(id: string, perMinute: number): Promise<boolean> {
    return this.buckets.peek(id, perMinute);
  }

  async close(): Promise<void> {}
}
