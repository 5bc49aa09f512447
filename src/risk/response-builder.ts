import { newCalculationId } from '../ids.js';
import { type EngineMetrics, type EngineResults } from '../engine/results-codec.js';
import { type Estimation } from '../engine/codec.js';
import { ABI } from '../engine/abi.js';
import { DEFAULTS, MONTE_CARLO, type CalculateRequest } from '../contract/schemas.js';
import { PERCENTILE_KEYS, type BatchResponseBody, type CalculateResponseBody } from '../contract/responses.js';
import { exposureSummary, type PricedBook } from './books.js';
import { type PhaseTiming } from './phase-timing.js';
import { type Precision } from './precision.js';
import { type ResolvedOptions } from './model-setup.js';
import { type HistoryExtras } from './history/history-methods.js';
import { GARCH_FALLBACK_LAMBDA } from './history/filtered-estimation.js';

export interface EngineInfo {
  build: string;
  version: string;
  threads: number;
}

/** What every response of one calculation shares, whatever its book(s). */
export interface Calculation {
  request: Pick<CalculateRequest, 'dataset_id' | 'method' | 'portfolio_mode' | 'currency' | 'confidence_level' | 'time_horizon' | 'method_options'>;
  /** The scenarios' symbols (the set of the books'), the dataset's order, which the estimation keeps. */
  symbols: string[];
  /** Every symbol of the request as an index into `symbols`, in the order the request first names it. */
  listing: number[];
  /** Each symbol's price on the estimation's last date. */
  prices: Float64Array;
  dates: string[];
  est: Estimation;
  opts: ResolvedOptions;
  engine: EngineInfo;
  timing: PhaseTiming & { totalMs: number };
  /** With method_options.target_relative_error: what the rounds reached. */
  precision: Precision | null;
  /** Filtered history's filter state and Cornish–Fisher's moments (nulls for the other methods). */
  extras: HistoryExtras;
}

export const CONVENTIONS = {
  var_sign: 'loss_positive',
  quantile: 'k=ceil((1-c)N)',
  es: 'mean of k worst',
  percentiles: 'p_q = x_(ceil(q N)), P&L ascending',
  component_es: 'Euler: -mean of the position P&L over the k worst scenarios; sums to ES',
  component_var: '-mean of the position P&L over the scenarios ranked k-m..k+m, m=max(1,floor(sqrt(k))), rescaled to sum to VaR; parametric: Euler',
  marginal: 'component / exposure; 0 where the exposure is 0',
  exposures: 'e = quantity x last price of the estimation, or market_value; short = sum of negative exposures (<= 0); C = portfolio_value, else gross',
  importance_sampling:
    'z ~ N(theta, I), theta = -kappa a u / sqrt(D): u the unit direction of F^T e (e the first book’s exposures), a = phi(z_c)/(1-c), kappa = 1 (normal) or (nu-2)/nu (Student-t), D = normal draws a path adds (1, or T days); scenario s weighs w_s = exp(sum over its days of (-theta.z + |theta|^2/2)); with P&L ascending by (value, index), alpha = 1-c, the VaR scenario J is the first whose cumulative weight reaches alpha N; VaR = -x_J; ES = -(sum_{s<J} w_s x_s + f x_J)/(alpha N), f the part of w_J that fills alpha N; component ES: the same weighted tail mean of the position P&L; component VaR: the weighted mean over the scenarios ranked J-m..J+m, m=max(1,floor(sqrt(J))), rescaled to VaR; standalone VaR, percentiles, mean, volatility, probability of loss and histogram counts weigh each scenario by w_s; worst_loss and best_gain are the sample extremes',
  risk_factors:
    "the set of symbols the request names (book, trades, every batch book) and, over a multi-currency dataset, the FX columns their conversions into `currency` use, in the dataset's column order: the same book listed in any order gives the same figures; positions naming a symbol (or cash a currency) more than once add up (quantities and market values each); rows are listed in the request's order, each symbol once; a foreign position's log return is its series' plus its conversion's (R + F), cash's its conversion's",
  sampling:
    'R = T mu + sqrt(T) F z, z ~ N(0, I): F = Cholesky factor of Sigma (n x n), or, when the window has m <= n returns, F = loadings sqrt(w_t) (r_t - mean) (n x m, Sigma = F F^T exactly)',
} as const;

const round = (ms: number) => Math.round(ms * 1000) / 1000;
const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b);

function metricsBlock(m: EngineMetrics, capital: number) {
  return {
    value_at_risk: m.valueAtRisk,
    value_at_risk_pct: m.valueAtRisk / capital,
    expected_shortfall: m.expectedShortfall,
    expected_shortfall_pct: m.expectedShortfall / capital,
    expected_pnl: m.expectedPnl,
    volatility: m.volatility,
    probability_of_loss: m.probabilityOfLoss,
    worst_loss: m.worstLoss,
    best_gain: m.bestGain,
    value_at_risk_standard_error: m.valueAtRiskStandardError,
    expected_shortfall_standard_error: m.expectedShortfallStandardError,
    percentiles: Object.fromEntries(PERCENTILE_KEYS.map((k, i) => [k, m.percentiles[i]!])),
  };
}

/** One row per symbol the book names, in the order the request first names it. */
function contributions(c: Calculation, book: PricedBook, m: EngineMetrics) {
  return book.listed.map((i) => {
    const exposure = book.exposures[i]!;
    return {
      symbol: c.symbols[i]!,
      weight: book.engine.weights[i]!,
      exposure,
      component_es: m.componentEs[i]!,
      component_es_pct: m.componentEs[i]! / book.capital,
      component_var: m.componentVar[i]!,
      marginal_es: ratio(m.componentEs[i]!, exposure),
      marginal_var: ratio(m.componentVar[i]!, exposure),
      standalone_var: m.standaloneVar[i]!,
    };
  });
}

/** meta.cornish_fisher of book `b`, when the method is Cornish–Fisher. */
function cornishFisherBlock(c: Calculation, b: number) {
  const f = c.extras.cornishFisher?.[b];
  return f ? { cornish_fisher: { skewness: f.skewness, excess_kurtosis: f.excessKurtosis, valid: f.valid } } : {};
}

/** Sentences for meta.warnings: GARCH fits that fell back to EWMA, and the books (named by `labels`) whose Cornish–Fisher expansion is not monotone over the tail. */
function warnings(c: Calculation, labels: string[]) {
  const out: string[] = [];
  const fallbacks = c.extras.filter?.fallbacks ?? [];
  if (fallbacks.length > 0) {
    const symbols = fallbacks.map((i) => c.symbols[i]!);
    out.push(
      `The GARCH(1,1) fit did not converge or reached α + β ≥ 1 for ${symbols.slice(0, 20).join(', ')}${symbols.length > 20 ? ` and ${symbols.length - 20} more` : ''}: EWMA (λ ${GARCH_FALLBACK_LAMBDA}) filtered them instead (meta.filter).`,
    );
  }
  const invalid = (c.extras.cornishFisher ?? []).flatMap((f, b) => (f.valid ? [] : [labels[b]!]));
  if (invalid.length > 0) {
    const which = labels.length > 1 ? ` (${invalid.join(', ')})` : '';
    out.push(
      `The Cornish–Fisher expansion is not monotone over the tail at this skewness and excess kurtosis${which}: its tail quantiles are unreliable there; the figures are those of the stated formulas.`,
    );
  }
  return out.length > 0 ? { warnings: out } : {};
}

/** meta.filter: each listed symbol's filter state, for historical_filtered. */
function filterBlock(c: Calculation) {
  const f = c.extras.filter;
  if (!f) return {};
  return {
    filter: Object.fromEntries(
      c.listing.map((i) => [c.symbols[i]!, { current_volatility: f.current[i]!, long_run_volatility: f.longRun[i]!, parameters: f.parameters[i]! }]),
    ),
  };
}

/** One book's figures: what a calculate's meta and a batch's book entry have in common. */
function bookFigures(c: Calculation, book: PricedBook, m: EngineMetrics, b: number) {
  return {
    ...cornishFisherBlock(c, b),
    portfolio_value: book.capital,
    metrics: metricsBlock(m, book.capital),
    contributions: contributions(c, book, m),
    exposures: exposureSummary(book, c.symbols, c.prices),
    distribution: { bin_edges: m.binEdges, counts: m.counts },
  };
}

function sharedMeta(c: Calculation, scenarios: number) {
  const perSymbol = (xs: Float64Array) => Object.fromEntries(c.listing.map((i) => [c.symbols[i]!, xs[i]!]));
  const { request: r, est, opts } = c;
  return {
    calculation_id: newCalculationId(),
    dataset_id: r.dataset_id,
    method: r.method,
    portfolio_mode: r.portfolio_mode ?? DEFAULTS.portfolio_mode,
    currency: r.currency,
    confidence_level: r.confidence_level,
    time_horizon: r.time_horizon,
    simulations: r.method === 'parametric_normal' ? null : scenarios,
    degrees_of_freedom: opts.degreesOfFreedom,
    seed: opts.seed,
    variance_reduction: MONTE_CARLO.has(r.method) ? (r.method_options?.variance_reduction ?? DEFAULTS.variance_reduction) : null,
    estimation: {
      observations: est.observations,
      first_date: c.dates[est.firstDate] ?? '',
      last_date: c.dates[est.lastDate] ?? '',
      return_type: 'log' as const,
      covariance: opts.covariance,
      ewma_lambda: opts.ewmaLambda,
      drift: opts.drift,
      lookback: opts.lookback,
      sampling: MONTE_CARLO.has(r.method)
        ? (est.factorsSampled ?? est.factorColumns) === ABI.FACTOR_TRIANGULAR
          ? ('cholesky' as const)
          : ('low_rank' as const)
        : null,
      jitter: est.jitter,
      covariance_repaired: est.jitter > 0,
      daily_mean: perSymbol(est.mean),
      daily_volatility: perSymbol(est.volatility),
    },
    conventions: CONVENTIONS,
    ...filterBlock(c),
    ...(c.precision ? { precision: c.precision } : {}),
    engine: { ...c.engine, batches: c.timing.batches },
    timing_ms: { queue: round(c.timing.queueMs), engine: round(c.timing.computeMs), total: round(c.timing.totalMs) },
  };
}

/** The calculate response (API contract §5, §7, §8): book 0, and with a what-if book 1 after the trades. */
export function buildResponse(c: Calculation, books: PricedBook[], results: EngineResults): CalculateResponseBody {
  const [before, after] = results.books;
  const w = results.whatIf;
  const whatIf =
    after && w && books[1]
      ? {
          what_if: {
            value_at_risk: after.valueAtRisk,
            expected_shortfall: after.expectedShortfall,
            incremental_var: w.incrementalVar,
            incremental_es: w.incrementalEs,
            incremental_var_standard_error: w.incrementalVarStandardError,
            incremental_es_standard_error: w.incrementalEsStandardError,
            exposures: exposureSummary(books[1], c.symbols, c.prices),
          },
        }
      : {};
  return {
    status: 'success',
    meta: {
      ...sharedMeta(c, before!.scenarios),
      ...warnings(c, ['the book', 'the book after the trades'].slice(0, results.books.length)),
      ...bookFigures(c, books[0]!, before!, 0),
      ...whatIf,
    },
  };
}

/** The batch response: the shared meta, the union of symbols, and each book's figures. */
export function buildBatchResponse(c: Calculation, ids: string[], books: PricedBook[], results: EngineResults): BatchResponseBody {
  return {
    status: 'success',
    meta: {
      ...sharedMeta(c, results.books[0]!.scenarios),
      ...warnings(
        c,
        ids.map((id) => `book ${id}`),
      ),
      symbols: c.listing.map((i) => c.symbols[i]!),
      books: books.map((book, b) => ({ id: ids[b]!, ...bookFigures(c, book, results.books[b]!, b) })),
    },
  };
}
