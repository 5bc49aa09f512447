// A book wider than twice its estimation window samples through the window's loadings (the exact
// low-rank path), a narrower one through the Cholesky factor. Through the real service, on the
// generated 461-symbol file: the response names the path, and each path's 99 % VaR agrees with a
// figure computed here straight from the CSV — the sample variance of the book's own daily P&L
// over the window, with no covariance matrix at all — within its standard error.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { calculate, uploadFile } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';
import { generateWide461 } from '../helpers/generate-prices.js';

const file = generateWide461();
const rows = readFileSync(file, 'utf8').trim().split('\n');
const symbols = rows[0]!.split(',').slice(1);
const prices = rows.slice(1).map((line) => line.split(',').slice(1).map(Number));
const VALUE = 1_000_000;
interface Meta {
  estimation: { observations: number; sampling: string | null; jitter: number; covariance_repaired: boolean };
  metrics: { value_at_risk: number; value_at_risk_standard_error: number };
}

/** z of the 99 % normal quantile. */
const Z99 = 2.3263478740408408;

/** σ of the equally weighted book's linear P&L V·Σ w_i r_i over the last `lookback` log returns. */
function bookSigma(lookback: number): number {
  const pnl: number[] = [];
  for (let d = prices.length - lookback; d < prices.length; d++) {
    let x = 0;
    for (let i = 0; i < symbols.length; i++) x += (VALUE / symbols.length) * Math.log(prices[d]![i]! / prices[d - 1]![i]!);
    pnl.push(x);
  }
  const mean = pnl.reduce((a, b) => a + b, 0) / pnl.length;
  return Math.sqrt(pnl.reduce((a, b) => a + (b - mean) ** 2, 0) / (pnl.length - 1));
}

t.test('the sampling path follows the rule, and each path has the variance of the book', async (t) => {
  const s = await startTestService({ WORKERS: '2' });
  t.teardown(() => s.stop());
  const up = await uploadFile(s.base, s.key, file);
  t.equal(up.status, 200);
  const datasetId = (up.body as { dataset_id: string }).dataset_id;
  // 461 assets: loadings while 2·lookback < 461, i.e. up to lookback 230.
  for (const [lookback, sampling] of [
    [200, 'low_rank'],
    [230, 'low_rank'],
    [231, 'cholesky'],
  ] as const) {
    const body = {
      dataset_id: datasetId,
      method: 'monte_carlo_normal',
      method_options: { seed: 7, lookback, drift: 'zero' },
      portfolio_value: VALUE,
      currency: 'USD',
      portfolio: symbols.map((symbol) => ({ symbol, weight: 1 / symbols.length })),
      confidence_level: 0.99,
      time_horizon: 1,
      simulations: 40_000,
    };
    const r = await calculate(s.base, s.key, body);
    t.equal(r.status, 200, `lookback ${lookback}: answered`);
    const meta = (r.body as { meta: Meta }).meta;
    t.equal(meta.estimation.observations, lookback);
    t.equal(meta.estimation.sampling, sampling, `lookback ${lookback}: ${sampling}`);
    if (sampling === 'low_rank') t.same([meta.estimation.jitter, meta.estimation.covariance_repaired], [0, false], 'exact: no jitter');
    else t.ok(meta.estimation.jitter > 0, 'a singular covariance (rank < 461) is jittered to factor it');
    // The P&L Σ e_i (e^{R_i} − 1) lies above the linear book's Σ e_i R_i by the convexity
    // Σ e_i R_i² / 2, which trims the 99 % loss by 1–2 % here: 3 % of slack for it (a factor
    // with a wrong scale or a missing column moves VaR by far more).
    const want = Z99 * bookSigma(lookback);
    const { value_at_risk: got, value_at_risk_standard_error: se } = meta.metrics;
    t.ok(got <= want + 4 * se && got >= 0.97 * want - 4 * se, `lookback ${lookback}: VaR ${got} ± ${se} vs ${want} linear, from the CSV`);
    const parametric = await calculate(s.base, s.key, { ...body, method: 'parametric_normal', simulations: undefined });
    t.equal(parametric.status, 200);
    const closed = (parametric.body as { meta: Meta }).meta;
    t.equal(closed.estimation.sampling, null, 'the closed form samples nothing');
    // The closed form is the linear book's: the same number, to rounding.
    t.ok(Math.abs(closed.metrics.value_at_risk - want) <= 1e-9 * want, `closed form ${closed.metrics.value_at_risk} vs ${want}`);
  }
});
