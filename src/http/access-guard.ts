import { createHash, timingSafeEqual } from 'node:crypto';
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { Counter, type Registry } from 'prom-client';
import { type KeyRegistry } from '../auth/key-registry.js';
import { type KeyRecord } from '../auth/key-store.js';
import { type RateLimiter } from '../limits/rate-limiter.js';
import { ApiError } from '../contract/errors.js';
import { type RequestHead } from './exchange.js';
import { type Config } from '../config.js';

export type LimitedEndpoint = 'upload' | 'calculate' | 'batch' | 'stress' | 'backtest';

/** The settings the guard reads: the per-minute limits and the trusted proxies. */
export type LimitSettings = Pick<
  Config,
  'uploadPerMin' | 'calculatePerMin' | 'batchPerMin' | 'stressPerMin' | 'backtestPerMin' | 'authFailuresPerMin' | 'trustedProxies'
>;

export interface Admission {
  key: KeyRecord;
  /** The endpoint's RateLimit headers (none for unlimited routes). */
  limitHeaders: Record<string, string>;
}

type FailureReason = 'missing' | 'invalid' | 'rate_limited';

/**
 * Authentication (X-API-Key) and per-key, per-endpoint token buckets. The key is checked first (one
 * HMAC): a valid key is never refused by the failure gate, since keys carry 190 random bits and the
 * gate adds nothing against guessing them, while refusing valid keys let one bad client lock out
 * everyone behind the same proxy or NAT (review H3). Only failed authentications spend and meet the
 * gate of their client address. One limiter call (one Redis round trip) at most per request.
 */
export class AccessGuard {
  private readonly trusted = new BlockList();
  private readonly failures: Counter<'reason'>;

  constructor(
    private readonly keys: KeyRegistry,
    private readonly limiter: RateLimiter,
    private readonly limits: LimitSettings,
    registry?: Registry,
  ) {
    for (const ip of limits.trustedProxies) {
      if (!isIPv4(ip) && !isIPv6(ip)) throw new Error(`TRUSTED_PROXIES: "${ip}" is not an IP address`);
      this.trusted.addAddress(ip, isIPv4(ip) ? 'ipv4' : 'ipv6');
    }
    this.failures = new Counter({
      name: 'auth_failures_total',
      help: 'Failed authentications by reason: missing or invalid key, or refused (429) by the failure gate of the client address',
      labelNames: ['reason'] as const,
      registers: registry ? [registry] : [],
    });
    for (const reason of ['missing', 'invalid', 'rate_limited'] satisfies FailureReason[]) this.failures.inc({ reason }, 0);
  }

  /**
   * The key's record and, for a limited endpoint, a token from its bucket; else 401 or 429.
   * `identified` hears the key's id as soon as the key is known, so a refusal (429) is logged with it.
   */
  async admit(head: RequestHead, endpoint: LimitedEndpoint | null, identified?: (keyId: string) => void): Promise<Admission> {
    const record = head.apiKeys.length === 1 ? await this.keys.lookup(head.apiKeys[0]!.trim()) : null;
    if (!record) return this.refuse(head);
    identified?.(record.id);
    if (!endpoint) return { key: record, limitHeaders: {} };
    const limit = this.limitOf(record, endpoint);
    const { decision } = await this.limiter.decide({ gate: null, take: { id: `${endpoint}:${record.id}`, perMinute: limit } });
    const d = decision!;
    const limitHeaders = {
      'RateLimit-Policy': `"${endpoint}";q=${limit};w=60`,
      RateLimit: `"${endpoint}";r=${d.remaining};t=${d.reset}`,
    };
    if (!d.allowed) throw rateLimited(d.retryAfter, limitHeaders);
    return { key: record, limitHeaders };
  }

  /** Whether a key admitted earlier is still live: a revoked one is gone at the registry's next reload. */
  async isLive(presented: string): Promise<boolean> {
    return (await this.keys.lookup(presented.trim())) !== null;
  }

  /** A failed authentication spends its address's budget: 401 while there is one, else 429. */
  private async refuse(head: RequestHead): Promise<never> {
    const gate = { id: `auth-fail:${this.clientOf(head)}`, perMinute: this.limits.authFailuresPerMin };
    const outcome = await this.limiter.decide({ gate, take: gate });
    if (!outcome.gateOpen) {
      this.failures.inc({ reason: 'rate_limited' });
      throw rateLimited(outcome.gateRetryAfter);
    }
    const missing = head.apiKeys.length === 0;
    this.failures.inc({ reason: missing ? 'missing' : 'invalid' });
    throw new ApiError(missing ? 'API_KEY_MISSING' : 'API_KEY_INVALID');
  }

  /**
   * The client's address: the TCP peer, unless the peer is a trusted proxy; then the right-most
   * X-Forwarded-For entry that is not itself a trusted proxy (entries left of it are the client's
   * own claims). IPv6 clients are counted per /64, since one host can rotate within its prefix (L6).
   */
  clientOf(head: RequestHead): string {
    let client = head.peer;
    if (this.isTrusted(client)) {
      const hops = head.forwardedFor.split(',').map((a) => a.trim());
      for (let i = hops.length - 1; i >= 0; i--) {
        if (!isIPv4(hops[i]!) && !isIPv6(hops[i]!)) break; // garbage: keep the last trusted hop
        client = hops[i]!;
        if (!this.isTrusted(client)) break;
      }
    }
    return addressKey(client);
  }

  private isTrusted(ip: string): boolean {
    if (isIPv4(ip)) return this.trusted.check(ip, 'ipv4');
    return isIPv6(ip) && this.trusted.check(ip, 'ipv6');
  }

  private limitOf(key: KeyRecord, endpoint: LimitedEndpoint): number {
    if (endpoint === 'upload') return key.upload_limit ?? this.limits.uploadPerMin;
    if (endpoint === 'calculate') return key.calculate_limit ?? this.limits.calculatePerMin;
    // Batches, stress runs and backtests have their own buckets, the same for every key.
    return { batch: this.limits.batchPerMin, stress: this.limits.stressPerMin, backtest: this.limits.backtestPerMin }[endpoint];
  }
}

/**
 * Who may read /metrics, which shows the runtime, the engine build and per-route and per-owner
 * counts (review L3). With METRICS_TOKEN: only `Authorization: Bearer <token>`, compared in constant
 * time, else 401. Without it: only a loopback listener serves it (no other host can connect to one);
 * on any other listener it is answered as an unknown route.
 */
export function checkMetricsAccess(head: RequestHead, settings: { metricsToken: string | undefined; host: string }): void {
  if (settings.metricsToken === undefined) {
    if (isLoopback(settings.host)) return;
    throw new ApiError('NOT_FOUND', 'GET /metrics is served on this listener only with METRICS_TOKEN set.');
  }
  const sent = /^Bearer +(\S+) *$/i.exec(head.authorization)?.[1] ?? '';
  if (!sameSecret(sent, settings.metricsToken)) throw new ApiError('METRICS_TOKEN_INVALID', undefined, {}, { 'WWW-Authenticate': 'Bearer realm="metrics"' });
}

/** Compares digests of equal length, so the time taken tells neither the token nor its length. */
function sameSecret(sent: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(sent), digest(expected));
}

/** A listen address only this host can reach: 127.0.0.0/8, ::1 (also IPv4-mapped), localhost. */
function isLoopback(host: string): boolean {
  const v4 = /^(?:::ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(host)?.[1];
  if (v4 !== undefined) return isIPv4(v4) && v4.startsWith('127.');
  return host === '::1' || host === 'localhost';
}

/** An IPv4 address as is (IPv4-mapped IPv6 too); an IPv6 address as its /64 prefix. */
function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!isIPv6(ip)) return ip;
  const [head = '', tail = ''] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = ip.includes('::') && tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return (
    groups
      .slice(0, 4)
      .map((g) => parseInt(g, 16).toString(16))
      .join(':') + '::/64'
  );
}

function rateLimited(retryAfter: number, headers: Record<string, string> = {}): ApiError {
  return new ApiError('RATE_LIMIT_EXCEEDED', undefined, {}, { ...headers, 'Retry-After': String(retryAfter), 'Cache-Control': 'no-store' });
}
