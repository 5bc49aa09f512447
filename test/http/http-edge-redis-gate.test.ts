// The shared limiter decides as the in-process one on what H3 changed: a request with no gate (an
// authenticated one) only takes, and a shut gate reports when it reopens (Retry-After).
import t from 'tap';
import { pino } from 'pino';
import { LocalRateLimiter, type LimitOutcome, type LimitRequest } from '../../src/limits/rate-limiter.js';
import { RedisRateLimiter } from '../../src/limits/redis-rate-limiter.js';
import { startRedis } from '../helpers/backing-servers.js';

const redis = await startRedis(t);
let fallbacks = 0;
const shared = new RedisRateLimiter(redis.url, pino({ level: 'silent' }), () => fallbacks++);
t.teardown(() => shared.close());
while (!shared.connected) await new Promise((r) => setTimeout(r, 20));

const summary = (o: LimitOutcome) => ({
  gateOpen: o.gateOpen,
  retry: o.gateRetryAfter,
  allowed: o.decision?.allowed ?? null,
  remaining: o.decision?.remaining ?? null,
});

async function both(requests: LimitRequest[]): Promise<[unknown[], unknown[]]> {
  const local = new LocalRateLimiter();
  const [r, l] = [[] as unknown[], [] as unknown[]];
  for (const q of requests) {
    r.push(summary(await shared.decide(q)));
    l.push(summary(await local.decide(q)));
  }
  return [r, l];
}

t.test('no gate: only the take decides', async (t) => {
  const take = { id: 'calculate:key_nogate', perMinute: 3 };
  const [r, l] = await both(Array.from({ length: 5 }, () => ({ gate: null, take })));
  t.same(r, l, 'the same decisions as the in-process reference');
  t.same(
    r.map((x) => (x as { allowed: boolean }).allowed),
    [true, true, true, false, false],
  );
  t.ok(r.every((x) => (x as { gateOpen: boolean }).gateOpen));
});

t.test('a shut gate says when it reopens', async (t) => {
  const gate = { id: 'auth-fail:retry', perMinute: 2 };
  const [r, l] = await both(Array.from({ length: 3 }, () => ({ gate, take: gate })));
  // Retry-After is compared by range: each limiter reads its own clock.
  const withoutRetry = (xs: unknown[]) => xs.map((x) => ({ ...(x as object), retry: undefined }));
  t.same(withoutRetry(r), withoutRetry(l), 'the same decisions as the in-process reference');
  for (const [name, shut] of [
    ['Redis', r[2]],
    ['in process', l[2]],
  ] as [string, { gateOpen: boolean; retry: number }][]) {
    t.equal(shut.gateOpen, false, `${name}: the third failure finds the gate shut`);
    // 2 per minute: a token every 30 s, and the two spent just now come back from 30 s on.
    t.ok(shut.retry > 20 && shut.retry <= 30, `${name}: Retry-After ${shut.retry} s`);
  }
  t.equal(fallbacks, 0, 'every decision was taken in Redis');
});
