import { type Dataset } from '../datasets/dataset.js';
import { conversionOf, rateOf, type Conversion } from './fx/conversion.js';
import { currencyOfColumn } from './fx/fx-plan.js';

/**
 * What a live book over a multi-currency dataset revalues on (api.md §14, §17): a price tick names
 * a symbol's last price in its own currency, or an FX column's last rate; a quantity position's
 * exposure is quantity × (local price × its conversion's rate), as calculate prices it.
 */
export interface LiveMarket {
  /** Each symbol's conversion into the reporting currency (no legs in it). */
  conversions: Map<string, Conversion>;
  /** Last prices: each symbol's in its own currency, and each FX column its conversions use. */
  prices: Map<string, number>;
}

/**
 * The market of `symbols` in `reporting` on the dataset's date `lastDate` (the estimation's last,
 * whose prices calculate takes); null over a single-currency dataset. The conversions exist: the
 * book's first calculation found them.
 */
export function liveMarket(dataset: Dataset, symbols: string[], reporting: string, lastDate: string): LiveMarket | null {
  const c = dataset.currencies;
  if (!c) return null;
  const row = dataset.dates.indexOf(lastDate);
  const n = dataset.symbols.length;
  const column = new Map(dataset.symbols.map((s, i) => [s, i]));
  const priceOf = (s: string) => dataset.prices[row * n + column.get(s)!]!;
  const conversions = new Map(symbols.map((s) => [s, conversionOf(c, currencyOfColumn(c, s), reporting)!]));
  const columns = [...symbols, ...[...conversions.values()].flatMap((v) => v.legs.map((l) => l.pair))];
  return { conversions, prices: new Map(columns.map((s) => [s, priceOf(s)])) };
}

/** `symbol`'s price in the reporting currency from `prices`: local × rate, the product calculate forms (fx-plan.ts). */
export function reportingPrice(market: LiveMarket, symbol: string, prices: Map<string, number>): number {
  const conversion = market.conversions.get(symbol)!;
  const local = prices.get(symbol)!;
  return conversion.legs.length === 0 ? local : local * rateOf(conversion, (pair) => prices.get(pair)!);
}
