import { type KeyRegistry } from '../auth/key-registry.js';
import { type KeyRecord } from '../auth/key-store.js';
import { type RateLimiter } from '../limits/rate-limiter.js';
import { ApiError } from './errors.js';
import { type RequestHead } from './exchange.js';

export type LimitedEndpoint = 'upload' | 'calculate';

export interface LimitSettings {
  uploadPerMin: number;
  calculatePerMin: number;
  authFailuresPerMin: number;
}

/** Authentication (X-API-Key) and per-key, per-endpoint token buckets. */
export class AccessGuard {
  constructor(
    private readonly keys: KeyRegistry,
    private readonly buckets: RateLimiter,
    private readonly limits: LimitSettings,
  ) {}

  /**
   * The key's record, or 401. An address that keeps failing is refused with 429 before its key is
   * even looked at, so keys cannot be guessed at speed.
   */
  async authenticate(head: RequestHead): Promise<KeyRecord> {
    const ipBucket = `auth-fail:${head.ip}`;
    if (!(await this.buckets.peek(ipBucket, this.limits.authFailuresPerMin))) throw rateLimited(60);
    if (head.apiKeys.length === 0) {
      await this.buckets.take(ipBucket, this.limits.authFailuresPerMin);
      throw new ApiError('API_KEY_MISSING');
    }
    const record = head.apiKeys.length === 1 ? this.keys.lookup(head.apiKeys[0]!.trim()) : null;
    if (!record) {
      await this.buckets.take(ipBucket, this.limits.authFailuresPerMin);
      throw new ApiError('API_KEY_INVALID');
    }
    return record;
  }

  /** Takes a token for the endpoint; returns the rate-limit headers, or throws 429 with them. */
  async admit(key: KeyRecord, endpoint: LimitedEndpoint): Promise<Record<string, string>> {
    const limit = endpoint === 'upload' ? (key.upload_limit ?? this.limits.uploadPerMin) : (key.calculate_limit ?? this.limits.calculatePerMin);
    const d = await this.buckets.take(`${endpoint}:${key.id}`, limit);
    const headers = {
      'RateLimit-Policy': `"${endpoint}";q=${limit};w=60`,
      RateLimit: `"${endpoint}";r=${d.remaining};t=${d.reset}`,
    };
    if (!d.allowed) throw rateLimited(d.retryAfter, headers);
    return headers;
  }
}

function rateLimited(retryAfter: number, headers: Record<string, string> = {}): ApiError {
  return new ApiError('RATE_LIMIT_EXCEEDED', undefined, {}, { ...headers, 'Retry-After': String(retryAfter), 'Cache-Control': 'no-store' });
}
