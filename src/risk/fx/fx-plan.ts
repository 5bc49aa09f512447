import { ApiError } from '../../contract/errors.js';
import { type Dataset, type DatasetCurrencies } from '../../datasets/dataset.js';
import { conversionOf, rateOf, type Conversion } from './conversion.js';
import { isFxPair } from '../../datasets/currencies.js';

/** Column names the symbol grammar cannot produce (a symbol never starts with @): never a dataset's. */
export const CASH_PREFIX = '@cash:';
export const LOCAL_PREFIX = '@local:';

/**
 * One column of a multi-currency calculation: its log return is the sum of its terms' factor log
 * returns (a foreign stock: its own and its conversion's FX legs; cash: the legs alone).
 */
export interface Instrument {
  name: string;
  /** [factor index, sign], the stock's own first, then the conversion's legs in order. */
  terms: [number, 1 | -1][];
  /** Its local currency. */
  currency: string;
  /** The column that prices it without FX (itself where it has no legs), −1 for foreign cash. */
  withoutFx: number;
}

/** What a multi-currency calculation prices: factors (dataset columns) and instruments over them. */
export interface FxPlan {
  reporting: string;
  /** Dataset columns the scenarios draw: the book's series and the FX pairs its conversions use, in the dataset's order. */
  factors: string[];
  instruments: Instrument[];
  /** Per foreign currency of the book, in alphabetical order. */
  conversions: Conversion[];
  /** Whether some instrument has FX legs (else every figure is today's, with or without FX). */
  foreign: boolean;
}

/** The currency a dataset column's price is in: its own, or for an FX column CCY1CCY2, CCY2. */
export function currencyOfColumn(c: DatasetCurrencies, symbol: string): string {
  return c.bySymbol[symbol] ?? (isFxPair(symbol) ? symbol.slice(3) : (c.base ?? ''));
}

function conversionTo(c: DatasetCurrencies, from: string, to: string): Conversion {
  const found = conversionOf(c, from, to);
  if (!found) {
    throw new ApiError(
      'MISSING_FX_RATE',
      `No FX rate converts ${from} into the reporting currency ${to}: the dataset needs ${from}${to}, ${to}${from} or a cross through one currency.`,
      {
        pair: from + to,
      },
    );
  }
  return found;
}

/**
 * The instruments of a book in `reporting` over a multi-currency dataset, priced at its row `row`:
 * each symbol (dataset order), then each cash currency (alphabetical), then with `withoutFx` a
 * plain column for each foreign stock (its own return only), so that one engine run prices the
 * book with and without FX on the same scenarios.
 */
export function fxPlan(dataset: Dataset, symbols: string[], cash: string[], reporting: string, withoutFx: boolean): FxPlan {
  const c = dataset.currencies!;
  const byCurrency = new Map<string, Conversion>();
  const convert = (from: string) => {
    let found = byCurrency.get(from);
    if (!found) byCurrency.set(from, (found = conversionTo(c, from, reporting)));
    return found;
  };
  const rows = [
    ...symbols.map((s) => ({ name: s, stock: s as string | null, currency: currencyOfColumn(c, s) })),
    ...[...cash].sort().map((ccy) => ({ name: CASH_PREFIX + ccy, stock: null, currency: ccy })),
  ].map((r) => ({ ...r, conversion: convert(r.currency) }));
  const needed = new Set([...symbols, ...rows.flatMap((r) => r.conversion.legs.map((l) => l.pair))]);
  const factors = dataset.symbols.filter((s) => needed.has(s));
  const index = new Map(factors.map((s, i) => [s, i]));
  const instruments: Instrument[] = rows.map((r, i) => ({
    name: r.name,
    terms: [
      ...(r.stock === null ? [] : [[index.get(r.stock)!, 1] as [number, 1 | -1]]),
      ...r.conversion.legs.map((l): [number, 1 | -1] => [index.get(l.pair)!, l.sign]),
    ],
    currency: r.currency,
    withoutFx: r.conversion.legs.length === 0 ? i : -1,
  }));
  if (withoutFx) {
    rows.forEach((r, i) => {
      if (r.stock === null || r.conversion.legs.length === 0) return;
      instruments[i]!.withoutFx = instruments.length;
      instruments.push({ name: LOCAL_PREFIX + r.stock, terms: [[index.get(r.stock)!, 1]], currency: r.currency, withoutFx: instruments.length });
    });
  }
  return {
    reporting,
    factors,
    instruments,
    conversions: [...byCurrency.values()].filter((v) => v.legs.length > 0).sort((a, b) => (a.from < b.from ? -1 : 1)),
    foreign: rows.some((r) => r.conversion.legs.length > 0),
  };
}

/** The rate of each conversion on the dataset's row `row`, by local currency. */
export function ratesAt(plan: FxPlan, dataset: Dataset, row: number): Map<string, number> {
  const column = new Map(dataset.symbols.map((s, i) => [s, i]));
  const n = dataset.symbols.length;
  return new Map(plan.conversions.map((c) => [c.from, rateOf(c, (s) => dataset.prices[row * n + column.get(s)!]!)]));
}

/** Each instrument's last price in the reporting currency: local price (cash: 1) × the rate on row `row`. */
export function instrumentPrices(plan: FxPlan, dataset: Dataset, row: number): Float64Array {
  const column = new Map(dataset.symbols.map((s, i) => [s, i]));
  const n = dataset.symbols.length;
  const rates = ratesAt(plan, dataset, row);
  return Float64Array.from(plan.instruments, (ins) => {
    const local = ins.name.startsWith(CASH_PREFIX) ? 1 : dataset.prices[row * n + column.get(ins.name.replace(LOCAL_PREFIX, ''))!]!;
    return local * (rates.get(ins.currency) ?? 1);
  });
}
