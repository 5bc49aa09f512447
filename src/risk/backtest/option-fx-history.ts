import { type Dataset } from '../../datasets/dataset.js';
import { CASH_PREFIX, currencyOfColumn, LOCAL_PREFIX } from '../fx/fx-plan.js';
import { inReportingCurrency } from '../fx/converted-dataset.js';

/** Where a backtested option on a foreign underlying reads its local price and its conversion. */
export interface OptionFxColumns {
  /** The column of its underlying's local price. */
  local: number;
  /** The column of its currency's cash, whose price is the rate into the reporting currency. */
  unit: number;
  /** The column of its underlying in the reporting currency (R + F: a foreign stock's). */
  converted: number;
}

/**
 * The series a backtest of a book with options reads (api.md §9, §14, §15): the book's, in the
 * reporting currency date by date; over a multi-currency dataset also each foreign underlying's
 * currency as cash (the rate, held or not) and its local price (`@local:` + symbol), on which the
 * option is revalued before conversion.
 */
export function optionBacktestSeries(raw: Dataset, datasetId: string, own: string[], cash: string[], underlyings: string[], reporting: string) {
  const c = raw.currencies;
  const foreign = c ? [...new Set(underlyings.filter((u) => currencyOfColumn(c, u) !== reporting))] : [];
  const currencies = [...new Set(foreign.map((u) => currencyOfColumn(c!, u)))];
  const converted = inReportingCurrency(raw, datasetId, own, [...new Set([...cash, ...currencies])], reporting);
  if (foreign.length === 0) return { ...converted, fx: new Map<string, OptionFxColumns>() };
  const locals = raw.symbols.filter((s) => foreign.includes(s));
  const [m, n, w] = [converted.dataset.symbols.length, raw.symbols.length, converted.dataset.symbols.length + locals.length];
  const rawColumn = new Map(raw.symbols.map((s, i) => [s, i]));
  const prices = new Float64Array(raw.dates.length * w);
  let missing = converted.dataset.missingValues;
  for (let r = 0; r < raw.dates.length; r++) {
    prices.set(converted.dataset.prices.subarray(r * m, (r + 1) * m), r * w);
    locals.forEach((s, k) => {
      const p = raw.prices[r * n + rawColumn.get(s)!]!;
      prices[r * w + m + k] = p;
      if (Number.isNaN(p)) missing++;
    });
  }
  const symbols = [...converted.dataset.symbols, ...locals.map((s) => LOCAL_PREFIX + s)];
  const dataset: Dataset = { ...converted.dataset, symbols, prices, missingValues: missing };
  const at = new Map(symbols.map((s, i) => [s, i]));
  const fx = new Map(locals.map((s) => [s, { local: at.get(LOCAL_PREFIX + s)!, unit: at.get(CASH_PREFIX + currencyOfColumn(c!, s))!, converted: at.get(s)! }]));
  return { ...converted, dataset, symbols, fx };
}
