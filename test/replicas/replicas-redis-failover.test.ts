import t, { type Test } from 'tap';
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { TOKEN_BUCKET_SCRIPT } from '../../src/limits/redis-rate-limiter.js';
import { calcBody, calculate, uploadFile, type Reply } from '../helpers/http.js';
import { freePort } from '../helpers/backing-servers.js';
import { spawnService } from '../helpers/process.js';
import { metricValue, startReplicas, waitForKey } from '../helpers/replicas.js';
import { tempDir, WIDE_SAMPLE } from '../helpers/service.js';
import { waitFor } from '../helpers/wait.js';

// Redis fails under two replicas: limits fall back to each process, nothing answers 5xx; Redis back
// with an empty script cache: shared limits again.
const replicas = await startReplicas(t, { count: 2, redis: true });
const redis = replicas.redis!;
const [a, b] = replicas.bases as [string, string];
const FALLBACK = 'rate_limit_fallback_total';
const { key: uploader } = await replicas.createKey({ upload: 10, calculate: 1_000_000 });
const datasetId = (await uploadFile(a, uploader, WIDE_SAMPLE)).body.dataset_id as string;
const body = calcBody(datasetId, { simulations: 1_000 });

/** Requests made through an outage: a count, not a time window, which a slow machine may fill with fewer. */
const OUTAGE_REQUESTS = 20;

/** Calculates alternately on both replicas until `done(n)` holds for the n made so far, recording
 * statuses (in `statuses` as they come) and latencies. */
async function traffic(key: string, done: (n: number) => boolean, statuses: number[] = []): Promise<{ statuses: number[]; slowest: number }> {
  let slowest = 0;
  for (let i = 0; !done(statuses.length); i++) {
    const started = performance.now();
    const r: Reply = await calculate(i % 2 ? a : b, key, body);
    slowest = Math.max(slowest, performance.now() - started);
    statuses.push(r.status);
  }
  return { statuses, slowest };
}

const fallbacks = async () => (await metricValue(a, FALLBACK)) + (await metricValue(b, FALLBACK));

/** What an outage must look like: every request 200, fallbacks counted (latency is bench/'s). */
async function expectServedThrough(t: Test, outage: string, run: { statuses: number[]; slowest: number }, fallbacksBefore: number): Promise<void> {
  t.same([...new Set(run.statuses)], [200], 'every request answered 200');
  t.comment(`${outage}: ${run.statuses.length} requests, slowest ${run.slowest.toFixed(0)} ms`);
  t.ok((await fallbacks()) > fallbacksBefore, 'the fallback metric rose');
}

/** 20 requests alternating between the replicas on a key of `perMinute` calculations: a count of
 * requests, not a time window, which a slow machine may fill with fewer. One shared bucket admits
 * perMinute, and one more per 60/perMinute s the run took (its refill); a bucket per replica twice that. */
async function checkSharedBucket(t: Test, perMinute: number): Promise<void> {
  const { key } = await replicas.createKey({ calculate: perMinute });
  const started = performance.now();
  const statuses: number[] = [];
  for (let i = 0; i < 20; i++) statuses.push((await calculate(i % 2 ? a : b, key, body)).status);
  const refilled = Math.floor(((performance.now() - started) / 60_000) * perMinute);
  const admitted = statuses.filter((s) => s === 200).length;
  t.ok(
    admitted >= perMinute && admitted <= perMinute + refilled,
    `${admitted} admitted across both replicas (one bucket of ${perMinute}, ${refilled} refilled)`,
  );
  t.same([...new Set(statuses.filter((s) => s !== 200))], [429], 'the rest refused 429');
}

t.test('Redis up: decisions are shared, no fallback', async (t) => {
  await checkSharedBucket(t, 6);
  t.equal(await fallbacks(), 0, 'no fallback while Redis answers');
});

/** Until both replicas decide through Redis again: a request on each adds no fallback. */
async function throughRedisAgain(key: string): Promise<void> {
  await waitFor(async () => {
    const before = await fallbacks();
    await Promise.all([calculate(a, key, body), calculate(b, key, body)]);
    return (await fallbacks()) === before ? true : undefined;
  }, 'both replicas to decide through Redis again');
}

t.test('Redis down mid-run: no 5xx, fallback counted', async (t) => {
  const { key } = await replicas.createKey({ calculate: 1_000_000 });
  const before = await fallbacks();
  const seen: number[] = [];
  let killedAt = Infinity;
  const running = traffic(key, (n) => n >= killedAt + OUTAGE_REQUESTS, seen);
  await waitFor(() => (seen.length >= 10 ? true : undefined), 'traffic to flow before the outage');
  await redis.stop();
  killedAt = seen.length;
  const run = await running;
  t.comment(`${killedAt} requests before Redis was killed, ${run.statuses.length - killedAt} after`);
  await expectServedThrough(t, 'Redis killed', run, before);
});

t.test('Redis hung (SIGSTOP): no 5xx, fallback counted', async (t) => {
  await redis.start();
  const { key } = await replicas.createKey({ calculate: 1_000_000 });
  await throughRedisAgain(key);
  const before = await fallbacks();
  redis.freeze();
  t.teardown(() => redis.thaw());
  const run = await traffic(key, (n) => n >= OUTAGE_REQUESTS);
  redis.thaw();
  await expectServedThrough(t, 'Redis frozen', run, before);
});

t.test('Redis restarted empty (no scripts, no buckets): shared limits again, every key with a TTL', async (t) => {
  await redis.stop();
  await redis.start();
  const client = new Redis(redis.url);
  t.teardown(() => client.disconnect());
  const sha = createHash('sha1').update(TOKEN_BUCKET_SCRIPT).digest('hex');
  t.same(await client.call('SCRIPT', 'EXISTS', sha), [0], 'the script cache is empty');
  t.equal(await client.dbsize(), 0, 'Redis came back empty');
  const lostScript = () => replicas.processes.map((p) => p.stdout().split('Redis lost the script').length);
  const lostBefore = lostScript();
  await throughRedisAgain(uploader);
  const before = await fallbacks();
  await checkSharedBucket(t, 4);
  t.equal(await fallbacks(), before, 'no fallback: decided in Redis');
  t.same(await client.call('SCRIPT', 'EXISTS', sha), [1], 'the script was loaded again');
  t.ok(
    lostScript().some((n, i) => n > lostBefore[i]!),
    // The script cache is Redis's, so the first replica to reload the script reloads it for all.
    `a replica met NOSCRIPT and loaded the script again (logs ${lostBefore.join(',')} -> ${lostScript().join(',')})`,
  );

  const keys = await client.keys('*');
  t.ok(keys.length > 0, `${keys.length} limiter keys`);
  const ttls = await Promise.all(keys.map((k) => client.pttl(k)));
  t.ok(
    ttls.every((ms) => ms > 0),
    'every key has a TTL',
  );
  t.ok(
    keys.every((k) => k.startsWith('risk:bucket:')),
    'and they are all limiter buckets',
  );
});

t.test('a replica starting while Redis is unreachable serves, deciding per process', async (t) => {
  const env = { ...replicas.env, REDIS_URL: `redis://127.0.0.1:${await freePort()}`, DATA_DIR: tempDir() };
  const lone = await spawnService(env, t);
  const base = `http://127.0.0.1:${lone.port}`;
  const { key } = await replicas.createKey({ calculate: 3 });
  await waitForKey([base], key, true);
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) statuses.push((await calculate(base, key, body)).status);
  t.same(statuses, [200, 200, 200, 429, 429], 'its own buckets enforce the limit');
  t.ok((await metricValue(base, FALLBACK)) >= 5, 'each decision counted as a fallback');
});
