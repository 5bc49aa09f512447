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

/** One date of the dataset, `YYYY-MM-DD`. */
const IsoDate = (description: string) => Type.String({ format: 'date', description });
const Count = (description: string) => Type.Integer({ minimum: 0, description });

export const StaleRunSchema = Type.Object({
  start: IsoDate('First date of the run.'),
  end: IsoDate('Last date of the run.'),
  length: Type.Integer({ minimum: 5, description: 'Number of equal prices in the run (priced dates; missing cells inside neither break nor extend it).' }),
});

export const SuspectedSplitSchema = Type.Object({
  date: IsoDate('Date of the later price of the pair.'),
  ratio: Type.Number({
    description: 'Observed ratio P_t / P_{t−1} of the two consecutive priced dates (e.g. 0.5012 for a 2:1 split, 3.01 for a 1:3 reverse split).',
  }),
});

export const OutlierSchema = Type.Object({
  date: IsoDate('Date of the later price of the pair.'),
  log_return: Type.Number({ description: 'r = ln(P_t / P_{t−1}) over two consecutive priced dates of the symbol (across any missing cells between them).' }),
  robust_z: Type.Number({ description: '(r − median) / (1.4826 × MAD): signed distance from the median in robust σ (|robust_z| > 10).' }),
});

export const SymbolQualitySchema = Type.Object(
  {
    symbol: Type.String({ description: 'The symbol, as in `dataset.symbols`.' }),
    first_date: Type.Union([Type.String({ format: 'date' }), Type.Null()], { description: 'First date with a price for this symbol; null when it has none.' }),
    last_date: Type.Union([Type.String({ format: 'date' }), Type.Null()], { description: 'Last date with a price for this symbol; null when it has none.' }),
    observations: Count('Number of dates with a price for this symbol.'),
    missing: Count(
      'Dates of the file without a price for this symbol between its first and last priced date (leading and trailing empty cells are not counted).',
    ),
    longest_gap_days: Count(
      'Longest run of calendar days without a price between two consecutive priced dates of this symbol: (later date − earlier date) in days − 1. ' +
        'Consecutive days give 0, a weekend 2 (a daily business-day series shows 2, or 3–4 around holidays); 0 with fewer than 2 prices.',
    ),
    stale_runs: Type.Array(StaleRunSchema, {
      description: 'Runs of ≥ 5 consecutive equal prices over the symbol’s priced dates, in date order; at most 100 listed (see counts).',
    }),
    suspected_splits: Type.Array(SuspectedSplitSchema, {
      description:
        'Consecutive priced dates whose price ratio P_t / P_{t−1} lies within 2 % (relative: |ratio / k − 1| ≤ 0.02) of k in ' +
        '1/2, 1/3, 1/4, 1/5, 1/10 (splits) or 2, 3, 4, 5, 10 (reverse splits); in date order, at most 100 listed (see counts).',
    }),
    outliers: Type.Array(OutlierSchema, {
      description:
        'Log returns r over consecutive priced dates with |r − median| > 10 × 1.4826 × MAD (MAD = median of |r − median|; the median of an even ' +
        'count is the mean of the two middle values), median and MAD taken over the symbol’s returns other than suspected splits, which are ' +
        'never outliers. None when the symbol has fewer than 20 such returns, or when 1.4826 × MAD < 1e-12 (MAD = 0: more than half the returns ' +
        'equal, no scale to measure by). In date order, at most 100 listed (see counts).',
    }),
    counts: Type.Object(
      {
        stale_runs: Count('Stale runs found.'),
        suspected_splits: Count('Suspected splits found.'),
        outliers: Count('Outliers found.'),
      },
      { description: 'How many of each were found; a list holds fewer when it was cut (100 per list, 10,000 listed findings per dataset).' },
    ),
  },
  { description: 'Data quality of one symbol’s price series.' },
);

export const DatasetQualitySchema = Type.Object(
  {
    symbols: Type.Array(SymbolQualitySchema, { description: 'One entry per symbol, in the order of `dataset.symbols`.' }),
    warnings: Type.Array(Type.String(), {
      description:
        'Human sentences, each starting with its symbol: one per symbol and kind, ordered by kind, then by symbol. Kinds: suspected splits; outliers; ' +
        'stale runs; a gap, when more than 7 calendar days without a price span dates the file has (the longest such gap is named; a regular weekly ' +
        'series is no gap); fewer than 2 prices. At most 200: when there are more, the 200th says how many were left out.',
    }),
    truncated: Type.Boolean({
      description:
        'True when a list or the warnings were cut: each list holds at most 100 findings, at most 10,000 are listed per dataset (first symbols first).',
    }),
  },
  {
    description: 'Data-quality report of the dataset (api.md §11). Informational: a finding never rejects an upload. Every number is finite.',
    examples: [
      {
        symbols: [
          {
            symbol: 'AAPL',
            first_date: '2020-01-02',
            last_date: '2020-12-31',
            observations: 248,
            missing: 5,
            longest_gap_days: 9,
            stale_runs: [{ start: '2020-03-02', end: '2020-03-06', length: 5 }],
            suspected_splits: [{ date: '2020-08-31', ratio: 0.2502 }],
            outliers: [{ date: '2020-03-16', log_return: -0.1377, robust_z: -11.2 }],
            counts: { stale_runs: 1, suspected_splits: 1, outliers: 1 },
          },
        ],
        warnings: [
          'AAPL: possible 4:1 split on 2020-08-31 (price ratio 0.2502).',
          'AAPL: outlier return on 2020-03-16 (log return -0.1377, -11.2 robust σ from the median).',
          'AAPL: price unchanged for 5 consecutive prices from 2020-03-02 to 2020-03-06 (stale run).',
          'AAPL: no price for 9 calendar days between 2020-06-05 and 2020-06-15 (5 of the file’s dates in between have none; 5 missing in all).',
        ],
        truncated: false,
      },
    ],
  },
);

export type SymbolQuality = Static<typeof SymbolQualitySchema>;
export type DatasetQuality = Static<typeof DatasetQualitySchema>;

export const DatasetSummarySchema = Type.Object({
  symbols: Type.Array(Type.String()),
  rows: Type.Integer(),
  first_date: Type.String(),
  last_date: Type.String(),
  layout: literals(['wide', 'long'], 'Layout detected from the header.'),
  missing_values: Type.Integer(),
  quality: DatasetQualitySchema,
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

export const DeletedResponse = Type.Object({
  status: Type.Literal('success'),
  dataset_id: Type.String(),
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
