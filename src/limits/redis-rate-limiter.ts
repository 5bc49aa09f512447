import { Redis } from 'ioredis';
import { type Logger } from 'pino';
import { decideLocally, type LimitOutcome, type LimitRequest, type RateLimiter } from './rate-limiter.js';
import { decisionFor, TokenBuckets } from './token-bucket.js';

/**
 * One request's decision, atomically, on Redis's clock (replicas' clocks never matter). KEYS[1] is
 * the gate bucket, KEYS[2] (optional) the bucket to take from; ARGV = their capacities per minute
 * (a gate of capacity 0 is none: KEYS[1] is then ignored). If the gate is empty nothing is taken. A bucket is a hash {t: tokens, at: ms} that expires when it
 * would be full again, so every key carries a TTL and an idle bucket vanishes.
 * Returns {gate open 0/1, taken 0/1, tokens left in KEYS[2] (in the gate, when shut) as a string}.
 */
export const TOKEN_BUCKET_SCRIPT = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + tonumber(clock[2]) / 1000
local function level(key, capacity)
  local state = redis.call('HMGET', key, 't', 'at')
  if not (state[1] and state[2]) then return capacity end
  return math.min(capacity, tonumber(state[1]) + math.max(0, now - tonumber(state[2])) * capacity / 60000)
end
if tonumber(ARGV[1]) > 0 then
  local gate = level(KEYS[1], tonumber(ARGV[1]))
  if gate < 1 then return {0, 0, string.format('%.17g', gate)} end
end
if #KEYS < 2 then return {1, 0, '0'} end
local capacity = tonumber(ARGV[2])
local tokens = level(KEYS[2], capacity)
if tokens < 1 then return {1, 0, string.format('%.17g', tokens)} end
tokens = tokens - 1
redis.call('HSET', KEYS[2], 't', string.format('%.17g', tokens), 'at', string.format('%.17g', now))
redis.call('PEXPIRE', KEYS[2], math.ceil((capacity - tokens) * 60000 / capacity) + 1000)
return {1, 1, string.format('%.17g', tokens)}
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
    });
    this.client.on('error', (e: Error) => this.noteFailure(e));
    this.client.on('ready', () => {
      this.redisRetryAt = 0;
      log.info('rate limiter: Redis connected');
    });
  }

  /** Whether decisions currently go to Redis. */
  get connected(): boolean {
    return this.client.status === 'ready';
  }

  async decide(request: LimitRequest): Promise<LimitOutcome> {
    if (this.client.status === 'ready' && performance.now() >= this.redisRetryAt) {
      try {
        return await this.decideInRedis(request);
      } catch (e) {
        this.noteFailure(e);
        this.redisRetryAt = performance.now() + RETRY_REDIS_AFTER_MS;
      }
    }
    this.onFallback();
    return decideLocally(this.local, request);
  }

  async close(): Promise<void> {
    this.client.disconnect();
  }

  private async decideInRedis({ gate, take }: LimitRequest): Promise<LimitOutcome> {
    if (!gate && !take) return { gateOpen: true, gateRetryAfter: 0, decision: null };
    // No gate: KEYS[1] repeats the take's key (every key in one hash slot), with capacity 0.
    const first = gate ?? take!;
    const keys = [first.id, ...(take ? [take.id] : [])].map((id) => LIMITER_KEY_PREFIX + id);
    const args = [gate ? gate.perMinute : 0, ...(take ? [take.perMinute] : [])];
    const [gateOpen, taken, tokens] = await this.run(keys, args);
    if (gateOpen !== 1) return { gateOpen: false, gateRetryAfter: decisionFor(false, Number(tokens), first.perMinute).retryAfter, decision: null };
    return { gateOpen: true, gateRetryAfter: 0, decision: take ? decisionFor(taken === 1, Number(tokens), take.perMinute) : null };
  }

  /** EVALSHA; after a Redis restart its script cache is empty (NOSCRIPT), so load it again once. */
  private async run(keys: string[], args: number[]): Promise<[number, number, string]> {
    this.scriptSha ??= (await this.client.script('LOAD', TOKEN_BUCKET_SCRIPT)) as string;
    try {
      return (await this.client.evalsha(this.scriptSha, keys.length, ...keys, ...args)) as [number, number, string];
    } catch (e) {
      if (!(e instanceof Error) || !e.message.startsWith('NOSCRIPT')) throw e;
      this.log.info('rate limiter: Redis lost the script (restart?); loading it again');
      this.scriptSha = (await this.client.script('LOAD', TOKEN_BUCKET_SCRIPT)) as string;
      return (await this.client.evalsha(this.scriptSha, keys.length, ...keys, ...args)) as [number, number, string];
    }
  }

  private noteFailure(e: unknown): void {
    // Rate-limited: while Redis is down every request would log otherwise.
    if (performance.now() - this.lastFailureLog < 5_000) return;
    this.lastFailureLog = performance.now();
    this.log.warn({ err: e }, 'rate limiter: Redis unavailable; deciding per process');
  }
}
