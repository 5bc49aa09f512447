import { validationError } from '../../contract/errors.js';
import { engineBookOf, priceStockPart, type BookRequest, type PricedBook } from '../books.js';

/**
 * The stock part of a book with options over `symbols` (an options-only book holds none); capital
 * C is `portfolio_value`, else the stock gross exposure plus the options' absolute money deltas
 * `deltaMoney` (calculate's rule, api.md §15); none of them, the refusal `zeroMessage`. The engine
 * weights are the stock exposures / C.
 */
export function priceOptionBook(
  stated: BookRequest,
  symbols: string[],
  prices: Float64Array,
  portfolioValue: number | undefined,
  deltaMoney: number[],
  zeroMessage = 'every exposure (stock, and options at their delta) is zero: give portfolio_value',
  /** Where the book is stated: ['body'], or a batch's ['body', 'books', b]. */
  at: (string | number)[] = ['body'],
): PricedBook {
  const held = (stated.positions ?? []).some((p) => (p.quantity ?? p.market_value) !== 0);
  const zeros = new Float64Array(symbols.length);
  const stock = held
    ? priceStockPart(stated, symbols, prices, at)
    : { own: symbols.map(() => false), listed: [], exposures: zeros, quantities: symbols.map(() => null), gross: 0 };
  let gross = stock.gross;
  for (const d of deltaMoney) gross += Math.abs(d);
  const capital = portfolioValue ?? gross;
  if (!(capital > 0) || !Number.isFinite(capital)) {
    throw validationError([{ loc: [...at, 'positions'], msg: zeroMessage, type: 'value_error' }]);
  }
  const { own, listed, exposures, quantities } = stock;
  return { own, listed, exposures, quantities, capital, engine: engineBookOf(exposures, capital, [...at, 'positions']) };
}
