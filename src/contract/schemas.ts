import { FormatRegistry, Type, type Static, type TSchema } from '@sinclair/typebox';
import { ISO_4217 } from './currencies.js';
import { SymbolName } from './symbol-grammar.js';
import { OptionItem, Sensitivities, VALUATIONS } from './option-schemas.js';

FormatRegistry.Set('iso4217', (value) => ISO_4217.has(value));

/** Every default of the calculate request, declared once: the schema shows them, risk applies them. */
export const DEFAULTS = {
  portfolio_mode: 'buy_and_hold',
  degrees_of_freedom: 5,
  antithetic: false,
  drift: 'sample',
  covariance: 'sample',
  ewma_lambda: 0.94,
  filter_lambda: 0.94,
  histogram_bins: 50,
  variance_reduction: 'none',
} as const;

/** Values of method_options.variance_reduction. */
export const VARIANCE_REDUCTIONS = ['none', 'importance_sampling'] as const;

/** Bounds of method_options.target_relative_error. */
export const TARGET_RELATIVE_ERROR = { min: 0.0005, max: 0.1 } as const;

export const METHODS = ['monte_carlo_normal', 'monte_carlo_student_t', 'historical', 'parametric_normal', 'historical_filtered', 'cornish_fisher'] as const;
export const MONTE_CARLO: ReadonlySet<string> = new Set(['monte_carlo_normal', 'monte_carlo_student_t']);
/** Methods whose scenarios are the overlapping windows of the returns (plain, filtered, or read for their moments). */
export const HISTORICAL_WINDOWS: ReadonlySet<string> = new Set(['historical', 'historical_filtered', 'cornish_fisher']);
export const literals = <T extends string>(values: readonly T[], description: string, fallback?: T) =>
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
    covariance: Type.Optional(
      literals(
        ['sample', 'ewma'],
        'Covariance estimator: sample (n − 1) or EWMA; "ewma" is refused with historical, which estimates none.',
        DEFAULTS.covariance,
      ),
    ),
    ewma_lambda: Type.Optional(Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1, description: 'EWMA decay λ.', default: DEFAULTS.ewma_lambda })),
    filter: Type.Optional(
      Type.Object(
        {
          model: literals(
            ['ewma', 'garch11'],
            'The variance filter per asset, zero mean: "ewma" σ²_{t+1} = λσ²_t + (1 − λ)r²_t; "garch11" σ²_{t+1} = ω + αr²_t + βσ²_t with ω, α, β fitted by Gaussian quasi-maximum likelihood (α + β < 1; a fit that does not converge or reaches α + β ≥ 1 falls back to EWMA λ 0.94, and meta.warnings says so).',
          ),
          lambda: Type.Optional(
            Type.Number({
              exclusiveMinimum: 0,
              exclusiveMaximum: 1,
              description: 'EWMA decay λ of the filter ("ewma" only).',
              default: DEFAULTS.filter_lambda,
            }),
          ),
        },
        {
          additionalProperties: false,
          description:
            'historical_filtered only (default {"model": "ewma", "lambda": 0.94}): σ²_1 = mean of r² over the first min(30, m) returns; each return is standardised by its own day’s σ_t, z_t = r_t / σ_t, whole rows at a time (the cross-section kept). time_horizon 1: every row rescaled to the next day’s σ_{m+1}. time_horizon T > 1: each of `simulations` paths draws T rows with replacement (seeded: method_options.seed, bit-identical on every build), r̃_k = σ_k · z_{t_k} from σ_{m+1}, σ²_{k+1} by the same recursion with r̃_k; the path’s T-day log return is Σ r̃_k.',
          examples: [{ model: 'ewma', lambda: 0.94 }, { model: 'garch11' }],
        },
      ),
    ),
    histogram_bins: Type.Optional(Type.Integer({ minimum: 10, maximum: 200, description: 'Bins of the P&L histogram.', default: DEFAULTS.histogram_bins })),
    variance_reduction: Type.Optional(
      literals(
        VARIANCE_REDUCTIONS,
        'Monte Carlo only: "importance_sampling" draws the normals shifted towards the book’s losses and weights each scenario by its likelihood ratio (conventions.importance_sampling): far smaller standard errors of VaR, ES and their components at the same simulations, noisier figures of the centre (expected P&L, volatility, probability of loss, middle percentiles, histogram). Not with batch; Student-t needs degrees_of_freedom ≥ 5.',
        DEFAULTS.variance_reduction,
      ),
    ),
    valuation: Type.Optional(
      literals(
        VALUATIONS,
        'Options (api.md §15): "full" re-prices every option on every scenario (the default); "delta_gamma" Δ·dS + ½Γ·dS² + Θ·T/252; "delta" Δ·dS. Monte Carlo (buy-and-hold) and historical methods take all three; parametric_normal takes delta only.',
      ),
    ),
    target_relative_error: Type.Optional(
      Type.Number({
        minimum: TARGET_RELATIVE_ERROR.min,
        maximum: TARGET_RELATIVE_ERROR.max,
        description:
          'Monte Carlo only: simulate in rounds (16,384 simulations, then doubling) until the standard errors of VaR and ES are both at most this share of their estimates, or `simulations` (then the cap) is reached; meta.precision says what was reached.',
        examples: [0.005],
      }),
    ),
  },
  { additionalProperties: false, description: 'How the model is estimated and sampled; every field has a default.' },
);

/** Largest |quantity| or |market_value| of a position or trade. */
export const MAX_POSITION = 1e15;
/**
 * Capital C, stated or (an option book's) defaulted: below 1e-6 every scenario's P&L underflows
 * towards zero, and an option book's P&L per unit of a tiny money-delta capital overflows a double.
 */
export const CAPITAL_BOUNDS = { min: 1e-6, max: 1e15 } as const;
/** Items of one book (portfolio or positions) and of one what-if. */
export const MAX_BOOK_ITEMS = 5000;
/** Books of one batch. */
export const MAX_BATCH_BOOKS = 200;

// The upload's symbol grammar: a name the dataset could not hold is refused where it is stated.
const Symbol = SymbolName();

export const PortfolioItem = Type.Object(
  {
    symbol: Symbol,
    weight: Type.Number({ minimum: 0, maximum: 1, description: 'Share of portfolio_value; the weights sum to 1.' }),
  },
  { additionalProperties: false },
);

const amount = (description: string, example: number) => Type.Number({ minimum: -MAX_POSITION, maximum: MAX_POSITION, description, examples: [example] });

/** A position or a trade: exactly one of `quantity` and `market_value`, any sign (negative = short). */
export const PositionItem = Type.Object(
  {
    symbol: Symbol,
    quantity: Type.Optional(amount('Units held, negative for a short: exposure = quantity × the last price of the estimation.', 8000)),
    market_value: Type.Optional(amount('Exposure in `currency`, negative for a short.', -500_000)),
  },
  { additionalProperties: false, description: 'Exactly one of quantity or market_value; |value| ≤ 1e15.' },
);

/** Cash in a currency: an FX-only exposure (api.md §14). */
export const CashItem = Type.Object(
  {
    cash: Type.String({ format: 'iso4217', enum: [...ISO_4217].sort(), description: 'ISO 4217 code of the cash.', examples: ['EUR'] }),
    amount: amount('Amount in that currency, negative for a borrowing: its exposure is amount × the last rate into `currency`.', 250_000),
  },
  {
    additionalProperties: false,
    description: 'Cash: FX risk only (needs a multi-currency dataset holding a rate from its currency into `currency`, direct, inverse or through one cross).',
  },
);

export const Portfolio = Type.Array(PortfolioItem, {
  minItems: 1,
  maxItems: MAX_BOOK_ITEMS,
  description: 'Long-only weights of portfolio_value (unique symbols). Exactly one of portfolio and positions.',
});
/** Calculate's positions: stock, cash and options (api.md §15). */
export const BookPositions = Type.Array(Type.Union([PositionItem, CashItem, OptionItem]), {
  minItems: 1,
  maxItems: MAX_BOOK_ITEMS,
  description:
    'Long/short positions, cash and European options. A symbol may appear more than once: its quantities and its market values each add up. Exactly one of portfolio and positions.',
});
export const Positions = Type.Array(Type.Union([PositionItem, CashItem]), {
  minItems: 1,
  maxItems: MAX_BOOK_ITEMS,
  description:
    'Long/short positions, not all zero. A symbol may appear more than once: its quantities and its market values each add up (parts that add up exactly give the same figures); contributions list it once, where it first appears. Exactly one of portfolio and positions.',
});

export const WhatIf = Type.Object(
  {
    trades: Type.Array(Type.Union([PositionItem, OptionItem]), {
      minItems: 1,
      maxItems: MAX_BOOK_ITEMS,
      description:
        'Proposed trades (stock trades on unique symbols; European options as in positions, api.md §15), added to the book: the book is priced before and after on the same scenarios. With options in the book or the trades, the book after is its positions followed by the trades, and meta.what_if’s figures of it are those of a calculate of that book (bit for bit); the book must then be `positions`, not a portfolio of weights.',
    }),
  },
  { additionalProperties: false, description: 'Trades to price against the book: the answer adds meta.what_if (the book after them, and the differences).' },
);

/** Fields every calculation has, whatever its book(s). */
export function calculationFields(maxSimulations: number) {
  return {
    dataset_id: Type.String({ minLength: 1, maxLength: 64, description: 'Id of an uploaded dataset of the caller.', examples: ['ds_0123456789abcdefABCDEF'] }),
    method: literals(
      METHODS,
      'Risk calculation method. historical_filtered: historical simulation of volatility-filtered returns (method_options.filter): time_horizon 1 replays every date; time_horizon > 1 draws `simulations` seeded bootstrap paths of T filtered days, the variance updated along each path (buy_and_hold only). cornish_fisher: modified VaR and ES from the mean, standard deviation, skewness and excess kurtosis of the historical windows’ P&L (meta.cornish_fisher).',
    ),
    method_options: Type.Optional(MethodOptions),
    portfolio_value: Type.Optional(
      Type.Number({
        minimum: CAPITAL_BOUNDS.min,
        maximum: CAPITAL_BOUNDS.max,
        description:
          'Capital C in `currency`, 1e-6 to 1e15: required with `portfolio`; with `positions` optional (default: gross exposure). `_pct` figures divide by C.',
        examples: [1_000_000],
      }),
    ),
    // `format` is what TypeBox checks; `enum` lists the same codes for OpenAPI clients and fuzzers.
    currency: Type.String({ format: 'iso4217', enum: [...ISO_4217].sort(), description: 'ISO 4217 alphabetic code.' }),
    portfolio_mode: Type.Optional(
      literals(
        ['buy_and_hold', 'rebalanced'],
        'Buy and hold, or rebalanced to the weights every day; "rebalanced" is refused with parametric_normal (its closed form is the buy-and-hold book’s) and with historical_filtered over time_horizon > 1 (its paths carry T-day returns).',
        DEFAULTS.portfolio_mode,
      ),
    ),
    confidence_level: Type.Number({ minimum: 0.5, exclusiveMaximum: 1, description: 'Confidence level c of VaR and ES, 0.5 ≤ c < 1.', examples: [0.99] }),
    time_horizon: Type.Integer({ minimum: 1, maximum: 1000, description: 'Trading days.' }),
    simulations: Type.Optional(
      Type.Integer({
        minimum: 100,
        maximum: maxSimulations,
        description:
          'Required by Monte Carlo methods, and by historical_filtered with time_horizon > 1 (the number of bootstrap paths; simulations × time_horizon × assets at most 2e7).',
      }),
    ),
    degrees_of_freedom: Type.Optional(
      Type.Integer({ minimum: 3, maximum: 1000, description: 'Student-t ν (monte_carlo_student_t).', default: DEFAULTS.degrees_of_freedom }),
    ),
  };
}

/** The calculate request; `maxSimulations` comes from the configuration. */
export function calculateRequestSchema(maxSimulations: number) {
  return Type.Object(
    {
      ...calculationFields(maxSimulations),
      portfolio: Type.Optional(Portfolio),
      positions: Type.Optional(BookPositions),
      sensitivities: Type.Optional(Sensitivities),
      what_if: Type.Optional(WhatIf),
    },
    { additionalProperties: false },
  );
}
export type CalculateRequest = Static<ReturnType<typeof calculateRequestSchema>>;

export const BatchBook = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 64, description: 'Unique within the batch.', examples: ['desk-a'] }),
    portfolio: Type.Optional(Portfolio),
    positions: Type.Optional(BookPositions),
  },
  {
    additionalProperties: false,
    description:
      'Exactly one of portfolio and positions. Positions may hold European options (api.md §15): the batch then takes what calculate takes with options (no rebalanced, parametric at valuation "delta"), and each book’s figures, its option rows’ price and Greeks and its `valuation` are those of a calculate of that book alone over the batch’s set of symbols, bit for bit.',
  },
);

/** The batch request: the calculate fields with `books` in place of one book. */
export function batchRequestSchema(maxSimulations: number) {
  return Type.Object(
    {
      ...calculationFields(maxSimulations),
      books: Type.Array(BatchBook, {
        minItems: 1,
        maxItems: MAX_BATCH_BOOKS,
        description: 'Books priced on one scenario set over the union of their symbols (in order of first appearance).',
      }),
    },
    { additionalProperties: false },
  );
}
export type BatchRequest = Static<ReturnType<typeof batchRequestSchema>>;
export type PortfolioEntry = Static<typeof PortfolioItem>;
export type PositionEntry = Static<typeof PositionItem>;
export type CashEntry = Static<typeof CashItem>;

export type Schema = TSchema;
