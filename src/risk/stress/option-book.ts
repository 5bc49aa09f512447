import { type StressResult, type StressScenarioInput } from '../../contract/stress-schemas.js';
import { type Static } from '@sinclair/typebox';
import { inListedOrder, priceBook, type BookRequest, type PricedBook } from '../books.js';
import { priceOptionBook } from '../options/option-capital.js';
import { type CalculatorDeps } from '../calculate.js';
import { optionGreeks, type PricedOption } from '../options/option-columns.js';
import { type StatedOption } from '../options/option-positions.js';
import { converted, reprice, withOptions, type StressedOption } from './option-stress.js';
import { type ForeignUnderlying } from '../options/foreign-underlyings.js';
import { type StressOutcome } from './scenarios.js';

/** The book over `symbols` at `prices`: as ever without options, else by `priceOptionBook`. */
export function priceStressBook(
  stated: BookRequest,
  symbols: string[],
  prices: Float64Array,
  portfolioValue: number | undefined,
  options: { options: StressedOption[]; deltaMoney: number[] },
): PricedBook {
  if (options.options.length === 0) return priceBook(stated, symbols, prices, portfolioValue, ['body']);
  return priceOptionBook(stated, symbols, prices, portfolioValue, options.deltaMoney);
}

/**
 * Each option priced now by the engine (OP_OPTION_GREEKS); `prices` over the model's symbols, the
 * underlyings among them (a foreign one's local price and its currency's rate, `foreign`).
 */
export async function stressedOptions(
  deps: CalculatorDeps,
  options: StatedOption[],
  taus: number[],
  symbols: string[],
  prices: Float64Array,
  foreign: Map<string, ForeignUnderlying>,
  signal: AbortSignal,
): Promise<{ options: StressedOption[]; deltaMoney: number[] }> {
  if (options.length === 0) return { options: [], deltaMoney: [] };
  const column = new Map(symbols.map((s, i) => [s, i]));
  const fx = options.map((o) => foreign.get(o.entry.option.underlying));
  const priced: PricedOption[] = options.map((o, i) => {
    const underlying = column.get(fx[i]?.local ?? o.entry.option.underlying)!;
    return { stated: o, underlying, spot: prices[underlying]!, tau: taus[i]! };
  });
  const greeks = await optionGreeks(deps.executor, priced, signal);
  const stressed = priced.map((p, k) => {
    const unit = fx[k] ? column.get(fx[k].unit)! : -1;
    return {
      priced: p,
      column: p.underlying,
      fx: unit,
      size: p.stated.entry.quantity * (p.stated.entry.multiplier ?? 1) * (unit < 0 ? 1 : prices[unit]!),
      valueNow: greeks[k]![0]!,
    };
  });
  return { options: stressed, deltaMoney: stressed.map((o, k) => o.size * greeks[k]![1]! * o.priced.spot) };
}

type Result = Omit<Static<typeof StressResult>, 'scenario'>;

/**
 * Each outcome with its items in the book's listed order; with options, every covered scenario's
 * options repriced at their underlyings' returns and volatility + vol_shift, in one pass (a
 * foreign underlying's local return, the value then converted at its rate's return).
 */
export async function withOptionsRepriced(
  deps: CalculatorDeps,
  scenarios: StressScenarioInput[],
  outcomes: StressOutcome[],
  book: PricedBook,
  options: StressedOption[],
  signal: AbortSignal,
): Promise<Result[]> {
  if (options.length === 0) return outcomes.map((o) => ({ ...o, items: inListedOrder(o.items, book.listed) }));
  // The covered scenarios, each a move of every option.
  const covered = outcomes.flatMap((o, i) => (o.covered ? [i] : []));
  const returnOf = (m: number, k: number) => outcomes[covered[m]!]!.items[options[k]!.column]!.return;
  const values = await reprice(deps.executor, options, covered.length, returnOf, (m) => scenarios[covered[m]!]!.vol_shift ?? 0, signal);
  covered.forEach((i, m) =>
    options.forEach((o, k) => {
      if (o.fx >= 0) values[m * options.length + k] = converted(values[m * options.length + k]!, outcomes[i]!.items[o.fx]!.return);
    }),
  );
  let at = 0;
  return outcomes.map((o) => {
    const after = o.covered ? values.subarray(at, (at += options.length)) : [];
    return withOptions(o, options, after, book.capital, inListedOrder(o.items, book.listed));
  });
}
