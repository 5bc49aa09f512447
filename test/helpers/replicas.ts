import { call } from './http.js';
import { createKeyWithCli, spawnService, type ServiceProcess } from './process.js';
import { startPostgres, startRedis, type PostgresServer, type RedisServer } from './backing-servers.js';
import { tempDir, testEnv } from './service.js';

interface Tap {
  teardown(fn: () => void | Promise<void>): void;
}

export interface Replicas {
  redis: RedisServer | null;
  postgres: PostgresServer;
  /** Base URLs of the service processes. */
  bases: string[];
  processes: ServiceProcess[];
  /** Environment of a keys CLI (or another replica) sharing the same stores. */
  env: NodeJS.ProcessEnv;
  /** Creates a key through the CLI (every replica accepts it at once). */
  createKey(opts?: { calculate?: number; upload?: number; owner?: string }): Promise<{ id: string; key: string }>;
}

const NO_SUCH_DATASET = '/api/v1/risk/datasets/ds_0000000000000000000000';

/** Until every replica answers `key` with other than 401 (or `accepted` false: with 401). */
export async function waitForKey(bases: string[], key: string, accepted: boolean, timeoutMs = 20_000): Promise<number> {
  const started = performance.now();
  for (;;) {
    const statuses = await Promise.all(bases.map((b) => call(b, 'GET', NO_SUCH_DATASET, { key }).then((r) => r.status)));
    if (statuses.every((s) => (s === 401) !== accepted)) return performance.now() - started;
    if (performance.now() - started > timeoutMs) throw new Error(`key not ${accepted ? 'accepted' : 'refused'}: ${statuses.join(',')}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A counter's value in a replica's /metrics. */
export async function metricValue(base: string, name: string): Promise<number> {
  const text = (await call(base, 'GET', '/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

/** Real Redis (optional) and PostgreSQL, and `count` service processes sharing them, started together. */
export async function startReplicas(t: Tap, opts: { count: number; redis: boolean; env?: Record<string, string> }): Promise<Replicas> {
  const [redis, postgres] = await Promise.all([opts.redis ? startRedis(t) : null, startPostgres(t)]);
  const shared: Record<string, string> = {
    DATABASE_URL: postgres.url,
    ...(redis ? { REDIS_URL: redis.url } : {}),
    API_KEY_SECRET: 'replica-test-secret-0123456789abcdef',
    KEY_RELOAD_MS: '500', // the default: revocation must reach every replica within a second with it
    AUTH_FAILURES_PER_MIN: '1000000', // waiting for a key to be accepted or refused polls with it
    ...(opts.env ?? {}),
  };
  const env = testEnv(tempDir(), shared);
  // Each replica its own DATA_DIR: whatever they share, they share through Redis and PostgreSQL.
  const processes = await Promise.all(Array.from({ length: opts.count }, () => spawnService(testEnv(tempDir(), shared), t)));
  const bases = processes.map((p) => `http://127.0.0.1:${p.port}`);
  const createKey = async (o: { calculate?: number; upload?: number; owner?: string } = {}) => {
    const args = ['--name', `k${Math.random().toString(36).slice(2, 8)}`, '--owner', o.owner ?? 'desk'];
    if (o.calculate !== undefined) args.push('--calculate-limit', String(o.calculate));
    if (o.upload !== undefined) args.push('--upload-limit', String(o.upload));
    return createKeyWithCli(env, args);
  };
  return { redis, postgres, bases, processes, env, createKey };
}
