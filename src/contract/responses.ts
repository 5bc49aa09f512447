import { Type, type Static } from '@sinclair/typebox';
import { literals, METHODS, VARIANCE_REDUCTIONS } from './schemas.js';
import { CurrencyBreakdown, FxFigures } from './fx-schemas.js';
import { OptionFigures, ValuationMeta } from './option-schemas.js';

const Num = Type.Number();
const Money = (description: string) => Type.Number({ description: `${description} In \`currency\`.` });
const Text = (description: string) => Type.String({ description });

/** The P&L percentiles every answer reports, in the engine's order (its PERCENTILES levels). */
export const PERCENTILE_KEYS = ['p01', 'p05', 'p10', 'p25', 'p50', 'p75', 'p90', 'p95', 'p99'] as const;
export const Percentiles = Type.Object(
  Object.fromEntries(PERCENTILE_KEYS.map((k) => [k, Money(`The ${Number(k.slice(1))} % percentile of the P&L (see conventions.percentiles).`)])) as Record<
    string,
    typeof Num
  >,
  { description: 'Percentiles of the P&L distribution (gains positive).' },
);

export const MetricsSchema = Type.Object(
  {
    value_at_risk: Money('Value-at-Risk at confidence_level over time_horizon, a loss as a positive number.'),
    value_at_risk_pct: Type.Number({ description: 'value_at_risk / portfolio_value.' }),
    expected_shortfall: Money('Expected Shortfall: the mean loss of the k worst scenarios (≥ value_at_risk).'),
    expected_shortfall_pct: Type.Number({ description: 'expected_shortfall / portfolio_value.' }),
    expected_pnl: Money('Mean P&L over the scenarios (closed form: its expectation).'),
    volatility: Money('Standard deviation of the P&L.'),
    probability_of_loss: Type.Number({ minimum: 0, maximum: 1, description: 'Share of scenarios with a negative P&L.' }),
    worst_loss: Money('The lowest P&L among the scenarios, negative for a loss (closed form: the P&L’s 0.01 % quantile).'),
    best_gain: Money('The highest P&L among the scenarios (closed form: the P&L’s 99.99 % quantile).'),
    value_at_risk_standard_error: Money('Standard error of value_at_risk from 20 independent batches (0 for the closed form).'),
    expected_shortfall_standard_error: Money('Standard error of expected_shortfall from 20 independent batches (0 for the closed form).'),
    percentiles: Percentiles,
  },
  { description: 'Risk figures of the book.' },
);

/** What a calculation's conventions block states, once for every response. */
export const Conventions = Type.Object(
  {
    var_sign: Text('Sign of VaR and ES: losses positive.'),
    quantile: Text('Rank k of the VaR scenario among N, P&L ascending.'),
    es: Text('How ES averages the tail.'),
    percentiles: Text('How a percentile is ranked.'),
    component_es: Text('How component ES is defined.'),
    component_var: Text('How component VaR is defined.'),
    marginal: Text('How marginal figures are defined.'),
    exposures: Text('How exposures and capital are defined.'),
    sampling: Text('How Monte Carlo draws correlated returns, and the rule choosing the factor.'),
    importance_sampling: Text('How the figures weigh the scenarios under method_options.variance_reduction "importance_sampling".'),
    risk_factors: Text('Which risk factors the scenarios are drawn over, and in which order: never the order the request lists its book in.'),
  },
  { description: 'The definitions behind the figures, stated in every answer.' },
);

export const Contribution = Type.Object({
  symbol: Text('The position’s symbol.'),
  weight: Type.Number({ description: 'Exposure / capital C (a long-only portfolio: its weight).' }),
  exposure: Type.Number({ description: 'Money exposure e_i (negative = short).' }),
  component_es: Type.Number({ description: 'Euler contribution to ES; the components sum to expected_shortfall.' }),
  component_es_pct: Type.Number({ description: 'component_es / expected_shortfall.' }),
  component_var: Type.Number({ description: 'Contribution to VaR (see conventions.component_var); the components sum to value_at_risk.' }),
  marginal_es: Type.Number({ description: 'component_es / exposure (0 where the exposure is 0).' }),
  marginal_var: Type.Number({ description: 'component_var / exposure (0 where the exposure is 0).' }),
  standalone_var: Type.Number({ description: 'VaR of the position on its own.' }),
  ...OptionFigures,
});

export const Exposures = Type.Object(
  {
    gross: Type.Number({ description: 'Σ|e_i|.' }),
    net: Type.Number({ description: 'Σe_i.' }),
    long: Type.Number({ description: 'Σ of the positive exposures.' }),
    short: Type.Number({ description: 'Σ of the negative exposures (≤ 0): net = long + short.' }),
    items: Type.Array(
      Type.Object({
        symbol: Text('The position’s symbol.'),
        quantity: Type.Union([Num, Type.Null()], { description: 'As requested; null for a market value or a weight.' }),
        price: Type.Number({ description: 'Last price on the estimation’s last date.' }),
        exposure: Money('Exposure e_i (negative = short).'),
      }),
      { description: 'Each position’s exposure, in the order of the request.' },
    ),
  },
  { description: 'Exposures of the book: e_i = quantity × price, or market_value, or weight × portfolio_value.' },
);

export const WhatIfFigures = Type.Object(
  {
    value_at_risk: Type.Number({ description: 'VaR of the book after the trades.' }),
    expected_shortfall: Type.Number({ description: 'ES of the book after the trades.' }),
    incremental_var: Type.Number({ description: 'VaR after − VaR before, on the same scenarios.' }),
    incremental_es: Type.Number({ description: 'ES after − ES before, on the same scenarios.' }),
    incremental_var_standard_error: Type.Number({ description: 'Standard error of the difference, from the same independent batches.' }),
    incremental_es_standard_error: Type.Number({ description: 'Standard error of the difference, from the same independent batches.' }),
    exposures: Exposures,
  },
  { description: 'The book after the trades, priced on the same scenarios as before them.' },
);

export const CornishFisherMeta = Type.Object(
  {
    skewness: Type.Number({ description: 'Skewness S = m3 / m2^{3/2} of the book’s window P&L (population moments, divisor N).' }),
    excess_kurtosis: Type.Number({ description: 'Excess kurtosis K = m4 / m2² − 3 of the same P&L.' }),
    valid: Type.Boolean({
      description: 'False when z ↦ z_cf(z) is not increasing over the whole tail z ≤ Φ⁻¹(1 − c): the figures are still given, and `warnings` says so.',
    }),
  },
  {
    description:
      'cornish_fisher only. With μ, σ the P&L’s mean and population standard deviation, q = Φ⁻¹(1 − c), α = 1 − c: VaR = −(μ + σ z_cf(q)), z_cf = z + (z² − 1)S/6 + (z³ − 3z)K/24 − (2z³ − 5z)S²/36; ES = −(μ + σ E[z_cf(Z) | Z ≤ q]) = −μ + σ φ(q)/α · (1 + Sq/6 + K(q² − 1)/24 + S²(1 − 2q²)/36). Component ES and VaR are the historical Euler components rescaled to sum to these; standard errors are 0 (a closed form).',
  },
);

const FilterAsset = Type.Object({
  current_volatility: Type.Number({ description: 'σ_{m+1}: the daily volatility the filter forecasts for the day after the window.' }),
  long_run_volatility: Type.Number({
    description: 'GARCH: √(ω / (1 − α − β)); EWMA (and a GARCH fallback): √(mean r²) over the window, the zero-mean unconditional volatility.',
  }),
  parameters: Type.Object(
    {
      model: literals(['ewma', 'garch11'], 'The recursion used for this symbol: "ewma" also where a GARCH fit fell back.'),
      lambda: Type.Optional(Type.Number({ description: 'EWMA decay λ.' })),
      omega: Type.Optional(Type.Number({ description: 'GARCH ω (daily variance units).' })),
      alpha: Type.Optional(Type.Number({ description: 'GARCH α.' })),
      beta: Type.Optional(Type.Number({ description: 'GARCH β (α + β < 1).' })),
      log_likelihood: Type.Optional(Type.Number({ description: 'GARCH: the maximised Gaussian log-likelihood, −½ Σ (ln 2π + ln σ²_t + r²_t/σ²_t).' })),
    },
    { description: 'The filter of this symbol: EWMA {lambda}, or GARCH {omega, alpha, beta, log_likelihood}.' },
  ),
});

const Distribution = Type.Object(
  {
    bin_edges: Type.Array(Num, { description: 'histogram_bins + 1 ascending P&L edges, from the worst to the best scenario.' }),
    counts: Type.Array(Type.Number({ minimum: 0 }), {
      description:
        'Scenarios per bin (a bin holds its lower edge; the last also its upper): whole numbers, except with importance sampling, where a bin holds the likelihood ratios of its scenarios (how many of the N the model expects there).',
    }),
  },
  { description: 'Histogram of the scenario P&L (closed form: of its normal density, scaled to 10,000).' },
);

/** Fields every calculation's meta carries, one book or many. */
const sharedMeta = {
  calculation_id: Text('Id of this calculation (calc_…), for support and logs.'),
  dataset_id: Text('The dataset the model was estimated on.'),
  method: literals(METHODS, 'Method used.'),
  portfolio_mode: literals(['buy_and_hold', 'rebalanced'], 'Mode used.'),
  currency: Text('ISO 4217 code of every money figure.'),
  confidence_level: Type.Number({ description: 'Confidence level c of VaR and ES.' }),
  time_horizon: Type.Integer({ description: 'Horizon in trading days.' }),
  simulations: Type.Union([Type.Integer(), Type.Null()], { description: 'Scenarios drawn (historical: windows; parametric: null).' }),
  degrees_of_freedom: Type.Union([Type.Integer(), Type.Null()], { description: 'Student-t ν used (monte_carlo_student_t), else null.' }),
  seed: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Seed used (Monte Carlo, and historical_filtered’s bootstrap paths with time_horizon > 1), else null.',
  }),
  variance_reduction: Type.Union([literals(VARIANCE_REDUCTIONS, 'Variance reduction used.'), Type.Null()], {
    description: 'Monte Carlo: the variance reduction used (method_options.variance_reduction); null for historical and parametric.',
  }),
  estimation: Type.Object(
    {
      observations: Type.Integer({ description: 'Daily log returns the model was estimated on (dates where every symbol has a price).' }),
      first_date: Type.String({ format: 'date', description: 'Date of the first price of the estimation window.' }),
      last_date: Type.String({ format: 'date', description: 'Date of the last price: exposures use the prices of this date.' }),
      return_type: Type.Literal('log', { description: 'Returns are log returns ln(P_t / P_{t−1}).' }),
      covariance: literals(['sample', 'ewma'], 'Estimator used.'),
      ewma_lambda: Type.Union([Num, Type.Null()], { description: 'EWMA decay used, or null with the sample estimator.' }),
      drift: literals(['sample', 'zero'], 'Drift used.'),
      lookback: Type.Union([Type.Integer(), Type.Null()], { description: 'Most recent returns used, or null for all.' }),
      sampling: Type.Union([literals(['cholesky', 'low_rank'], 'The covariance factor of the draws.'), Type.Null()], {
        description:
          'Monte Carlo: the covariance factor the draws go through — cholesky (n×n, jittered if singular) or low_rank (the n×m loadings of the window, exact, chosen when its returns m ≤ n, where Σ is singular); null for historical and parametric.',
      }),
      jitter: Type.Number({ description: 'Diagonal added to the covariance to factor it (0 when it was positive definite, and with low_rank sampling).' }),
      covariance_repaired: Type.Boolean({ description: 'True when jitter > 0.' }),
      daily_mean: Type.Record(Type.String(), Num, { description: 'Daily mean log return μ_i by symbol (0 with drift "zero").' }),
      daily_volatility: Type.Record(Type.String(), Num, { description: 'Daily volatility σ_i of the log returns by symbol.' }),
    },
    { description: 'How the model was estimated from the dataset.' },
  ),
  conventions: Conventions,
  filter: Type.Optional(
    Type.Record(Type.String(), FilterAsset, { description: 'historical_filtered only: the filter of each symbol (the order of the request).' }),
  ),
  warnings: Type.Optional(
    Type.Array(Type.String(), { description: 'What a person should know about the figures (e.g. a Cornish–Fisher expansion that is not monotone).' }),
  ),
  precision: Type.Optional(
    Type.Object(
      {
        target: Type.Number({ description: 'method_options.target_relative_error as asked.' }),
        achieved_var: Type.Union([Type.Number(), Type.Null()], {
          description: 'VaR standard error / |VaR| at the end (the largest over the books); null where a VaR is 0.',
        }),
        achieved_es: Type.Union([Type.Number(), Type.Null()], { description: 'The same for ES.' }),
        simulations_used: Type.Integer({ description: 'Simulations of the last round: the figures are those of a plain request with this many.' }),
        rounds: Type.Integer({ description: 'Rounds run (16,384 simulations, then doubling, the last one at most `simulations`).' }),
        reached: Type.Boolean({ description: 'Whether both errors reached the target; false when the cap `simulations` stopped the rounds.' }),
      },
      { description: 'With method_options.target_relative_error only: what the rounds reached.' },
    ),
  ),
  engine: Type.Object(
    {
      build: Text('Engine build that computed the answer (e.g. native-x86-64, wasm-simd128); every build gives the same bits.'),
      version: Text('Engine version.'),
      threads: Type.Integer({ description: 'Worker threads of the service.' }),
      batches: Type.Integer({ description: 'Engine tasks the calculation was split into.' }),
    },
    { description: 'What computed the answer.' },
  ),
  timing_ms: Type.Object(
    {
      queue: Type.Number({ description: 'Time waiting for a worker, phase by phase (slowest task of each).' }),
      engine: Type.Number({ description: 'Engine compute time, phase by phase (slowest task of each).' }),
      total: Type.Number({ description: 'Server time from the parsed request to the built answer.' }),
    },
    { description: 'Where the time went, in milliseconds.' },
  ),
};

const Success = Type.Literal('success', { description: 'Always "success" on a 200.' });

export const CalculateResponse = Type.Object({
  status: Success,
  meta: Type.Object(
    {
      ...sharedMeta,
      portfolio_value: Type.Number({ description: 'Capital C the `_pct` figures divide by.' }),
      metrics: MetricsSchema,
      contributions: Type.Array(Contribution, { description: 'Each position’s share of the risk, in the order of the request.' }),
      exposures: Exposures,
      distribution: Distribution,
      cornish_fisher: Type.Optional(CornishFisherMeta),
      what_if: Type.Optional(WhatIfFigures),
      fx: Type.Optional(FxFigures),
      valuation: Type.Optional(ValuationMeta),
      currency_breakdown: Type.Optional(CurrencyBreakdown),
    },
    { description: 'The calculation: what was asked, the figures, and how they were computed.' },
  ),
});
export type CalculateResponseBody = Static<typeof CalculateResponse>;

export const BatchBookResult = Type.Object(
  {
    id: Text('The book’s id, as in the request.'),
    portfolio_value: Type.Number({ description: 'Capital C of the book.' }),
    metrics: MetricsSchema,
    contributions: Type.Array(Contribution, { description: 'The book’s own symbols.' }),
    exposures: Exposures,
    distribution: Distribution,
    cornish_fisher: Type.Optional(CornishFisherMeta),
    valuation: Type.Optional(ValuationMeta),
    currency_breakdown: Type.Optional(CurrencyBreakdown),
  },
  {
    description:
      'One book’s figures; a book holding options adds `valuation`, and over a multi-currency dataset every book `currency_breakdown`, as its calculate would (the FX effect of `meta.fx` is calculate’s only).',
  },
);

export const BatchResponse = Type.Object({
  status: Success,
  meta: Type.Object(
    {
      ...sharedMeta,
      symbols: Type.Array(Type.String(), { description: 'The union of the books’ symbols, the scenarios’ assets, in this order.' }),
      books: Type.Array(BatchBookResult, { description: 'Each book’s figures, in the order of the request.' }),
    },
    { description: 'The books, priced on one scenario set.' },
  ),
});
export type BatchResponseBody = Static<typeof BatchResponse>;
