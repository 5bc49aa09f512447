import { type CalculateResponseBody } from '../../contract/responses.js';
import { type SensitivityEntry, type ValuationMode } from '../../contract/option-schemas.js';
import { type EngineBook } from '../../engine/codec.js';
import { type EngineResults } from '../../engine/results-codec.js';
import { engineBookOf, exposureSummary, priceBook, type BookRequest, type ExposureSummary, type PricedBook } from '../books.js';
import { type PreparedModel } from '../model-setup.js';
import { type Session } from '../deadline.js';
import { buildResponse } from '../response-builder.js';
import { keepScenarios, runKept, type KeptScenarios } from '../kept-scenarios.js';
import { batchPolicy, calculationOf, modelInputOf, type CalculatorDeps } from '../calculation-setup.js';
import { currencyOfColumn, type FxPlan } from '../fx/fx-plan.js';
import { breakdownOf, instrumentRows } from '../fx/fx-figures.js';
import { runModel } from '../engine-run.js';
import { replayFor } from '../model-replay.js';
import { canonicalIndices, optionLabel, type StatedOption, type StockRequest } from './option-positions.js';
import { duplicatedEstimation, optionGreeks, paddedEstimation, withOptionColumns, type PricedOption } from './option-columns.js';
import { priceOptionBook } from './option-capital.js';
import { sensitivityExposure, sensitivityLabel, type PricedSensitivity } from './sensitivities.js';
import { pricedOptions } from './option-fx.js';

type Loc = (string | number)[];

/**
 * What every book of one request with options shares (calculate's one, a batch's many, a what-if's
 * two): the model and its scenarios, drawn and kept once, so each book is priced on the same ones.
 */
export interface OptionRun {
  req: StockRequest;
  model: PreparedModel;
  fx: FxPlan | null;
  deps: CalculatorDeps;
  s: Session;
  replay: Awaited<ReturnType<typeof replayFor>>;
  /** The stock scenarios (Monte Carlo and historical); parametric prices in closed form: null. */
  kept: KeptScenarios | null;
  /** The symbols the request names, in order of first appearance (meta.estimation lists them). */
  factors: string[];
}

/** One book with options: its stock part, its options in canonical order, its sensitivities. */
export interface OptionBook {
  stated: BookRequest;
  options: StatedOption[];
  taus: number[];
  given: SensitivityEntry[];
  /** Each of `given`'s index in the request's `sensitivities`. */
  givenOrder: number[];
  valuation: ValuationMode;
  /** Where the book is stated: ['body'], or ['body', 'books', b] in a batch. */
  at: Loc;
}

/** Draws and keeps the request's scenarios once (parametric: none), for every book of it. */
export async function optionRun(
  req: StockRequest,
  model: PreparedModel,
  fx: FxPlan | null,
  factors: string[],
  deps: CalculatorDeps,
  s: Session,
): Promise<OptionRun> {
  const replay = await replayFor(req, model, deps.executor, deps.maxBatches, s);
  let kept: KeptScenarios | null = null;
  if (req.method !== 'parametric_normal') {
    // The units do not depend on the book (kept-scenarios.ts): any book of the model's width draws them.
    const n = model.symbols.length;
    const base = {
      ...modelInputOf(req, model, [{ capital: 1, weights: new Float64Array(n) }], 'none', req.simulations ?? 0),
      horizon: replay.horizon ?? req.time_horizon,
    };
    kept = await keepScenarios(deps.executor, base, replay.est, batchPolicy(deps, s), s.signal);
  }
  return { req, model, fx, deps, s, replay, kept, factors };
}

/** A book's columns on the run's model: its options priced, its capital, its exposures as asked and at delta. */
export async function layoutOf(run: OptionRun, book: OptionBook) {
  const { req, model, deps, s } = run;
  const { options, taus, given, givenOrder, valuation, stated } = book;
  const n = model.symbols.length;
  const column = new Map(model.symbols.map((sym, i) => [sym, i]));
  const priced: PricedOption[] = pricedOptions(options, taus, model, run.fx);
  const sens: PricedSensitivity[] = given.map((entry, j) => ({ entry, index: givenOrder[j]!, underlying: column.get(entry.symbol)! }));
  // Each option and sensitivity row, in the order stated: its column among the option-like ones.
  const rowColumns = [...canonicalIndices(options, (o) => [o.index]), ...canonicalIndices(sens, (g) => [g.index]).map((j) => options.length + j)];
  const greeks = priced.length > 0 ? await optionGreeks(deps.executor, priced, s.signal) : [];
  // Into the reporting currency: a foreign option's values are in its own, at the last rate.
  const rate = priced.map((p) => p.fx?.rate ?? 1);
  const size = options.map((o, i) => o.entry.quantity * (o.entry.multiplier ?? 1) * rate[i]!);
  const deltaMoney = greeks.map((g, i) => size[i]! * g[1]! * priced[i]!.spot);
  const m = options.length + given.length;
  // The stock part and the capital: the options and sensitivities count at their money delta. A
  // batch's book without options is priced as calculate prices it (weights of portfolio_value too).
  const stock =
    m === 0
      ? priceBook(stated, model.symbols, model.prices, req.portfolio_value, book.at)
      : priceOptionBook(
          stated,
          model.symbols,
          model.prices,
          req.portfolio_value,
          [...deltaMoney, ...given.map((g) => g.delta)],
          'every exposure (stock, options and sensitivities at their delta) is zero: give portfolio_value',
          book.at,
        );
  const { capital } = stock;
  // Columns: assets, the options and sensitivities as asked (size, or the money delta), then each at its delta.
  const asked = [...(valuation === 'delta' ? deltaMoney : size), ...given.map((g) => sensitivityExposure(g, valuation))];
  const atDelta = [...deltaMoney, ...given.map((g) => g.delta)];
  const exposures = Float64Array.from({ length: n + 2 * m }, (_, i) => (i < n ? stock.exposures[i]! : i < n + m ? asked[i - n]! : 0));
  const deltaTwin = Float64Array.from({ length: n + 2 * m }, (_, i) => (i < n ? stock.exposures[i]! : i < n + m ? 0 : atDelta[i - n - m]!));
  // A capital of a few tiny money deltas (δ = 1e-310) makes a weight overflow: refused as a stock book's.
  const engineOf = (e: Float64Array): EngineBook => engineBookOf(e, capital, [...book.at, 'positions']);
  // Both books its answer prices, each refused here if a weight overflows, whichever are priced.
  const books = { atDelta: engineOf(deltaTwin), asked: engineOf(exposures) };
  return { n, m, priced, sens, rowColumns, greeks, rate, size, deltaMoney, stock, capital, exposures, books, engineOf };
}

/**
 * A book with European options (api.md §15) on the run's scenarios: the engine appends one column
 * per option revalued on each scenario and one at its delta, and two books priced on them
 * (OP_SIMULATE_OPTIONS, what-if comparison): the options at their delta, then as asked — the
 * difference is the nonlinearity, with its error. The answer is calculate's for this book alone.
 */
export async function answerOptionBook(run: OptionRun, book: OptionBook, laid?: LaidBook): Promise<CalculateResponseBody> {
  const { req, model, deps, s, replay } = run;
  const { options, given, valuation } = book;
  const columns = laid ?? (await laidBook(run, book));
  const { priced, sens, rowColumns, greeks, size, deltaMoney, stock, books } = columns.layout;
  const respond = (results: EngineResults): CalculateResponseBody => {
    const calc = calculationOf(req, model, run.factors, deps, s, { precision: null, extras: { filter: replay.state, cornishFisher: null } });
    const { own, pricedBook, symbols, prices } = statedColumns(run, book, columns.layout);
    const wideCalc = { ...calc, symbols, prices };
    const figures = results.books[1]!;
    const answer = buildResponse(wideCalc, [pricedBook], { books: [figures], whatIf: null });
    const w = results.whatIf!;
    const contributions = answer.meta.contributions.map((c, row) => {
      const r = row - stock.listed.length;
      if (r < 0) return c;
      const k = rowColumns[r]!;
      if (k >= options.length) {
        const j = k - options.length;
        return { ...c, sensitivity: sens[j]!.index, delta: given[j]!.delta, gamma: given[j]!.gamma ?? 0 };
      }
      const g = greeks[k]!;
      const z = size[k]!;
      const spot = priced[k]!.spot;
      return {
        ...c,
        option: options[k]!.index,
        price: z * g[0]!,
        delta: deltaMoney[k]!,
        gamma: z * g[2]! * spot * spot,
        vega: z * g[3]!,
        theta: z * g[4]!,
      };
    });
    return {
      ...answer,
      meta: {
        ...answer.meta,
        contributions,
        valuation: {
          mode: valuation,
          options: options.length,
          ...(given.length > 0 ? { sensitivities: given.length } : {}),
          nonlinearity_var: w.incrementalVar,
          nonlinearity_es: w.incrementalEs,
          nonlinearity_var_standard_error: w.incrementalVarStandardError,
          nonlinearity_es_standard_error: w.incrementalEsStandardError,
          sticky: 'strike' as const,
        },
        ...(run.fx ? { currency_breakdown: optionCurrencyBreakdown(run, book, columns.layout, own, figures.componentEs) } : {}),
      },
    };
  };
  return respond(await runColumns(run, columns, [books.atDelta, books.asked]));
}

export type Layout = Awaited<ReturnType<typeof layoutOf>>;

/**
 * A laid-out book's columns as its response states them: its rows (stock, then each option and
 * sensitivity as asked), and the wide columns' symbols and prices (as asked, then at delta).
 */
function statedColumns(run: OptionRun, book: OptionBook, layout: Layout) {
  const { options, given } = book;
  const { n, m, rowColumns, greeks, rate, stock, capital, exposures, books } = layout;
  const labels = [...options.map((o) => optionLabel(o.entry)), ...given.map(sensitivityLabel)];
  const own = Array.from({ length: n + 2 * m }, (_, i) => (i < n ? stock.own[i]! : i < n + m));
  const pricedBook: PricedBook = {
    own,
    listed: [...stock.listed, ...rowColumns.map((k) => n + k)],
    capital,
    exposures,
    quantities: [
      ...Array.from({ length: n }, (_, i) => stock.quantities[i]!),
      ...options.map((o) => o.entry.quantity),
      ...given.map(() => null),
      ...labels.map(() => null),
    ],
    engine: books.asked,
  };
  const unitPrices = greeks.map((g, i) => g[0]! * rate[i]!);
  // A sensitivity's column is priced per unit of its exposure: a price of 1.
  const prices = Float64Array.from([...run.model.prices, ...unitPrices, ...given.map(() => 1), ...unitPrices, ...given.map(() => 1)]);
  return { own, pricedBook, symbols: [...run.model.symbols, ...labels, ...labels], prices };
}

/** meta.exposures of a laid-out book, as its own answer states them (a what-if's book after). */
export function optionExposures(run: OptionRun, book: OptionBook, layout: Layout): ExposureSummary {
  const { pricedBook, symbols, prices } = statedColumns(run, book, layout);
  return exposureSummary(pricedBook, symbols, prices);
}

/**
 * meta.currency_breakdown of a book with options over a multi-currency dataset (api.md §14): its
 * own stock and cash columns in their currencies, each option in its underlying's, each given
 * sensitivity (on a symbol in the reporting currency) in that; options and sensitivities count at
 * their money delta in gross and net.
 */
function optionCurrencyBreakdown(run: OptionRun, book: OptionBook, layout: Layout, own: boolean[], componentEs: number[]) {
  const plan = run.fx!;
  const { n, deltaMoney } = layout;
  const options = book.options.map((o, k) => ({
    currency: currencyOfColumn(run.model.dataset.currencies!, o.entry.option.underlying),
    exposure: deltaMoney[k]!,
    componentEs: componentEs[n + k]!,
  }));
  const m = book.options.length;
  const given = book.given.map((g, j) => ({ currency: plan.reporting, exposure: g.delta, componentEs: componentEs[n + m + j]! }));
  return breakdownOf([...instrumentRows(plan, own, layout.stock.exposures, componentEs), ...options, ...given]);
}

/** A book laid out on the run, and on kept scenarios its option columns (revalued where each block is priced: OP_SIMULATE_OPTIONS). */
export interface LaidBook {
  layout: Layout;
  /** The kept scenarios with the book's option columns (the run's own without options; parametric: null). */
  columns: KeptScenarios | null;
}

/** `book` laid out on the run (`layout` if already computed) with its option columns. */
export async function laidBook(run: OptionRun, book: OptionBook, layout?: Layout): Promise<LaidBook> {
  const laid = layout ?? (await layoutOf(run, book));
  const { req } = run;
  if (run.kept === null || laid.m === 0) return { layout: laid, columns: run.kept };
  const columns = withOptionColumns(run.kept, laid.n, req.time_horizon, book.valuation, laid.priced, true, laid.sens);
  return { layout: laid, columns };
}

/** Two books over a laid book's columns (its options, as asked and at delta), compared as a what-if: book 1 against book 0. */
async function runColumns(run: OptionRun, laid: LaidBook, books: EngineBook[]): Promise<EngineResults> {
  const { n, priced, sens } = laid.layout;
  // Parametric takes delta only: each option column moves as its underlying, so the closed form prices it.
  const sources = [...priced.map((o) => o.fx?.converted ?? o.underlying), ...sens.map((g) => g.underlying)];
  return runOnColumns(run, n, laid.columns, [...sources, ...sources], books);
}

/**
 * Two books over the run's `n` model columns and option-like columns past them (kept scenarios
 * with them appended; parametric: null, each column then moving as its `sources` entry), compared
 * as a what-if: book 1 against book 0.
 */
export async function runOnColumns(run: OptionRun, n: number, columns: KeptScenarios | null, sources: number[], books: EngineBook[]): Promise<EngineResults> {
  const { req, model, deps, s, replay } = run;
  const est = replay.est;
  const base = {
    ...modelInputOf(req, model, [{ capital: books[0]!.capital, weights: books[0]!.weights.subarray(0, n) }], 'none', req.simulations ?? 0),
    horizon: replay.horizon ?? req.time_horizon,
  };
  const policy = batchPolicy(deps, s);
  const input = { ...base, books, comparison: 'what_if' as const };
  const extra = books[0]!.weights.length - n;
  if (columns === null) return runModel(deps.executor, input, duplicatedEstimation(est, sources), policy, s.signal, s.timing);
  return runKept(deps.executor, input, extra === 0 ? est : paddedEstimation(est, extra), columns, policy, s.signal, s.timing);
}

/**
 * What-if with options (api.md §8, §15): `before` and `after` (before's positions, then the trades)
 * on the after book's columns, as asked, on the same scenarios: the differences and their standard
 * errors. Before puts nothing on the trades' options; every before option keeps its size at its
 * place among the after book's (the same canonical order, api.md §13). Both books come laid out
 * as their own answers lay them out, so book 1's figures are the after book's own, bit for bit.
 */
export async function compareOptionBooks(run: OptionRun, before: OptionBook, b: Layout, after: OptionBook, laidAfter: LaidBook): Promise<EngineResults> {
  const a = laidAfter.layout;
  const column = new Map(before.options.map((o, k) => [o.index, k]));
  const opts = after.options.length;
  const was = Float64Array.from({ length: a.n + 2 * a.m }, (_, i) => {
    if (i < a.n) return b.exposures[i]!;
    const k = i - a.n;
    if (k >= a.m) return 0;
    // A sensitivity: the same in both books, after the options.
    if (k >= opts) return b.exposures[b.n + before.options.length + (k - opts)]!;
    const j = column.get(after.options[k]!.index);
    return j === undefined ? 0 : b.exposures[b.n + j]!;
  });
  return runColumns(run, laidAfter, [b.engineOf(was), a.books.asked]);
}
