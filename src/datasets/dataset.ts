import { type DatasetSummary } from '../contract/dataset-schemas.js';
import { datasetQuality } from './quality.js';

/** A parsed price history: dates ascending, prices [date][symbol], NaN where a price is missing. */
export interface Dataset {
  symbols: string[];
  dates: string[];
  prices: Float64Array;
  layout: 'wide' | 'long';
  missingValues: number;
}

/**
 * The public description of a dataset (upload response, GET), typed by the contract's schema, with
 * its quality report (computed once per decoded dataset, then reused).
 */
export function summarize(d: Dataset): DatasetSummary {
  return {
    symbols: d.symbols,
    rows: d.dates.length,
    first_date: d.dates[0] ?? '',
    last_date: d.dates[d.dates.length - 1] ?? '',
    layout: d.layout,
    missing_values: d.missingValues,
    quality: datasetQuality(d),
  };
}

/** Prices of the chosen symbols, [date][asset] in the order given. */
export function selectColumns(d: Dataset, symbols: string[]): Float64Array {
  const index = new Map(d.symbols.map((s, i) => [s, i]));
  const cols = symbols.map((s) => index.get(s) ?? -1);
  const n = d.symbols.length;
  const out = new Float64Array(d.dates.length * symbols.length);
  for (let r = 0; r < d.dates.length; r++) {
    for (let c = 0; c < cols.length; c++) out[r * cols.length + c] = d.prices[r * n + cols[c]!]!;
  }
  return out;
}
