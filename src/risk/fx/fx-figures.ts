import { validationError } from '../../contract/errors.js';
import { type Dataset } from '../../datasets/dataset.js';
import { type EngineBook } from '../../engine/codec.js';
import { type EngineResults } from '../../engine/results-codec.js';
import { type PricedBook } from '../books.js';
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
  const weights = new Float64Array(book.engine.weights.length);
  plan.instruments.forEach((ins, i) => {
    // The plain columns are the book's only through the positions they stand in for.
    if (ins.withoutFx >= 0 && !ins.name.startsWith(LOCAL_PREFIX)) weights[ins.withoutFx] = book.engine.weights[i]!;
  });
  return { capital: book.capital, weights };
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

/** meta.currency_breakdown: per local currency (alphabetical) its exposures and component ES, adding up to ES. */
export function currencyBreakdown(plan: FxPlan, book: PricedBook, componentEs: number[]) {
  const by = new Map<string, { currency: string; gross: number; net: number; component_es: number }>();
  plan.instruments.forEach((ins, i) => {
    if (!book.own[i]) return;
    const row = by.get(ins.currency) ?? { currency: ins.currency, gross: 0, net: 0, component_es: 0 };
    const e = book.exposures[i]!;
    row.gross += Math.abs(e);
    row.net += e;
    row.component_es += componentEs[i]!;
    by.set(ins.currency, row);
  });
  return [...by.values()].sort((a, b) => (a.currency < b.currency ? -1 : 1));
}
