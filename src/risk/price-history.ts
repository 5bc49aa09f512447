import { type Dataset } from '../datasets/dataset.js';

/** Prices of some symbols on the dates where every one of them has a price, [row][symbol]. */
export interface PriceHistory {
  dates: string[];
  prices: Float64Array[];
}

export function completeHistory(dataset: Dataset, symbols: string[]): PriceHistory {
  const columns = new Map(dataset.symbols.map((s, c) => [s, c]));
  const index = symbols.map((s) => columns.get(s)!);
  const width = dataset.symbols.length;
  const out: PriceHistory = { dates: [], prices: [] };
  dataset.dates.forEach((date, r) => {
    const row = Float64Array.from(index, (c) => dataset.prices[r * width + c]!);
    if (row.every((p) => !Number.isNaN(p))) {
      out.dates.push(date);
      out.prices.push(row);
    }
  });
  return out;
}
