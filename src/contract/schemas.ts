import { FormatRegistry, Type, type Static, type TSchema } from '@sinclair/typebox';
import { ISO_4217 } from './currencies.js';

FormatRegistry.Set('iso4217', (value) => ISO_4217.has(value));

/** Every default of the calculate request, declared once: the schema shows them, risk applies them. */
export const DEFAULTS = {
  portfolio_mode: 'buy_and_hold',
  degrees_of_freedom: 5,
  antithetic: false,
  drift: 'sample',
  covariance: 'sample',
  ewma_lambda: 0.94,
  histogram_bins: 50,
} as const;

export const METHODS = ['monte_carlo_normal', 'monte_carlo_student_t', 'historical', 'parametric_normal'] as const;
export const MONTE_CARLO: ReadonlySet<string> = new Set(['monte_carlo_normal', 'monte_carlo_student_t']);
const literals = <T extends string>(values: readonly T[], description: string, fallback?: T) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    fallback === undefined ? { description } : { description, default: fallback },
  );

export const MethodOptions = Type.Object(
  {
    seed: Type.Optional(
      Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Seed: the same request and seed give bit-identical results.' }),
    ),
    antithetic: Type.Optional(Type.Boolean({ description: 'Pair each simulation with its mirror (−z).', default: DEFAULTS.antithetic })),
    drift: Type.Optional(literals(['sample', 'zero'], 'Daily drift μ: the sample mean or zero.', DEFAULTS.drift)),
    lookback: Type.Optional(Type.Integer({ minimum: 30, maximum: 1_000_000, description: 'Use only the most recent N returns.' })),
    covariance: Type.Optional(literals(['sample', 'ewma'], 'Covariance estimator: sample (n − 1) or EWMA.', DEFAULTS.covariance)),
    ewma_lambda: Type.Optional(Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1, description: 'EWMA decay λ.', default: DEFAULTS.ewma_lambda })),
    histogram_bins: Type.Optional(Type.Integer({ minimum: 10, maximum: 200, description: 'Bins of the P&L histogram.', default: DEFAULTS.histogram_bins })),
  },
  { additionalProperties: false },
);

export const PortfolioItem = Type.Object(
  {
    symbol: Type.String({ minLength: 1, maxLength: 64 }),
    weight: Type.Number({ minimum: 0, maximum: 1 }),
  },
  { additionalProperties: false },
);

/** The calculate request; `maxSimulations` comes from the configuration. */
export function calculateRequestSchema(maxSimulations: number) {
  return Type.Object(
    {
      dataset_id: Type.String({ minLength: 1, maxLength: 64 }),
      method: literals(METHODS, 'Risk calculation method.'),
      method_options: Type.Optional(MethodOptions),
      // Below 1e-6 every scenario's P&L underflows towards zero: figures would no longer depend on the draws.
      portfolio_value: Type.Number({ minimum: 1e-6, maximum: 1e15, description: 'Value of the portfolio in `currency`, 1e-6 to 1e15.', examples: [1_000_000] }),
      // `format` is what TypeBox checks; `enum` lists the same codes for OpenAPI clients and fuzzers.
      currency: Type.String({ format: 'iso4217', enum: [...ISO_4217].sort(), description: 'ISO 4217 alphabetic code.' }),
      portfolio: Type.Array(PortfolioItem, { minItems: 1, maxItems: 5000 }),
      portfolio_mode: Type.Optional(literals(['buy_and_hold', 'rebalanced'], 'Buy and hold, or rebalanced to the weights every day.', DEFAULTS.portfolio_mode)),
      confidence_level: Type.Number({ minimum: 0.5, exclusiveMaximum: 1 }),
      time_horizon: Type.Integer({ minimum: 1, maximum: 1000, description: 'Trading days.' }),
      simulations: Type.Optional(Type.Integer({ minimum: 100, maximum: maxSimulations, description: 'Required by Monte Carlo methods.' })),
      degrees_of_freedom: Type.Optional(
        Type.Integer({ minimum: 3, maximum: 1000, description: 'Student-t ν (monte_carlo_student_t).', default: DEFAULTS.degrees_of_freedom }),
      ),
    },
    { additionalProperties: false },
  );
}
export type CalculateRequest = Static<ReturnType<typeof calculateRequestSchema>>;

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

export const CalculateResponse = Type.Object({
  status: Type.Literal('success'),
  meta: Type.Object({
    calculation_id: Type.String(),
    dataset_id: Type.String(),
    method: literals(METHODS, 'Method used.'),
    portfolio_mode: literals(['buy_and_hold', 'rebalanced'], 'Mode used.'),
    currency: Type.String(),
    portfolio_value: Num,
    confidence_level: Num,
    time_horizon: Type.Integer(),
    simulations: Type.Union([Type.Integer(), Type.Null()], { description: 'Scenarios drawn (historical: windows; parametric: null).' }),
    degrees_of_freedom: Type.Union([Type.Integer(), Type.Null()]),
    seed: Type.Union([Type.Integer(), Type.Null()], { description: 'Seed used (Monte Carlo), else null.' }),
    metrics: MetricsSchema,
    contributions: Type.Array(Type.Object({ symbol: Type.String(), weight: Num, component_es: Num, component_es_pct: Num, standalone_var: Num })),
    distribution: Type.Object({ bin_edges: Type.Array(Num), counts: Type.Array(Type.Integer()) }),
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
    conventions: Type.Object({ var_sign: Type.String(), quantile: Type.String(), es: Type.String(), percentiles: Type.String() }),
    engine: Type.Object({ build: Type.String(), version: Type.String(), threads: Type.Integer(), batches: Type.Integer() }),
    timing_ms: Type.Object({ queue: Num, engine: Num, total: Num }),
  }),
});
export type CalculateResponseBody = Static<typeof CalculateResponse>;

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

export type Schema = TSchema;
