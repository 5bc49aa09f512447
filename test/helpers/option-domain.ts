// Option books over the declared domain (api.md §15) as fast-check arbitraries: a drawn calculate
// request's stock positions with up to four options and two given sensitivities beside them, every
// option field over its whole range with its edges (strikes and multipliers from the least double,
// σ up to 5, rates and yields ±1, expiries from the last date to 100 years on), in each method that
// takes options and each valuation it allows.
import fc from 'fast-check';
import { MAX_SENSITIVITY, OPTION_BOUNDS, type OptionEntry, type SensitivityEntry, type ValuationMode } from '../../src/contract/option-schemas.js';
import { type CalculateRequest } from '../../src/contract/schemas.js';
import { MAX_EXPIRY_YEARS } from '../../src/risk/options/option-positions.js';
import { calculateRequests, DOMAIN, REPORTING_CURRENCIES } from './calculation-domain.js';
import { without } from './without.js';

/** The methods that price options (cornish_fisher expands a linear P&L; parametric at delta). */
const OPTION_METHODS = new Set(['monte_carlo_normal', 'monte_carlo_student_t', 'historical', 'historical_filtered', 'parametric_normal']);
/** Most stock positions kept beside the options: the options are what is drawn here. */
const MOST_STOCKS = 6;
/** Most simulations of an option case: every scenario reprices each option twice (as asked and at its delta), on four builds. */
const MOST_SIMULATIONS = 20_000;

const double = (min: number, max: number) => fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
const withEdges = (edges: number[], min: number, max: number) => fc.oneof(fc.constantFrom(...edges), double(min, max));
const positive = (max: number, edges: number[]) => withEdges([Number.MIN_VALUE, max, ...edges], Number.MIN_VALUE, max);

function isoPlusDays(date: string, days: number): string {
  return new Date(Date.parse(`${date.slice(0, 10)}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

function optionEntry(symbols: string[], lastDate: string): fc.Arbitrary<OptionEntry> {
  const most = MAX_EXPIRY_YEARS * 365;
  const rate = withEdges([0, -OPTION_BOUNDS.maxRate, OPTION_BOUNDS.maxRate], -OPTION_BOUNDS.maxRate, OPTION_BOUNDS.maxRate);
  return fc
    .record({
      underlying: fc.constantFrom(...symbols),
      type: fc.constantFrom('call' as const, 'put' as const),
      model: fc.option(fc.constantFrom('black_scholes' as const, 'black76' as const), { nil: undefined }),
      // Strikes far in and out of the money of prices near 100, and every magnitude.
      strike: fc.oneof(positive(1e15, [1, 2 ** 31, 2 ** 32]), double(20, 500)),
      volatility: withEdges([OPTION_BOUNDS.minVolatility, OPTION_BOUNDS.maxVolatility, 0.2], OPTION_BOUNDS.minVolatility, OPTION_BOUNDS.maxVolatility),
      rate: fc.option(rate, { nil: undefined }),
      dividend_yield: fc.option(rate, { nil: undefined }),
      days: fc.oneof(fc.constantFrom(0, 1, most), fc.integer({ min: 0, max: most }), fc.integer({ min: 1, max: 730 })),
      quantity: fc.oneof(
        withEdges([0, 1, -1, OPTION_BOUNDS.maxQuantity, -OPTION_BOUNDS.maxQuantity, 2 ** 31, 2 ** 32], -OPTION_BOUNDS.maxQuantity, OPTION_BOUNDS.maxQuantity),
        double(-100, 100),
      ),
      multiplier: fc.option(positive(OPTION_BOUNDS.maxMultiplier, [1, 100]), { nil: undefined }),
    })
    .map((d) => ({
      option: {
        underlying: d.underlying,
        type: d.type,
        strike: d.strike,
        expiry: isoPlusDays(lastDate, d.days),
        volatility: d.volatility,
        ...(d.model !== undefined ? { model: d.model } : {}),
        ...(d.rate !== undefined ? { rate: d.rate } : {}),
        ...(d.dividend_yield !== undefined ? { dividend_yield: d.dividend_yield } : {}),
      },
      quantity: d.quantity,
      ...(d.multiplier !== undefined ? { multiplier: d.multiplier } : {}),
    }));
}

function sensitivity(symbols: string[]): fc.Arbitrary<SensitivityEntry> {
  const money = fc.oneof(withEdges([0, MAX_SENSITIVITY, -MAX_SENSITIVITY, 2 ** 31, 2 ** 32], -MAX_SENSITIVITY, MAX_SENSITIVITY), double(-1e7, 1e7));
  return fc.record({ symbol: fc.constantFrom(...symbols), delta: money, gamma: money });
}

type BookEntry = NonNullable<CalculateRequest['positions']>[number];

/**
 * A book of nothing but zeros is refused as empty (request-checks.test.ts), which is no valid
 * request: there its first option holds one contract.
 */
function withOneContract(positions: BookEntry[]): BookEntry[] {
  const amount = (p: BookEntry) => ('option' in p ? p.quantity : 'cash' in p ? p.amount : (p.quantity ?? p.market_value));
  if (positions.some((p) => amount(p) !== 0)) return positions;
  const first = positions.findIndex((p) => 'option' in p);
  return positions.map((p, i) => (i === first ? { ...p, quantity: 1 } : p));
}

/**
 * Calculate requests holding options: a drawn positions request in a method that takes options,
 * held (not rebalanced), without importance sampling or a target error (each refused with
 * options), its book cut to a few stocks, with options and sensitivities beside them, a capital,
 * and perhaps a what-if (its drawn stock trades, an option trade, or both).
 */
export function optionBookRequests(datasetId: string, symbols: string[], lastDate: string, maxAssets: number, budget: number): fc.Arbitrary<CalculateRequest> {
  const held = calculateRequests(datasetId, symbols, maxAssets, budget).filter(
    (r) => r.positions !== undefined && OPTION_METHODS.has(r.method) && r.portfolio_mode !== 'rebalanced',
  );
  const valuation = fc.constantFrom<ValuationMode>('full', 'delta_gamma', 'delta');
  return fc
    .tuple(
      held,
      fc.array(optionEntry(symbols, lastDate), { minLength: 1, maxLength: 4 }),
      fc.array(sensitivity(symbols), { maxLength: 2 }),
      fc.option(valuation, { nil: undefined }),
      fc.boolean(),
      fc.oneof(fc.constantFrom(DOMAIN.value.min, DOMAIN.value.max, 1, 2 ** 31, 2 ** 32), double(DOMAIN.value.min, DOMAIN.value.max), double(1e3, 1e10)),
      // A what-if: the drawn stock trades kept or not, and an option traded or not.
      fc.boolean(),
      fc.option(optionEntry(symbols, lastDate), { nil: undefined }),
    )
    .map(([r, options, given, drawnValuation, keepStocks, value, whatIf, optionTrade]) => {
      const method_options = without(r.method_options ?? {}, 'target_relative_error', 'variance_reduction');
      const valuationMode = r.method === 'parametric_normal' ? 'delta' : drawnValuation;
      const stocks = keepStocks ? r.positions!.slice(0, MOST_STOCKS) : [];
      const rest = without(r, 'what_if');
      const trades = [...(whatIf ? (r.what_if?.trades ?? []) : []), ...(optionTrade ? [optionTrade] : [])];
      return {
        ...rest,
        ...(trades.length > 0 ? { what_if: { trades } } : {}),
        // Without portfolio_value the capital is the book's gross at its deltas, which a far
        // out-of-the-money option alone leaves at 0 (refused: "give portfolio_value", options.test.ts).
        portfolio_value: r.portfolio_value ?? value,
        method_options: { ...method_options, ...(valuationMode !== undefined ? { valuation: valuationMode } : {}) },
        positions: given.length > 0 ? [...stocks, ...options] : withOneContract([...stocks, ...options]),
        // Parametric methods take a sensitivity's δ only (a γ is refused at its field).
        ...(given.length > 0 ? { sensitivities: r.method === 'parametric_normal' ? given.map((g) => ({ ...g, gamma: 0 })) : given } : {}),
        ...(r.simulations !== undefined ? { simulations: Math.min(r.simulations, MOST_SIMULATIONS) } : {}),
      };
    });
}

/**
 * Option books over a multi-currency dataset (api.md §14–15): the same draws in a drawn reporting
 * currency, with up to two cash positions beside them; options on foreign underlyings convert at
 * the scenario's rate. No sensitivities: on a symbol not quoted in the reporting currency they are
 * refused at their field (options-fx.test.ts), which is not what this property draws.
 */
export function multiCurrencyOptionBookRequests(
  datasetId: string,
  symbols: string[],
  lastDate: string,
  maxAssets: number,
  budget: number,
): fc.Arbitrary<CalculateRequest> {
  const code = fc.constantFrom(...REPORTING_CURRENCIES);
  const cash = fc.array(fc.tuple(code, fc.oneof(double(-1e7, 1e7), fc.constantFrom(0, 1, -1, 2 ** 31, 2 ** 32))), { maxLength: 2 });
  return fc.tuple(optionBookRequests(datasetId, symbols, lastDate, maxAssets, budget), code, cash).map(([r, currency, held]) => ({
    ...without(r, 'sensitivities'),
    currency,
    // Its sensitivities dropped, the book may hold nothing but zeros.
    positions: [...withOneContract(r.positions!), ...held.map(([c, amount]) => ({ cash: c, amount }))],
  }));
}
