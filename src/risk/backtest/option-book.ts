import { type BacktestRequest } from '../../contract/backtest-schemas.js';
import { ABI } from '../../engine/abi.js';
import { type EngineExecutor } from '../../engine/ops.js';
import { type Dataset } from '../../datasets/dataset.js';
import { type BookRequest, type PricedBook } from '../books.js';
import { checkSupported } from '../options/option-calculate.js';
import { priceOptionBook } from '../options/option-capital.js';
import { optionGreeks } from '../options/option-columns.js';
import { refuseAt, timesToExpiry, type StatedOption } from '../options/option-positions.js';
import { type PriceHistory } from '../price-history.js';
import { checkBacktestExpiries, pricedAt, type BacktestOptions } from './option-forecasts.js';
import { type ForeignUnderlying } from '../options/foreign-underlyings.js';

/**
 * A backtested book with options (api.md §9, §15): calculate's refusals, the engine's bounds (each
 * day prices the options at two dates, and revalues each on every scenario), and the capital of
 * today's book — the stock exposures and the options' money deltas at the history's last row (in
 * the reporting currency: a foreign underlying's at its rate there, §14).
 */
export async function backtestOptionsOf(
  req: BacktestRequest,
  raw: Dataset,
  stated: StatedOption[],
  stock: BookRequest,
  symbols: string[],
  foreign: Map<string, ForeignUnderlying>,
  history: PriceHistory,
  firstRow: number,
  exec: EngineExecutor,
  signal: AbortSignal,
): Promise<{ book: PricedBook; options: BacktestOptions }> {
  checkSupported(req);
  if (2 * stated.length > ABI.MAX_OPTIONS) throw refuseAt(['body', 'positions'], `a backtest takes at most ${ABI.MAX_OPTIONS / 2} option positions`);
  if (stated.length * (req.simulations ?? 0) > ABI.MAX_OPTION_SCENARIOS) {
    throw refuseAt(['body', 'simulations'], `options × simulations must be at most ${ABI.MAX_OPTION_SCENARIOS}`);
  }
  const last = history.prices.length - 1;
  timesToExpiry(stated, raw.dates[raw.dates.length - 1]!);
  const column = new Map(symbols.map((s, i) => [s, i]));
  const conversions = stated.map((o) => {
    const f = foreign.get(o.entry.option.underlying);
    return f ? { local: column.get(f.local)!, unit: column.get(f.unit)!, converted: column.get(f.converted)! } : null;
  });
  const columns = stated.map((o, k) => conversions[k]?.local ?? column.get(o.entry.option.underlying)!);
  const sizes = stated.map((o) => o.entry.quantity * (o.entry.multiplier ?? 1));
  const prices = history.prices[last]!;
  const options: BacktestOptions = { stated, columns, conversions, sizes, valuation: req.method_options?.valuation ?? 'full', capital: 0 };
  const now = pricedAt(options, history, last);
  const greeks = await optionGreeks(exec, now, signal);
  const deltaMoney = now.map((o, k) => sizes[k]! * greeks[k]![1]! * o.spot * (o.fx?.rate ?? 1));
  const book = priceOptionBook(stock, symbols, prices, req.portfolio_value, deltaMoney);
  options.capital = book.capital;
  checkBacktestExpiries(options, history, firstRow - 1);
  return { book, options };
}
