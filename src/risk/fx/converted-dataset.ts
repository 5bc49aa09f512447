import { type Dataset } from '../../datasets/dataset.js';
import { rateOf } from './conversion.js';
import { planFor } from './fx-figures.js';
import { CASH_PREFIX, type FxPlan } from './fx-plan.js';

/**
 * The dataset as the book's instruments priced in the reporting currency, date by date: each
 * series × its conversion's rate that day (cash: the rate), NaN where any of them is missing. Its
 * log returns are R + F exactly as the instruments' sums of factors (up to rounding), so backtests
 * and stress, which replay and estimate price series, price FX as a risk factor through it.
 */
export function convertedDataset(d: Dataset, plan: FxPlan): Dataset {
  const column = new Map(d.symbols.map((s, i) => [s, i]));
  const n = d.symbols.length;
  const byCurrency = new Map(plan.conversions.map((c) => [c.from, c]));
  const instruments = plan.instruments.filter((ins) => ins.terms.length > 0 || ins.name.startsWith(CASH_PREFIX));
  const m = instruments.length;
  const prices = new Float64Array(d.dates.length * m);
  let missing = 0;
  for (let r = 0; r < d.dates.length; r++) {
    const price = (s: string) => d.prices[r * n + column.get(s)!]!;
    instruments.forEach((ins, i) => {
      const conversion = byCurrency.get(ins.currency);
      const rate = conversion ? rateOf(conversion, price) : 1;
      const value = (ins.name.startsWith(CASH_PREFIX) ? 1 : price(ins.name)) * rate;
      prices[r * m + i] = value;
      if (Number.isNaN(value)) missing++;
    });
  }
  return { symbols: instruments.map((i) => i.name), dates: d.dates, prices, layout: d.layout, missingValues: missing };
}

/**
 * A request's data in its reporting currency: over a multi-currency dataset the converted dataset
 * of `symbols` and `cash` (then `symbols` are its columns: the given ones, then cash) and a cache
 * key that tells it from the raw one; else the dataset as it is (cash refused by `planFor`).
 */
export function inReportingCurrency(d: Dataset, datasetId: string, symbols: string[], cash: string[], reporting: string) {
  const plan = planFor(d, symbols, cash, reporting, false);
  if (!plan) return { dataset: d, symbols, cacheId: datasetId, plan };
  const dataset = convertedDataset(d, plan);
  return { dataset, symbols: dataset.symbols, cacheId: `${datasetId}|in ${reporting}`, plan };
}

/**
 * An instantaneous shock scenario's moves on the instruments of `plan`: a foreign stock moves by
 * its own shock and its FX legs' together, (1 + s)·Π(1 + s_leg)^{±1} − 1; an instrument with one
 * shocked factor of its own keeps that shock exactly; one with none is not shocked.
 */
export function instrumentShocks(shocks: Record<string, number>, plan: FxPlan): Record<string, number> {
  const out: Record<string, number> = {};
  for (const ins of plan.instruments) {
    const moved = ins.terms.filter(([k]) => Object.hasOwn(shocks, plan.factors[k]!));
    if (moved.length === 0) continue;
    const [k0, sign0] = moved[0]!;
    if (moved.length === 1 && sign0 === 1) {
      out[ins.name] = shocks[plan.factors[k0]!]!;
      continue;
    }
    let growth = 1;
    for (const [k, sign] of moved) growth = sign === 1 ? growth * (1 + shocks[plan.factors[k]!]!) : growth / (1 + shocks[plan.factors[k]!]!);
    out[ins.name] = growth - 1;
  }
  return out;
}
