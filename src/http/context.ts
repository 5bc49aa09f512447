import { type Logger } from 'pino';
import { type KeyRegistry } from '../auth/key-registry.js';
import { type Config } from '../config.js';
import { type BatchRequest, type CalculateRequest } from '../contract/schemas.js';
import { type StressRequestBody } from '../contract/stress-schemas.js';
import { type BacktestRequest } from '../contract/backtest-schemas.js';
import { type DatasetStore } from '../datasets/dataset-store.js';
import { type RateLimiter } from '../limits/rate-limiter.js';
import { type CalculatorDeps } from '../risk/calculate.js';
import { type AccessGuard } from './access-guard.js';
import { type Exchange } from './exchange.js';
import { type ServiceMetrics } from './service-metrics.js';

/** What the service hands the HTTP layer: the domain's services, none of them knowing HTTP. */
export interface HttpServices {
  config: Config;
  log: Logger;
  keys: KeyRegistry;
  limiter: RateLimiter;
  datasets: DatasetStore;
  calculator: CalculatorDeps;
  /** The engine pool's state, for /metrics and /readyz. */
  pool: { queueDepth(): number; threads(): number; inFlight(): number; workerRestarts(): number };
  /** Rate-limit decisions taken in process because the shared store was unavailable, so far. */
  limiterFallbacks(): number;
  draining(): boolean;
}

/** What every handler may use; built once from the services (server.ts). */
export interface AppContext {
  config: Config;
  log: Logger;
  guard: AccessGuard;
  datasets: DatasetStore;
  calculator: CalculatorDeps;
  metrics: ServiceMetrics;
  validateCalculate: (value: unknown) => CalculateRequest;
  validateBatch: (value: unknown) => BatchRequest;
  validateStress: (value: unknown) => StressRequestBody;
  validateBacktest: (value: unknown) => BacktestRequest;
  openapi: string;
  /** Engine loaded and pool up. */
  ready: () => boolean;
  draining: () => boolean;
}

export type Handler = (ctx: AppContext, ex: Exchange, params: Record<string, string>) => Promise<void> | void;
