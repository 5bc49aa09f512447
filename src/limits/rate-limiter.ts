import { decisionFor, TokenBuckets, type Decision } from './token-bucket.js';

export interface Bucket {
  id: string;
  perMinute: number;
}

/** Everything one request asks of the limiter, decided at once (one Redis round trip). */
export interface LimitRequest {
  /**
   * Nothing is taken, and the request refused, when this bucket is empty (failed-auth budget);
   * null for a request that no gate may refuse (an authenticated one).
   */
  gate: Bucket | null;
  /** If the gate is open, a token is taken from this bucket (it may be the gate itself). */
  take: Bucket | null;
}

export interface LimitOutcome {
  gateOpen: boolean;
  /** Whole seconds (≥ 1) until the shut gate holds a token again, for Retry-After; 0 when open. */
  gateRetryAfter: number;
  /** The take's decision; null when the gate is shut or nothing was to be taken. */
  decision: Decision | null;
}

/** Token-bucket decisions, in this process or in a store shared by every replica. */
export interface RateLimiter {
  decide(request: LimitRequest): Promise<LimitOutcome>;
  close(): Promise<void>;
}

/** A request decided on buckets in this process (synchronous: concurrent requests cannot race). */
export function decideLocally(buckets: TokenBuckets, { gate, take }: LimitRequest): LimitOutcome {
  if (gate) {
    const level = buckets.level(gate.id, gate.perMinute);
    if (level < 1) return { gateOpen: false, gateRetryAfter: decisionFor(false, level, gate.perMinute).retryAfter, decision: null };
  }
  return { gateOpen: true, gateRetryAfter: 0, decision: take ? buckets.take(take.id, take.perMinute) : null };
}

/** One node: buckets in this process. */
export class LocalRateLimiter implements RateLimiter {
  constructor(private readonly buckets = new TokenBuckets()) {}

  async decide(request: LimitRequest): Promise<LimitOutcome> {
    return decideLocally(this.buckets, request);
  }

  async close(): Promise<void> {}
}
