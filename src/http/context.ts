import { type Logger } from 'pino';
import { type CalculatorDeps } from '../calc/calculate.js';
import { type Config } from '../config.js';
import { type DatasetStore } from '../storage/dataset-store.js';
import { type AccessGuard } from './access-guard.js';
import { type CalculateRequest } from './schemas.js';
import { type ServiceMetrics } from './service-metrics.js';
import { type Exchange } from './exchange.js';

/** What every handler may use; built once at start-up. */
export interface AppContext {
  config: Config;
  log: Logger;
  guard: AccessGuard;
  datasets: DatasetStore;
  calculator: CalculatorDeps;
  metrics: ServiceMetrics;
  validateCalculate: (value: unknown) => CalculateRequest;
  openapi: string;
  /** Engine loaded and pool up. */
  ready: () => boolean;
  draining: () => boolean;
}

export type Handler = (ctx: AppContext, ex: Exchange, params: Record<string, string>) => Promise<void> | void;
