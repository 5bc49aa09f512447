import { type KeyRegistry } from '../auth/key-registry.js';
import { type KeyRecord } from '../auth/key-store.js';
import { type RateLimiter } from '../limits/rate-limiter.js';
import { ApiError } from '../contract/errors.js';
import { type RequestHead } from './exchange.js';

export type LimitedEndpoint = 'upload' | 'calculate' | 'batch' | 'stress' | 'backtest';

export interface LimitSettings {
  uploadPerMin: number;
  calculatePerMin: number;
  batchPerMin: number;
  stressPerMin: number;
  backtestPerMin: number;
  authFailuresPerMin: number;
}

export interface Admission {
  key: KeyRecord;
  /** The endpoint's RateLimit headers (none for unlimited routes). */
  limitHeaders: Record<string, string>;
}

/**
 * Authentication (X-API-Key) and per-key, per-endpoint token buckets, decided together: one
 * limiter call (one Redis round trip) per request. An address that keeps failing is refused with
 * 429 whatever key it presents, so keys cannot be guessed at speed.
 */
export class AccessGuard {
  constructor(
    private readonly keys: KeyRegistry,
    private readonly limiter: RateLimiter,
    private readonly limits: LimitSettings,
  ) {}

  /**
   * The key's record and, for a limited endpoint, a token from its bucket; else 401 or 429.
   * `identified` hears the key's id as soon as the key is known, so a refusal (429) is logged with it.
   */
  async admit(head: RequestHead, endpoint: LimitedEndpoint | null, identified?: (keyId: string) => void): Promise<Admission> {
    const record = head.apiKeys.length === 1 ? await this.keys.lookup(head.apiKeys[0]!.trim()) : null;
    if (record) identified?.(record.id);
    const gate = { id: `auth-fail:${head.ip}`, perMinute: this.limits.authFailuresPerMin };
    const limit = record && endpoint ? this.limitOf(record, endpoint) : 0;
    // A failed authentication spends the address's budget; a good one the endpoint's.
    const take = !record ? gate : endpoint ? { id: `${endpoint}:${record.id}`, perMinute: limit } : null;
    const outcome = await this.limiter.decide({ gate, take });
    if (!outcome.gateOpen) throw rateLimited(60);
    if (!record) throw new ApiError(head.apiKeys.length === 0 ? 'API_KEY_MISSING' : 'API_KEY_INVALID');
    if (!endpoint || !outcome.decision) return { key: record, limitHeaders: {} };
    const d = outcome.decision;
    const limitHeaders = {
      'RateLimit-Policy': `"${endpoint}";q=${limit};w=60`,
      RateLimit: `"${endpoint}";r=${d.remaining};t=${d.reset}`,
    };
    if (!d.allowed) throw rateLimited(d.retryAfter, limitHeaders);
    return { key: record, limitHeaders };
  }

  private limitOf(key: KeyRecord, endpoint: LimitedEndpoint): number {
    if (endpoint === 'upload') return key.upload_limit ?? this.limits.uploadPerMin;
    if (endpoint === 'calculate') return key.calculate_limit ?? this.limits.calculatePerMin;
    // Batches, stress runs and backtests have their own buckets, the same for every key.
    return { batch: this.limits.batchPerMin, stress: this.limits.stressPerMin, backtest: this.limits.backtestPerMin }[endpoint];
  }
}

function rateLimited(retryAfter: number, headers: Record<string, string> = {}): ApiError {
  return new ApiError('RATE_LIMIT_EXCEEDED', undefined, {}, { ...headers, 'Retry-After': String(retryAfter), 'Cache-Control': 'no-store' });
}
