import { TokenBuckets, type Decision } from './token-bucket.js';

export interface Bucket {
  id: string;
  perMinute: number;
}

/** Everything one request asks of the limiter, decided at once (one Redis round trip). */
export interface LimitRequest {
  /** Nothing is taken, and the request refused, when this bucket is empty (failed-auth budget). */
  gate: Bucket;
  /** If the gate is open, a token is taken from this bucket (it may be the gate itself). */
  take: Bucket | null;
}

export interface LimitOutcome {
  gateOpen: boolean;
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
  if (!buckets.peek(gate.id, gate.perMinute)) return { gateOpen: false, decision: null };
  return { gateOpen: true, decision: take ? buckets.take(take.id, take.perMinute) : null };
}

/** One node: buckets in this process. */
export class LocalRateLimiter implements RateLimiter {
  constructor(private readonly buckets = new TokenBuckets()) {}

  async decide(request: LimitRequest): Promise<LimitOutcome> {
    return decideLocally(this.buckets, request);
  }

  async close(): Promise<void> {}
}
