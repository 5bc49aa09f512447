/** A wide CSV of deterministic random-walk prices: `dates` business days from 2020-01-01. */
export function syntheticCsv(symbols: string[], dates: number, seed = 1): string {
  let state = seed >>> 0 || 1;
  const rand = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
  const prices = symbols.map(() => 100);
  const lines = [['date', ...symbols].join(',')];
  const day = new Date(Date.UTC(2020, 0, 1));
  for (let d = 0; d < dates; d++) {
    lines.push([day.toISOString().slice(0, 10), ...prices.map((p) => p.toFixed(4))].join(','));
    for (let i = 0; i < prices.length; i++) prices[i] = prices[i]! * Math.exp((rand() - 0.5) * 0.04);
    day.setUTCDate(day.getUTCDate() + 1);
  }
  return lines.join('\n') + '\n';
}
