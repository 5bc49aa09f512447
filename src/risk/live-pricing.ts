import { type CalculateRequest } from '../contract/schemas.js';
import { type CalculateResponseBody } from '../contract/responses.js';
import { canonicalSymbols, priceBook, symbolsOf } from './books.js';
import { calculate, calculationOf, modelInputOf, type CalculatorDeps } from './calculate.js';
import { batchPolicy } from './calculation-setup.js';
import { underDeadline, type Session } from './deadline.js';
import { canKeep, groupSumsColumns, groupSumsFor, keepScenarios, runKept, type KeptScenarios } from './kept-scenarios.js';
import { poolTails } from './pooled-tails.js';
import { scenarioCount } from './engine-run.js';
import { loadDataset, prepareModel, type PreparedModel } from './model-setup.js';
import { checkRequest } from './request-checks.js';
import { buildResponse } from './response-builder.js';
import { requestShape, workBytes, workUnits, type WorkShape } from './work-cost.js';
import { cashAsPositions, refsOf } from './fx/cash.js';
import { splitOptions, type StockRequest } from './options/option-positions.js';
import { liveMarket, type LiveMarket } from './live-market.js';
import { bookWithoutFx, planFor, withFxFigures } from './fx/fx-figures.js';
import { type FxPlan } from './fx/fx-plan.js';

/**
 * Whether a request's book is calculated in full on every update, its scenarios never kept:
 * rebalanced paths and importance sampling share no units across books (kernels:
 * fill_rebalanced); filtered history and Cornish–Fisher change the replayed returns or the figures
 * after the engine (calculate's priceBooks). Option positions are refused at subscribe; a book
 * holding one would be calculated in full too (price).
 */
function pricedInFull(req: CalculateRequest): boolean {
  return (
    req.portfolio_mode === 'rebalanced' ||
    req.method_options?.variance_reduction === 'importance_sampling' ||
    req.method === 'historical_filtered' ||
    req.method === 'cornish_fisher'
  );
}

/** A live book's pricer as the socket layer holds it: calculate's answers, and the market its ticks revalue on. */
export interface LivePricer {
  price(req: CalculateRequest): Promise<CalculateResponseBody>;
  /** After the first pricing: over a multi-currency dataset its local prices and FX rates, else null. */
  market(): LiveMarket | null;
  /** After the first pricing: the columns its kept scenarios hold per scenario (0 when none are kept). */
  keptColumns(): number;
}

interface Kept {
  model: PreparedModel;
  /** Over a multi-currency dataset, its instruments (else null). */
  fx: FxPlan | null;
  symbols: string[];
  listed: string[];
  scenarios: KeptScenarios;
  /** Per batch, the books' group sums kept from one pricing to the next (the book, and with FX its twin). */
  sums: Float64Array[];
  /** Whether a pricing is using `sums` (another then prices without them: same answer, all groups summed). */
  summing: boolean;
  /** A tick's work for admission: the books' P&L and the figures, no draws. */
  tick: WorkShape;
}

/**
 * How a live book is priced: its first calculation draws the scenarios and keeps them (with the
 * prepared model); each later request — the same one with other market values — prices its book
 * on them and builds calculate's answer, bit for bit calculate's (the engine's kept units give the
 * partials of drawing them). A book whose scenarios cannot be kept (rebalanced, importance
 * sampling) is calculated in full each time.
 */
export class LivePricing {
  private kept: Kept | null = null;
  private full = false;
  private liveMarket: LiveMarket | null = null;
  private marketRead = false;

  constructor(
    private readonly deps: CalculatorDeps,
    private readonly owner: string,
  ) {}

  /** Over a multi-currency dataset, the local prices and FX rates of the first pricing (else null). */
  get market(): LiveMarket | null {
    return this.liveMarket;
  }

  /**
   * Columns kept per scenario: the book's symbols (over a multi-currency dataset its instruments),
   * and each book's group sums (one column per PNL_GROUP of them) and kept worst rows.
   */
  get keptColumns(): number {
    if (!this.kept) return 0;
    const columns = this.kept.model.symbols.length;
    return columns + (this.kept.sums.length > 0 ? groupSumsColumns(this.books(this.kept), columns) : 0);
  }

  /** Bytes of scenarios and group sums kept (0 before the first pricing, or when none can be). */
  get keptBytes(): number {
    return this.kept ? this.kept.scenarios.bytes + this.kept.sums.reduce((a, s) => a + s.byteLength, 0) : 0;
  }

  /** Books priced on the kept scenarios: the book, and over a foreign currency its twin without FX. */
  private books(kept: Pick<Kept, 'fx'>): number {
    return kept.fx?.foreign ? 2 : 1;
  }

  async price(req: CalculateRequest): Promise<CalculateResponseBody> {
    const { req: stock, options } = splitOptions(req);
    this.full ||= options.length > 0 || pricedInFull(req);
    if (this.full) return this.inFull(req);
    if (this.kept) return this.again(stock, this.kept);
    return this.first(stock);
  }

  private async first(req: StockRequest): Promise<CalculateResponseBody> {
    checkRequest(req);
    const { book: stated, cash } = cashAsPositions(req);
    const dataset = await loadDataset(this.deps.datasets, req.dataset_id, this.owner, refsOf(stated, ['body']));
    // Cash is refused at subscribe; a book holding some is priced as calculate prices it.
    this.full ||= cash.length > 0;
    if (this.full) return this.inFull(req);
    const listed = [...new Set(symbolsOf(stated))];
    const symbols = canonicalSymbols(dataset, [listed]);
    // Multi-currency (api.md §14): the instruments' scenarios (R + F, and R alone) are kept like any asset's.
    const fx = planFor(dataset, symbols, [], req.currency, true);
    const columns = fx ? fx.instruments.length : symbols.length;
    const books = fx?.foreign ? 2 : 1;
    const shape = requestShape(req, columns, books, dataset.dates.length);
    return underDeadline(
      this.deps,
      undefined,
      async (s) => {
        const model = await prepareModel(req, dataset, symbols, this.deps, s.signal, fx);
        const book = priceBook(stated, model.symbols, model.prices, req.portfolio_value, ['body']);
        const input = modelInputOf(req, model, [book.engine], 'none', req.simulations ?? 0);
        if (!canKeep(input)) throw new Error('a live book without shared units reached the kept path');
        const drawn = await keepScenarios(this.deps.executor, input, model.est, batchPolicy(this.deps, s), s.signal);
        const scenarios = poolTails(drawn, scenarioCount(input, model.est));
        if (fx) this.liveMarket = liveMarket(dataset, listed, req.currency, dataset.dates[model.est.lastDate]!);
        const sums = groupSumsFor(scenarios, this.books({ fx }), model.symbols.length);
        this.kept = { model, symbols, listed, scenarios, sums, summing: false, fx, tick: { ...shape, steps: 1, correlated: false } };
        return this.priced(req, this.kept, s);
      },
      { units: workUnits(shape), teaches: false, owner: this.owner, bytes: workBytes(shape) },
    );
  }

  /** Calculate's answer in full; the first one over a multi-currency dataset also reads the market ticks revalue on. */
  private async inFull(req: CalculateRequest): Promise<CalculateResponseBody> {
    const answer = await calculate(req, this.owner, this.deps);
    if (!this.marketRead) {
      this.marketRead = true;
      const { book } = cashAsPositions(splitOptions(req).req);
      const dataset = await loadDataset(this.deps.datasets, req.dataset_id, this.owner, refsOf(book, ['body']));
      this.liveMarket = liveMarket(dataset, [...new Set(symbolsOf(book))], req.currency, answer.meta.estimation.last_date);
    }
    return answer;
  }

  private again(req: StockRequest, kept: Kept): Promise<CalculateResponseBody> {
    checkRequest(req);
    return underDeadline(this.deps, undefined, (s) => this.priced(req, kept, s), {
      units: workUnits(kept.tick),
      teaches: false,
      owner: this.owner,
      // The kept scenarios are shared, not copied into the tasks: a WASM worker copies the batch it
      // prices into its own memory, a native one reads it in place.
      bytes: workBytes(kept.tick) + kept.scenarios.bytes + kept.sums.reduce((a, x) => a + x.byteLength, 0),
    });
  }

  /**
   * `price` given the kept group sums when no other pricing holds them. A pricing that fails leaves
   * them to tasks that may still run (an aborted native call finishes its block): later pricings
   * get new ones, summed from nothing.
   */
  private async onKept<T>(kept: Kept, price: (sums?: Float64Array[]) => Promise<T>): Promise<T> {
    if (kept.summing) return price();
    kept.summing = true;
    try {
      return await price(kept.sums);
    } catch (e) {
      kept.sums = groupSumsFor(kept.scenarios, this.books(kept), kept.model.symbols.length);
      throw e;
    } finally {
      kept.summing = false;
    }
  }

  /** The book on the kept scenarios, answered as calculate answers it (with FX: and its twin without FX, meta.fx). */
  private async priced(req: StockRequest, kept: Kept, s: Session): Promise<CalculateResponseBody> {
    const { model, fx } = kept;
    const book = priceBook(cashAsPositions(req).book, model.symbols, model.prices, req.portfolio_value, ['body']);
    const foreign = fx !== null && fx.foreign;
    const books = foreign ? [book.engine, bookWithoutFx(book, fx)] : [book.engine];
    const input = modelInputOf(req, model, books, foreign ? 'what_if' : 'none', req.simulations ?? 0);
    const results = await this.onKept(kept, (sums) =>
      runKept(this.deps.executor, input, model.est, kept.scenarios, batchPolicy(this.deps, s), s.signal, s.timing, sums),
    );
    const calc = calculationOf(req, model, kept.listed, this.deps, s, { precision: null, extras: { filter: null, cornishFisher: null } });
    const own = { books: [results.books[0]!], whatIf: null };
    const answer = buildResponse(calc, [book], foreign ? own : results);
    if (!fx) return answer;
    return withFxFigures(answer, fx, model.dataset, model.est.lastDate, book, foreign ? results : own, results.books[0]!.componentEs);
  }
}
