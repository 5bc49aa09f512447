import { HISTORICAL_WINDOWS, MONTE_CARLO, type CalculateRequest } from '../contract/schemas.js';
import { samplesThroughLoadings } from '../engine/sampling-rule.js';
import { bootstraps } from './history/bootstrap-paths.js';

// The cost model admission reads (admission.ts): a calculation's work in units proportional to its
// engine time, and its peak memory in bytes, from the shape of the request alone.

/**
 * Extra cost of a scenario in the tail, per book and asset, against drawing and pricing it once:
 * the trackers keep every asset's P&L of the ⌈(1 − c)·N⌉ worst candidates and each asset's tail
 * (measured on WASM: 10 assets, 10⁶ to 10⁷ simulations, c = 0.6 takes 1.5 to 1.8× the time of c = 0.99).
 */
export const TAIL_WEIGHT = 12;
/** Work units (about one multiply-add each) of one option repriced once: two Φ, a log, exps. */
export const OPTION_REPRICING_UNITS = 60;

/** The size of one calculation, as the cost model reads it. */
export interface WorkShape {
  /** Scenarios drawn (simulations, or historical windows); 0 for the closed form. */
  scenarios: number;
  assets: number;
  books: number;
  /** Days simulated one by one (rebalanced or Student-t: the horizon; else 1). */
  steps: number;
  /** Whether each scenario is correlated through a covariance factor (Monte Carlo). */
  correlated: boolean;
  /** Returns in the estimation window at most: the columns of a loadings factor. */
  window: number;
  confidence: number;
  /**
   * Columns of kept scenarios the calculation holds at once, `scenarios` values each (option books:
   * `optionBookShape`); 0 when scenarios are priced as drawn.
   */
  kept?: number;
}

/** Cost units of a calculation: proportional to its engine time on one worker. */
export function workUnits(w: WorkShape): number {
  // The engine's factor: n×m loadings, or triangular n×n.
  const draw = w.correlated ? (samplesThroughLoadings(w.window, w.assets) ? w.assets * w.window : (w.assets * (w.assets + 1)) / 2) : w.assets;
  const price = w.books * w.assets;
  return w.scenarios * (w.steps * (draw + price) + price * TAIL_WEIGHT * (1 - w.confidence));
}

/**
 * Bytes a calculation holds at its peak, as the engine keeps them: each book's P&L per scenario,
 * and the tail's ⌈(1 − c)·N⌉ scenarios per book with their assets' P&L (importance sampling: c = 0,
 * every scenario), and any kept scenarios. Measured: one batch of 200 books × 10 assets × 500,000
 * simulations peaked near 1.6 GB of RSS, 0.8 GB of it these P&L values.
 */
export function workBytes(w: WorkShape): number {
  // Less a hair: (1 − 0.99)·1000 is 10.000000000000009 in doubles, and the tail 10 scenarios.
  const tail = Math.ceil((1 - w.confidence) * w.scenarios - 1e-9) * (2 * w.assets + 2) * w.books;
  return 8 * (w.books * w.scenarios + tail + w.scenarios * (w.kept ?? 0));
}

/** Days simulated one by one: the horizon for rebalanced paths and Student-t (one mixing draw a day), else 1. */
export function steppedDays(method: string, rebalanced: boolean, horizon: number): number {
  return rebalanced || method === 'monte_carlo_student_t' ? horizon : 1;
}

type ShapeRequest = Pick<CalculateRequest, 'method' | 'simulations' | 'time_horizon' | 'portfolio_mode' | 'confidence_level' | 'method_options'>;

/** The shape of a calculate or batch request over `assets` symbols of a dataset of `dates` dates. */
export function requestShape(req: ShapeRequest, assets: number, books: number, dates: number): WorkShape {
  const simulated = MONTE_CARLO.has(req.method);
  // Filtered history over T > 1 days: `simulations` paths of T drawn days each.
  const paths = bootstraps(req);
  return {
    // Historical windows: at most one per date (the estimation window only shortens it).
    scenarios: simulated || paths ? (req.simulations ?? 0) : HISTORICAL_WINDOWS.has(req.method) ? Math.max(0, dates - req.time_horizon) : 0,
    assets,
    books,
    steps: paths ? req.time_horizon : steppedDays(req.method, req.portfolio_mode === 'rebalanced', req.time_horizon),
    correlated: simulated,
    window: Math.max(1, Math.min(req.method_options?.lookback ?? Infinity, dates - 1)),
    // Importance sampling keeps every scenario with its asset P&L: the whole sample is the tail.
    confidence: req.method_options?.variance_reduction === 'importance_sampling' ? 0 : req.confidence_level,
  };
}

/**
 * The shape of a request over option books (api.md §15): it holds the `stock` drawn units as kept
 * scenarios, and prices its `optionColumns` block by block, never holding them.
 */
export function optionBookShape(req: ShapeRequest, stock: number, optionColumns: number, books: number, dates: number): WorkShape {
  return { ...requestShape(req, stock + optionColumns, books, dates), kept: stock };
}
