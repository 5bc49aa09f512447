// Token buckets per key and per endpoint: the exact 429 body and headers, and no races.
import t from 'tap';
import { calcBody, calculate, call, upload, withoutRequestId } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';
import { syntheticCsv } from '../helpers/csv.js';
import { TokenBuckets } from '../../src/limits/token-bucket.js';

const RATE_LIMIT_BODY = { detail: { code: 'RATE_LIMIT_EXCEEDED', message: 'Too many requests. Please try again later.' } };

t.test('token bucket arithmetic', async (t) => {
  let now = 0;
  const b = new TokenBuckets(() => now);
  for (let i = 0; i < 10; i++) t.ok(b.take('k', 10).allowed);
  const refused = b.take('k', 10);
  t.notOk(refused.allowed, 'the 11th in a minute is refused');
  t.equal(refused.retryAfter, 6, 'one token per 6 s at 10/min');
  now += 6000;
  t.ok(b.take('k', 10).allowed, 'a token is back after 6 s');
  t.equal(b.take('k', 10).remaining, 0);
  now += 600_000;
  t.equal(b.take('k', 10).remaining, 9, 'refill stops at capacity');
});

t.test('limits over HTTP', async (t) => {
  const s = await startTestService({ RATE_LIMIT_UPLOAD_PER_MIN: '2', RATE_LIMIT_CALCULATE_PER_MIN: '10' });
  t.teardown(() => s.stop());
  const csv = syntheticCsv(['A', 'B'], 80);
  const ds = (await upload(s.base, s.key, csv)).body.dataset_id as string;
  const body = calcBody(ds, {
    portfolio: [
      { symbol: 'A', weight: 0.5 },
      { symbol: 'B', weight: 0.5 },
    ],
    simulations: 1000,
  });

  t.test('upload: 2 per minute, then the exact 429', async (t) => {
    const { key } = await s.newKey();
    const first = await upload(s.base, key, csv);
    t.equal(first.status, 200);
    t.equal(first.headers.get('ratelimit-policy'), '"upload";q=2;w=60');
    t.match(first.headers.get('ratelimit') ?? '', /^"upload";r=1;t=\d+$/);
    t.equal((await upload(s.base, key, 'not a csv')).status, 422, 'a failing request still takes a token');
    const third = await upload(s.base, key, csv);
    t.equal(third.status, 429);
    t.same(withoutRequestId(third.body), RATE_LIMIT_BODY, 'body exactly as the interface shows, with its request id');
    t.ok(Number(third.headers.get('retry-after')) >= 1, 'Retry-After ≥ 1 s');
    t.equal(third.headers.get('cache-control'), 'no-store');
    t.match(third.headers.get('ratelimit') ?? '', /^"upload";r=0;t=\d+$/);
    t.equal((await calculate(s.base, key, body)).status, 200, 'calculate has its own bucket');
  });

  t.test('calculate: 10 per minute; per key', async (t) => {
    const a = await s.newKey();
    const b = await s.newKey({ calculate: 3 });
    const codes = [];
    for (let i = 0; i < 11; i++) codes.push((await calculate(s.base, a.key, body)).status);
    t.same(codes, [...Array(10).fill(200), 429]);
    const last = await calculate(s.base, a.key, body);
    t.same(withoutRequestId(last.body), RATE_LIMIT_BODY);
    t.equal(last.headers.get('ratelimit-policy'), '"calculate";q=10;w=60');
    const other = [];
    for (let i = 0; i < 4; i++) other.push((await calculate(s.base, b.key, body)).status);
    t.same(other, [200, 200, 200, 429], 'a per-key override of 3/min, independent of the other key');
  });

  t.test('20 simultaneous requests on a fresh key admit exactly 10', async (t) => {
    const { key } = await s.newKey();
    const replies = await Promise.all(Array.from({ length: 20 }, () => calculate(s.base, key, body)));
    t.equal(replies.filter((r) => r.status === 200).length, 10);
    t.equal(replies.filter((r) => r.status === 429).length, 10);
  });

  t.test('repeated failed authentication from one address is limited', async (t) => {
    const statuses = [];
    for (let i = 0; i < 25; i++) statuses.push((await calculate(s.base, 'prk_live_' + 'B'.repeat(32), body)).status);
    t.equal(statuses.filter((x) => x === 401).length, 20, '20 failures a minute are answered 401');
    t.equal(statuses.at(-1), 429, 'then 429');
    const r = await call(s.base, 'GET', '/healthz');
    t.equal(r.status, 200, 'unauthenticated routes still work');
  });
});
