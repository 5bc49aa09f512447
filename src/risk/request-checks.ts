import { ApiError, validationError } from '../contract/errors.js';
import { type BacktestRequest } from '../contract/backtest-schemas.js';
import { type OptionEntry } from '../contract/option-schemas.js';
import { ABI } from '../engine/abi.js';
import { bootstraps } from './history/bootstrap-paths.js';
import {
  DEFAULTS,
  HISTORICAL_WINDOWS,
  MONTE_CARLO,
  type BatchRequest,
  type CalculateRequest,
  type PortfolioEntry,
  type PositionEntry,
  type CashEntry,
} from '../contract/schemas.js';

/** Largest |Σw − 1| accepted. */
export const WEIGHT_TOLERANCE = 1e-6;

type Loc = (string | number)[];

const invalid = (loc: Loc, msg: string, type = 'value_error') => validationError([{ loc, msg, type }]);

/** The fields every calculation shares (the schema has checked each on its own). */
type CalculationFields = Pick<CalculateRequest, 'method' | 'simulations' | 'method_options' | 'portfolio_mode' | 'degrees_of_freedom' | 'time_horizon'>;

export function checkCalculation(req: CalculationFields): void {
  if (MONTE_CARLO.has(req.method) && req.simulations === undefined) {
    throw invalid(['body', 'simulations'], `required for method ${req.method}`, 'missing');
  }
  if (bootstraps(req) && req.simulations === undefined) {
    throw invalid(['body', 'simulations'], `required for method ${req.method} with time_horizon > 1 (the number of bootstrap paths)`, 'missing');
  }
  const opts = req.method_options ?? {};
  if (opts.ewma_lambda !== undefined && opts.covariance !== 'ewma') {
    throw invalid(['body', 'method_options', 'ewma_lambda'], 'only with covariance "ewma"');
  }
  checkOptionsApply(req);
}

/** Which model choices a method can use: the others are refused, so no answer echoes them as used. */
export function choicesOf(method: CalculateRequest['method']): { rebalanced: boolean; rebalancedOverDays: boolean; ewma: boolean; filter: boolean } {
  // The closed form is of the buy-and-hold book; filtered history's T > 1 paths are T-day sums (a
  // buy-and-hold book's); historical simulation estimates no covariance; filtered history alone has a filter.
  return {
    rebalanced: method !== 'parametric_normal',
    rebalancedOverDays: method !== 'parametric_normal' && method !== 'historical_filtered',
    ewma: !HISTORICAL_WINDOWS.has(method),
    filter: method === 'historical_filtered',
  };
}

/**
 * Options that would change the model but that the method cannot use. Those the contract lets every
 * method carry (`simulations`, `seed`, `antithetic`, `degrees_of_freedom`) stay accepted: `meta`
 * says what was used (null otherwise).
 */
function checkOptionsApply(req: CalculationFields): void {
  const can = choicesOf(req.method);
  if (!can.rebalanced && req.portfolio_mode === 'rebalanced') {
    throw invalid(['body', 'portfolio_mode'], `${req.method} is the closed form of the buy-and-hold book: "rebalanced" does not apply`);
  }
  if (!MONTE_CARLO.has(req.method) && req.method_options?.target_relative_error !== undefined) {
    throw invalid(['body', 'method_options', 'target_relative_error'], `${req.method} draws no simulations: a target error does not apply`);
  }
  if (req.method_options?.variance_reduction === 'importance_sampling') checkImportanceSampling(req);
  checkFilter(req);
  if (!can.ewma && req.method_options?.covariance === 'ewma') {
    throw invalid(['body', 'method_options', 'covariance'], `${req.method} replays the returns and estimates no covariance: "ewma" does not apply`);
  }
}

/** The variance filter belongs to filtered history; its T > 1 bootstrap paths carry T-day sums, which price a buy-and-hold book only. */
function checkFilter(req: CalculationFields): void {
  const can = choicesOf(req.method);
  const filter = req.method_options?.filter;
  if (!can.filter && filter !== undefined) throw invalid(['body', 'method_options', 'filter'], `only with method historical_filtered, not ${req.method}`);
  if (filter?.model === 'garch11' && filter.lambda !== undefined) {
    throw invalid(['body', 'method_options', 'filter', 'lambda'], 'λ is the EWMA filter’s: GARCH fits ω, α, β (its fallback is EWMA λ 0.94)');
  }
  if (req.time_horizon > 1 && req.portfolio_mode === 'rebalanced' && can.rebalanced && !can.rebalancedOverDays) {
    throw invalid(
      ['body', 'portfolio_mode'],
      'historical_filtered over time_horizon > 1 draws each path’s T-day log returns, which price the buy-and-hold book: "rebalanced" applies with time_horizon 1 only',
    );
  }
}

/** Importance sampling shifts normal draws: Monte Carlo only, and Student-t only where its tail is not all variance mixing. */
function checkImportanceSampling(req: CalculationFields): void {
  const at = ['body', 'method_options', 'variance_reduction'];
  if (!MONTE_CARLO.has(req.method)) throw invalid(at, `${req.method} draws no normals: importance sampling does not apply`);
  const nu = req.degrees_of_freedom ?? DEFAULTS.degrees_of_freedom;
  if (req.method === 'monte_carlo_student_t' && nu < ABI.MIN_IMPORTANCE_DEGREES_OF_FREEDOM) {
    throw invalid(
      at,
      `importance sampling with Student-t needs degrees_of_freedom ≥ ${ABI.MIN_IMPORTANCE_DEGREES_OF_FREEDOM}: below, the tail comes from the variance mixing, which a shift of the normals does not reach`,
    );
  }
}

/** Each symbol once among the entries that name one (an option's underlying may repeat), at its own index. */
function checkUnique(items: readonly ({ symbol: string } | OptionEntry)[], at: Loc): void {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if ('option' in item) return;
    if (seen.has(item.symbol)) throw invalid([...at, i, 'symbol'], `duplicate symbol ${item.symbol}`);
    seen.add(item.symbol);
  });
}

function checkPortfolio(items: PortfolioEntry[], at: Loc, portfolioValue: number | undefined): void {
  if (portfolioValue === undefined) throw invalid(['body', 'portfolio_value'], 'required with portfolio', 'missing');
  checkUnique(items, at);
  let sum = 0;
  for (const item of items) sum += item.weight;
  // Written so that NaN fails, and with room for binary rounding: 0.999999 is 1 − 1.00000000003e-6
  // as a double, and a person reads it as exactly at the edge.
  if (!(Math.abs(sum - 1) <= WEIGHT_TOLERANCE * (1 + 1e-9))) {
    throw new ApiError('WEIGHTS_DO_NOT_SUM_TO_ONE', `Portfolio weights sum to ${sum}, not 1 (tolerance ${WEIGHT_TOLERANCE}).`, {
      weight_sum: sum,
      errors: [{ loc: at, msg: `weights sum to ${sum}`, type: 'value_error' }],
    });
  }
}

/** Stock positions or trades: exactly one of quantity and market_value each (an option's contracts are the schema's). */
export function checkPositionItems(items: readonly (PositionEntry | OptionEntry)[], at: Loc): void {
  items.forEach((item, i) => {
    if ('option' in item) return;
    const given = Number(item.quantity !== undefined) + Number(item.market_value !== undefined);
    if (given !== 1) throw invalid([...at, i], 'exactly one of quantity or market_value', given === 0 ? 'missing' : 'value_error');
  });
}

/** What a position holds: a stock's amount, cash's amount or an option's contracts. */
const amountOf = (p: PositionEntry | CashEntry | OptionEntry) => ('cash' in p ? p.amount : 'option' in p ? p.quantity : (p.quantity ?? p.market_value));

/**
 * Positions may name a symbol several times: its amounts add up (api.md §13); cash has its amount and
 * an option its contracts. Each is reported at its own index in `positions`, whatever precedes it.
 */
function checkPositions(items: (PositionEntry | CashEntry | OptionEntry)[], at: Loc, heldElsewhere: boolean): void {
  items.forEach((item, i) => {
    if ('cash' in item || 'option' in item) return;
    const given = Number(item.quantity !== undefined) + Number(item.market_value !== undefined);
    if (given !== 1) throw invalid([...at, i], 'exactly one of quantity or market_value', given === 0 ? 'missing' : 'value_error');
  });
  if (!heldElsewhere && items.every((p) => amountOf(p) === 0)) throw invalid(at, 'every position is zero: the book is empty');
}

/**
 * A book: exactly one of `portfolio` and `positions`, each by its own rules; with `sensitivities`
 * (api.md §15) positions of zero still leave a book to price.
 */
export function checkBook(
  book: { portfolio?: PortfolioEntry[]; positions?: (PositionEntry | CashEntry | OptionEntry)[]; sensitivities?: unknown[] },
  at: Loc,
  portfolioValue: number | undefined,
): void {
  if (book.portfolio && book.positions) throw invalid([...at, 'positions'], 'portfolio and positions exclude each other');
  if (book.portfolio) return checkPortfolio(book.portfolio, [...at, 'portfolio'], portfolioValue);
  if (book.positions) return checkPositions(book.positions, [...at, 'positions'], book.sensitivities !== undefined);
  throw invalid(at, 'one of portfolio or positions is required', 'missing');
}

/** Rules of the calculate request that span fields, checked after the schema. */
export function checkRequest(req: CalculateRequest): void {
  checkCalculation(req);
  if (req.sensitivities && req.portfolio)
    throw invalid(['body', 'sensitivities'], 'sensitivities go with positions (or alone), not with a portfolio of weights');
  // A book of sensitivities alone has no positions to check.
  if (req.sensitivities === undefined || req.positions) checkBook(req, ['body'], req.portfolio_value);
  if (req.what_if) {
    const at = ['body', 'what_if', 'trades'];
    checkPositionItems(req.what_if.trades, at);
    checkUnique(req.what_if.trades, at);
    const option = req.what_if.trades.findIndex((trade) => 'option' in trade);
    if (option >= 0 && req.portfolio) throw invalid([...at, option], 'option trades go with a book of positions, not a portfolio of weights');
  }
}

/** Rules of the batch request that span fields, checked after the schema. */
export function checkBatchRequest(req: BatchRequest): void {
  checkCalculation(req);
  if (req.method_options?.variance_reduction === 'importance_sampling') {
    throw invalid(
      ['body', 'method_options', 'variance_reduction'],
      'importance sampling shifts the draws towards one book’s losses: price that book with /calculate (a batch’s books would each need their own draws)',
    );
  }
  const ids = new Set<string>();
  req.books.forEach((book, i) => {
    if (ids.has(book.id)) throw invalid(['body', 'books', i, 'id'], `duplicate book id ${book.id}`);
    ids.add(book.id);
    checkBook(book, ['body', 'books', i], req.portfolio_value);
  });
}

/** Rules of the backtest request that span fields: 1-day forecasts, the window from `backtest`. */
export function checkBacktestRequest(req: BacktestRequest): void {
  checkCalculation(req);
  if (req.time_horizon !== 1) throw invalid(['body', 'time_horizon'], 'a backtest forecasts 1 day: time_horizon must be 1');
  if (req.method_options?.lookback !== undefined) {
    throw invalid(['body', 'method_options', 'lookback'], 'a backtest estimates on backtest.estimation_window returns: lookback does not apply');
  }
  if (req.portfolio_mode === 'rebalanced') throw invalid(['body', 'portfolio_mode'], 'over one day rebalanced and buy-and-hold are the same: omit it');
  if (req.method_options?.target_relative_error !== undefined) {
    throw invalid(['body', 'method_options', 'target_relative_error'], 'a backtest forecasts with `simulations` each day: a target error does not apply');
  }
  checkBook(req, ['body'], req.portfolio_value);
}
