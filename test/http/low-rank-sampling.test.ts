// A book with no fewer assets than returns in its estimation window (a singular Σ) samples through
// the window's loadings (the exact low-rank path), a narrower one through the Cholesky factor. Through the real service, on the
// generated 461-symbol file: the response names the path, and each path's 99 % VaR agrees with a
// figure computed here straight from the CSV — the sample variance of the book's own daily P&L
// over the window, with no covariance matrix at all — within its standard error.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { call, calculate, upload, uploadFile } from '../helpers/http.js';
import { syntheticCsv } from '../helpers/csv.js';
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
  // 461 assets: loadings while lookback ≤ 461 (Σ singular), the Cholesky factor from 462.
  for (const [lookback, sampling] of [
    [200, 'low_rank'],
    [461, 'low_rank'],
    [462, 'cholesky'],
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
    else t.same([meta.estimation.jitter, meta.estimation.covariance_repaired], [0, false], 'a full-rank Σ (462 returns, 461 assets) factors without jitter');
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

t.test('stress on a model sampled through loadings: conditional figures from Σ = F·Fᵀ, singular Σ_ss repaired', async (t) => {
  const s = await startTestService({ RATE_LIMIT_STRESS_PER_MIN: '100' });
  t.teardown(() => s.stop());
  // 70 symbols, 30 returns: the stress model (the book's symbols) samples through loadings.
  const names = Array.from({ length: 70 }, (_, i) => `Z${String(i).padStart(2, '0')}`);
  const csv = syntheticCsv(names, 31, 7);
  const up = await upload(s.base, s.key, csv);
  t.equal(up.status, 200);
  const id = (up.body as { dataset_id: string }).dataset_id;
  const grid = csv
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(',').slice(1).map(Number));
  const r = grid.slice(1).map((row, d) => row.map((p, i) => Math.log(p / grid[d]![i]!)));
  const mean = names.map((_, i) => r.reduce((a, x) => a + x[i]!, 0) / r.length);
  const cov = (i: number, j: number) => r.reduce((a, x) => a + (x[i]! - mean[i]!) * (x[j]! - mean[j]!), 0) / (r.length - 1);
  const positions = names.map((symbol) => ({ symbol, market_value: 10_000 }));
  const stress = (shocks: Record<string, number>) =>
    call(s.base, 'POST', '/api/v1/risk/stress', {
      key: s.key,
      json: { dataset_id: id, currency: 'USD', positions, scenarios: [{ type: 'conditional', shocks, horizon: 5 }] },
    });

  // Two shocks: Σ_ss is regular; means and sds against a 2×2 solve on the CSV's own covariance.
  const two = await stress({ Z00: -0.1, Z01: 0.04 });
  t.equal(two.status, 200, two.text);
  const items = (two.body as { meta: { results: { items: { symbol: string; return: number; conditional_sd: number }[] }[] } }).meta.results[0]!.items;
  const [a, b, c] = [cov(0, 0), cov(0, 1), cov(1, 1)];
  const det = a * c - b * b;
  const solve = (y0: number, y1: number) => [(c * y0 - b * y1) / det, (a * y1 - b * y0) / det] as const;
  const x = [Math.log1p(-0.1) - 5 * mean[0]!, Math.log1p(0.04) - 5 * mean[1]!] as const;
  const alpha = solve(x[0], x[1]);
  for (const o of [2, 35, 69]) {
    const cross = [cov(o, 0), cov(o, 1)] as const;
    const w = solve(cross[0], cross[1]);
    const condMean = 5 * mean[o]! + cross[0] * alpha[0] + cross[1] * alpha[1];
    const sd = Math.sqrt(5 * (cov(o, o) - cross[0] * w[0] - cross[1] * w[1]));
    t.ok(Math.abs(Math.log1p(items[o]!.return) - condMean) < 1e-10, `${names[o]}: conditional mean`);
    t.ok(Math.abs(items[o]!.conditional_sd / sd - 1) < 1e-8, `${names[o]}: conditional sd ${items[o]!.conditional_sd} vs ${sd}`);
  }

  // Forty shocks, more than the 30 returns: Σ_ss is singular, repaired by the smallest jitter.
  const many = await stress(Object.fromEntries(names.slice(0, 40).map((n, i) => [n, (i % 5) / 100 - 0.02])));
  t.equal(many.status, 200, many.text);
  const all = (many.body as { meta: { results: { pnl: number; items: { return: number; conditional_sd: number }[] }[] } }).meta.results[0]!;
  t.ok(Number.isFinite(all.pnl) && all.items.every((i) => Number.isFinite(i.return) && Number.isFinite(i.conditional_sd)), 'every figure finite');
});
