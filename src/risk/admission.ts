import { MONTE_CARLO, type CalculateRequest } from '../contract/schemas.js';
import { samplesThroughLoadings } from '../engine/sampling-rule.js';

/**
 * Extra cost of a scenario in the tail, per book and asset, against drawing and pricing it once:
 * the trackers keep every asset's P&L of the ⌈(1 − c)·N⌉ worst candidates and each asset's tail
 * (measured on WASM: 10 assets, 10⁶ to 10⁷ simulations, c = 0.6 takes 1.5 to 1.8× the time of c = 0.99).
 */
export const TAIL_WEIGHT = 12;

/** Admitted work may fill this share of a deadline: the rest absorbs the estimate's error. */
export const ADMIT_SHARE = 0.75;

/** Calculations smaller than this teach the cost model nothing (their time is mostly overhead). */
const LEARN_MIN_UNITS = 2e6;

/** Least weight of the newest observation in the running ns-per-unit estimate (the first ones weigh more). */
const LEARN_RATE = 0.3;

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
}

/** Cost units of a calculation: proportional to its engine time on one worker. */
export function workUnits(w: WorkShape): number {
  // The engine's factor: n×m loadings, or triangular n×n.
  const draw = w.correlated ? (samplesThroughLoadings(w.window, w.assets) ? w.assets * w.window : (w.assets * (w.assets + 1)) / 2) : w.assets;
  const price = w.books * w.assets;
  return w.scenarios * (w.steps * (draw + price) + price * TAIL_WEIGHT * (1 - w.confidence));
}

/** Days simulated one by one: the horizon for rebalanced paths and Student-t (one mixing draw a day), else 1. */
export function steppedDays(method: string, rebalanced: boolean, horizon: number): number {
  return rebalanced || method === 'monte_carlo_student_t' ? horizon : 1;
}

type ShapeRequest = Pick<CalculateRequest, 'method' | 'simulations' | 'time_horizon' | 'portfolio_mode' | 'confidence_level' | 'method_options'>;

/** The shape of a calculate or batch request over `assets` symbols of a dataset of `dates` dates. */
export function requestShape(req: ShapeRequest, assets: number, books: number, dates: number): WorkShape {
  const simulated = MONTE_CARLO.has(req.method);
  return {
    // Historical windows: at most one per date (the estimation window only shortens it).
    scenarios: simulated ? (req.simulations ?? 0) : req.method === 'historical' ? Math.max(0, dates - req.time_horizon) : 0,
    assets,
    books,
    steps: steppedDays(req.method, req.portfolio_mode === 'rebalanced', req.time_horizon),
    correlated: simulated,
    window: Math.max(1, Math.min(req.method_options?.lookback ?? Infinity, dates - 1)),
    // Importance sampling keeps every scenario with its asset P&L: the whole sample is the tail.
    confidence: req.method_options?.variance_reduction === 'importance_sampling' ? 0 : req.confidence_level,
  };
}

/** A calculation refused because the work queued before it would not leave it time to finish. */
export class OverloadError extends Error {
  constructor(
    /** Whole seconds until the work queued now is estimated to be done (at least 1). */
    readonly retryAfterS: number,
    readonly queuedMs: number,
  ) {
    super('the work queued before this calculation would not leave it time to finish before its deadline');
    this.name = 'OverloadError';
  }
}

/**
 * What a completed calculation measured: its wall time less the time its tasks waited for a worker
 * (so the engine's compute and the work around it, on this thread), and its engine tasks.
 */
export interface Measured {
  busyMs: number;
  tasks: number;
}

/** An admitted calculation: release it once, with what it measured when it completed. */
export interface Ticket {
  release(measured?: Measured): void;
}

/**
 * Admission with goodput: a calculation is admitted only if the work already admitted and unfinished
 * plus its own, spread over the workers, is estimated to end before its deadline; else it is refused
 * at once (OverloadError) rather than computed until it times out. The first calculation on an idle
 * service is always admitted: nothing else would answer it sooner. The cost model — ns of worker
 * time per unit of `workUnits` — is calibrated at start and follows the calculations it measures.
 */
export class WorkAdmission {
  private queuedMs = 0;
  private running = 0;
  /** Measurements behind the estimate, the calibration included. */
  private observations = 1;
  /** Calculations refused so far. */
  refusals = 0;

  constructor(
    private readonly workers: number,
    private nsPerUnit: number,
  ) {}

  /** The current estimate, ns of worker time per work unit. */
  get costPerUnitNs(): number {
    return this.nsPerUnit;
  }

  /** Estimated worker-ms of the calculations admitted and not yet finished. */
  get queuedWorkMs(): number {
    return this.queuedMs;
  }

  /** Admits a calculation of `units` that must end within `budgetMs`, or throws OverloadError. */
  admit(units: number, budgetMs: number): Ticket {
    const costMs = (units * this.nsPerUnit) / 1e6;
    const endsInMs = (this.queuedMs + costMs) / this.workers;
    if (this.running > 0 && endsInMs > ADMIT_SHARE * budgetMs) {
      this.refusals++;
      throw new OverloadError(Math.max(1, Math.ceil(this.queuedMs / this.workers / 1000)), this.queuedMs);
    }
    this.queuedMs += costMs;
    this.running++;
    let open = true;
    return {
      release: (measured?: Measured) => {
        if (!open) return;
        open = false;
        this.running--;
        // Float residue must not leave phantom work behind once everything has finished.
        this.queuedMs = this.running === 0 ? 0 : Math.max(0, this.queuedMs - costMs);
        // Tasks beyond the worker count ran one after another: the slowest ones already add up.
        if (measured) this.learn(units, measured.busyMs * Math.min(Math.max(1, measured.tasks), this.workers));
      },
    };
  }

  /** Moves the estimate toward a measured calculation of `units` that took `workerMs` of worker time. */
  learn(units: number, workerMs: number): void {
    if (units < LEARN_MIN_UNITS || !(workerMs > 0) || !Number.isFinite(workerMs)) return;
    // A running mean at first (the calibration is one small calculation), then an exponential one.
    this.observations++;
    this.nsPerUnit += Math.max(LEARN_RATE, 1 / this.observations) * ((workerMs * 1e6) / units - this.nsPerUnit);
  }
}
