import { type CashEntry, type PortfolioEntry, type PositionEntry } from '../../contract/schemas.js';
import { symbolsOf, type BookRequest } from '../books.js';
import { type SymbolRef } from '../model-setup.js';
import { CASH_PREFIX } from './fx-plan.js';

/** A book as the request states it, cash positions included. */
export interface StatedBook {
  portfolio?: PortfolioEntry[];
  positions?: (PositionEntry | CashEntry)[];
}

const isCash = (p: PositionEntry | CashEntry): p is CashEntry => 'cash' in p;

/**
 * The book with each cash position as a position in its cash column (quantity = amount, priced at
 * the rate into the reporting currency), and the cash currencies it holds, in order of first mention.
 */
export function cashAsPositions(book: StatedBook): { book: BookRequest; cash: string[] } {
  if (!book.positions) return { book: { portfolio: book.portfolio }, cash: [] };
  const cash = [...new Set(book.positions.filter(isCash).map((p) => p.cash))];
  const positions = book.positions.map((p): PositionEntry => (isCash(p) ? { symbol: CASH_PREFIX + p.cash, quantity: p.amount } : p));
  return { book: { positions }, cash };
}

/** Where each dataset symbol of a book was stated (its cash columns are not the dataset's). */
export function refsOf(book: BookRequest, at: (string | number)[]): SymbolRef[] {
  const field = book.portfolio ? 'portfolio' : 'positions';
  return symbolsOf(book)
    .map((symbol, i) => ({ symbol, loc: [...at, field, i, 'symbol'] }))
    .filter((r) => !r.symbol.startsWith(CASH_PREFIX));
}
