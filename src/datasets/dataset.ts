/** A parsed price history: dates ascending, prices [date][symbol], NaN where a price is missing. */
export interface Dataset {
  symbols: string[];
  dates: string[];
  prices: Float64Array;
  layout: 'wide' | 'long';
  missingValues: number;
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
