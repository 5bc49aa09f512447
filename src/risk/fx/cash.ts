import { validationError } from '../../contract/errors.js';
import { type CashEntry, type PortfolioEntry, type PositionEntry } from '../../contract/schemas.js';
import { type BookRequest } from '../books.js';
import { type Dataset } from '../../datasets/dataset.js';
import { CASH_PREFIX, currencyOfColumn } from './fx-plan.js';

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

/** The book of a request that cannot price cash yet (backtest, stress): cash refused where stated. */
export function withoutCash(book: StatedBook, at: (string | number)[]): BookRequest {
  const i = book.positions?.findIndex(isCash) ?? -1;
  if (i >= 0)
    throw validationError([
      {
        loc: [...at, 'positions', i, 'cash'],
        msg: 'cash positions are priced by calculate, what-if and batch; not yet by backtest or stress',
        type: 'value_error',
      },
    ]);
  return book as BookRequest;
}

/**
 * Backtests and stress price every position in its own currency: over a multi-currency dataset a
 * book holding a series in another currency than `reporting` is refused, rather than priced as if
 * FX never moved.
 */
export function refuseForeign(dataset: Dataset, symbols: string[], reporting: string): void {
  const c = dataset.currencies;
  if (!c) return;
  const foreign = symbols.filter((s) => currencyOfColumn(c, s) !== reporting);
  if (foreign.length === 0) return;
  throw validationError([
    {
      loc: ['body', 'currency'],
      msg: `${foreign.slice(0, 5).join(', ')} ${foreign.length > 1 ? 'are' : 'is'} not in ${reporting}: FX conversion is priced by calculate, what-if and batch; not yet by backtest or stress`,
      type: 'value_error',
    },
  ]);
}
