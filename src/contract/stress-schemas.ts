import { Type, type Static } from '@sinclair/typebox';
import { ISO_4217 } from './currencies.js';
import { Exposures } from './responses.js';
import { BookPositions, CAPITAL_BOUNDS, MAX_BOOK_ITEMS, PortfolioItem } from './schemas.js';
import { SymbolName } from './symbol-grammar.js';

/** Named crisis windows (first and last price date), replayed where the data covers them. */
export const NAMED_WINDOWS = {
  gfc_2008: { start: '2008-09-12', end: '2009-03-09', description: 'Lehman Brothers to the March 2009 low' },
  euro_2011: { start: '2011-07-22', end: '2011-10-03', description: 'Euro-area debt crisis and the US downgrade' },
  china_2015: { start: '2015-08-10', end: '2015-08-25', description: 'Yuan devaluation and the August 2015 sell-off' },
  volmageddon_2018: { start: '2018-01-26', end: '2018-02-08', description: 'Short-volatility unwind' },
  q4_2018: { start: '2018-09-20', end: '2018-12-24', description: 'Fourth-quarter 2018 sell-off' },
  covid_2020: { start: '2020-02-19', end: '2020-03-23', description: 'COVID-19 crash' },
} as const;
export type WindowName = keyof typeof NAMED_WINDOWS;

/** Most scenarios of one stress request. */
export const MAX_STRESS_SCENARIOS = 50;
/** Longest horizon, in trading days, of a worst-window or conditional scenario. */
export const MAX_STRESS_HORIZON = 1000;

const DateString = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD', examples: ['2018-10-01'] });
const Horizon = Type.Integer({ minimum: 1, maximum: MAX_STRESS_HORIZON, description: 'Trading days.', examples: [10] });
/** Most shocked symbols of a conditional scenario (the conditional model solves a system of that size). */
export const MAX_CONDITIONAL_SHOCKS = 100;

/** An absolute shift of every option's volatility in a scenario (api.md §15). */
const VolShift = Type.Optional(
  Type.Number({
    minimum: -5,
    maximum: 5,
    // No schema default: the answer's serializer would write it into the echoed scenario.
    description:
      'Absolute shift of every option’s volatility in this scenario (+0.10: 25 % becomes 35 %), 0 when omitted; each shifted volatility must stay in [1e-6, 5]. Books without options ignore it.',
    examples: [0.1],
  }),
);

/** Symbol → simple return: −100 % at worst (a conditional shock must stay above it: ln(1 + s)). */
const shocks = (maxProperties: number, totalLoss: boolean) =>
  Type.Record(SymbolName(), Type.Number(totalLoss ? { minimum: -1, maximum: 10 } : { exclusiveMinimum: -1, maximum: 10 }), {
    minProperties: 1,
    maxProperties,
    description: `Symbol of the dataset → simple return, ${totalLoss ? '−1 (−100 %)' : 'above −1'} to 10 (+1,000 %); at most ${maxProperties} symbols.`,
    examples: [{ AAPL: -0.2 }],
  });

export const StressScenario = Type.Union(
  [
    Type.Object(
      { type: Type.Literal('historical_worst', { description: 'The kind of scenario.' }), horizon: Horizon, vol_shift: VolShift },
      { additionalProperties: false, description: 'The worst T-day window of the book in the data.' },
    ),
    Type.Object(
      { type: Type.Literal('historical_window', { description: 'The kind of scenario.' }), start: DateString, end: DateString, vol_shift: VolShift },
      { additionalProperties: false, description: 'Replay the window from the last price on or before `start` to the last on or before `end`.' },
    ),
    Type.Object(
      {
        type: Type.Literal('named', { description: 'The kind of scenario.' }),
        name: Type.Union(
          Object.keys(NAMED_WINDOWS).map((n) => Type.Literal(n as WindowName)),
          {
            description: Object.entries(NAMED_WINDOWS)
              .map(([n, w]) => `${n}: ${w.start} to ${w.end} (${w.description})`)
              .join('; '),
          },
        ),
        vol_shift: VolShift,
      },
      { additionalProperties: false, description: 'A named crisis window, replayed if the data covers it, else `covered: false`.' },
    ),
    Type.Object(
      { type: Type.Literal('shock', { description: 'The kind of scenario.' }), shocks: shocks(MAX_BOOK_ITEMS, true), vol_shift: VolShift },
      { additionalProperties: false, description: 'Instantaneous simple returns; unlisted symbols 0.' },
    ),
    Type.Object(
      {
        type: Type.Literal('conditional', { description: 'The kind of scenario.' }),
        shocks: shocks(MAX_CONDITIONAL_SHOCKS, false),
        horizon: Horizon,
        vol_shift: VolShift,
      },
      {
        additionalProperties: false,
        description: 'Listed symbols’ T-day log returns fixed at ln(1 + s); the others at their conditional mean under the fitted normal model.',
      },
    ),
  ],
  { description: 'One stress scenario.' },
);
export type StressScenarioInput = Static<typeof StressScenario>;

export const StressRequest = Type.Object(
  {
    dataset_id: Type.String({ minLength: 1, maxLength: 64, description: 'Id of an uploaded dataset of the caller.', examples: ['ds_0123456789abcdefABCDEF'] }),
    currency: Type.String({ format: 'iso4217', enum: [...ISO_4217].sort(), description: 'ISO 4217 alphabetic code.' }),
    portfolio_value: Type.Optional(
      Type.Number({
        minimum: CAPITAL_BOUNDS.min,
        maximum: CAPITAL_BOUNDS.max,
        description: 'Capital C: required with `portfolio`; default with `positions`: the gross exposure.',
      }),
    ),
    portfolio: Type.Optional(
      Type.Array(PortfolioItem, {
        minItems: 1,
        maxItems: MAX_BOOK_ITEMS,
        description: 'Long-only weights of portfolio_value. Exactly one of portfolio and positions.',
      }),
    ),
    positions: Type.Optional(BookPositions),
    scenarios: Type.Array(StressScenario, {
      minItems: 1,
      maxItems: MAX_STRESS_SCENARIOS,
      description: 'The scenarios to price the book in, answered in this order.',
    }),
  },
  { additionalProperties: false },
);
export type StressRequestBody = Static<typeof StressRequest>;

export const StressResult = Type.Object(
  {
    scenario: StressScenario,
    covered: Type.Boolean({ description: 'false when the data does not reach the window (then no figures).' }),
    start: Type.Optional(Type.String({ format: 'date', description: 'Historical scenarios: the price date the window starts from.' })),
    end: Type.Optional(Type.String({ format: 'date', description: 'Historical scenarios: the window’s last price date.' })),
    pnl: Type.Number({ description: 'P&L of the book in `currency` (a loss negative).' }),
    pnl_pct: Type.Number({ description: 'pnl / capital C.' }),
    items: Type.Array(
      Type.Object({
        symbol: Type.String({ description: 'The position’s symbol (an option: "AAPL call 190 2026-12-18").' }),
        return: Type.Number({ description: 'Simple return of the symbol in the scenario (an option: its underlying’s).' }),
        pnl: Type.Number({ description: 'P&L of the position in `currency` (an option: quantity × multiplier × (V after − V now), fully repriced).' }),
        option: Type.Optional(Type.Integer({ minimum: 0, description: 'Options only: the position’s index in `positions`.' })),
        value: Type.Optional(
          Type.Number({
            description: 'Options only: quantity × multiplier × the option’s price in the scenario (shocked underlying, volatility + vol_shift, τ unchanged).',
          }),
        ),
        conditional_sd: Type.Optional(
          Type.Number({ description: 'Conditional scenarios: the T-day log return’s conditional standard deviation (0 for a shocked symbol).' }),
        ),
      }),
      { description: 'Each position’s return and P&L in the scenario.' },
    ),
  },
  { description: 'One scenario’s outcome, in the order of the request.' },
);

export const StressResponse = Type.Object({
  status: Type.Literal('success', { description: 'Always "success" on a 200.' }),
  meta: Type.Object(
    {
      calculation_id: Type.String({ description: 'Id of this calculation (calc_…).' }),
      dataset_id: Type.String({ description: 'The dataset the scenarios came from.' }),
      currency: Type.String({ description: 'ISO 4217 code of every money figure.' }),
      portfolio_value: Type.Number({ description: 'Capital C.' }),
      exposures: Exposures,
      as_of: Type.String({ format: 'date', description: 'The price date of the exposures.' }),
      results: Type.Array(StressResult, { description: 'Each scenario’s outcome, in the order of the request.' }),
    },
    { description: 'The book and its scenarios.' },
  ),
});
export type StressResponseBody = Static<typeof StressResponse>;
