import { BACKTEST_DEFAULTS, type BacktestRequest, type BacktestResponseBody } from '../../contract/backtest-schemas.js';
import { MONTE_CARLO } from '../../contract/schemas.js';
import { newCalculationId } from '../../ids.js';
import { forecastRows, forecasts } from './forecasts.js';
import { backtestStatistics } from './statistics.js';
import { DEFAULT_Z2_SIMULATIONS } from './es-backtest.js';
import { canonicalSymbols, priceBook, symbolsOf } from '../books.js';
import { loadDataset, resolveOptions } from '../model-setup.js';
import { type CalculatorDeps } from '../calculate.js';
import { underDeadline } from '../deadline.js';
import { requestShape, workBytes, workUnits } from '../work-cost.js';
import { completeHistory } from '../price-history.js';
import { checkBacktestRequest } from '../request-checks.js';
import { cashAsPositions, refsOf } from '../fx/cash.js';
import { optionBookRefs, splitOptions } from '../options/option-positions.js';
import { backtestOptionsOf } from './option-book.js';
import { withForeignUnderlyings } from '../options/foreign-underlyings.js';
import { optionBacktestUnits } from './option-forecasts.js';

/**
 * A rolling 1-day backtest of the request's model and book (api.md §9): forecasts over the last
 * `window` dates, each estimated on the `estimation_window` returns before it, against the realised
 * P&L of today's exposures; coverage, independence, traffic light and the ES test.
 */
export async function backtest(req: BacktestRequest, owner: string, deps: CalculatorDeps, clientSignal?: AbortSignal): Promise<BacktestResponseBody> {
  checkBacktestRequest(req);
  const { req: stock, options: stated0 } = splitOptions(req);
  const { book: stated, cash } = cashAsPositions(stock);
  const options = { ...BACKTEST_DEFAULTS, ...req.backtest };
  const underlyings = stated0.map((o) => o.entry.option.underlying);
  const raw = await loadDataset(deps.datasets, req.dataset_id, owner, stated0.length > 0 ? optionBookRefs(req.positions!) : refsOf(stated, ['body']));
  // The book's risk factors (and its options' underlyings) in the dataset's order: the forecasts do not depend on the listing (api.md §13).
  // Multi-currency: its series (and cash) priced in the reporting currency date by date (api.md §14).
  // Options on foreign underlyings also read their local prices and their currencies' rates.
  const own = canonicalSymbols(raw, [symbolsOf(stated), underlyings]);
  const { dataset, symbols, foreign } = withForeignUnderlyings(raw, req.dataset_id, own, cash, underlyings, req.currency);
  const history = completeHistory(dataset, symbols);
  const rows = forecastRows(history, options.window, options.estimation_window);
  const seed = resolveOptions(req).seed;
  // One 1-day calculation per forecast date, each on an estimation window of returns (options: two columns each).
  const shape = requestShape(req, symbols.length + stated0.length, 1, options.estimation_window + 1);
  const scenarios = req.method === 'parametric_normal' ? 0 : req.method === 'historical' ? options.estimation_window : (req.simulations ?? 0);
  const units = rows.length * workUnits(shape) + optionBacktestUnits(rows.length, stated0.length, scenarios);
  return underDeadline(
    deps,
    clientSignal,
    async (session) => {
      const deps2 = { executor: deps.executor, concurrency: 2 * Math.max(1, deps.maxBatches) };
      const withOptions =
        stated0.length > 0 ? await backtestOptionsOf(req, raw, stated0, stated, symbols, foreign, history, rows[0]!, deps.executor, session.signal) : undefined;
      const book = withOptions?.book ?? priceBook(stated, symbols, history.prices[history.prices.length - 1]!, req.portfolio_value, ['body']);
      const series = await forecasts(
        req,
        book.engine,
        book.exposures,
        history,
        rows,
        options.estimation_window,
        seed ?? 0,
        deps2,
        session,
        withOptions?.options,
      );
      // Z2's p-value simulates a normal model fitted to each day's VaR and ES: a day whose ES is not
      // above its VaR (a forecast of a certain gain, say) fits none, and the ES test is left out.
      const esTestable = options.es && series.every((f) => f.es > 0 && f.es > f.var);
      const stats = backtestStatistics({
        pnl: series.map((f) => f.pnl),
        var: series.map((f) => f.var),
        confidence: req.confidence_level,
        ...(esTestable ? { es: series.map((f) => f.es), esTest: { seed: req.method_options?.seed ?? seed ?? 0, simulations: DEFAULT_Z2_SIMULATIONS } } : {}),
      });
      const exception = series.map((f) => f.pnl < -f.var);
      return {
        status: 'success',
        meta: {
          calculation_id: newCalculationId(),
          dataset_id: req.dataset_id,
          method: req.method,
          currency: req.currency,
          confidence_level: req.confidence_level,
          portfolio_value: book.capital,
          seed: MONTE_CARLO.has(req.method) ? seed : null,
          window: options.window,
          estimation_window: options.estimation_window,
          backtest: {
            ...stats,
            exception_dates: series.filter((_, i) => exception[i]).map((f) => f.date),
            series: series.map((f, i) => ({ ...f, exception: exception[i]! })),
          },
          timing_ms: { total: Math.round((performance.now() - session.started) * 1000) / 1000 },
        },
      };
    },
    { units, teaches: false, owner, bytes: workBytes(shape) },
  );
}
