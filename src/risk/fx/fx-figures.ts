import { validationError } from '../../contract/errors.js';
import { type Dataset } from '../../datasets/dataset.js';
import { type EngineBook } from '../../engine/codec.js';
import { type EngineResults } from '../../engine/results-codec.js';
import { type PricedBook } from '../books.js';
import { type CalculateResponseBody } from '../../contract/responses.js';
import { fxPlan, LOCAL_PREFIX, ratesAt, type FxPlan } from './fx-plan.js';

/**
 * The FX plan of a calculation, or null over a single-currency dataset (which prices as it always
 * has; cash needs currencies, so it is refused there, where it was stated).
 */
export function planFor(dataset: Dataset, symbols: string[], cash: string[], reporting: string, withoutFx: boolean): FxPlan | null {
  if (!dataset.currencies) {
    if (cash.length > 0) {
      throw validationError([
        { loc: ['body', 'positions'], msg: 'cash positions need a multi-currency dataset (upload with base_currency or currencies)', type: 'value_error' },
      ]);
    }
    return null;
  }
  return fxPlan(dataset, symbols, cash, reporting, withoutFx);
}

/** The same book with every FX return set to 0: foreign stocks on their plain columns, foreign cash out. */
export function bookWithoutFx(book: PricedBook, plan: FxPlan): EngineBook {
  return { capital: book.capital, weights: withoutFx(book.engine.weights, plan) };
}

/** `values` (weights or exposures, one per instrument) moved onto the plain columns: foreign stocks priced without FX, foreign cash out. */
export function withoutFx(values: Float64Array, plan: FxPlan): Float64Array {
  const out = new Float64Array(values.length);
  plan.instruments.forEach((ins, i) => {
    // The plain columns are the book's only through the positions they stand in for.
    if (ins.withoutFx >= 0 && !ins.name.startsWith(LOCAL_PREFIX)) out[ins.withoutFx] = values[i]!;
  });
  return out;
}

/** meta.fx: the conversions, and the FX effect as with − without FX on the same scenarios. */
export function fxMeta(plan: FxPlan, dataset: Dataset, row: number, results: EngineResults | null) {
  const rates = ratesAt(plan, dataset, row);
  const [withFx, withoutFx] = results?.books ?? [];
  const w = results?.whatIf;
  return {
    reporting_currency: plan.reporting,
    pairs: plan.conversions.map((c) => ({
      pair: c.from + c.to,
      columns: c.legs.map((l) => l.pair),
      inverted: c.legs.some((l) => l.sign === -1),
      via: c.via,
      last_rate: rates.get(c.from)!,
    })),
    var_without_fx: withoutFx?.valueAtRisk ?? withFx?.valueAtRisk ?? 0,
    es_without_fx: withoutFx?.expectedShortfall ?? withFx?.expectedShortfall ?? 0,
    // The engine reports a comparison as second book − first: here without − with.
    fx_effect_var: w ? -w.incrementalVar : 0,
    fx_effect_es: w ? -w.incrementalEs : 0,
    fx_effect_var_standard_error: w ? w.incrementalVarStandardError : 0,
    fx_effect_es_standard_error: w ? w.incrementalEsStandardError : 0,
  };
}

/** One row of a book for meta.currency_breakdown: its local currency, exposure and component ES. */
export interface CurrencyRow {
  currency: string;
  exposure: number;
  componentEs: number;
}

/** meta.currency_breakdown: per local currency (alphabetical) its exposures and component ES, adding up to ES. */
export function breakdownOf(rows: CurrencyRow[]) {
  const by = new Map<string, { currency: string; gross: number; net: number; component_es: number }>();
  for (const r of rows) {
    const row = by.get(r.currency) ?? { currency: r.currency, gross: 0, net: 0, component_es: 0 };
    row.gross += Math.abs(r.exposure);
    row.net += r.exposure;
    row.component_es += r.componentEs;
    by.set(r.currency, row);
  }
  return [...by.values()].sort((a, b) => (a.currency < b.currency ? -1 : 1));
}

/** The rows of a linear book's own instruments (`componentEs` per column). */
export function instrumentRows(plan: FxPlan, own: boolean[], exposures: ArrayLike<number>, componentEs: number[]): CurrencyRow[] {
  return plan.instruments.flatMap((ins, i) => (own[i] ? [{ currency: ins.currency, exposure: exposures[i]!, componentEs: componentEs[i]! }] : []));
}

/** meta.currency_breakdown of a linear book. */
export const currencyBreakdown = (plan: FxPlan, book: PricedBook, componentEs: number[]) =>
  breakdownOf(instrumentRows(plan, book.own, book.exposures, componentEs));

/**
 * A book's answer with its meta.fx (`effect`: the book and, with foreign instruments, its twin
 * without FX compared on the same scenarios) and meta.currency_breakdown (`componentEs` of its run).
 */
export function withFxFigures(
  answer: CalculateResponseBody,
  plan: FxPlan,
  dataset: Dataset,
  row: number,
  book: PricedBook,
  effect: EngineResults,
  componentEs: number[],
): CalculateResponseBody {
  return { ...answer, meta: { ...answer.meta, fx: fxMeta(plan, dataset, row, effect), currency_breakdown: currencyBreakdown(plan, book, componentEs) } };
}
