import { validationError } from '../../contract/errors.js';
import { type StressRequestBody, type StressResponseBody } from '../../contract/stress-schemas.js';
import { newCalculationId } from '../../ids.js';
import { canonicalSymbols, exposureSummary, inListedOrder, priceBook, symbolsOf } from '../books.js';
import { loadDataset, prepareModel, type SymbolRef } from '../model-setup.js';
import { type CalculatorDeps } from '../calculate.js';
import { underDeadline } from '../deadline.js';
import { checkBook } from '../request-checks.js';
import { completeHistory, type PriceHistory } from '../price-history.js';
import { planStress, solveStress, stressBytes, stressUnits } from './engine-solve.js';
import { runScenario } from './scenarios.js';
import { cashAsPositions, refsOf } from '../fx/cash.js';
import { inReportingCurrency, instrumentShocks } from '../fx/converted-dataset.js';

/** Rules across fields: the book's, and a window that ends after it starts. */
function checkStress(req: StressRequestBody): void {
  checkBook(req, ['body'], req.portfolio_value);
  req.scenarios.forEach((s, i) => {
    if (s.type === 'historical_window' && !(s.start < s.end)) {
      throw validationError([{ loc: ['body', 'scenarios', i, 'end'], msg: 'end must come after start', type: 'value_error' }]);
    }
  });
}

/** The symbols each scenario shocks, and where they were stated. */
function shockRefs(req: StressRequestBody): SymbolRef[] {
  return req.scenarios.flatMap((s, i) =>
    s.type === 'shock' || s.type === 'conditional' ? Object.keys(s.shocks).map((symbol) => ({ symbol, loc: ['body', 'scenarios', i, 'shocks', symbol] })) : [],
  );
}

/**
 * Stress scenarios of one book (api.md §10), in the order given. Exposures are priced on the last
 * date on which every symbol of the model (the book's, then the conditional scenarios' others) has a
 * price; historical windows replay the book's own symbols on the dates where all of them have one.
 */
export async function stress(req: StressRequestBody, owner: string, deps: CalculatorDeps, clientSignal?: AbortSignal): Promise<StressResponseBody> {
  checkStress(req);
  const { book: stated, cash } = cashAsPositions(req);
  const refs: SymbolRef[] = [...refsOf(stated, ['body']), ...shockRefs(req)];
  const raw = await loadDataset(deps.datasets, req.dataset_id, owner, refs);
  // The book's symbols, then the conditional scenarios' others, each set in the dataset's order (api.md §13).
  const ownRaw = canonicalSymbols(raw, [symbolsOf(stated)]);
  const ownSet = new Set(ownRaw);
  const conditionalSymbols = req.scenarios.flatMap((s) => (s.type === 'conditional' ? Object.keys(s.shocks) : []));
  const others = canonicalSymbols(raw, [conditionalSymbols.filter((s) => !ownSet.has(s))]);
  // Multi-currency: every series (and cash) priced in the reporting currency date by date (api.md §14).
  const converted = inReportingCurrency(raw, req.dataset_id, [...ownRaw, ...others], cash, req.currency);
  const dataset = converted.dataset;
  const cashColumns = cash.length > 0 ? converted.symbols.slice(ownRaw.length + others.length) : [];
  const own = [...ownRaw, ...cashColumns];
  const symbols = [...own, ...others];
  const plan = planStress(req.scenarios);
  const units = stressUnits(plan, own.length, symbols.length, dataset.dates.length);
  const bytes = stressBytes(plan, own.length, symbols.length, dataset.dates.length);
  return underDeadline(
    deps,
    clientSignal,
    async ({ signal, deadline, timing }) => {
      const modelRequest = {
        dataset_id: converted.cacheId,
        method: 'parametric_normal' as const,
        time_horizon: 1,
        currency: req.currency,
        confidence_level: 0.99,
      };
      const model = await prepareModel(modelRequest, dataset, symbols, deps, signal);
      const book = priceBook(stated, symbols, model.prices, req.portfolio_value, ['body']);
      const exposures = book.exposures.subarray(0, own.length);
      const ownBook = { symbols: own, book: { ...book, exposures } };
      let complete: PriceHistory | undefined;
      const history = () => (complete ??= completeHistory(dataset, own));
      const solved = await solveStress(plan, {
        exec: deps.executor,
        est: model.est,
        symbols,
        own: own.length,
        exposures,
        history,
        deadline,
        signal,
        timing,
      });
      const results = req.scenarios.map((scenario) => {
        // Multi-currency: a shock on an FX column moves every instrument converted through it.
        const priced = converted.plan && scenario.type === 'shock' ? { ...scenario, shocks: instrumentShocks(scenario.shocks, converted.plan) } : scenario;
        const outcome = runScenario(priced, ownBook, history, solved);
        return { scenario, ...outcome, items: inListedOrder(outcome.items, book.listed) };
      });
      return {
        status: 'success',
        meta: {
          calculation_id: newCalculationId(),
          dataset_id: req.dataset_id,
          currency: req.currency,
          portfolio_value: book.capital,
          exposures: exposureSummary(book, symbols, model.prices),
          as_of: dataset.dates[model.est.lastDate] ?? '',
          results,
        },
      };
    },
    { units, teaches: false, owner, bytes },
  );
}
