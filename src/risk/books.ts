import { validationError } from '../contract/errors.js';
import { type PortfolioEntry, type PositionEntry } from '../contract/schemas.js';
import { type Dataset } from '../datasets/dataset.js';
import { type EngineBook } from '../engine/codec.js';
import { exactSum } from './exact-sum.js';

type Loc = (string | number)[];

/** A book as a request states it: exactly one of the two (request-checks.ts has made sure). */
export interface BookRequest {
  portfolio?: PortfolioEntry[];
  positions?: PositionEntry[];
}

/**
 * A book in money over the calculation's symbols (the canonical set, see `canonicalSymbols`):
 * exposure e_i, capital C, and the engine's weights a_i = e_i / C. A long-only portfolio keeps its
 * weights exactly (e_i = V·w_i, C = V).
 */
export interface PricedBook {
  /** Which of the calculation's symbols the book itself names. */
  own: boolean[];
  /** The book's symbols as indices into the calculation's, in the order the request first names them. */
  listed: number[];
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

/**
 * The set of symbols of several lists in the dataset's column order: the risk factors of a
 * calculation, so that its scenarios depend on the book and never on how it is listed (api.md §13).
 */
export function canonicalSymbols(dataset: Dataset, lists: string[][]): string[] {
  const wanted = new Set(lists.flat());
  return dataset.symbols.filter((s) => wanted.has(s));
}

/** `items` (one per calculation symbol) in the order of `listed` (indices into them). */
export function inListedOrder<T>(items: readonly T[], listed: readonly number[]): T[] {
  return listed.map((i) => items[i]!);
}

/** Indices of `names` into `symbols`, each once, in order of first appearance. */
function listedIndices(names: string[], symbols: string[]): number[] {
  const position = new Map(symbols.map((s, i) => [s, i]));
  return [...new Set(names.map((s) => position.get(s)!))];
}

/** Each symbol's price on the dataset's row `row` (the estimation's last date: all are present). */
export function pricesAt(dataset: Dataset, symbols: string[], row: number): Float64Array {
  const index = new Map(dataset.symbols.map((s, i) => [s, i]));
  const n = dataset.symbols.length;
  return Float64Array.from(symbols, (s) => dataset.prices[row * n + index.get(s)!]!);
}

/** Money exposure of a position or trade at `price`. */
const exposureOf = (p: PositionEntry, price: number) => (p.quantity !== undefined ? p.quantity * price : p.market_value!);

/** A weight the request fixes for symbol i when the capital is C; undefined where a = e / C. */
type StatedWeight = (i: number, capital: number) => number | undefined;

/**
 * The one rule for a book's engine weights: a = e / C, except where the request states the weight
 * itself — a portfolio's weights, and after a what-if's trades at an unchanged capital the weights
 * of the symbols not traded — which reach the engine as stated, to the bit.
 */
function weightsOf(exposures: Float64Array, capital: number, stated?: StatedWeight): Float64Array {
  return exposures.map((e, i) => stated?.(i, capital) ?? e / capital);
}

/** The engine book of exposures over `capital`; one whose weight overflows a double (a tiny capital) is refused at `at`. */
export function engineBookOf(exposures: Float64Array, capital: number, at: Loc, stated?: StatedWeight): EngineBook {
  const weights = weightsOf(exposures, capital, stated);
  if (!weights.every(Number.isFinite)) {
    throw validationError([{ loc: at, msg: 'exposure / capital overflows double precision: give a larger portfolio_value', type: 'overflow' }]);
  }
  // Stated weights are sent as stated (C·a_i); positions as their exposures (EngineBook.exposures).
  return stated ? { capital, weights } : { capital, weights, exposures };
}

/** Gross exposure Σ|e_i|; one whose money does not fit a double is refused where it was stated. */
function grossOf(exposures: Float64Array, at: Loc): number {
  let gross = 0;
  for (const e of exposures) gross += Math.abs(e);
  if (!Number.isFinite(gross)) throw validationError([{ loc: at, msg: 'exposures (quantity × price) overflow double precision', type: 'overflow' }]);
  return gross;
}

/** The priced book; an empty one, or one whose money does not fit a double, is refused where it was stated. */
function finish(
  own: boolean[],
  listed: number[],
  exposures: Float64Array,
  quantities: (number | null)[],
  portfolioValue: number | undefined,
  at: Loc,
  stated?: StatedWeight,
): PricedBook {
  const gross = grossOf(exposures, at);
  if (gross === 0) throw validationError([{ loc: at, msg: 'every exposure is zero: the book is empty', type: 'value_error' }]);
  const capital = portfolioValue ?? gross;
  return { own, listed, capital, exposures, quantities, engine: engineBookOf(exposures, capital, at, stated) };
}

/**
 * A symbol's positions added up: the quantities, and the market values, each in the order stated.
 * Parts that add up exactly give the amounts of one position, hence its exposure to the bit.
 */
interface Holding {
  quantity?: number;
  marketValue?: number;
}

function holdingsOf(positions: PositionEntry[], position: Map<string, number>, n: number): (Holding | undefined)[] {
  const parts: ({ quantities: number[]; values: number[] } | undefined)[] = new Array(n);
  for (const p of positions) {
    const at = (parts[position.get(p.symbol)!] ??= { quantities: [], values: [] });
    if (p.quantity !== undefined) at.quantities.push(p.quantity);
    if (p.market_value !== undefined) at.values.push(p.market_value);
  }
  // Correctly rounded sums: the same amounts whatever their order or split (api.md §13).
  return parts.map((at) => {
    if (!at) return undefined;
    const h: Holding = {};
    if (at.quantities.length > 0) h.quantity = exactSum(at.quantities);
    if (at.values.length > 0) h.marketValue = exactSum(at.values);
    return h;
  });
}

/** Money exposure of a holding at `price`: quantity × price, plus the market value where both are held. */
function holdingExposure(h: Holding, price: number): number {
  if (h.quantity === undefined) return h.marketValue!;
  const e = h.quantity * price;
  return h.marketValue === undefined ? e : e + h.marketValue;
}

/** A book of positions over `symbols` at `prices`: what it holds, its exposures; not yet a capital. */
interface Holdings {
  own: boolean[];
  listed: number[];
  exposures: Float64Array;
  quantities: (number | null)[];
}

function holdingsAt(positions: PositionEntry[], symbols: string[], prices: Float64Array): Holdings {
  const position = new Map(symbols.map((s, i) => [s, i]));
  const own = symbols.map(() => false);
  const exposures = new Float64Array(symbols.length);
  const quantities: (number | null)[] = symbols.map(() => null);
  holdingsOf(positions, position, symbols.length).forEach((h, i) => {
    if (!h) return;
    own[i] = true;
    exposures[i] = holdingExposure(h, prices[i]!);
    quantities[i] = h.marketValue === undefined ? h.quantity! : null;
  });
  const listed = listedIndices(
    positions.map((p) => p.symbol),
    symbols,
  );
  return { own, listed, exposures, quantities };
}

/**
 * Prices a book over `symbols` (a superset of its own) at `prices`. Positions may name a symbol
 * several times: its amounts add up (api.md §13).
 */
export function priceBook(book: BookRequest, symbols: string[], prices: Float64Array, portfolioValue: number | undefined, at: Loc): PricedBook {
  if (book.portfolio) {
    const position = new Map(symbols.map((s, i) => [s, i]));
    const own = symbols.map(() => false);
    const exposures = new Float64Array(symbols.length);
    const weights = new Float64Array(symbols.length);
    for (const p of book.portfolio) {
      const i = position.get(p.symbol)!;
      own[i] = true;
      weights[i] = p.weight;
      exposures[i] = portfolioValue! * p.weight;
    }
    const listed = listedIndices(symbolsOf(book), symbols);
    return finish(
      own,
      listed,
      exposures,
      symbols.map(() => null),
      portfolioValue,
      [...at, 'portfolio'],
      (i) => weights[i],
    );
  }
  const h = holdingsAt(book.positions!, symbols, prices);
  return finish(h.own, h.listed, h.exposures, h.quantities, portfolioValue, [...at, 'positions']);
}

/**
 * The stock part of a book that also holds options: its positions priced with no capital yet (C
 * comes with the options' deltas), so stock worth nothing in the reporting currency — cash of
 * 5e-324 yen is 0 dollars — leaves the options to carry the book. Gross is Σ|e_i|.
 */
export function priceStockPart(book: BookRequest, symbols: string[], prices: Float64Array, at: Loc): Holdings & { gross: number } {
  const h = holdingsAt(book.positions ?? [], symbols, prices);
  return { ...h, gross: grossOf(h.exposures, [...at, 'positions']) };
}

/**
 * The book after `trades`: exposures added symbol by symbol, the capital again `portfolio_value`
 * or, without it, the new gross exposure; weights by `weightsOf` (untouched symbols keep theirs,
 * to the bit, while the capital stays the same).
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
  const listed = [
    ...new Set([
      ...before.listed,
      ...listedIndices(
        trades.map((t) => t.symbol),
        symbols,
      ),
    ]),
  ];
  const untouched: StatedWeight = (i, capital) => (capital === before.capital && !traded[i] ? before.engine.weights[i] : undefined);
  return finish(own, listed, exposures, quantities, portfolioValue, ['body', 'what_if', 'trades'], untouched);
}

export interface ExposureSummary {
  gross: number;
  net: number;
  long: number;
  short: number;
  items: { symbol: string; quantity: number | null; price: number; exposure: number }[];
}

/**
 * meta.exposures of a book: its own symbols in the request's order, and totals over them (short ≤ 0,
 * net = long + short) summed in the calculation's order, so that they do not depend on the listing.
 */
export function exposureSummary(book: PricedBook, symbols: string[], prices: Float64Array): ExposureSummary {
  let long = 0;
  let short = 0;
  symbols.forEach((_, i) => {
    if (!book.own[i]) return;
    const e = book.exposures[i]!;
    if (e > 0) long += e;
    else short += e;
  });
  const items = book.listed.map((i) => ({ symbol: symbols[i]!, quantity: book.quantities[i]!, price: prices[i]!, exposure: book.exposures[i]! }));
  return { gross: long - short, net: long + short, long, short, items };
}
