import { Type, type Static } from '@sinclair/typebox';
import { SymbolName } from './symbol-grammar.js';

/** Values of `method_options.valuation` (api.md §15). */
export const VALUATIONS = ['full', 'delta_gamma', 'delta'] as const;
export type ValuationMode = (typeof VALUATIONS)[number];

/** Bounds of an option's terms, the engine's too (engine/core/src/options/revalue.rs). */
/**
 * minVolatility: below it σ√τ of a one-day option leaves normal doubles (5e-324 over one day is 0,
 * and d₁ = ln(S/K)/0 is not a number); 1e-6 a year is 0.0001 % and still gives d₁ finite everywhere.
 */
export const OPTION_BOUNDS = { minVolatility: 1e-6, maxVolatility: 5, maxRate: 1, maxQuantity: 1e12, maxMultiplier: 1e6 } as const;

/** A European option on a dataset symbol (api.md §15). */
export const OptionTerms = Type.Object(
  {
    underlying: Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        'The dataset symbol the option is written on; one quoted in another currency is priced in it and converted into `currency` at each scenario’s FX rate (api.md §14).',
      examples: ['AAPL'],
    }),
    type: Type.Union([Type.Literal('call'), Type.Literal('put')], { description: 'Call or put (European).' }),
    strike: Type.Number({ exclusiveMinimum: 0, maximum: 1e15, description: 'Strike, in the underlying’s price units.', examples: [190] }),
    expiry: Type.String({
      pattern: '^\\d{4}-\\d{2}-\\d{2}$',
      description: 'Expiry date, not before the dataset’s last date: τ = (expiry − last date) / 365.',
      examples: ['2026-12-18'],
    }),
    volatility: Type.Number({
      minimum: OPTION_BOUNDS.minVolatility,
      maximum: OPTION_BOUNDS.maxVolatility,
      description: 'Implied volatility σ per year, kept in every scenario (sticky strike), from 1e-6 to 5.',
      examples: [0.25],
    }),
    rate: Type.Optional(
      Type.Number({
        minimum: -OPTION_BOUNDS.maxRate,
        maximum: OPTION_BOUNDS.maxRate,
        default: 0,
        description: 'Continuously compounded risk-free rate per year.',
        examples: [0.04],
      }),
    ),
    dividend_yield: Type.Optional(
      Type.Number({
        minimum: -OPTION_BOUNDS.maxRate,
        maximum: OPTION_BOUNDS.maxRate,
        default: 0,
        description: 'Continuous dividend yield per year (black_scholes only).',
        examples: [0],
      }),
    ),
    model: Type.Optional(
      Type.Union([Type.Literal('black_scholes'), Type.Literal('black76')], {
        default: 'black_scholes',
        description: 'black_scholes (Merton, with dividend yield) or black76 (the underlying’s price read as a futures price).',
      }),
    ),
  },
  { additionalProperties: false, description: 'The option’s terms: European, on a dataset symbol.' },
);

export const OptionItem = Type.Object(
  {
    option: OptionTerms,
    quantity: Type.Number({
      minimum: -OPTION_BOUNDS.maxQuantity,
      maximum: OPTION_BOUNDS.maxQuantity,
      description: 'Contracts held, negative for a short.',
      examples: [10],
    }),
    multiplier: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: OPTION_BOUNDS.maxMultiplier,
        default: 1,
        description: 'Units of the underlying per contract.',
        examples: [100],
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'A European option position, revalued on every Monte Carlo or historical scenario (method_options.valuation).',
  },
);
export type OptionEntry = Static<typeof OptionItem>;

/** Sensitivities per request: each is two of the engine's ABI.MAX_OPTIONS columns (as given and at its delta), with the options' (checked at calculate). */
export const MAX_SENSITIVITIES = 500;
/** Largest |delta| or |gamma| of a sensitivity, as a position's market value (the engine's MAX_SENSITIVITY). */
export const MAX_SENSITIVITY = 1e15;

const money = (description: string, example: number) => Type.Number({ minimum: -MAX_SENSITIVITY, maximum: MAX_SENSITIVITY, description, examples: [example] });

/** Bring your own Greeks (api.md §15): an instrument priced elsewhere, by its money delta and gamma on a dataset symbol. */
export const SensitivityItem = Type.Object(
  {
    symbol: SymbolName(),
    delta: money('Money delta δ in `currency`: P&L per unit relative move x of the symbol (δ alone is a position of market value δ).', 250_000),
    gamma: Type.Optional(money('Money gamma γ in `currency`: P&L ½·γ·x² for a relative move x (x = e^R − 1); must be 0 with parametric_normal.', -40_000)),
  },
  { additionalProperties: false, description: 'P&L per scenario δ·x + ½·γ·x², x = e^R − 1 of the symbol’s scenario log return R.' },
);
export type SensitivityEntry = Static<typeof SensitivityItem>;

export const Sensitivities = Type.Array(SensitivityItem, {
  minItems: 1,
  maxItems: MAX_SENSITIVITIES,
  description:
    'Bring your own Greeks (api.md §15): instruments priced elsewhere, added to the book’s P&L on every Monte Carlo or historical scenario as δ·x + ½·γ·x² (with valuation "delta": δ·x); parametric_normal takes gamma 0 only. Each is a row of contributions. Taken as options are (no portfolio, no rebalanced; with what_if the book after keeps them); over a multi-currency dataset only on symbols quoted in `currency`.',
  examples: [[{ symbol: 'AAPL', delta: 250_000, gamma: -40_000 }]],
});

/** An option row of `contributions` adds its price and Greeks, position totals in `currency`. */
export const OptionFigures = {
  option: Type.Optional(Type.Integer({ minimum: 0, description: 'Options only: the position’s index in `positions`.' })),
  sensitivity: Type.Optional(Type.Integer({ minimum: 0, description: 'Sensitivities only: its index in `sensitivities`.' })),
  price: Type.Optional(
    Type.Number({ description: 'Options only: quantity × multiplier × the option’s price now (× the last FX rate into `currency` for a foreign underlying).' }),
  ),
  delta: Type.Optional(
    Type.Number({
      description:
        'Options and sensitivities: money delta, quantity × multiplier × Δ × S (× the last FX rate for a foreign underlying; P&L per unit relative move of S), or δ as given.',
    }),
  ),
  gamma: Type.Optional(
    Type.Number({ description: 'Options and sensitivities: money gamma, quantity × multiplier × Γ × S² (½·gamma·x² for a relative move x), or γ as given.' }),
  ),
  vega: Type.Optional(Type.Number({ description: 'Options only: quantity × multiplier × ∂V/∂σ (per 1.0 of volatility).' })),
  theta: Type.Optional(Type.Number({ description: 'Options only: quantity × multiplier × ∂V/∂t, per year of calendar time.' })),
};

export const ValuationMeta = Type.Object(
  {
    mode: Type.Union([Type.Literal('full'), Type.Literal('delta_gamma'), Type.Literal('delta')], {
      description: 'How the options were valued on each scenario.',
    }),
    options: Type.Integer({ minimum: 0, description: 'Option positions in the book.' }),
    sensitivities: Type.Optional(
      Type.Integer({ minimum: 1, description: 'Sensitivities given (`sensitivities`), when any: at their delta in the comparison too.' }),
    ),
    nonlinearity_var: Type.Number({ description: 'VaR in `mode` minus VaR of the same book with every option at its delta, on the same scenarios.' }),
    nonlinearity_es: Type.Number({ description: 'The same for ES.' }),
    nonlinearity_var_standard_error: Type.Number({ description: 'Standard error of the difference (common scenarios, independent batches).' }),
    nonlinearity_es_standard_error: Type.Number({ description: 'Standard error of the difference.' }),
    sticky: Type.Literal('strike', { description: 'Volatility, rate and dividend yield stay as stated in every scenario (sticky strike).' }),
  },
  { description: 'Options only (api.md §15).' },
);
