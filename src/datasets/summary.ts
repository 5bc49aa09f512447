import { type DatasetSummary } from '../contract/dataset-schemas.js';
import { type Dataset } from './dataset.js';
import { datasetQuality } from './quality.js';

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
    ...(d.currencies ? { base_currency: d.currencies.base, currencies: d.currencies.bySymbol, fx_pairs: d.currencies.fxPairs } : {}),
  };
}
