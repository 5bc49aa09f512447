/** The sample's AAPL options expire after its last date (2020-01-10): τ = 70 days. */
const EXPIRY = '2020-03-20';
const call = (strike: number, quantity: number) => ({
  option: { underlying: 'AAPL', type: 'call', strike, expiry: EXPIRY, volatility: 0.25, rate: 0.015 },
  quantity,
  multiplier: 100,
});
const put = (strike: number, quantity: number) => ({ ...call(strike, quantity), option: { ...call(strike, quantity).option, type: 'put' } });

const BOOKS = [
  { name: 'covered call: AAPL 100 sh, short 1 call 320', positions: [{ symbol: 'AAPL', quantity: 100 }, call(320, -1)] },
  { name: 'short straddle: short 1 call + 1 put 310', positions: [call(310, -1), put(310, -1)] },
];

const money = (x: number) => x.toLocaleString('en-US', { maximumFractionDigits: 0 }).padStart(10);

interface ValuationMeta {
  metrics: { value_at_risk: number };
  valuation: { nonlinearity_var: number; nonlinearity_var_standard_error: number };
}

/**
 * Two AAPL option books (contracts of 100, σ 25 %, expiring 2020-03-20): their VaR with every
 * option revalued on each scenario against the same book at its deltas, on the same scenarios.
 */
export async function optionBooks(
  base: string,
  key: string,
  datasetId: string,
  post: (url: string, key: string, body: unknown) => Promise<unknown>,
): Promise<void> {
  console.log(`\nOption books (AAPL, contracts of 100, σ 25 %, expiry ${EXPIRY}), monte_carlo_normal 99% 10d:`);
  console.log('book                                            full VaR   delta VaR   full − delta');
  for (const b of BOOKS) {
    const body = {
      dataset_id: datasetId,
      method: 'monte_carlo_normal',
      method_options: { seed: 2024 },
      currency: 'USD',
      positions: b.positions,
      confidence_level: 0.99,
      time_horizon: 10,
      simulations: 100_000,
    };
    const { meta } = (await post(`${base}/calculate`, key, body)) as { meta: ValuationMeta };
    const full = meta.metrics.value_at_risk;
    const v = meta.valuation;
    console.log(
      `${b.name.padEnd(44)} ${money(full)}  ${money(full - v.nonlinearity_var)}  ${money(v.nonlinearity_var)} ± ${v.nonlinearity_var_standard_error.toFixed(0)}`,
    );
  }
}
