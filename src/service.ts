import { promises as fs } from 'node:fs';
import { pino, type Logger } from 'pino';
import { KeyRegistry } from './auth/key-registry.js';
import { type KeyStore } from './auth/key-store.js';
import { openBackends } from './backends.js';
import { loadKeySecret } from './auth/secret.js';
import { EstimateCache } from './calc/estimate-cache.js';
import { type Config } from './config.js';
import { buildName, engineVersion, resolveEngineSource } from './engine/load.js';
import { AccessGuard } from './http/access-guard.js';
import { type AppContext } from './http/context.js';
import { buildOpenApi } from './http/openapi.js';
import { calculateRequestSchema } from './http/schemas.js';
import { startHttpServer, type HttpServer } from './http/server.js';
import { ServiceMetrics } from './http/service-metrics.js';
import { compileValidator } from './http/validator.js';
import { EnginePool } from './pool/engine-pool.js';

export interface RunningService {
  port: number;
  log: Logger;
  keys: KeyStore;
  /** Stops accepting, finishes in-flight requests (up to the grace period), stops the pool. */
  shutdown(): Promise<void>;
}

export async function startService(config: Config, log: Logger = pino({ level: config.logLevel })): Promise<RunningService> {
  await fs.mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const secret = loadKeySecret(config.secretFile);
  const metrics = new ServiceMetrics(
    () => pool.queueSize,
    () => pool.threads,
    () => pool.inFlight,
  );
  const backends = await openBackends(config, secret, log, () => metrics.limiterFallbacks.inc());
  const { keys, datasets } = backends;
  const registry = new KeyRegistry(keys, secret);
  await registry.start(config.keyReloadMs);
  const swept = await datasets.open();
  if (swept > 0) log.warn({ swept }, 'removed temp files left by an earlier crash');

  const source = resolveEngineSource(config.engine);
  const pool = new EnginePool(source, config.workers, config.maxQueue);
  const build = buildName(source);
  const requestSchema = calculateRequestSchema(config.maxSimulations);
  let draining = false;
  const ctx: AppContext = {
    config,
    log,
    guard: new AccessGuard(registry, backends.limiter, config),
    datasets,
    calculator: {
      datasets,
      executor: pool,
      estimates: new EstimateCache(),
      engine: { build, version: engineVersion(), threads: config.workers },
      maxBatches: config.workers,
      timeoutMs: config.calcTimeoutMs,
    },
    metrics,
    validateCalculate: compileValidator(requestSchema),
    openapi: buildOpenApi(requestSchema, engineVersion()),
    ready: () => pool.threads > 0,
    draining: () => draining,
  };
  const server: HttpServer = await startHttpServer(ctx);
  log.info({ port: server.port, engine: build, workers: config.workers, data_dir: config.dataDir, ...backends.shared }, 'listening');
  if (registry.size === 0) log.warn('no API keys exist: create one with `npm run keys -- create --name NAME`');

  return {
    port: server.port,
    log,
    keys,
    async shutdown() {
      draining = true;
      server.stopListening();
      const deadline = Date.now() + config.shutdownGraceMs;
      while (server.inFlight() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      registry.stop();
      await pool.close();
      await backends.close();
      log.info({ unfinished: server.inFlight() }, 'stopped');
    },
  };
}
