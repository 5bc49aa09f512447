import { fxMeta, withoutFx } from '../fx/fx-figures.js';
import { type EngineResults } from '../../engine/results-codec.js';
import { withOptionColumns, type PricedOption } from './option-columns.js';
import { runOnColumns, type LaidBook, type OptionBook, type OptionRun } from './option-book-answer.js';

/** An option priced without FX: on its local price, at the last rate held fixed (its size carries the rate). */
const withoutConversion = (o: PricedOption): PricedOption => ({ ...o, fx: undefined });

/**
 * meta.fx of a book with options over a multi-currency dataset (api.md §14): the book as asked
 * against the same book with every FX return at 0, on the same scenarios. Without FX a foreign
 * stock moves on its plain column, foreign cash not at all, and a foreign option is revalued on its
 * local price and converted at the last rate. One run revalues each option both ways (with FX,
 * then without), the sensitivities after them, and compares the two books as a what-if.
 */
export async function optionFxMeta(run: OptionRun, book: OptionBook, laid: LaidBook, metrics: { value_at_risk: number; expected_shortfall: number }) {
  const plan = run.fx!;
  const { n, priced, sens, exposures, engineOf } = laid.layout;
  const mo = priced.length;
  const g = sens.length;
  let effect: EngineResults | null = null;
  if (plan.foreign) {
    const both = [...priced, ...priced.map(withoutConversion)];
    // Parametric keeps no scenarios; a book of stocks alone (a what-if's before) adds no columns.
    const revalue = run.kept !== null && mo + g > 0;
    const columns = revalue ? withOptionColumns(run.kept!, n, run.req.time_horizon, book.valuation, both, false, sens) : run.kept;
    // Columns: the model's, the options with FX, the options without, the sensitivities (as asked).
    const width = n + 2 * mo + g;
    const stock = exposures.subarray(0, n);
    const asked = exposures.subarray(n, n + mo);
    const given = exposures.subarray(n + mo, n + mo + g);
    const withFx = new Float64Array(width);
    withFx.set(stock);
    withFx.set(asked, n);
    withFx.set(given, n + 2 * mo);
    const plain = new Float64Array(width);
    plain.set(withoutFx(stock, plan));
    plain.set(asked, n + mo);
    plain.set(given, n + 2 * mo);
    // Parametric (delta only): an option with FX moves as its converted column, without as its local one.
    const sources = [...priced.map((o) => o.fx?.converted ?? o.underlying), ...priced.map((o) => o.underlying), ...sens.map((s) => s.underlying)];
    effect = await runOnColumns(run, n, columns, sources, [engineOf(withFx), engineOf(plain)]);
  }
  const meta = fxMeta(plan, run.model.dataset, run.model.est.lastDate, effect);
  // No foreign instrument: the book without FX is the book itself, its effect 0.
  return effect ? meta : { ...meta, var_without_fx: metrics.value_at_risk, es_without_fx: metrics.expected_shortfall };
}
