import { type CalculateResponseBody } from '../../contract/responses.js';
import { type ValuationMode } from '../../contract/option-schemas.js';
import { ABI } from '../../engine/abi.js';
import { canonicalSymbols, symbolsOf, unionOf } from '../books.js';
import { loadDataset, prepareModel, type SymbolRef } from '../model-setup.js';
import { underDeadline } from '../deadline.js';
import { optionBookShape, workBytes, workUnits } from '../work-cost.js';
import { type CalculatorDeps } from '../calculation-setup.js';
import { cashAsPositions } from '../fx/cash.js';
import { canonicalIndices, canonicalOptions, refuseAt, timesToExpiry, type StatedOption, type StockRequest } from './option-positions.js';
import { checkSensitivities } from './sensitivities.js';
import { optionFxPlan } from './option-fx.js';
import { optionFxMeta } from './option-fx-figures.js';
import { answerOptionBook, compareOptionBooks, laidBook, layoutOf, optionExposures, optionRun, type OptionBook } from './option-book-answer.js';
import { type CalculateRequest, type PositionEntry } from '../../contract/schemas.js';
import { drawsSimulations } from '../history/bootstrap-paths.js';

type DrawFields = Pick<CalculateRequest, 'method' | 'time_horizon' | 'simulations'>;

type Loc = (string | number)[];

/** The methods an option book takes, in calculate and in backtests. */
const OPTION_METHODS = ['monte_carlo_normal', 'monte_carlo_student_t', 'historical', 'parametric_normal', 'historical_filtered'];

/**
 * What the options path does not take (api.md §15), each refused at its field (calculate's and
 * backtest's). Cornish–Fisher expands the moments of a linear book's window P&L, which an option
 * does not have: it is refused.
 */
export function checkSupported(req: Pick<StockRequest, 'method' | 'portfolio_mode' | 'method_options'>, hasOptions = true): void {
  const o = req.method_options ?? {};
  // Sensitivities alone need no valuation there: a non-zero gamma is refused at its field instead.
  if (req.method === 'parametric_normal' && hasOptions && (o.valuation ?? 'full') !== 'delta') {
    throw refuseAt(['body', 'method_options', 'valuation'], 'parametric methods value options at their delta only: set valuation "delta"');
  }
  if (!OPTION_METHODS.includes(req.method)) throw refuseAt(['body', 'method'], `options take ${OPTION_METHODS.join(', ')} (parametric_normal at delta)`);
  if (req.portfolio_mode === 'rebalanced') throw refuseAt(['body', 'portfolio_mode'], 'a book with options is held, not rebalanced');
  if (o.variance_reduction === 'importance_sampling')
    throw refuseAt(['body', 'method_options', 'variance_reduction'], 'importance sampling is not taken with options');
  if (o.target_relative_error !== undefined)
    throw refuseAt(['body', 'method_options', 'target_relative_error'], 'target_relative_error is not taken with options');
}

/**
 * Bounds of one book's option-like columns, refused at its positions (`at`: calculate's, a batch
 * book's or the trades). `simulations` counts only where the method draws that many scenarios
 * (Monte Carlo, filtered bootstrap paths); elsewhere it is ignored, and the engine bounds a
 * historical book's windows itself.
 */
export function checkOptionBounds(options: number, given: number, req: DrawFields, at: Loc = ['body', 'positions']): void {
  const simulations = drawsSimulations(req) ? req.simulations : undefined;
  // The engine revalues each option (and sensitivity) twice, as asked and at its delta: its columns
  // are bounded by engine/core/src/limits.rs's MAX_OPTIONS, so half as many positions.
  const most = Math.floor(ABI.MAX_OPTIONS / 2);
  if (options > most) throw refuseAt(at, `at most ${most} option positions`);
  if (options + given > most) throw refuseAt(['body', 'sensitivities'], `at most ${most} options and sensitivities together`);
  if (2 * (options + given) * (simulations ?? 0) > ABI.MAX_OPTION_SCENARIOS) {
    throw refuseAt(['body', 'simulations'], `2 × (options + sensitivities) × simulations must be at most ${ABI.MAX_OPTION_SCENARIOS}`);
  }
}

/** How a book values its options: as asked, by default full (parametric without options: delta). */
export const valuationOf = (req: Pick<StockRequest, 'method' | 'method_options'>, options: number): ValuationMode =>
  req.method_options?.valuation ?? (options === 0 && req.method === 'parametric_normal' ? 'delta' : 'full');

/**
 * A book with European options (api.md §15): the stock part's scenarios are drawn and kept
 * (OP_UNITS), and the book priced on them with its option columns (option-book-answer.ts).
 */
export async function calculateWithOptions(
  req: StockRequest,
  statedOptions: StatedOption[],
  /** Where each symbol is stated in `positions` (optionBookRefs): stock positions at their own index. */
  refs: SymbolRef[],
  owner: string,
  deps: CalculatorDeps,
  clientSignal?: AbortSignal,
): Promise<CalculateResponseBody> {
  // With what_if, the book after is its positions followed by the trades (api.md §8, §13).
  const trades = req.what_if?.trades ?? [];
  // `req` holds the stock and cash positions only: the trades follow every stated position.
  const offset = (req.positions?.length ?? 0) + statedOptions.length;
  const tradeOptions: StatedOption[] = trades.flatMap((entry, index) => ('option' in entry ? [{ entry, index }] : []));
  const tradeStock = trades.filter((t): t is PositionEntry => !('option' in t));
  // Columns in a canonical order, whatever the listing; rows listed as stated (api.md §13).
  const options = canonicalOptions(statedOptions);
  const afterOptions = canonicalOptions([...statedOptions, ...tradeOptions.map((o) => ({ entry: o.entry, index: offset + o.index }))]);
  checkSupported(req, afterOptions.length > 0);
  checkSensitivities(req.method, req.sensitivities ?? []);
  const givenOrder = canonicalIndices(req.sensitivities ?? [], (g) => [g.symbol, g.delta, g.gamma ?? 0]);
  const given = givenOrder.map((i) => req.sensitivities![i]!);
  checkOptionBounds(options.length, given.length, req);
  checkOptionBounds(afterOptions.length, given.length, req, ['body', 'what_if', 'trades']);
  const { book: stated, cash } = cashAsPositions(req);
  const after = cashAsPositions({ positions: [...(req.positions ?? []), ...tradeStock] }).book;
  const underlyings = afterOptions.map((o) => o.entry.option.underlying);
  const dataset = await loadDataset(deps.datasets, req.dataset_id, owner, refs);
  const last = dataset.dates[dataset.dates.length - 1]!;
  timesToExpiry(tradeOptions, last, ['body', 'what_if', 'trades']);
  const taus = timesToExpiry(options, last);
  const listed = unionOf([symbolsOf(stated), tradeStock.map((t) => t.symbol)]);
  const symbols = canonicalSymbols(dataset, [listed, underlyings, given.map((g) => g.symbol)]);
  // Multi-currency (api.md §14): columns are instruments; a foreign option converts at its cash column.
  const fx = optionFxPlan(dataset, symbols, cash, underlyings, given, givenOrder, req.currency);
  const stockColumns = fx ? fx.instruments.length : symbols.length;
  // Two books per pass: the book (at delta and as asked); with foreign instruments its FX effect
  // (with and without FX, optionFxMeta); with what_if the comparison.
  const books = 2 + (fx?.foreign ? 2 : 0) + (req.what_if ? 2 : 0);
  const shape = optionBookShape(req, stockColumns, 2 * (afterOptions.length + given.length), books, dataset.dates.length);
  const valuation = valuationOf(req, afterOptions.length);
  return underDeadline(
    deps,
    clientSignal,
    async (s) => {
      const model = await prepareModel(req, dataset, symbols, deps, s.signal, fx);
      // meta.estimation and meta.filter list the underlyings too: their σ moves the options.
      const factors = unionOf([listed, underlyings, given.map((g) => g.symbol)]);
      const run = await optionRun(req, model, fx, factors, deps, s);
      const before: OptionBook = { stated, options, taus, given, givenOrder, valuation, at: ['body'] };
      const beforeLayout = await layoutOf(run, before);
      // Its option columns live for its own pricing only: the comparison runs on the after book's.
      const laidBefore = await laidBook(run, before, beforeLayout);
      const own = await answerOptionBook(run, before, laidBefore);
      // Multi-currency (api.md §14): the FX effect of the book (before any trades) on the same scenarios.
      const priced = fx ? { ...own, meta: { ...own.meta, fx: await optionFxMeta(run, before, laidBefore, own.meta.metrics) } } : own;
      if (!req.what_if) return priced;
      // A book without options (only its trades hold some) has no valuation, as its calculate alone.
      const answer = options.length + given.length > 0 ? priced : { ...priced, meta: { ...priced.meta, valuation: undefined } };
      // The book after and the differences, both books on the after book's columns; the book after's
      // figures are those a calculate of it states (the same scenarios and columns, so the same bits).
      const afterBook: OptionBook = { ...before, stated: after, options: afterOptions, taus: timesToExpiry(afterOptions, last) };
      const laidAfter = await laidBook(run, afterBook);
      const compared = await compareOptionBooks(run, before, beforeLayout, afterBook, laidAfter);
      const figures = compared.books[1]!;
      const w = compared.whatIf!;
      const what_if = {
        value_at_risk: figures.valueAtRisk,
        expected_shortfall: figures.expectedShortfall,
        incremental_var: w.incrementalVar,
        incremental_es: w.incrementalEs,
        incremental_var_standard_error: w.incrementalVarStandardError,
        incremental_es_standard_error: w.incrementalEsStandardError,
        exposures: optionExposures(run, afterBook, laidAfter.layout),
      };
      return { ...answer, meta: { ...answer.meta, what_if } };
    },
    { units: workUnits(shape), teaches: false, owner, bytes: workBytes(shape) },
  );
}
