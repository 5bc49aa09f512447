import { Type, type Static } from '@sinclair/typebox';
import { calculationFields, Portfolio, Positions } from './schemas.js';

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
  { additionalProperties: false },
);

/** The backtest request: the calculate fields (time_horizon must be 1) and `backtest`. */
export function backtestRequestSchema(maxSimulations: number) {
  return Type.Object(
    {
      ...calculationFields(maxSimulations),
      portfolio: Type.Optional(Portfolio),
      positions: Type.Optional(Positions),
      backtest: Type.Optional(BacktestOptions),
    },
    { additionalProperties: false },
  );
}
export type BacktestRequest = Static<ReturnType<typeof backtestRequestSchema>>;

const Num = Type.Number();
const Test = (description: string) => Type.Object({ lr: Num, p_value: Num }, { description });

export const BacktestFigures = Type.Object({
  observations: Type.Integer({ description: 'Forecast dates N.' }),
  exceptions: Type.Integer({ description: 'Days with P&L < −VaR.' }),
  expected_exceptions: Type.Number({ description: 'N·(1 − c).' }),
  exception_dates: Type.Array(Type.String()),
  kupiec: Test('Kupiec proportion of failures, χ²(1).'),
  christoffersen_independence: Type.Object(
    { lr: Num, p_value: Num, n00: Type.Integer(), n01: Type.Integer(), n10: Type.Integer(), n11: Type.Integer() },
    { description: 'Christoffersen independence, χ²(1); n_ij counts moves from state i at t − 1 to state j at t.' },
  ),
  conditional_coverage: Test('Kupiec + independence, χ²(2).'),
  traffic_light: Type.Object({
    zone: Type.Union([Type.Literal('green'), Type.Literal('yellow'), Type.Literal('red')]),
    cumulative_probability: Type.Number({ description: 'Binomial CDF F(exceptions; N, 1 − c).' }),
    basel_multiplier: Type.Union([Num, Type.Null()], { description: 'N = 250 at c = 0.99 only.' }),
    frtb_multiplier: Type.Union([Num, Type.Null()], { description: 'N = 250 at c = 0.99 only.' }),
  }),
  es_test: Type.Union(
    [
      Type.Object({
        z2: Type.Number({ description: 'Acerbi–Székely Z2; 0 under a correct model, negative when ES is too small.' }),
        p_value: Type.Number({ description: 'Share of Z2 simulated under the model at or below the observed one.' }),
        simulations: Type.Integer(),
        seed: Type.Integer({ description: 'Seed of the simulation (the request’s, else 0).' }),
        model: Type.Union([Type.Literal('normal'), Type.Literal('sampler')], { description: 'normal: each day N(μ_t, σ_t²) fitted to its VaR and ES.' }),
      }),
      Type.Null(),
    ],
    { description: 'null with `es: false`, or when a day’s forecast ES is not above its VaR (no normal model fits it).' },
  ),
  series: Type.Array(Type.Object({ date: Type.String(), var: Num, es: Num, pnl: Num, exception: Type.Boolean() })),
});

export const BacktestResponse = Type.Object({
  status: Type.Literal('success'),
  meta: Type.Object({
    calculation_id: Type.String(),
    dataset_id: Type.String(),
    method: Type.String(),
    currency: Type.String(),
    confidence_level: Num,
    portfolio_value: Type.Number({ description: 'Capital C.' }),
    seed: Type.Union([Type.Integer(), Type.Null()], { description: 'Monte Carlo: the seed each date’s seed is derived from.' }),
    window: Type.Integer(),
    estimation_window: Type.Integer(),
    backtest: BacktestFigures,
    timing_ms: Type.Object({ total: Num }),
  }),
});
export type BacktestResponseBody = Static<typeof BacktestResponse>;
