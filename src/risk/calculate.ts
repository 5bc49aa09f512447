import { type EngineResults } from '../engine/results-codec.js';
import { type EngineBook } from '../engine/codec.js';
import { DEFAULTS, type BatchRequest, type CalculateRequest } from '../contract/schemas.js';
import { type BatchResponseBody, type CalculateResponseBody } from '../contract/responses.js';
import { type DatasetStore } from '../datasets/dataset-store.js';
import { applyTrades, canonicalSymbols, priceBook, symbolsOf, unionOf, type BookRequest, type PricedBook } from './books.js';
import { loadDataset, prepareModel, type ModelRequest, type PreparedModel, type SetupDeps, type SymbolRef } from './model-setup.js';
import { underDeadline, type Session } from './deadline.js';
import { type WorkAdmission } from './admission.js';
import { requestShape, workBytes, workUnits } from './work-cost.js';
import { checkBatchRequest, checkRequest } from './request-checks.js';
import { buildBatchResponse, buildResponse, type Calculation, type EngineInfo } from './response-builder.js';
import { runModel } from './engine-run.js';
import { runToPrecision, type Precision } from './precision.js';
import { type Comparison } from '../engine/codec.js';
import { cornishFisherResults, engineMethod, type HistoryExtras } from './history/history-methods.js';
import { replayedEstimation } from './history/filtered-estimation.js';

export interface CalculatorDeps extends SetupDeps {
  datasets: DatasetStore;
  engine: EngineInfo;
  /** Compute deadline per calculation (CALC_TIMEOUT_MS). */
  timeoutMs: number;
  /** Admission by estimated work against the deadline (absent: every calculation is admitted). */
  admission?: WorkAdmission;
}

/**
 * Whether the request asks for a target error: its cost is estimated at the cap `simulations`, but
 * it may stop far sooner, so its time must not teach the cost model.
 */
const targetsPrecision = (req: ModelRequest) => req.method_options?.target_relative_error !== undefined;

/** Where each symbol of a book was stated. */
function refsOf(book: BookRequest, at: (string | number)[]): SymbolRef[] {
  const field = book.portfolio ? 'portfolio' : 'positions';
  return symbolsOf(book).map((symbol, i) => ({ symbol, loc: [...at, field, i, 'symbol'] }));
}

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
  const replay = await replayedEstimation(model.est, model.opts.filter, model.opts.drift === 'zero', {
    executor: deps.executor,
    signal: s.signal,
    deadline: s.deadline,
  });
  const input = {
    rebalanced: req.portfolio_mode === 'rebalanced',
    books,
    horizon: req.time_horizon,
    confidence: req.confidence_level,
    zeroDrift: model.opts.drift === 'zero',
  };
  const run = (simulations: number) =>
    runModel(
      deps.executor,
      {
        ...input,
        method: engineMethod(req.method),
        comparison,
        simulations,
        degreesOfFreedom: model.opts.degreesOfFreedom ?? DEFAULTS.degrees_of_freedom,
        seed: model.opts.seed ?? 0,
        antithetic: o.antithetic ?? DEFAULTS.antithetic,
        importanceSampling: (o.variance_reduction ?? DEFAULTS.variance_reduction) === 'importance_sampling',
        histogramBins: o.histogram_bins ?? DEFAULTS.histogram_bins,
      },
      replay.est,
      { maxBatches: deps.maxBatches, deadline: s.deadline },
      s.signal,
      s.timing,
    );
  const extras: HistoryExtras = { filter: replay.state, cornishFisher: null };
  // The request checks allow a target only with Monte Carlo, which requires `simulations` (the cap).
  if (o.target_relative_error !== undefined) return { ...(await runToPrecision(o.target_relative_error, req.simulations ?? 0, run)), extras };
  const results = await run(req.simulations ?? 0);
  if (req.method !== 'cornish_fisher') return { results, precision: null, extras };
  const cf = cornishFisherResults(results, replay.est, input);
  return { results: cf.results, precision: null, extras: { ...extras, cornishFisher: cf.figures } };
}

/** `listed` (the request's symbols in order of first appearance) as indices into the model's. */
function calculationOf(
  req: ModelRequest,
  model: PreparedModel,
  listed: string[],
  deps: CalculatorDeps,
  s: Session,
  priced: { precision: Precision | null; extras: HistoryExtras },
): Calculation {
  const { symbols, prices, dataset, est, opts } = model;
  const position = new Map(symbols.map((sym, i) => [sym, i]));
  return {
    precision: priced.precision,
    extras: priced.extras,
    request: req,
    symbols,
    listing: listed.map((sym) => position.get(sym)!),
    prices,
    dates: dataset.dates,
    est,
    opts,
    engine: deps.engine,
    timing: { ...s.timing, totalMs: performance.now() - s.started },
  };
}

/**
 * One book, and with `what_if` the same book after the trades, priced on the same scenarios over
 * the set of their symbols in the dataset's order (api.md §13); the answer lists them as requested.
 */
export async function calculate(req: CalculateRequest, owner: string, deps: CalculatorDeps, clientSignal?: AbortSignal): Promise<CalculateResponseBody> {
  checkRequest(req);
  const trades = req.what_if?.trades ?? [];
  const refs = [...refsOf(req, ['body']), ...trades.map((t, i) => ({ symbol: t.symbol, loc: ['body', 'what_if', 'trades', i, 'symbol'] }))];
  const dataset = await loadDataset(deps.datasets, req.dataset_id, owner, refs);
  const listed = unionOf([symbolsOf(req), trades.map((t) => t.symbol)]);
  const symbols = canonicalSymbols(dataset, [listed]);
  const shape = requestShape(req, symbols.length, req.what_if ? 2 : 1, dataset.dates.length);
  const units = workUnits(shape);
  return underDeadline(
    deps,
    clientSignal,
    async (s) => {
      const model = await prepareModel(req, dataset, symbols, deps, s.signal);
      const before = priceBook(req, symbols, model.prices, req.portfolio_value, ['body']);
      const books: PricedBook[] = req.what_if ? [before, applyTrades(before, trades, symbols, model.prices, req.portfolio_value)] : [before];
      const priced = await priceBooks(
        req,
        model,
        books.map((b) => b.engine),
        req.what_if ? 'what_if' : 'none',
        deps,
        s,
      );
      return buildResponse(calculationOf(req, model, listed, deps, s, priced), books, priced.results);
    },
    { units, teaches: !targetsPrecision(req), owner, bytes: workBytes(shape) },
  );
}

/** Up to 200 books on one scenario set over the set of their symbols (the dataset's order, api.md §13). */
export async function calculateBatch(req: BatchRequest, owner: string, deps: CalculatorDeps, clientSignal?: AbortSignal): Promise<BatchResponseBody> {
  checkBatchRequest(req);
  const refs = req.books.flatMap((book, b) => refsOf(book, ['body', 'books', b]));
  const dataset = await loadDataset(deps.datasets, req.dataset_id, owner, refs);
  const listed = unionOf(req.books.map(symbolsOf));
  const symbols = canonicalSymbols(dataset, [listed]);
  const shape = requestShape(req, symbols.length, req.books.length, dataset.dates.length);
  const units = workUnits(shape);
  return underDeadline(
    deps,
    clientSignal,
    async (s) => {
      const model = await prepareModel(req, dataset, symbols, deps, s.signal);
      const books = req.books.map((book, b) => priceBook(book, symbols, model.prices, req.portfolio_value, ['body', 'books', b]));
      const priced = await priceBooks(
        req,
        model,
        books.map((b) => b.engine),
        'none',
        deps,
        s,
      );
      return buildBatchResponse(
        calculationOf(req, model, listed, deps, s, priced),
        req.books.map((b) => b.id),
        books,
        priced.results,
      );
    },
    { units, teaches: !targetsPrecision(req), owner, bytes: workBytes(shape) },
  );
}
