import { Type, type Static } from '@sinclair/typebox';
import { literals, METHODS } from './schemas.js';

const Num = Type.Number();
export const Percentiles = Type.Object(
  Object.fromEntries(['p01', 'p05', 'p10', 'p25', 'p50', 'p75', 'p90', 'p95', 'p99'].map((k) => [k, Num])) as Record<string, typeof Num>,
);

export const MetricsSchema = Type.Object({
  value_at_risk: Num,
  value_at_risk_pct: Num,
  expected_shortfall: Num,
  expected_shortfall_pct: Num,
  expected_pnl: Num,
  volatility: Num,
  probability_of_loss: Num,
  worst_loss: Num,
  best_gain: Num,
  value_at_risk_standard_error: Num,
  expected_shortfall_standard_error: Num,
  percentiles: Percentiles,
});

/** What a calculation's conventions block states, once for every response. */
export const Conventions = Type.Object({
  var_sign: Type.String(),
  quantile: Type.String(),
  es: Type.String(),
  percentiles: Type.String(),
  component_es: Type.String(),
  component_var: Type.String(),
  marginal: Type.String(),
  exposures: Type.String(),
});

export const Contribution = Type.Object({
  symbol: Type.String(),
  weight: Type.Number({ description: 'Exposure / capital C (a long-only portfolio: its weight).' }),
  exposure: Type.Number({ description: 'Money exposure e_i (negative = short).' }),
  component_es: Type.Number({ description: 'Euler contribution to ES; the components sum to expected_shortfall.' }),
  component_es_pct: Num,
  component_var: Type.Number({ description: 'Contribution to VaR (see conventions.component_var); the components sum to value_at_risk.' }),
  marginal_es: Type.Number({ description: 'component_es / exposure (0 where the exposure is 0).' }),
  marginal_var: Type.Number({ description: 'component_var / exposure (0 where the exposure is 0).' }),
  standalone_var: Type.Number({ description: 'VaR of the position on its own.' }),
});

export const Exposures = Type.Object({
  gross: Type.Number({ description: 'Σ|e_i|.' }),
  net: Type.Number({ description: 'Σe_i.' }),
  long: Type.Number({ description: 'Σ of the positive exposures.' }),
  short: Type.Number({ description: 'Σ of the negative exposures (≤ 0): net = long + short.' }),
  items: Type.Array(
    Type.Object({
      symbol: Type.String(),
      quantity: Type.Union([Num, Type.Null()], { description: 'As requested; null for a market value or a weight.' }),
      price: Type.Number({ description: 'Last price on the estimation’s last date.' }),
      exposure: Num,
    }),
  ),
});

export const WhatIfFigures = Type.Object({
  value_at_risk: Type.Number({ description: 'VaR of the book after the trades.' }),
  expected_shortfall: Type.Number({ description: 'ES of the book after the trades.' }),
  incremental_var: Type.Number({ description: 'VaR after − VaR before, on the same scenarios.' }),
  incremental_es: Type.Number({ description: 'ES after − ES before, on the same scenarios.' }),
  incremental_var_standard_error: Type.Number({ description: 'Standard error of the difference, from the same independent batches.' }),
  incremental_es_standard_error: Type.Number({ description: 'Standard error of the difference, from the same independent batches.' }),
  exposures: Exposures,
});

const Distribution = Type.Object({ bin_edges: Type.Array(Num), counts: Type.Array(Type.Integer()) });

/** Fields every calculation's meta carries, one book or many. */
const sharedMeta = {
  calculation_id: Type.String(),
  dataset_id: Type.String(),
  method: literals(METHODS, 'Method used.'),
  portfolio_mode: literals(['buy_and_hold', 'rebalanced'], 'Mode used.'),
  currency: Type.String(),
  confidence_level: Num,
  time_horizon: Type.Integer(),
  simulations: Type.Union([Type.Integer(), Type.Null()], { description: 'Scenarios drawn (historical: windows; parametric: null).' }),
  degrees_of_freedom: Type.Union([Type.Integer(), Type.Null()]),
  seed: Type.Union([Type.Integer(), Type.Null()], { description: 'Seed used (Monte Carlo), else null.' }),
  estimation: Type.Object({
    observations: Type.Integer(),
    first_date: Type.String(),
    last_date: Type.String(),
    return_type: Type.Literal('log'),
    covariance: literals(['sample', 'ewma'], 'Estimator used.'),
    ewma_lambda: Type.Union([Num, Type.Null()]),
    drift: literals(['sample', 'zero'], 'Drift used.'),
    lookback: Type.Union([Type.Integer(), Type.Null()]),
    jitter: Num,
    covariance_repaired: Type.Boolean(),
    daily_mean: Type.Record(Type.String(), Num),
    daily_volatility: Type.Record(Type.String(), Num),
  }),
  conventions: Conventions,
  engine: Type.Object({ build: Type.String(), version: Type.String(), threads: Type.Integer(), batches: Type.Integer() }),
  timing_ms: Type.Object({ queue: Num, engine: Num, total: Num }),
};

export const CalculateResponse = Type.Object({
  status: Type.Literal('success'),
  meta: Type.Object({
    ...sharedMeta,
    portfolio_value: Type.Number({ description: 'Capital C the `_pct` figures divide by.' }),
    metrics: MetricsSchema,
    contributions: Type.Array(Contribution),
    exposures: Exposures,
    distribution: Distribution,
    what_if: Type.Optional(WhatIfFigures),
  }),
});
export type CalculateResponseBody = Static<typeof CalculateResponse>;

export const BatchBookResult = Type.Object({
  id: Type.String(),
  portfolio_value: Type.Number({ description: 'Capital C of the book.' }),
  metrics: MetricsSchema,
  contributions: Type.Array(Contribution, { description: 'The book’s own symbols.' }),
  exposures: Exposures,
  distribution: Distribution,
});

export const BatchResponse = Type.Object({
  status: Type.Literal('success'),
  meta: Type.Object({
    ...sharedMeta,
    symbols: Type.Array(Type.String(), { description: 'The union of the books’ symbols, the scenarios’ assets, in this order.' }),
    books: Type.Array(BatchBookResult),
  }),
});
export type BatchResponseBody = Static<typeof BatchResponse>;

export const DatasetSummarySchema = Type.Object({
  symbols: Type.Array(Type.String()),
  rows: Type.Integer(),
  first_date: Type.String(),
  last_date: Type.String(),
  layout: literals(['wide', 'long'], 'Layout detected from the header.'),
  missing_values: Type.Integer(),
});

export type DatasetSummary = Static<typeof DatasetSummarySchema>;

export const UploadResponse = Type.Object({
  status: Type.Literal('success'),
  dataset_id: Type.String({ pattern: '^ds_[0-9A-Za-z]{16,}$' }),
  dataset: DatasetSummarySchema,
});

export const DatasetResponse = Type.Object({
  status: Type.Literal('success'),
  dataset_id: Type.String(),
  dataset: DatasetSummarySchema,
});

export const ErrorBody = Type.Object({
  detail: Type.Object(
    {
      code: Type.String(),
      message: Type.String(),
      errors: Type.Optional(Type.Array(Type.Object({ loc: Type.Array(Type.Union([Type.String(), Type.Integer()])), msg: Type.String(), type: Type.String() }))),
      reason: Type.Optional(Type.String()),
      line: Type.Optional(Type.Integer()),
      column: Type.Optional(Type.Integer()),
    },
    { additionalProperties: true },
  ),
});

export const UploadForm = Type.Object({ file: Type.String({ format: 'binary', description: 'The CSV file.' }) });
export const Health = Type.Object({ status: Type.String() });
