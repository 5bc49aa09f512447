import { type CalculateResponseBody } from '../../contract/responses.js';
import { type ValuationMode } from '../../contract/option-schemas.js';
import { ABI } from '../../engine/abi.js';
import { canonicalSymbols, symbolsOf, unionOf } from '../books.js';
import { loadDataset, prepareModel, type SymbolRef } from '../model-setup.js';
import { underDeadline } from '../deadline.js';
import { requestShape, workBytes, workUnits } from '../work-cost.js';
import { type CalculatorDeps } from '../calculation-setup.js';
import { cashAsPositions } from '../fx/cash.js';
import { canonicalIndices, canonicalOptions, refuseAt, timesToExpiry, type StatedOption, type StockRequest } from './option-positions.js';
import { checkSensitivities } from './sensitivities.js';
import { optionFxPlan } from './option-fx.js';
import { answerOptionBook, optionRun } from './option-book-answer.js';

type Loc = (string | number)[];

/** The methods an option book takes in a backtest; calculate adds historical_filtered. */
export const OPTION_METHODS = ['monte_carlo_normal', 'monte_carlo_student_t', 'historical', 'parametric_normal'];

/**
 * What the options path does not take (api.md §15), each refused at its field (calculate's and
 * backtest's). Cornish–Fisher expands the moments of a linear book's window P&L, which an option
 * does not have: it is refused, as in backtests is filtered history.
 */
export function checkSupported(
  req: Pick<StockRequest, 'method' | 'portfolio_mode' | 'method_options'> & { what_if?: unknown },
  hasOptions = true,
  methods: string[] = OPTION_METHODS,
): void {
  const o = req.method_options ?? {};
  // Sensitivities alone need no valuation there: a non-zero gamma is refused at its field instead.
  if (req.method === 'parametric_normal' && hasOptions && (o.valuation ?? 'full') !== 'delta') {
    throw refuseAt(['body', 'method_options', 'valuation'], 'parametric methods value options at their delta only: set valuation "delta"');
  }
  if (!methods.includes(req.method)) throw refuseAt(['body', 'method'], `options take ${methods.join(', ')} (parametric_normal at delta)`);
  if (req.portfolio_mode === 'rebalanced') throw refuseAt(['body', 'portfolio_mode'], 'a book with options is held, not rebalanced');
  if (req.what_if) throw refuseAt(['body', 'what_if'], 'what_if is not taken with options');
  if (o.variance_reduction === 'importance_sampling')
    throw refuseAt(['body', 'method_options', 'variance_reduction'], 'importance sampling is not taken with options');
  if (o.target_relative_error !== undefined)
    throw refuseAt(['body', 'method_options', 'target_relative_error'], 'target_relative_error is not taken with options');
}

/** Bounds of one book's option-like columns, refused at the book's fields (`at`: ['body'] or a batch book's). */
export function checkOptionBounds(options: number, given: number, simulations: number | undefined, at: Loc = ['body']): void {
  // The engine revalues each option (and sensitivity) twice, as asked and at its delta: its columns
  // are bounded by engine/core/src/limits.rs's MAX_OPTIONS, so half as many positions.
  const most = Math.floor(ABI.MAX_OPTIONS / 2);
  if (options > most) throw refuseAt([...at, 'positions'], `at most ${most} option positions`);
  if (options + given > most) throw refuseAt([...at, 'sensitivities'], `at most ${most} options and sensitivities together`);
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
  checkSupported(req, statedOptions.length > 0, [...OPTION_METHODS, 'historical_filtered']);
  checkSensitivities(req.method, req.sensitivities ?? []);
  // Columns in a canonical order, whatever the listing; rows listed as stated (api.md §13).
  const options = canonicalOptions(statedOptions);
  const givenOrder = canonicalIndices(req.sensitivities ?? [], (g) => [g.symbol, g.delta, g.gamma ?? 0]);
  const given = givenOrder.map((i) => req.sensitivities![i]!);
  checkOptionBounds(options.length, given.length, req.simulations);
  const { book: stated, cash } = cashAsPositions(req);
  const underlyings = options.map((o) => o.entry.option.underlying);
  const dataset = await loadDataset(deps.datasets, req.dataset_id, owner, refs);
  const taus = timesToExpiry(options, dataset.dates[dataset.dates.length - 1]!);
  const listed = unionOf([symbolsOf(stated)]);
  const symbols = canonicalSymbols(dataset, [listed, underlyings, given.map((g) => g.symbol)]);
  // Multi-currency (api.md §14): columns are instruments; a foreign option converts at its cash column.
  const fx = optionFxPlan(dataset, symbols, cash, underlyings, given, givenOrder, req.currency);
  const shape = requestShape(req, (fx ? fx.instruments.length : symbols.length) + 2 * (options.length + given.length), 2, dataset.dates.length);
  return underDeadline(
    deps,
    clientSignal,
    async (s) => {
      const model = await prepareModel(req, dataset, symbols, deps, s.signal, fx);
      // meta.estimation and meta.filter list the underlyings too: their σ moves the options.
      const factors = unionOf([listed, underlyings, given.map((g) => g.symbol)]);
      const run = await optionRun(req, model, fx, factors, deps, s);
      return answerOptionBook(run, { stated, options, taus, given, givenOrder, valuation: valuationOf(req, options.length), at: ['body'] });
    },
    { units: workUnits(shape), teaches: false, owner, bytes: workBytes(shape) },
  );
}
