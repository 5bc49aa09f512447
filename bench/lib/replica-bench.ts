import { startPostgres, startRedis } from '../../test/helpers/backing-servers.js';
import { calcBody, calculate, uploadFile } from '../../test/helpers/http.js';
import { createKeyWithCli, spawnService } from '../../test/helpers/process.js';
import { waitForKey } from '../../test/helpers/replicas.js';
import { tempDir, testEnv, WIDE_SAMPLE } from '../../test/helpers/service.js';
import { interleaved } from './stats.js';

export interface ReplicaFigures {
  /** Median latency of a small calculation, ms. */
  embedded_ms: number;
  shared_ms: number;
}

/**
 * What sharing costs a request: the same small calculation, interleaved, against a service on the
 * embedded stores and one on Redis + PostgreSQL (one limiter script, a dataset recheck every 250 ms).
 */
export async function benchReplicaOverhead(requests: number): Promise<ReplicaFigures> {
  const cleanups: (() => void | Promise<void>)[] = [];
  const t = { teardown: (fn: () => void | Promise<void>) => void cleanups.push(fn) };
  try {
    const [redis, postgres] = await Promise.all([startRedis(t), startPostgres(t)]);
    const limits = { RATE_LIMIT_CALCULATE_PER_MIN: '1000000', WORKERS: '1' };
    const embeddedEnv = testEnv(tempDir('risk-bench-'), limits);
    const sharedEnv = testEnv(tempDir('risk-bench-'), { ...limits, REDIS_URL: redis.url, DATABASE_URL: postgres.url });
    const services = await Promise.all([spawnService(embeddedEnv, t), spawnService(sharedEnv, t)]);
    const setups = [embeddedEnv, sharedEnv].map(async (env, i) => {
      const { key } = createKeyWithCli(env, ['--name', 'bench']);
      const base = `http://127.0.0.1:${services[i]!.port}`;
      await waitForKey([base], key, true); // accepted at once: this only confirms it
      const up = await uploadFile(base, key, WIDE_SAMPLE);
      const body = calcBody(up.body.dataset_id as string, { simulations: 100 });
      return async () => {
        const r = await calculate(base, key, body);
        if (r.status !== 200) throw new Error(`replica bench: ${r.status} ${r.text}`);
      };
    });
    const [embedded, shared] = await Promise.all(setups);
    await interleaved({ embedded: embedded!, shared: shared! }, 100); // warm-up
    const { ms } = await interleaved({ embedded: embedded!, shared: shared! }, requests);
    return { embedded_ms: ms.embedded!, shared_ms: ms.shared! };
  } finally {
    for (const fn of cleanups.reverse()) await fn();
  }
}
