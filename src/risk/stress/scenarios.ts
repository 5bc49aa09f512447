import { type Static } from '@sinclair/typebox';
import { NAMED_WINDOWS, type StressResult, type StressScenarioInput } from '../../contract/stress-schemas.js';
import { type ConditionalOutcome } from '../../engine/stress-codec.js';
import { type PricedBook } from '../books.js';
import { type PriceHistory } from '../price-history.js';
import { type StressSolutions } from './engine-solve.js';

/** The book the scenarios revalue: its symbols (the model's first ones), exposures and capital. */
export interface StressBook {
  symbols: string[];
  book: PricedBook;
}

/** A scenario's outcome and its items, typed by the response schema that documents them. */
export type StressOutcome = Omit<Static<typeof StressResult>, 'scenario'>;
export type StressItem = StressOutcome['items'][number];

/** Revalues the book on simple returns per symbol (the book's order). */
function revalue(b: StressBook, returns: ArrayLike<number>, extra?: (i: number) => Partial<StressItem>): Omit<StressOutcome, 'covered'> {
  let pnl = 0;
  const items = b.symbols.map((symbol, i) => {
    const r = returns[i]!;
    const itemPnl = b.book.exposures[i]! * r;
    pnl += itemPnl;
    return { symbol, return: r, pnl: itemPnl, ...extra?.(i) };
  });
  return { pnl, pnl_pct: pnl / b.book.capital, items };
}

const uncovered = (b: StressBook): StressOutcome => ({
  covered: false,
  pnl: 0,
  pnl_pct: 0,
  items: b.symbols.map((symbol) => ({ symbol, return: 0, pnl: 0 })),
});

/** Buy-and-hold from row `from` to row `to`: simple returns P_to / P_from − 1. */
function replay(b: StressBook, h: PriceHistory, from: number, to: number): StressOutcome {
  const p0 = h.prices[from]!;
  const p1 = h.prices[to]!;
  const returns = p1.map((p, i) => p / p0[i]! - 1);
  return { covered: true, start: h.dates[from]!, end: h.dates[to]!, ...revalue(b, returns) };
}

/** The last row dated on or before `date` (−1 if none). */
function rowOnOrBefore(h: PriceHistory, date: string): number {
  let lo = 0;
  let hi = h.dates.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (h.dates[mid]! <= date) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** A dated window, covered when the data holds prices from `start` (or before) to `end` (or after). */
function window(b: StressBook, h: PriceHistory, start: string, end: string): StressOutcome {
  const from = rowOnOrBefore(h, start);
  const to = rowOnOrBefore(h, end);
  const last = h.dates[h.dates.length - 1];
  if (from < 0 || to <= from || last === undefined || last < end) return uncovered(b);
  return replay(b, h, from, to);
}

/** The T-day window (T + 1 price rows) of the worst P&L, as the engine found it (null: none). */
function worstWindow(b: StressBook, h: PriceHistory, horizon: number, start: number | null): StressOutcome {
  return start === null ? uncovered(b) : replay(b, h, start, start + horizon);
}

/**
 * Conditional on the shocked symbols' T-day log returns, the others' conditional means (as simple
 * returns) and deviations as the engine solved them; a shocked symbol keeps its shock exactly.
 */
function conditional(b: StressBook, shocks: Record<string, number>, solved: ConditionalOutcome): StressOutcome {
  const returns = Float64Array.from(b.symbols, (symbol, i) => (Object.hasOwn(shocks, symbol) ? shocks[symbol]! : Math.expm1(solved.logMeans[i]!)));
  return { covered: true, ...revalue(b, returns, (i) => ({ conditional_sd: solved.sds[i]! })) };
}

/** One scenario's outcome. `history` gives the book's symbols' complete price rows. */
export function runScenario(s: StressScenarioInput, b: StressBook, history: () => PriceHistory, solved: StressSolutions): StressOutcome {
  switch (s.type) {
    case 'historical_worst':
      return worstWindow(b, history(), s.horizon, solved.worstStart(s.horizon));
    case 'historical_window':
      return window(b, history(), s.start, s.end);
    case 'named':
      return window(b, history(), NAMED_WINDOWS[s.name].start, NAMED_WINDOWS[s.name].end);
    case 'shock':
      return {
        covered: true,
        ...revalue(
          b,
          Float64Array.from(b.symbols, (sym) => (Object.hasOwn(s.shocks, sym) ? s.shocks[sym]! : 0)),
        ),
      };
    case 'conditional':
      return conditional(b, s.shocks, solved.conditional(s));
  }
}
