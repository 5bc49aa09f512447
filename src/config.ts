import os from 'node:os';
import path from 'node:path';
import { type EngineChoice } from './engine/load.js';

/** Service configuration: environment variables over embedded defaults (see README). */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  secretFile: string;
  workers: number;
  engine: EngineChoice;
  maxUploadBytes: number;
  maxSymbols: number;
  /** Per-owner storage quota: datasets, and bytes of their stored encodings. */
  maxDatasetsPerOwner: number;
  maxStoredBytesPerOwner: number;
  maxSimulations: number;
  maxQueue: number;
  calcTimeoutMs: number;
  /** Share of the admissible work one owner may hold, in percent (see admission.ts). */
  admissionOwnerSharePct: number;
  /** Peak memory the admitted calculations may hold together (see `workBytes`). */
  admissionMemoryMb: number;
  /** Memory the cached estimates may hold together (see `estimateBytes`). */
  estimateCacheMb: number;
  uploadPerMin: number;
  calculatePerMin: number;
  batchPerMin: number;
  stressPerMin: number;
  backtestPerMin: number;
  authFailuresPerMin: number;
  /** Peers whose X-Forwarded-For names the client (TRUSTED_PROXIES); empty = the TCP peer is the client. */
  trustedProxies: string[];
  logLevel: string;
  shutdownGraceMs: number;
  keyReloadMs: number;
  /** Shared rate limits across replicas; unset = in-process buckets. */
  redisUrl: string | undefined;
  /** Shared keys and datasets across replicas; unset = files under DATA_DIR. */
  databaseUrl: string | undefined;
  /** How long a replica uses a cached dataset before checking it still exists. */
  datasetRecheckMs: number;
  /** How long start-up waits for the database to accept connections. */
  databaseWaitMs: number;
  /** The bearer token GET /metrics requires; unset = /metrics only on a loopback listener. */
  metricsToken: string | undefined;
  /** Live risk (api.md §17): subscriptions per key at once, over all its sockets. */
  liveMaxSubscriptions: number;
  /** Scenario memory one live subscription may keep: its kept units, their group sums and kept worst rows (README's formula). */
  liveScenarioMb: number;
  /** Scenario memory all live subscriptions together may keep, whatever their keys and owners. */
  liveTotalScenarioMb: number;
  /** Messages per second one live socket may send (a token bucket of that capacity). */
  liveMessagesPerSec: number;
  /** Seconds without a message either way before uWS closes a live socket (it pings before). */
  liveIdleTimeoutS: number;
  /** Bytes a live socket may have unsent before its updates wait (the latest one per subscription). */
  liveMaxBufferedBytes: number;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer in [${min}, ${max}], got "${raw}"`);
  }
  return value;
}

/** A secret setting: unset, or at least 16 printable ASCII characters without spaces (a header's token). */
function token(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!/^[\x21-\x7e]{16,}$/.test(raw)) throw new Error(`${name} must be at least 16 printable ASCII characters without spaces`);
  return raw;
}

const ENGINES: EngineChoice[] = ['auto', 'wasm', 'native', 'wasm-scalar'];

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const engine = (env.ENGINE ?? 'auto') as EngineChoice;
  if (!ENGINES.includes(engine)) throw new Error(`ENGINE must be one of ${ENGINES.join(', ')}`);
  const dataDir = path.resolve(env.DATA_DIR ?? './data');
  const workers = int(env, 'WORKERS', Math.max(1, os.availableParallelism()), 1, 256);
  return {
    port: int(env, 'PORT', 8080, 0, 65535),
    host: env.HOST ?? '0.0.0.0',
    dataDir,
    // The HMAC secret lives outside DATA_DIR, so a copy of the data cannot be checked offline, and in a
    // directory of this DATA_DIR's own (beside it), never one every instance with a sibling would share.
    secretFile: path.resolve(env.SECRET_FILE ?? path.join(path.dirname(dataDir), `.${path.basename(dataDir)}-secrets`, 'api-key-hmac')),
    workers,
    engine,
    maxUploadBytes: int(env, 'MAX_UPLOAD_BYTES', 50 * 1024 * 1024, 1, 2 ** 31),
    maxSymbols: int(env, 'MAX_SYMBOLS', 5000, 1, 100_000),
    maxDatasetsPerOwner: int(env, 'MAX_DATASETS_PER_OWNER', 1000, 1, 1_000_000_000),
    maxStoredBytesPerOwner: int(env, 'MAX_STORED_BYTES_PER_OWNER', 10 * 1024 ** 3, 1, Number.MAX_SAFE_INTEGER),
    maxSimulations: int(env, 'MAX_SIMULATIONS', 10_000_000, 100, 100_000_000),
    maxQueue: int(env, 'MAX_QUEUE', 256, 1, 100_000),
    calcTimeoutMs: int(env, 'CALC_TIMEOUT_MS', 30_000, 1, 3_600_000),
    admissionOwnerSharePct: int(env, 'ADMISSION_OWNER_SHARE_PCT', 50, 1, 100),
    // Half the machine's memory by default: the rest for the process, its datasets and the OS.
    admissionMemoryMb: int(env, 'ADMISSION_MEMORY_MB', Math.floor(os.totalmem() / 2 / 1024 ** 2), 1, 2 ** 30),
    // An eighth of the machine's memory: beside the admitted work (a half) and live books (a quarter).
    estimateCacheMb: int(env, 'ESTIMATE_CACHE_MB', Math.floor(os.totalmem() / 8 / 1024 ** 2), 1, 2 ** 30),
    uploadPerMin: int(env, 'RATE_LIMIT_UPLOAD_PER_MIN', 2, 1, 1_000_000),
    calculatePerMin: int(env, 'RATE_LIMIT_CALCULATE_PER_MIN', 10, 1, 1_000_000),
    batchPerMin: int(env, 'RATE_LIMIT_BATCH_PER_MIN', 10, 1, 1_000_000),
    stressPerMin: int(env, 'RATE_LIMIT_STRESS_PER_MIN', 10, 1, 1_000_000),
    backtestPerMin: int(env, 'RATE_LIMIT_BACKTEST_PER_MIN', 5, 1, 1_000_000),
    authFailuresPerMin: int(env, 'AUTH_FAILURES_PER_MIN', 20, 1, 1_000_000),
    trustedProxies: (env.TRUSTED_PROXIES ?? '')
      .split(',')
      .map((a) => a.trim())
      .filter((a) => a !== ''),
    logLevel: env.LOG_LEVEL ?? 'info',
    shutdownGraceMs: int(env, 'SHUTDOWN_GRACE_MS', 25_000, 0, 600_000),
    keyReloadMs: int(env, 'KEY_RELOAD_MS', 500, 50, 60_000),
    redisUrl: env.REDIS_URL || undefined,
    databaseUrl: env.DATABASE_URL || undefined,
    datasetRecheckMs: int(env, 'DATASET_RECHECK_MS', 250, 0, 1_000),
    databaseWaitMs: int(env, 'DATABASE_WAIT_MS', 30_000, 0, 600_000),
    metricsToken: token(env, 'METRICS_TOKEN'),
    liveMaxSubscriptions: int(env, 'LIVE_MAX_SUBSCRIPTIONS', 8, 1, 10_000),
    liveScenarioMb: int(env, 'LIVE_SCENARIO_MB', 256, 1, 2 ** 20),
    liveTotalScenarioMb: int(env, 'LIVE_TOTAL_SCENARIO_MB', Math.floor(os.totalmem() / 4 / 1024 ** 2), 1, 2 ** 30),
    liveMessagesPerSec: int(env, 'LIVE_MESSAGES_PER_SEC', 50, 1, 1_000_000),
    // uWS takes 0 (never) or at least 8 seconds, in steps of 4.
    liveIdleTimeoutS: 4 * Math.ceil(int(env, 'LIVE_IDLE_TIMEOUT_S', 120, 8, 960) / 4),
    liveMaxBufferedBytes: int(env, 'LIVE_MAX_BUFFERED_BYTES', 1024 * 1024, 1024, 2 ** 30),
  };
}
