import { Redis } from 'ioredis';
import { type Logger } from 'pino';
import { type RateLimiter } from './rate-limiter.js';
import { decisionFor, TokenBuckets, type Decision } from './token-bucket.js';

/**
 * One decision, atomically, on Redis's clock (replicas' clocks never matter). KEYS[1] is the
 * bucket; ARGV = capacity per minute, cost (1 take, 0 peek). A bucket is a hash {t: tokens, at: ms}
 * that expires when it would be full again, so every key carries a TTL and an idle one vanishes.
 */
export const TOKEN_BUCKET_SCRIPT = `
local capacity = tonumber(ARGV[1])
local cost = tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + tonumber(clock[2]) / 1000
local rate = capacity / 60000
local state = redis.call('HMGET', KEYS[1], 't', 'at')
local tokens = capacity
if state[1] and state[2] then
  tokens = math.min(capacity, tonumber(state[1]) + math.max(0, now - tonumber(state[2])) * rate)
end
local allowed = 0
if tokens >= 1 then
  allowed = 1
  if cost > 0 then
    tokens = tokens - cost
    redis.call('HSET', KEYS[1], 't', string.format('%.17g', tokens), 'at', string.format('%.17g', now))
    redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) / rate) + 1000)
  end
end
return {allowed, string.format('%.17g', tokens)}
`;

/** Prefix of every key the limiter writes. */
export const LIMITER_KEY_PREFIX = 'risk:bucket:';
/** After a Redis failure, decide locally this long before trying Redis again. */
const RETRY_REDIS_AFTER_MS = 1_000;

/**
 * Buckets shared by every replica through Redis. When Redis is down or slow, decisions fall back to
 * this process's own buckets (the limit then holds per replica), within COMMAND_TIMEOUT_MS, counted
 * by `onFallback`; requests never fail because of the limiter.
 */
export class RedisRateLimiter implements RateLimiter {
  static readonly COMMAND_TIMEOUT_MS = 250;
  private readonly client: Redis;
  private readonly local = new TokenBuckets();
  private scriptSha: string | null = null;
  private redisRetryAt = 0;
  private lastFailureLog = 0;

  constructor(
    url: string,
    private readonly log: Logger,
    private readonly onFallback: () => void,
  ) {
    this.client = new Redis(url, {
      commandTimeout: RedisRateLimiter.COMMAND_TIMEOUT_MS,
      connectTimeout: 1_000,
      enableOfflineQueue: false, // fail at once while disconnected instead of queueing
      maxRetriesPerRequest: 0,
      retryStrategy: () => 500, // keep reconnecting, twice a second
      lazyConnect: false,
    });
    this.client.on('error', (e: Error) => this.noteFailure(e));
    this.client.on('ready', () => {
      this.redisRetryAt = 0;
      log.info('rate limiter: Redis connected');
    });
  }

  async take(id: string, perMinute: number): Promise<Decision> {
    return this.decide(id, perMinute, 1);
  }

  async peek(id: string, perMinute: number): Promise<boolean> {
    return (await this.decide(id, perMinute, 0)).allowed;
  }

  async close(): Promise<void> {
    this.client.disconnect();
  }

  private async decide(id: string, perMinute: number, cost: 0 | 1): Promise<Decision> {
    if (this.client.status === 'ready' && performance.now() >= this.redisRetryAt) {
      try {
        const [allowed, tokens] = await this.run(LIMITER_KEY_PREFIX + id, perMinute, cost);
        return decisionFor(allowed === 1, Number(tokens), perMinute);
      } catch (e) {
        this.noteFailure(e);
        this.redisRetryAt = performance.now() + RETRY_REDIS_AFTER_MS;
      }
    }
    this.onFallback();
    return cost === 1 ? this.local.take(id, perMinute) : decisionFor(this.local.peek(id, perMinute), 1, perMinute);
  }

  /** EVALSHA; after a Redis restart its script cache is empty (NOSCRIPT), so load it again once. */
  private async run(key: string, perMinute: number, cost: number): Promise<[number, string]> {
    this.scriptSha ??= (await this.client.script('LOAD', TOKEN_BUCKET_SCRIPT)) as string;
    try {
      return (await this.client.evalsha(this.scriptSha, 1, key, perMinute, cost)) as [number, string];
    } catch (e) {
      if (!(e instanceof Error) || !e.message.startsWith('NOSCRIPT')) throw e;
      this.log.info('rate limiter: Redis lost the script (restart?); loading it again');
      this.scriptSha = (await this.client.script('LOAD', TOKEN_BUCKET_SCRIPT)) as string;
      return (await this.client.evalsha(this.scriptSha, 1, key, perMinute, cost)) as [number, string];
    }
  }

  private noteFailure(e: unknown): void {
    // Rate-limited: while Redis is down every request would log otherwise.
    if (performance.now() - this.lastFailureLog < 5_000) return;
    this.lastFailureLog = performance.now();
    this.log.warn({ err: e }, 'rate limiter: Redis unavailable; deciding per process');
  }
}
