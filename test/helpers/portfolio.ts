/** A weights portfolio from `{ symbol: weight }`, in the order written. */
export function portfolio(weights: Record<string, number>): { symbol: string; weight: number }[] {
  return Object.entries(weights).map(([symbol, weight]) => ({ symbol, weight }));
}
