import t from 'tap';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { LocalRateLimiter, type LimitOutcome, type LimitRequest } from '../../src/limits/rate-limiter.js';
import { LIMITER_KEY_PREFIX, RedisRateLimiter } from '../../src/limits/redis-rate-limiter.js';
import { startRedis } from '../helpers/backing-servers.js';

// The Lua script against the in-process buckets (the reference) on the same sequence of requests.
const redis = await startRedis(t);
let fallbacks = 0;
const shared = new RedisRateLimiter(redis.url, pino({ level: 'silent' }), () => fallbacks++);
t.teardown(() => shared.close());
const client = new Redis(redis.url);
t.teardown(() => client.disconnect());
while (!shared.connected) await new Promise((r) => setTimeout(r, 20));

const summary = (o: LimitOutcome) => ({ gateOpen: o.gateOpen, allowed: o.decision?.allowed ?? null, remaining: o.decision?.remaining ?? null });

async function both(requests: LimitRequest[]): Promise<[unknown[], unknown[]]> {
  const local = new LocalRateLimiter();
  const fromRedis = [];
  const fromLocal = [];
  for (const r of requests) {
    fromRedis.push(summary(await shared.decide(r)));
    fromLocal.push(summary(await local.decide(r)));
  }
  return [fromRedis, fromLocal];
}

t.test('takes: capacity, then refusals with Retry-After', async (t) => {
  const gate = { id: 'auth-fail:a', perMinute: 20 };
  const take = { id: 'calculate:key_a', perMinute: 10 };
  const [r, l] = await both(Array.from({ length: 12 }, () => ({ gate, take })));
  t.same(r, l, 'the same decisions as the in-process reference');
  t.same(
    r.map((x) => (x as { remaining: number }).remaining),
    [9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0],
  );
  const refused = await shared.decide({ gate, take });
  t.equal(refused.decision?.allowed, false);
  t.equal(refused.decision?.retryAfter, 6, '10 per minute: a token every 6 s');
  const ttl = await client.pttl(LIMITER_KEY_PREFIX + take.id);
  t.ok(ttl > 0 && ttl <= 61_000, `the bucket expires when full again (${ttl} ms)`);
  t.equal(await client.exists(LIMITER_KEY_PREFIX + gate.id), 0, 'an open gate that took nothing wrote nothing');
});

t.test('the gate: failed authentications spend it; once empty nothing else is taken', async (t) => {
  const gate = { id: 'auth-fail:b', perMinute: 3 };
  const take = { id: 'upload:key_b', perMinute: 5 };
  const [r, l] = await both([...Array.from({ length: 4 }, () => ({ gate, take: gate })), { gate, take }, { gate, take: null }]);
  t.same(r, l, 'the same decisions as the in-process reference');
  t.same(
    r.map((x) => (x as { gateOpen: boolean }).gateOpen),
    [true, true, true, false, false, false],
  );
  t.equal(await client.exists(LIMITER_KEY_PREFIX + take.id), 0, 'a shut gate took nothing from the endpoint bucket');
  t.ok((await client.pttl(LIMITER_KEY_PREFIX + gate.id)) > 0, 'the gate bucket has a TTL');
});

t.test('every decision above was taken in Redis', async (t) => {
  t.equal(fallbacks, 0);
});
