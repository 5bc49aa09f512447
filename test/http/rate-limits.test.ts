// Token buckets per key and per endpoint over HTTP: one table over every limited endpoint (its
// quota, headers, the exact 429, and a bucket of its own), per-key overrides, and no races. The
// bucket arithmetic itself is test/unit/token-bucket.test.ts.
import t from 'tap';
import { calcBody, calculate, call, type Reply, upload, uploadFile, withoutRequestId } from '../helpers/http.js';
import { startTestService, WIDE_SAMPLE } from '../helpers/service.js';
import { syntheticCsv } from '../helpers/csv.js';
import { without } from '../helpers/without.js';
import { type LimitedEndpoint } from '../../src/http/access-guard.js';

const RATE_LIMIT_BODY = { detail: { code: 'RATE_LIMIT_EXCEEDED', message: 'Too many requests. Please try again later.' } };

/** Each endpoint's per-minute quota in the service below (env name, quota). */
const QUOTA: Record<LimitedEndpoint, [string, number]> = {
  upload: ['RATE_LIMIT_UPLOAD_PER_MIN', 2],
  calculate: ['RATE_LIMIT_CALCULATE_PER_MIN', 10],
  batch: ['RATE_LIMIT_BATCH_PER_MIN', 2],
  stress: ['RATE_LIMIT_STRESS_PER_MIN', 2],
  backtest: ['RATE_LIMIT_BACKTEST_PER_MIN', 2],
};
const ENDPOINTS = Object.keys(QUOTA) as LimitedEndpoint[];

t.test('limits over HTTP', async (t) => {
  const s = await startTestService(Object.fromEntries(Object.values(QUOTA).map(([name, n]) => [name, String(n)])));
  t.teardown(() => s.stop());
  const csv = syntheticCsv(['A', 'B'], 80);
  const ds = (await uploadFile(s.base, s.key, WIDE_SAMPLE)).body.dataset_id as string;
  const body = calcBody(ds, { simulations: 1000 });
  const post = (path: string) => (key: string, json: unknown) => call(s.base, 'POST', path, { key, json });
  /** Per endpoint: a request it answers 200, and one it refuses 422 after taking a token. */
  const requests: Record<LimitedEndpoint, { valid: (key: string) => Promise<Reply>; invalid: (key: string) => Promise<Reply> }> = {
    upload: { valid: (key) => upload(s.base, key, csv), invalid: (key) => upload(s.base, key, 'not a csv') },
    calculate: { valid: (key) => calculate(s.base, key, body), invalid: (key) => calculate(s.base, key, {}) },
    batch: {
      valid: (key) =>
        post('/api/v1/risk/calculate/batch')(key, {
          ...without(body, 'portfolio'),
          books: [
            { id: 'weights', portfolio: [{ symbol: 'AAPL', weight: 1 }] },
            { id: 'short', positions: [{ symbol: 'MSFT', quantity: -10 }] },
          ],
        }),
      invalid: (key) => post('/api/v1/risk/calculate/batch')(key, {}),
    },
    stress: {
      valid: (key) =>
        post('/api/v1/risk/stress')(key, {
          dataset_id: ds,
          currency: 'USD',
          positions: [{ symbol: 'AAPL', quantity: 10 }],
          scenarios: [{ type: 'shock', shocks: { AAPL: -0.1 } }],
        }),
      invalid: (key) => post('/api/v1/risk/stress')(key, {}),
    },
    backtest: {
      valid: (key) =>
        post('/api/v1/risk/backtest')(key, {
          dataset_id: ds,
          method: 'parametric_normal',
          currency: 'USD',
          portfolio_value: 1e6,
          portfolio: [{ symbol: 'AAPL', weight: 1 }],
          confidence_level: 0.99,
          time_horizon: 1,
          backtest: { window: 50, estimation_window: 100 },
        }),
      invalid: (key) => post('/api/v1/risk/backtest')(key, {}),
    },
  };

  for (const endpoint of ENDPOINTS) {
    const quota = QUOTA[endpoint][1];
    t.test(`${endpoint}: ${quota} per minute, then the exact 429; a bucket of its own`, async (t) => {
      const { key } = await s.newKey();
      const policy = `"${endpoint}";q=${quota};w=60`;
      for (let n = 1; n <= quota; n++) {
        if (n === 2) {
          t.equal((await requests[endpoint].invalid(key)).status, 422, 'a failing request still takes a token');
          continue;
        }
        const r = await requests[endpoint].valid(key);
        t.equal(r.status, 200, `request ${n}: ${r.text.slice(0, 200)}`);
        t.equal(r.headers.get('ratelimit-policy'), policy);
        t.match(r.headers.get('ratelimit') ?? '', new RegExp(`^"${endpoint}";r=${quota - n};t=\\d+$`));
      }
      const refused = await requests[endpoint].valid(key);
      t.equal(refused.status, 429);
      t.same(withoutRequestId(refused.body), RATE_LIMIT_BODY, 'body exactly as the interface shows');
      t.equal(refused.body.detail.request_id, refused.headers.get('x-request-id'), 'with its request id');
      t.ok(Number(refused.headers.get('retry-after')) >= 1, `Retry-After ${refused.headers.get('retry-after')} ≥ 1 s`);
      t.equal(refused.headers.get('cache-control'), 'no-store');
      t.equal(refused.headers.get('ratelimit-policy'), policy);
      t.match(refused.headers.get('ratelimit') ?? '', new RegExp(`^"${endpoint}";r=0;t=\\d+$`));
      for (const other of ENDPOINTS.filter((e) => e !== endpoint)) {
        const r = await requests[other].valid(key);
        t.equal(r.status, 200, `${other} has its own bucket: ${r.text.slice(0, 200)}`);
        t.equal(r.headers.get('ratelimit-policy'), `"${other}";q=${QUOTA[other][1]};w=60`);
      }
    });
  }

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
    for (let i = 0; i < 4; i++) {
      const r = await calculate(s.base, b.key, body);
      other.push(r.status);
      t.equal(r.headers.get('ratelimit-policy'), '"calculate";q=3;w=60', 'the policy names the key’s own quota');
    }
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
