import { validationError } from '../../contract/errors.js';
import { CAPITAL_BOUNDS } from '../../contract/schemas.js';
import { engineBookOf, priceStockPart, type BookRequest, type PricedBook } from '../books.js';

/**
 * The stock part of a book with options over `symbols` (an options-only book holds none); capital
 * C is `portfolio_value`, else the stock gross exposure plus the options' absolute money deltas
 * `deltaMoney` (calculate's rule, api.md §15); none of them, the refusal `zeroMessage`. The engine
 * weights are the stock exposures / C. A defaulted C below the least a stated one may be is refused:
 * an option far out of the money has a money delta near 10⁻³⁰⁶ and a P&L of its price, so its P&L
 * per unit of such a capital (pnl_pct, and the engine's P&L per unit) overflows a double.
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
  if (!(capital > 0)) throw validationError([{ loc: [...at, 'positions'], msg: zeroMessage, type: 'value_error' }]);
  if (!Number.isFinite(capital)) {
    const msg = 'the gross exposure (stock, and options at their delta) overflows double precision';
    throw validationError([{ loc: [...at, 'positions'], msg, type: 'overflow' }]);
  }
  if (capital < CAPITAL_BOUNDS.min) {
    const msg = `the gross exposure (stock, and options at their delta) is ${capital}, below the least capital ${CAPITAL_BOUNDS.min.toExponential()}: give portfolio_value`;
    throw validationError([{ loc: [...at, 'positions'], msg, type: 'value_error' }]);
  }
  const { own, listed, exposures, quantities } = stock;
  return { own, listed, exposures, quantities, capital, engine: engineBookOf(exposures, capital, [...at, 'positions']) };
}
