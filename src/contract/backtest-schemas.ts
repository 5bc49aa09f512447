import { Type, type Static } from '@sinclair/typebox';
import { BookPositions, calculationFields, literals, METHODS, Portfolio } from './schemas.js';

/** Every default of the backtest options, declared once. */
export const BACKTEST_DEFAULTS = { window: 250, estimation_window: 500, es: true } as const;

export const BacktestOptions = Type.Object(
  {
    window: Type.Optional(
      Type.Integer({
        minimum: 50,
        maximum: 2500,
        description: 'Forecast dates: the last N dates with a full estimation window.',
        default: BACKTEST_DEFAULTS.window,
      }),
    ),
    estimation_window: Type.Optional(
      Type.Integer({
        minimum: 30,
        maximum: 5000,
        description: 'Returns each forecast is estimated on, ending the day before it.',
        default: BACKTEST_DEFAULTS.estimation_window,
      }),
    ),
    es: Type.Optional(Type.Boolean({ description: 'Also test ES (Acerbi–Székely Z2).', default: BACKTEST_DEFAULTS.es })),
  },
  { additionalProperties: false, description: 'The backtest’s windows; every field has a default.' },
);

/** The backtest request: the calculate fields (time_horizon must be 1) and `backtest`. */
export function backtestRequestSchema(maxSimulations: number) {
  return Type.Object(
    {
      ...calculationFields(maxSimulations),
      portfolio: Type.Optional(Portfolio),
      positions: Type.Optional(BookPositions),
      backtest: Type.Optional(BacktestOptions),
    },
    { additionalProperties: false },
  );
}
export type BacktestRequest = Static<ReturnType<typeof backtestRequestSchema>>;

const Num = Type.Number();
const Lr = Type.Number({ minimum: 0, description: 'Likelihood-ratio statistic.' });
const PValue = Type.Number({ minimum: 0, maximum: 1, description: 'p-value of the statistic under the model.' });
const Transitions = (from: string, to: string) =>
  Type.Integer({ minimum: 0, description: `Days in state ${to} after a day in state ${from} (1 = exception).` });
const Test = (description: string) => Type.Object({ lr: Lr, p_value: PValue }, { description });

export const BacktestFigures = Type.Object(
  {
    observations: Type.Integer({ description: 'Forecast dates N.' }),
    exceptions: Type.Integer({ description: 'Days with P&L < −VaR.' }),
    expected_exceptions: Type.Number({ description: 'N·(1 − c).' }),
    exception_dates: Type.Array(Type.String({ format: 'date' }), { description: 'Dates of the exceptions, ascending.' }),
    kupiec: Test('Kupiec proportion of failures, χ²(1).'),
    christoffersen_independence: Type.Object(
      { lr: Lr, p_value: PValue, n00: Transitions('0', '0'), n01: Transitions('0', '1'), n10: Transitions('1', '0'), n11: Transitions('1', '1') },
      { description: 'Christoffersen independence, χ²(1); n_ij counts moves from state i at t − 1 to state j at t.' },
    ),
    conditional_coverage: Test('Kupiec + independence, χ²(2).'),
    traffic_light: Type.Object(
      {
        zone: literals(['green', 'yellow', 'red'], 'Basel zone: green below the 95 % binomial quantile of the exceptions, red from the 99.99 %.'),
        cumulative_probability: Type.Number({ description: 'Binomial CDF F(exceptions; N, 1 − c).' }),
        basel_multiplier: Type.Union([Num, Type.Null()], { description: 'N = 250 at c = 0.99 only.' }),
        frtb_multiplier: Type.Union([Num, Type.Null()], { description: 'N = 250 at c = 0.99 only.' }),
      },
      { description: 'Basel traffic light of the exception count.' },
    ),
    es_test: Type.Union(
      [
        Type.Object({
          z2: Type.Number({ description: 'Acerbi–Székely Z2; 0 under a correct model, negative when ES is too small.' }),
          p_value: Type.Number({ description: 'Share of Z2 simulated under the model at or below the observed one.' }),
          simulations: Type.Integer({ description: 'Simulated Z2 values the p-value is counted from.' }),
          seed: Type.Integer({ description: 'Seed of the simulation (the request’s, else 0).' }),
          model: literals(['normal', 'sampler'], 'normal: each day N(μ_t, σ_t²) fitted to its VaR and ES.'),
        }),
        Type.Null(),
      ],
      { description: 'null with `es: false`, or when a day’s forecast ES is not above its VaR (no normal model fits it).' },
    ),
    series: Type.Array(
      Type.Object({
        date: Type.String({ format: 'date', description: 'The forecast date.' }),
        var: Type.Number({ description: 'The 1-day VaR forecast for the date, from the returns before it.' }),
        es: Type.Number({ description: 'The 1-day ES forecast for the date.' }),
        pnl: Type.Number({ description: 'The book’s realised P&L on the date.' }),
        exception: Type.Boolean({ description: 'pnl < −var.' }),
      }),
      { description: 'Each forecast date in order: forecasts against the realised P&L.' },
    ),
  },
  { description: 'The backtest’s counts, tests and series.' },
);

export const BacktestResponse = Type.Object({
  status: Type.Literal('success', { description: 'Always "success" on a 200.' }),
  meta: Type.Object(
    {
      calculation_id: Type.String({ description: 'Id of this calculation (calc_…).' }),
      dataset_id: Type.String({ description: 'The dataset backtested on.' }),
      method: literals(METHODS, 'Method of the forecasts.'),
      currency: Type.String({ description: 'ISO 4217 code of every money figure.' }),
      confidence_level: Type.Number({ description: 'Confidence level c of the forecasts.' }),
      portfolio_value: Type.Number({ description: 'Capital C.' }),
      seed: Type.Union([Type.Integer(), Type.Null()], { description: 'Monte Carlo: the seed each date’s seed is derived from.' }),
      window: Type.Integer({ description: 'Forecast dates used.' }),
      estimation_window: Type.Integer({ description: 'Returns each forecast was estimated on.' }),
      backtest: BacktestFigures,
      timing_ms: Type.Object({ total: Type.Number({ description: 'Server time of the backtest.' }) }, { description: 'Where the time went, in milliseconds.' }),
    },
    { description: 'The backtest and what it was run on.' },
  ),
});
export type BacktestResponseBody = Static<typeof BacktestResponse>;
