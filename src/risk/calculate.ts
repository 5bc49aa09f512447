import { type EngineResults } from '../engine/results-codec.js';
import { type EngineBook } from '../engine/codec.js';
import { type BatchRequest, type CalculateRequest, type PositionEntry } from '../contract/schemas.js';
import { type BatchResponseBody, type CalculateResponseBody } from '../contract/responses.js';
import { applyTrades, canonicalSymbols, priceBook, symbolsOf, unionOf, type PricedBook } from './books.js';
import { loadDataset, prepareModel, type ModelRequest, type PreparedModel } from './model-setup.js';
import { underDeadline, type Session } from './deadline.js';
import { requestShape, workBytes, workUnits } from './work-cost.js';
import { checkBatchRequest, checkRequest } from './request-checks.js';
import { buildBatchResponse, buildResponse } from './response-builder.js';
import { runModel } from './engine-run.js';
import { runToPrecision, type Precision } from './precision.js';
import { type Comparison } from '../engine/codec.js';
import { cashAsPositions, refsOf } from './fx/cash.js';
import { bookWithoutFx, currencyBreakdown, planFor, withFxFigures } from './fx/fx-figures.js';
import { cornishFisherResults, type HistoryExtras } from './history/history-methods.js';
import { replayFor } from './model-replay.js';
import { batchPolicy, calculationOf, modelInputOf, type CalculatorDeps } from './calculation-setup.js';

export { calculationOf, modelInputOf, type CalculatorDeps } from './calculation-setup.js';
import { optionBookRefs, splitOptions } from './options/option-positions.js';
import { calculateWithOptions } from './options/option-calculate.js';
import { batchWithOptions } from './options/option-batch.js';
import { sensitivityRefs } from './options/sensitivities.js';

/**
 * Whether the request asks for a target error: its cost is estimated at the cap `simulations`, but
 * it may stop far sooner, so its time must not teach the cost model.
 */
const targetsPrecision = (req: ModelRequest) => req.method_options?.target_relative_error !== undefined;

/** Prices `books` on one scenario set of the prepared model; with a target error, in rounds (precision.ts). */
async function priceBooks(
  req: ModelRequest & { simulations?: number },
  model: PreparedModel,
  books: EngineBook[],
  comparison: Comparison,
  deps: CalculatorDeps,
  s: Session,
): Promise<{ results: EngineResults; precision: Precision | null; extras: HistoryExtras }> {
  const o = req.method_options ?? {};
  const replay = await replayFor(req, model, deps.executor, deps.maxBatches, s);
  const run = (simulations: number) =>
    runModel(
      deps.executor,
      { ...modelInputOf(req, model, books, comparison, simulations), horizon: replay.horizon ?? req.time_horizon },
      replay.est,
      batchPolicy(deps, s),
      s.signal,
      s.timing,
    );
  const extras: HistoryExtras = { filter: replay.state, cornishFisher: null };
  // The request checks allow a target only with Monte Carlo, which requires `simulations` (the cap).
  if (o.target_relative_error !== undefined) return { ...(await runToPrecision(o.target_relative_error, req.simulations ?? 0, run)), extras };
  const results = await run(req.simulations ?? 0);
  if (req.method !== 'cornish_fisher') return { results, precision: null, extras };
  const input = {
    rebalanced: req.portfolio_mode === 'rebalanced',
    books,
    horizon: req.time_horizon,
    confidence: req.confidence_level,
    zeroDrift: model.opts.drift === 'zero',
  };
  const cf = cornishFisherResults(results, replay.est, input);
  return { results: cf.results, precision: null, extras: { ...extras, cornishFisher: cf.figures } };
}

/**
 * One book, and with `what_if` the same book after the trades, priced on the same scenarios over
 * the set of their symbols in the dataset's order (api.md §13); the answer lists them as requested.
 */
export async function calculate(req: CalculateRequest, owner: string, deps: CalculatorDeps, clientSignal?: AbortSignal): Promise<CalculateResponseBody> {
  checkRequest(req);
  const split = splitOptions(req);
  const statedTrades = req.what_if?.trades ?? [];
  // Given sensitivities are option-like columns (api.md §15): the options path prices them, and a
  // what-if with options in the book or in the trades.
  if (split.options.length > 0 || req.sensitivities || statedTrades.some((t) => 'option' in t)) {
    const tradeRefs = optionBookRefs(statedTrades).map((r) => ({ ...r, loc: ['body', 'what_if', 'trades', ...r.loc.slice(2)] }));
    const refs = [...optionBookRefs(req.positions ?? []), ...tradeRefs, ...sensitivityRefs(req.sensitivities)];
    return calculateWithOptions(split.req, split.options, refs, owner, deps, clientSignal);
  }
  const { book: stated, cash } = cashAsPositions(split.req);
  const trades = statedTrades.filter((t): t is PositionEntry => !('option' in t));
  const refs = [...refsOf(stated, ['body']), ...trades.map((t, i) => ({ symbol: t.symbol, loc: ['body', 'what_if', 'trades', i, 'symbol'] }))];
  const dataset = await loadDataset(deps.datasets, req.dataset_id, owner, refs);
  const listed = unionOf([symbolsOf(stated), trades.map((t) => t.symbol)]);
  const symbols = canonicalSymbols(dataset, [listed]);
  // Multi-currency: the book is also priced without FX on the same scenarios (meta.fx).
  const fx = planFor(dataset, symbols, cash, req.currency, true);
  const shape = requestShape(req, fx ? fx.instruments.length : symbols.length, req.what_if ? 2 : 1, dataset.dates.length);
  const units = workUnits(shape);
  return underDeadline(
    deps,
    clientSignal,
    async (s) => {
      const model = await prepareModel(req, dataset, symbols, deps, s.signal, fx);
      const before = priceBook(stated, model.symbols, model.prices, req.portfolio_value, ['body']);
      const books: PricedBook[] = req.what_if ? [before, applyTrades(before, trades, model.symbols, model.prices, req.portfolio_value)] : [before];
      // Without a what-if the FX comparison is the run's second book; with one, a second run on the same scenarios.
      const fxInRun = fx !== null && fx.foreign && !req.what_if;
      const engineBooks = fxInRun ? [before.engine, bookWithoutFx(before, fx)] : books.map((b) => b.engine);
      const priced = await priceBooks(req, model, engineBooks, req.what_if || fxInRun ? 'what_if' : 'none', deps, s);
      const results = priced.results;
      const calc = calculationOf(req, model, listed, deps, s, priced);
      if (!fx) return buildResponse(calc, books, results);
      const own = results.books[0]!;
      const answer = buildResponse(calc, books, fxInRun ? { books: [own], whatIf: null } : results);
      let effect: EngineResults = fxInRun ? results : { books: [own], whatIf: null };
      if (fx.foreign && req.what_if) {
        // The count the first run simulated (a target error may have stopped it early), seed and model alike.
        const same = { ...req, simulations: own.scenarios, method_options: { ...req.method_options, target_relative_error: undefined } };
        effect = (await priceBooks(same, model, [before.engine, bookWithoutFx(before, fx)], 'what_if', deps, s)).results;
      }
      return withFxFigures(answer, fx, dataset, model.est.lastDate, before, effect, own.componentEs);
    },
    { units, teaches: !targetsPrecision(req), owner, bytes: workBytes(shape) },
  );
}

/** Up to 200 books on one scenario set over the set of their symbols (the dataset's order, api.md §13). */
export async function calculateBatch(req: BatchRequest, owner: string, deps: CalculatorDeps, clientSignal?: AbortSignal): Promise<BatchResponseBody> {
  checkBatchRequest(req);
  if (req.books.some((b) => b.positions?.some((p) => 'option' in p))) return batchWithOptions(req, owner, deps, clientSignal);
  // No book holds an option here (those went above): their stock and cash positions.
  const stated = req.books.map((book) => cashAsPositions(splitOptions(book).req));
  const refs = stated.flatMap(({ book }, b) => refsOf(book, ['body', 'books', b]));
  const dataset = await loadDataset(deps.datasets, req.dataset_id, owner, refs);
  const listed = unionOf(stated.map(({ book }) => symbolsOf(book)));
  const symbols = canonicalSymbols(dataset, [listed]);
  const fx = planFor(dataset, symbols, unionOf(stated.map((b) => b.cash)), req.currency, false);
  const shape = requestShape(req, fx ? fx.instruments.length : symbols.length, req.books.length, dataset.dates.length);
  const units = workUnits(shape);
  return underDeadline(
    deps,
    clientSignal,
    async (s) => {
      const model = await prepareModel(req, dataset, symbols, deps, s.signal, fx);
      const books = stated.map(({ book }, b) => priceBook(book, model.symbols, model.prices, req.portfolio_value, ['body', 'books', b]));
      const priced = await priceBooks(
        req,
        model,
        books.map((b) => b.engine),
        'none',
        deps,
        s,
      );
      const answer = buildBatchResponse(
        calculationOf(req, model, listed, deps, s, priced),
        req.books.map((b) => b.id),
        books,
        priced.results,
      );
      if (!fx) return answer;
      // Multi-currency: each book's ES by currency, as its calculate states it.
      const withBreakdown = answer.meta.books.map((entry, b) => ({
        ...entry,
        currency_breakdown: currencyBreakdown(fx, books[b]!, priced.results.books[b]!.componentEs),
      }));
      return { ...answer, meta: { ...answer.meta, books: withBreakdown } };
    },
    { units, teaches: !targetsPrecision(req), owner, bytes: workBytes(shape) },
  );
}
