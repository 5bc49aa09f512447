import { type BatchRequest } from '../../contract/schemas.js';
import { type BatchResponseBody, type CalculateResponseBody } from '../../contract/responses.js';
import { canonicalSymbols, symbolsOf, unionOf } from '../books.js';
import { loadDataset, prepareModel, type SymbolRef } from '../model-setup.js';
import { underDeadline } from '../deadline.js';
import { optionBookShape, workBytes, workUnits } from '../work-cost.js';
import { type CalculatorDeps } from '../calculation-setup.js';
import { cashAsPositions, refsOf } from '../fx/cash.js';
import { canonicalOptions, optionBookRefs, splitOptions, timesToExpiry, type StockRequest } from './option-positions.js';
import { checkOptionBounds, checkSupported, valuationOf } from './option-calculate.js';
import { optionFxPlan } from './option-fx.js';
import { answerOptionBook, optionRun, type OptionBook } from './option-book-answer.js';

/** What a calculate's meta states of its one book: in a batch, each book's entry. */
const OWN_FIELDS = [
  'portfolio_value',
  'metrics',
  'contributions',
  'exposures',
  'distribution',
  'valuation',
  'cornish_fisher',
  'what_if',
  'fx',
  'currency_breakdown',
];

/** A batch book's own figures, as its calculate states them (the rest of calculate's meta is shared). */
function bookEntry(id: string, answer: CalculateResponseBody) {
  const m = answer.meta;
  const valuation = m.valuation && m.valuation.options > 0 ? { valuation: m.valuation } : {};
  return {
    id,
    portfolio_value: m.portfolio_value,
    metrics: m.metrics,
    contributions: m.contributions,
    exposures: m.exposures,
    distribution: m.distribution,
    ...valuation,
    ...(m.currency_breakdown ? { currency_breakdown: m.currency_breakdown } : {}),
  };
}

/**
 * A batch whose books hold options (api.md §8, §15): one scenario set over the union of the books'
 * symbols and underlyings, drawn and kept once; each book is then priced on it exactly as
 * calculate prices that book alone over the same symbols (option-book-answer.ts), so its figures
 * are that calculate's, bit for bit. A book's option columns are its own: another book's options
 * never enter its sums.
 */
export async function batchWithOptions(req: BatchRequest, owner: string, deps: CalculatorDeps, clientSignal?: AbortSignal): Promise<BatchResponseBody> {
  // The request-level fields are calculate's; a batch has no what_if and no sensitivities.
  const common = req as unknown as StockRequest;
  checkSupported(common, true);
  const books = req.books.map((b, i) => {
    const at = ['body', 'books', i];
    const split = splitOptions(b);
    const options = canonicalOptions(split.options);
    checkOptionBounds(options.length, 0, req, [...at, 'positions']);
    const { book: stated, cash } = cashAsPositions(split.req);
    // Stock positions are named at their own index in `positions`, whatever options precede them.
    const refs: SymbolRef[] = b.positions ? optionBookRefs(b.positions).map((r) => ({ ...r, loc: [...at, ...r.loc.slice(1)] })) : refsOf(stated, at);
    return { at, options, stated, cash, refs };
  });
  const dataset = await loadDataset(
    deps.datasets,
    req.dataset_id,
    owner,
    books.flatMap((b) => b.refs),
  );
  const last = dataset.dates[dataset.dates.length - 1]!;
  const taus = books.map((b) => timesToExpiry(b.options, last, [...b.at, 'positions']));
  const underlyings = books.map((b) => b.options.map((o) => o.entry.option.underlying));
  // Listed as first named, book by book: a book's stock symbols, then its underlyings.
  const listed = unionOf(books.flatMap((b, i) => [symbolsOf(b.stated), underlyings[i]!]));
  const symbols = canonicalSymbols(dataset, [listed]);
  const fx = optionFxPlan(dataset, symbols, unionOf(books.map((b) => b.cash)), underlyings.flat(), [], [], req.currency);
  const widest = Math.max(...books.map((b) => b.options.length));
  const stockColumns = fx ? fx.instruments.length : symbols.length;
  const shape = optionBookShape(req, stockColumns, 2 * widest, 2 * books.length, dataset.dates.length);
  return underDeadline(
    deps,
    clientSignal,
    async (s) => {
      const model = await prepareModel(req, dataset, symbols, deps, s.signal, fx);
      const run = await optionRun(common, model, fx, listed, deps, s);
      const answers: CalculateResponseBody[] = [];
      // One book at a time, each priced on the run's kept scenarios.
      for (const [i, b] of books.entries()) {
        const book: OptionBook = {
          stated: b.stated,
          options: b.options,
          taus: taus[i]!,
          given: [],
          givenOrder: [],
          valuation: valuationOf(common, b.options.length),
          at: b.at,
        };
        answers.push(await answerOptionBook(run, book));
      }
      // The shared fields of the last answer (its timing covers every book); the book's own go in `books`.
      const shared: Record<string, unknown> = { ...answers[answers.length - 1]!.meta };
      for (const k of OWN_FIELDS) delete shared[k];
      const meta = { ...shared, symbols: listed, books: answers.map((a, i) => bookEntry(req.books[i]!.id, a)) } as BatchResponseBody['meta'];
      return { status: 'success', meta };
    },
    { units: workUnits(shape), teaches: false, owner, bytes: workBytes(shape) },
  );
}
