import { type Logger } from 'pino';
import { FileKeyStore, type KeyStore } from './auth/key-store.js';
import { PgKeyStore } from './auth/pg-key-store.js';
import { type Config } from './config.js';
import { LocalRateLimiter, type RateLimiter } from './limits/rate-limiter.js';
import { RedisRateLimiter } from './limits/redis-rate-limiter.js';
import { FileDatasetStore, type DatasetStore } from './datasets/dataset-store.js';
import { PgDatasetStore } from './datasets/pg-dataset-store.js';
import { Database, waitForDatabase } from './persistence/database.js';
import { migrate } from './persistence/migrations.js';

/** Where the service keeps its state: embedded (files, in-process limits) or shared by replicas. */
export interface Backends {
  keys: KeyStore;
  datasets: DatasetStore;
  limiter: RateLimiter;
  shared: { keys_and_datasets: 'files' | 'postgresql'; rate_limits: 'process' | 'redis' };
  close(): Promise<void>;
}

/** The database, reachable and migrated to the current schema. */
async function openDatabase(url: string, config: Config, log: Logger): Promise<Database> {
  const db = new Database(url, log, { queryTimeoutMs: Math.max(config.calcTimeoutMs, 10_000) });
  try {
    await waitForDatabase(db, config.databaseWaitMs, log);
    const applied = await migrate(db);
    if (applied.length > 0) log.info({ versions: applied }, 'database migrations applied');
    return db;
  } catch (e) {
    await db.close().catch(() => undefined);
    throw e;
  }
}

/** The database when DATABASE_URL is set, else null (the embedded stores). */
async function databaseOf(config: Config, log: Logger): Promise<Database | null> {
  return config.databaseUrl ? openDatabase(config.databaseUrl, config, log) : null;
}

function keyStoreOn(db: Database | null, config: Config, secret: Buffer): KeyStore {
  return db ? new PgKeyStore(db, secret) : new FileKeyStore(config.dataDir, secret);
}

/** The key store alone (the keys CLI). */
export async function openKeyStore(config: Config, secret: Buffer, log: Logger): Promise<{ keys: KeyStore; close(): Promise<void> }> {
  const db = await databaseOf(config, log);
  return { keys: keyStoreOn(db, config, secret), close: async () => db?.close() };
}

export async function openBackends(config: Config, secret: Buffer, log: Logger, onLimiterFallback: () => void): Promise<Backends> {
  const db = await databaseOf(config, log);
  const limiter = config.redisUrl ? new RedisRateLimiter(config.redisUrl, log, onLimiterFallback) : new LocalRateLimiter();
  return {
    keys: keyStoreOn(db, config, secret),
    datasets: db ? new PgDatasetStore(db, config.datasetRecheckMs) : new FileDatasetStore(config.dataDir),
    limiter,
    shared: { keys_and_datasets: db ? 'postgresql' : 'files', rate_limits: config.redisUrl ? 'redis' : 'process' },
    async close() {
      await limiter.close();
      await db?.close();
    },
  };
}
