import { promises as fs } from 'node:fs';
import { pino, type Logger } from 'pino';
import { KeyRegistry } from './auth/key-registry.js';
import { type KeyStore } from './auth/key-store.js';
import { loadKeySecret } from './auth/secret.js';
import { openBackends } from './backends.js';
import { type Config } from './config.js';
import { resolveEngineSource } from './engine/load.js';
import { checkUwsRuntime, startHttpServer, type HttpServer } from './http/server.js';
import { EnginePool } from './pool/engine-pool.js';
import { EstimateCache } from './risk/estimate-cache.js';
import { calibratedAdmission } from './risk/admission-calibration.js';

export interface RunningService {
  port: number;
  log: Logger;
  keys: KeyStore;
  /** Stops accepting, finishes in-flight requests (up to the grace period), stops the pool. */
  shutdown(): Promise<void>;
}

/** Wires the service: stores and limits (backends), keys, the engine pool, then the HTTP layer. */
export async function startService(config: Config, log: Logger = pino({ level: config.logLevel })): Promise<RunningService> {
  await fs.mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const secret = loadKeySecret(config.secretFile);
  let limiterFallbacks = 0;
  const backends = await openBackends(config, secret, log, () => limiterFallbacks++);
  const { keys, datasets } = backends;
  const registry = new KeyRegistry(keys, secret);
  await registry.start(config.keyReloadMs);
  const swept = await datasets.open();
  if (swept > 0) log.warn({ swept }, 'removed temp files left by an earlier crash');

  const source = resolveEngineSource(config.engine);
  const pool = new EnginePool(source, config.workers, config.maxQueue);
  const admission = await calibratedAdmission(pool, config.workers, config.admissionOwnerSharePct / 100, config.admissionMemoryMb * 1024 ** 2);
  let draining = false;
  const server: HttpServer = await startHttpServer({
    config,
    log,
    keys: registry,
    limiter: backends.limiter,
    datasets,
    calculator: {
      datasets,
      executor: pool,
      estimates: new EstimateCache(config.estimateCacheMb * 1024 ** 2),
      engine: { build: source.build, version: source.version, threads: config.workers },
      maxBatches: config.workers,
      timeoutMs: config.calcTimeoutMs,
      admission,
      mergeCounts: { fullTailRepeats: 0 },
    },
    pool: { queueDepth: () => pool.queueSize, threads: () => pool.threads, inFlight: () => pool.inFlight, workerRestarts: () => pool.workerRestarts },
    limiterFallbacks: () => limiterFallbacks,
    draining: () => draining,
  });
  log.info(
    {
      port: server.port,
      engine: source.build,
      workers: config.workers,
      data_dir: config.dataDir,
      admission_ns_per_unit: admission.costPerUnitNs,
      ...backends.shared,
    },
    'listening',
  );
  if (registry.size === 0) log.warn('no API keys exist: create one with `npm run keys -- create --name NAME`');

  return {
    port: server.port,
    log,
    keys,
    async shutdown() {
      draining = true;
      server.stopListening();
      server.closeLiveSockets();
      const deadline = Date.now() + config.shutdownGraceMs;
      while (server.inFlight() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      registry.stop();
      await pool.close();
      await backends.close();
      log.info({ unfinished: server.inFlight() }, 'stopped');
    },
  };
}

/** Throws unless uWebSockets.js can serve on this runtime (its native binary exists for this Node). */
export function checkServingRuntime(): void {
  checkUwsRuntime();
}
