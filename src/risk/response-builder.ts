import { newCalculationId } from '../ids.js';
import { type EngineMetrics, type Estimation } from '../engine/codec.js';
import { DEFAULTS, type CalculateRequest, type CalculateResponseBody } from '../contract/schemas.js';
import { type PhaseTiming } from './risk-calculation.js';

export interface ResolvedOptions {
  seed: number | null;
  drift: 'sample' | 'zero';
  covariance: 'sample' | 'ewma';
  ewmaLambda: number | null;
  lookback: number | null;
  degreesOfFreedom: number | null;
}

export interface EngineInfo {
  build: string;
  version: string;
  threads: number;
}

const PERCENTILE_KEYS = ['p01', 'p05', 'p10', 'p25', 'p50', 'p75', 'p90', 'p95', 'p99'] as const;

/** The response body of a successful calculation (shape in the API contract, §5). */
export function buildResponse(
  req: CalculateRequest,
  dates: string[],
  est: Estimation,
  m: EngineMetrics,
  opts: ResolvedOptions,
  engine: EngineInfo,
  timing: PhaseTiming & { totalMs: number },
): CalculateResponseBody {
  const v = req.portfolio_value;
  const symbols = req.portfolio.map((p) => p.symbol);
  const perSymbol = (xs: Float64Array) => Object.fromEntries(symbols.map((s, i) => [s, xs[i]!]));
  const round = (ms: number) => Math.round(ms * 1000) / 1000;
  return {
    status: 'success',
    meta: {
      calculation_id: newCalculationId(),
      dataset_id: req.dataset_id,
      method: req.method,
      portfolio_mode: req.portfolio_mode ?? DEFAULTS.portfolio_mode,
      currency: req.currency,
      portfolio_value: v,
      confidence_level: req.confidence_level,
      time_horizon: req.time_horizon,
      simulations: req.method === 'parametric_normal' ? null : m.scenarios,
      degrees_of_freedom: opts.degreesOfFreedom,
      seed: opts.seed,
      metrics: {
        value_at_risk: m.valueAtRisk,
        value_at_risk_pct: m.valueAtRisk / v,
        expected_shortfall: m.expectedShortfall,
        expected_shortfall_pct: m.expectedShortfall / v,
        expected_pnl: m.expectedPnl,
        volatility: m.volatility,
        probability_of_loss: m.probabilityOfLoss,
        worst_loss: m.worstLoss,
        best_gain: m.bestGain,
        value_at_risk_standard_error: m.valueAtRiskStandardError,
        expected_shortfall_standard_error: m.expectedShortfallStandardError,
        percentiles: Object.fromEntries(PERCENTILE_KEYS.map((k, i) => [k, m.percentiles[i]!])),
      },
      contributions: req.portfolio.map((p, i) => ({
        symbol: p.symbol,
        weight: p.weight,
        component_es: m.componentEs[i]!,
        component_es_pct: m.componentEs[i]! / v,
        standalone_var: m.standaloneVar[i]!,
      })),
      distribution: { bin_edges: m.binEdges, counts: m.counts },
      estimation: {
        observations: est.observations,
        first_date: dates[est.firstDate] ?? '',
        last_date: dates[est.lastDate] ?? '',
        return_type: 'log',
        covariance: opts.covariance,
        ewma_lambda: opts.ewmaLambda,
        drift: opts.drift,
        lookback: opts.lookback,
        jitter: est.jitter,
        covariance_repaired: est.jitter > 0,
        daily_mean: perSymbol(est.mean),
        daily_volatility: perSymbol(est.volatility),
      },
      conventions: {
        var_sign: 'loss_positive',
        quantile: 'k=ceil((1-c)N)',
        es: 'mean of k worst',
        percentiles: 'p_q = x_(ceil(q N)), P&L ascending',
      },
      engine: { ...engine, batches: timing.batches },
      timing_ms: { queue: round(timing.queueMs), engine: round(timing.computeMs), total: round(timing.totalMs) },
    },
  };
}

/** Every number in the response is finite (the contract's promise); anything else is a bug. */
export function allFinite(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(allFinite);
  if (value && typeof value === 'object') return Object.values(value).every(allFinite);
  return true;
}
