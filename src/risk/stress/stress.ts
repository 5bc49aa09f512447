import { validationError } from '../../contract/errors.js';
import { type StressRequestBody, type StressResponseBody } from '../../contract/stress-schemas.js';
import { newCalculationId } from '../../ids.js';
import { canonicalSymbols, exposureSummary, symbolsOf } from '../books.js';
import { loadDataset, prepareModel, type SymbolRef } from '../model-setup.js';
import { type CalculatorDeps } from '../calculate.js';
import { underDeadline } from '../deadline.js';
import { checkBook } from '../request-checks.js';
import { completeHistory, type PriceHistory } from '../price-history.js';
import { planStress, solveStress, stressBytes, stressUnits } from './engine-solve.js';
import { runScenario } from './scenarios.js';
import { cashAsPositions, refsOf } from '../fx/cash.js';
import { instrumentShocks } from '../fx/converted-dataset.js';
import { localShocks, withForeignUnderlyings } from '../options/foreign-underlyings.js';
import { optionBookRefs, splitOptions, timesToExpiry } from '../options/option-positions.js';
import { type StressOutcome } from './scenarios.js';
import { checkOptionStress, optionStressUnits, worstStartWithOptions } from './option-stress.js';
import { priceStressBook, stressedOptions, withOptionsRepriced } from './option-book.js';
import { checkFinite } from './finite-outcomes.js';

type StockStress = ReturnType<typeof splitOptions<StressRequestBody>>['req'];

/** Rules across fields: the book's as stated (options in place), and a window that ends after it starts. */
function checkStress(req: StressRequestBody): void {
  checkBook(req, ['body'], req.portfolio_value);
  req.scenarios.forEach((s, i) => {
    if (s.type === 'historical_window' && !(s.start < s.end)) {
      throw validationError([{ loc: ['body', 'scenarios', i, 'end'], msg: 'end must come after start', type: 'value_error' }]);
    }
  });
}

/** The symbols each scenario shocks, and where they were stated. */
function shockRefs(req: StockStress): SymbolRef[] {
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
  const { req: stock, options } = splitOptions(req);
  const { book: stated, cash } = cashAsPositions(stock);
  const underlyings = options.map((o) => o.entry.option.underlying);
  const refs: SymbolRef[] = [...(options.length > 0 ? optionBookRefs(req.positions!) : refsOf(stated, ['body'])), ...shockRefs(stock)];
  const raw = await loadDataset(deps.datasets, req.dataset_id, owner, refs);
  checkOptionStress(req.scenarios, options, raw.dates.length);
  const taus = options.length > 0 ? timesToExpiry(options, raw.dates[raw.dates.length - 1]!) : [];
  // The book's symbols and its options' underlyings, then the conditional scenarios' others, each set in the dataset's order (api.md §13).
  const ownRaw = canonicalSymbols(raw, [symbolsOf(stated), underlyings]);
  const ownSet = new Set(ownRaw);
  const conditionalSymbols = req.scenarios.flatMap((s) => (s.type === 'conditional' ? Object.keys(s.shocks) : []));
  const others = canonicalSymbols(raw, [conditionalSymbols.filter((s) => !ownSet.has(s))]);
  // Multi-currency: every series (and cash) priced in the reporting currency date by date (api.md §14);
  // a foreign underlying's local price and its currency's rate too, which its options are revalued on.
  const converted = withForeignUnderlyings(raw, req.dataset_id, [...ownRaw, ...others], cash, underlyings, req.currency);
  const dataset = converted.dataset;
  const own = [...ownRaw, ...converted.symbols.slice(ownRaw.length + others.length)];
  const symbols = [...own, ...others];
  // With options the worst windows are searched with the options repriced (option-stress.ts), not by the engine's linear search.
  const plan = planStress(options.length > 0 ? req.scenarios.filter((s) => s.type !== 'historical_worst') : req.scenarios);
  const units = stressUnits(plan, own.length, symbols.length, dataset.dates.length) + optionStressUnits(req.scenarios, options.length, dataset.dates.length);
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
      const stressed = await stressedOptions(deps, options, taus, symbols, model.prices, converted.foreign, signal);
      const book = priceStressBook(stated, symbols, model.prices, req.portfolio_value, stressed);
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
      const outcomes: StressOutcome[] = [];
      for (const scenario of req.scenarios) {
        // Multi-currency: a shock on an FX column moves every instrument converted through it.
        const priced =
          converted.plan && scenario.type === 'shock'
            ? { ...scenario, shocks: { ...instrumentShocks(scenario.shocks, converted.plan), ...localShocks(scenario.shocks, converted.foreign) } }
            : scenario;
        const start =
          stressed.options.length > 0 && scenario.type === 'historical_worst'
            ? await worstStartWithOptions(deps.executor, history(), exposures, stressed.options, scenario.horizon, scenario.vol_shift ?? 0, signal)
            : undefined;
        outcomes.push(runScenario(priced, ownBook, history, start === undefined ? solved : { ...solved, worstStart: () => start }));
      }
      checkFinite(req.scenarios, outcomes);
      const results = await withOptionsRepriced(deps, req.scenarios, outcomes, book, stressed.options, signal);
      checkFinite(req.scenarios, results);
      return {
        status: 'success',
        meta: {
          calculation_id: newCalculationId(),
          dataset_id: req.dataset_id,
          currency: req.currency,
          portfolio_value: book.capital,
          exposures: exposureSummary(book, symbols, model.prices),
          as_of: dataset.dates[model.est.lastDate] ?? '',
          results: results.map((outcome, i) => ({ scenario: req.scenarios[i]!, ...outcome })),
        },
      };
    },
    { units, teaches: false, owner, bytes },
  );
}
