import { type Dataset } from '../../datasets/dataset.js';
import { CASH_PREFIX, currencyOfColumn, LOCAL_PREFIX } from '../fx/fx-plan.js';
import { inReportingCurrency } from '../fx/converted-dataset.js';

/** The series an option on a foreign underlying reads, by column name. */
export interface ForeignUnderlying {
  /** Its underlying's local price (`@local:` + symbol). */
  local: string;
  /** Its currency's cash column, whose price is the rate into the reporting currency. */
  unit: string;
  /** Its underlying in the reporting currency (R + F: a foreign stock's). */
  converted: string;
}

/**
 * The data of a book with options replayed or stressed over dates (api.md §10, §14, §15): the
 * `symbols` and `cash` in the reporting currency date by date (inReportingCurrency); over a
 * multi-currency dataset also each foreign underlying's currency as cash (the rate, held or not)
 * and its local price, on which the option is revalued before conversion. `locals` are the added
 * local columns, after every other.
 */
export function withForeignUnderlyings(raw: Dataset, datasetId: string, symbols: string[], cash: string[], underlyings: string[], reporting: string) {
  const c = raw.currencies;
  const foreign = c ? raw.symbols.filter((s) => underlyings.includes(s) && currencyOfColumn(c, s) !== reporting) : [];
  const currencies = foreign.map((u) => currencyOfColumn(c!, u));
  const converted = inReportingCurrency(raw, datasetId, symbols, [...new Set([...cash, ...currencies])], reporting);
  const none = { ...converted, locals: [] as string[], foreign: new Map<string, ForeignUnderlying>() };
  if (foreign.length === 0) return none;
  const [m, n, w] = [converted.dataset.symbols.length, raw.symbols.length, converted.dataset.symbols.length + foreign.length];
  const rawColumn = new Map(raw.symbols.map((s, i) => [s, i]));
  const prices = new Float64Array(raw.dates.length * w);
  let missing = converted.dataset.missingValues;
  for (let r = 0; r < raw.dates.length; r++) {
    prices.set(converted.dataset.prices.subarray(r * m, (r + 1) * m), r * w);
    foreign.forEach((s, k) => {
      const p = raw.prices[r * n + rawColumn.get(s)!]!;
      prices[r * w + m + k] = p;
      if (Number.isNaN(p)) missing++;
    });
  }
  const locals = foreign.map((s) => LOCAL_PREFIX + s);
  const all = [...converted.dataset.symbols, ...locals];
  return {
    ...converted,
    dataset: { ...converted.dataset, symbols: all, prices, missingValues: missing },
    symbols: all,
    locals,
    foreign: new Map(foreign.map((s, k) => [s, { local: locals[k]!, unit: CASH_PREFIX + currencies[k]!, converted: s }])),
  };
}

/** A shock scenario's moves of the local price columns: each foreign underlying's own shock, if given. */
export function localShocks(shocks: Record<string, number>, foreign: Map<string, ForeignUnderlying>): Record<string, number> {
  return Object.fromEntries([...foreign].filter(([symbol]) => Object.hasOwn(shocks, symbol)).map(([symbol, f]) => [f.local, shocks[symbol]!]));
}
