// The estimate cache keeps the most recently used estimates within a count and a memory bound,
// counting each estimate's buffers once and room for its model's shared copies; failures and
// estimates larger than the bound are not kept.
import t from 'tap';
import { type Estimation } from '../../src/engine/codec.js';
import { EstimateCache, estimateBytes } from '../../src/risk/estimate-cache.js';

/** An estimate of `n` assets whose vectors are views of one answer buffer, as the engine's are. */
function estimate(n: number, returns = 0): Estimation {
  const answer = new Float64Array(4 * n + 2 * n * n + returns);
  let at = 0;
  const take = (len: number) => answer.subarray(at, (at += len));
  return {
    observations: returns / Math.max(n, 1),
    firstDate: 0,
    lastDate: 0,
    jitter: 0,
    factorColumns: 0,
    mean: take(n),
    sampleMean: take(n),
    covariance: take(n * n),
    factor: take(n * n),
    volatility: take(n),
    returns: take(returns),
  };
}

const bytesOf = (n: number, returns = 0) => 8 * (4 * n + 2 * n * n + returns) + 8 * (n * n + returns);

t.test('an estimate counts its answer buffer once and its model once more', async (t) => {
  t.equal(estimateBytes(estimate(10, 30)), bytesOf(10, 30));
  const separate = { ...estimate(3), factor: new Float64Array(9), returns: new Float64Array(6) };
  t.equal(estimateBytes(separate), 8 * (12 + 18) + 8 * 9 + 8 * 6 + 8 * (9 + 6), 'two more buffers and their model copies');
  t.equal(estimateBytes(estimate(0)), 0, 'an empty estimate holds nothing');
});

t.test('least recently used dropped beyond the memory bound', async (t) => {
  const cache = new EstimateCache(2 * bytesOf(10) + 1);
  let computed = 0;
  const get = (key: string) =>
    cache.get(key, async () => {
      computed++;
      return estimate(10);
    });
  await get('a|1');
  await get('b|1');
  t.equal(cache.bytes, 2 * bytesOf(10));
  await get('a|1'); // a is now the most recently used
  await get('c|1');
  t.equal(cache.size, 2, 'two fit');
  t.equal(computed, 3);
  await get('a|1');
  t.equal(computed, 3, 'a was kept');
  await get('b|1');
  t.equal(computed, 4, 'b was dropped, and is made again');
  t.equal(cache.bytes, 2 * bytesOf(10), 'what is kept is what is counted');
});

t.test('the count bound still holds, pending estimates included', async (t) => {
  const cache = new EstimateCache(Infinity, 3);
  const releases: (() => void)[] = [];
  const pending = ['a', 'b', 'c', 'd'].map((k) => cache.get(`${k}|x`, () => new Promise<Estimation>((resolve) => releases.push(() => resolve(estimate(2))))));
  t.equal(cache.size, 3, 'at most 3, the oldest dropped while pending');
  releases.forEach((r) => r());
  await Promise.all(pending);
  t.equal(cache.bytes, 3 * bytesOf(2), "the dropped one's memory is not counted when it arrives");
});

t.test('an estimate larger than the bound answers and is not kept, and drops no other', async (t) => {
  const cache = new EstimateCache(bytesOf(10) - 1);
  await cache.get('small|1', async () => estimate(2));
  const est = await cache.get('big|1', async () => estimate(10));
  t.equal(est.mean.length, 10, 'answered');
  t.equal(cache.size, 1, 'the small one stays');
  t.equal(cache.bytes, bytesOf(2));
});

t.test('failures are not kept, and a stale failure never drops a newer entry', async (t) => {
  const cache = new EstimateCache();
  let fail!: (e: Error) => void;
  const first = cache.get('d|1', () => new Promise<Estimation>((_, reject) => (fail = reject)));
  cache.forgetDataset('d');
  const second = cache.get('d|1', async () => estimate(1));
  fail(new Error('engine refused'));
  await t.rejects(first, /engine refused/);
  t.equal(await cache.get('d|1', async () => estimate(5)), await second, 'the newer estimate is still the cached one');
  const failing = cache.get('e|1', async () => {
    throw new Error('no');
  });
  await t.rejects(failing);
  let again = false;
  await cache.get('e|1', async () => ((again = true), estimate(1)));
  t.ok(again, 'a failure is computed again');
});

t.test("a dataset's estimates are forgotten with their memory", async (t) => {
  const cache = new EstimateCache();
  await cache.get('d1|a', async () => estimate(4));
  await cache.get('d1|b', async () => estimate(4));
  await cache.get('d2|a', async () => estimate(3));
  cache.forgetDataset('d1');
  t.equal(cache.size, 1);
  t.equal(cache.bytes, bytesOf(3));
});
