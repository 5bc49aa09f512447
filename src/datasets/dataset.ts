/** A parsed price history: dates ascending, prices [date][symbol], NaN where a price is missing. */
export interface Dataset {
  symbols: string[];
  dates: string[];
  prices: Float64Array;
  layout: 'wide' | 'long';
  missingValues: number;
  /** Multi-currency datasets only (api.md §14); absent, the dataset is single-currency. */
  currencies?: DatasetCurrencies;
}

/** Each price series' currency, and which columns are FX rates. */
export interface DatasetCurrencies {
  /** Currency of every series the upload's `currencies` does not name; null when it names all. */
  base: string | null;
  /** Each priced series' currency (FX columns excluded). */
  bySymbol: Record<string, string>;
  /** FX columns `CCY1CCY2` (units of CCY2 per one CCY1), in the file's order. */
  fxPairs: string[];
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
