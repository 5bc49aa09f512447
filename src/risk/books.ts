import { validationError } from '../contract/errors.js';
import { type PortfolioEntry, type PositionEntry } from '../contract/schemas.js';
import { type Dataset } from '../datasets/dataset.js';
import { type EngineBook } from '../engine/codec.js';

type Loc = (string | number)[];

/** A book as a request states it: exactly one of the two (request-checks.ts has made sure). */
export interface BookRequest {
  portfolio?: PortfolioEntry[];
  positions?: PositionEntry[];
}

/**
 * A book in money over the calculation's symbols (the union of every book's, in order): exposure
 * e_i, capital C, and the engine's weights a_i = e_i / C. A long-only portfolio keeps its weights
 * exactly (e_i = V·w_i, C = V), so that its figures are the ones it always had.
 */
export interface PricedBook {
  /** Which of the calculation's symbols the book itself names. */
  own: boolean[];
  capital: number;
  exposures: Float64Array;
  /** As requested, null for a market value, a weight or a symbol the book does not hold. */
  quantities: (number | null)[];
  engine: EngineBook;
}

/** The book's symbols, in request order. */
export function symbolsOf(book: BookRequest): string[] {
  return (book.portfolio ?? book.positions ?? []).map((p) => p.symbol);
}

/** Symbols of several lists in order of first appearance. */
export function unionOf(lists: string[][]): string[] {
  return [...new Set(lists.flat())];
}

/** Each symbol's price on the dataset's row `row` (the estimation's last date: all are present). */
export function pricesAt(dataset: Dataset, symbols: string[], row: number): Float64Array {
  const index = new Map(dataset.symbols.map((s, i) => [s, i]));
  const n = dataset.symbols.length;
  return Float64Array.from(symbols, (s) => dataset.prices[row * n + index.get(s)!]!);
}

/** Money exposure of a position or trade at `price`. */
const exposureOf = (p: PositionEntry, price: number) => (p.quantity !== undefined ? p.quantity * price : p.market_value!);

/** Weights a = e / C; a book whose money does not fit a double is refused where it was stated. */
function finish(own: boolean[], exposures: Float64Array, quantities: (number | null)[], portfolioValue: number | undefined, at: Loc): PricedBook {
  let gross = 0;
  for (const e of exposures) gross += Math.abs(e);
  if (!Number.isFinite(gross)) throw validationError([{ loc: at, msg: 'exposures (quantity × price) overflow double precision', type: 'overflow' }]);
  if (gross === 0) throw validationError([{ loc: at, msg: 'every exposure is zero: the book is empty', type: 'value_error' }]);
  const capital = portfolioValue ?? gross;
  const weights = exposures.map((e) => e / capital);
  if (!weights.every(Number.isFinite)) {
    throw validationError([{ loc: at, msg: 'exposure / portfolio_value overflows double precision', type: 'overflow' }]);
  }
  return { own, capital, exposures, quantities, engine: { capital, weights } };
}

/** Prices a book over `symbols` (a superset of its own) at `prices`. */
export function priceBook(book: BookRequest, symbols: string[], prices: Float64Array, portfolioValue: number | undefined, at: Loc): PricedBook {
  const position = new Map(symbols.map((s, i) => [s, i]));
  const own = symbols.map(() => false);
  const exposures = new Float64Array(symbols.length);
  const quantities: (number | null)[] = symbols.map(() => null);
  if (book.portfolio) {
    const v = portfolioValue!;
    const weights = new Float64Array(symbols.length);
    for (const p of book.portfolio) {
      const i = position.get(p.symbol)!;
      own[i] = true;
      weights[i] = p.weight;
      exposures[i] = v * p.weight;
    }
    return { own, capital: v, exposures, quantities, engine: { capital: v, weights } };
  }
  for (const p of book.positions!) {
    const i = position.get(p.symbol)!;
    own[i] = true;
    exposures[i] = exposureOf(p, prices[i]!);
    quantities[i] = p.quantity ?? null;
  }
  return finish(own, exposures, quantities, portfolioValue, [...at, 'positions']);
}

/**
 * The book after `trades`: exposures added symbol by symbol, the capital again `portfolio_value`
 * or, without it, the new gross exposure. Weights of untouched symbols stay exactly as they were
 * while the capital does.
 */
export function applyTrades(
  before: PricedBook,
  trades: PositionEntry[],
  symbols: string[],
  prices: Float64Array,
  portfolioValue: number | undefined,
): PricedBook {
  const position = new Map(symbols.map((s, i) => [s, i]));
  const exposures = Float64Array.from(before.exposures);
  const quantities = [...before.quantities];
  const traded = symbols.map(() => false);
  for (const t of trades) {
    const i = position.get(t.symbol)!;
    traded[i] = true;
    exposures[i] = exposures[i]! + exposureOf(t, prices[i]!);
    const held = quantities[i];
    quantities[i] = t.quantity !== undefined && (held !== null || !before.own[i]) ? (held ?? 0) + t.quantity : null;
  }
  const own = before.own.map((o, i) => o || traded[i]!);
  const after = finish(own, exposures, quantities, portfolioValue, ['body', 'what_if', 'trades']);
  if (after.capital === before.capital) {
    after.engine.weights.forEach((_, i, w) => {
      if (!traded[i]) w[i] = before.engine.weights[i]!;
    });
  }
  return after;
}

export interface ExposureSummary {
  gross: number;
  net: number;
  long: number;
  short: number;
  items: { symbol: string; quantity: number | null; price: number; exposure: number }[];
}

/** meta.exposures of a book: its own symbols, and totals over them (short ≤ 0, net = long + short). */
export function exposureSummary(book: PricedBook, symbols: string[], prices: Float64Array): ExposureSummary {
  let long = 0;
  let short = 0;
  const items: ExposureSummary['items'] = [];
  symbols.forEach((symbol, i) => {
    if (!book.own[i]) return;
    const e = book.exposures[i]!;
    if (e > 0) long += e;
    else short += e;
    items.push({ symbol, quantity: book.quantities[i]!, price: prices[i]!, exposure: e });
  });
  return { gross: long - short, net: long + short, long, short, items };
}
