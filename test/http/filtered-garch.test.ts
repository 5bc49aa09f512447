// historical_filtered with the GARCH(1,1) filter over HTTP (api.md §16): the reported ω, α, β drive
// a recursion recomputed here from the CSV, whose filtered rows give the reported VaR and ES to
// 1e-9; a series whose fit cannot be used falls back to EWMA and says so; a backtest with it; the
// refusal of λ with GARCH. The fit itself is checked against `arch` in engine/core/tests/garch_oracle.rs.
import t, { type Test } from 'tap';
import { calculate, call, refusals, upload, uploadFile } from '../helpers/http.js';
import { startTestService, WIDE_SAMPLE } from '../helpers/service.js';
import { completeRows, walk, wideCsv } from '../helpers/price-series.js';

const SYMBOLS = ['AAPL', 'MSFT', 'JPM'];
const QUANTITIES = [4000, -2000, 3000];

const near = (t: Test, got: number, want: number, msg: string, tol = 1e-9) =>
  t.ok(Math.abs(got - want) <= tol * Math.max(1, Math.abs(want)), `${msg}: ${got} vs ${want}`);

t.test('GARCH-filtered history', async (t) => {
  const s = await startTestService({ RATE_LIMIT_BACKTEST_PER_MIN: '1000' });
  t.teardown(() => s.stop());
  const id = (await uploadFile(s.base, s.key, WIDE_SAMPLE)).body.dataset_id as string;
  const body = (over: Record<string, unknown> = {}) => ({
    dataset_id: id,
    method: 'historical_filtered',
    method_options: { filter: { model: 'garch11' } },
    currency: 'USD',
    positions: SYMBOLS.map((symbol, i) => ({ symbol, quantity: QUANTITIES[i] })),
    confidence_level: 0.99,
    time_horizon: 1,
    ...over,
  });

  t.test('figures recomputed from the CSV with the reported parameters', async (t) => {
    const r = await calculate(s.base, s.key, body());
    t.equal(r.status, 200, r.text.slice(0, 300));
    const meta = r.body.meta;
    const { prices } = completeRows(WIDE_SAMPLE, SYMBOLS);
    const returns = prices.slice(1).map((row, d) => row.map((p, i) => Math.log(p / prices[d]![i]!)));
    const m = returns.length;
    const filtered = returns.map((row) => [...row]);
    SYMBOLS.forEach((sym, i) => {
      const f = meta.filter[sym];
      t.equal(f.parameters.model, 'garch11', `${sym} fitted`);
      const { omega, alpha, beta } = f.parameters;
      t.ok(omega > 0 && alpha >= 0 && beta >= 0 && alpha + beta < 1, `${sym}: α + β = ${alpha + beta}`);
      const v = [returns.slice(0, 30).reduce((a, row) => a + row[i]! ** 2, 0) / 30];
      for (let d = 0; d < m; d++) v.push(omega + alpha * returns[d]![i]! ** 2 + beta * v[d]!);
      near(t, f.current_volatility, Math.sqrt(v[m]!), `${sym} σ_{m+1}`, 1e-12);
      near(t, f.long_run_volatility, Math.sqrt(omega / (1 - alpha - beta)), `${sym} long run`, 1e-12);
      for (let d = 0; d < m; d++) filtered[d]![i] = (Math.sqrt(v[m]!) * returns[d]![i]!) / Math.sqrt(v[d]!);
    });
    const last = prices[prices.length - 1]!;
    const pnl = filtered.map((row) => row.reduce((a, x, i) => a + QUANTITIES[i]! * last[i]! * (Math.exp(x) - 1), 0)).sort((a, b) => a - b);
    const k = Math.ceil(0.01 * pnl.length - 1e-9);
    near(t, meta.metrics.value_at_risk, -pnl[k - 1]!, 'VaR');
    near(t, meta.metrics.expected_shortfall, -pnl.slice(0, k).reduce((a, b) => a + b, 0) / k, 'ES');
    t.equal(meta.warnings, undefined, 'every fit usable: no warning');
  });

  t.test('a fit that cannot be used falls back to EWMA and says so', async (t) => {
    // FLAT never moves: its returns are all zero, which no GARCH fits.
    const up = await upload(s.base, s.key, wideCsv({ MOVES: walk(300, 4), FLAT: Array<number>(300).fill(50) }));
    const r = await calculate(
      s.base,
      s.key,
      body({
        dataset_id: up.body.dataset_id,
        positions: [
          { symbol: 'MOVES', market_value: 1e6 },
          { symbol: 'FLAT', market_value: 5e5 },
        ],
      }),
    );
    t.equal(r.status, 200, r.text.slice(0, 300));
    t.same(r.body.meta.filter.FLAT.parameters, { model: 'ewma', lambda: 0.94 });
    t.equal(r.body.meta.filter.FLAT.current_volatility, 0);
    t.equal(r.body.meta.filter.MOVES.parameters.model, 'garch11');
    t.match(r.body.meta.warnings[0], /FLAT: EWMA/);
  });

  t.test('a backtest with the GARCH filter', async (t) => {
    const r = await call(s.base, 'POST', '/api/v1/risk/backtest', { key: s.key, json: body({ backtest: { window: 100, estimation_window: 300 } }) });
    t.equal(r.status, 200, r.text.slice(0, 300));
    t.equal(r.body.meta.backtest.observations, 100);
    t.ok(r.body.meta.backtest.series.every((f: { var: number }) => Number.isFinite(f.var) && f.var > 0));
  });

  t.test('refusals', async (t) => {
    const refused = refusals(t, (json) => calculate(s.base, s.key, json));
    await refused(body({ method_options: { filter: { model: 'garch11', lambda: 0.9 } } }), 422, 'VALIDATION_ERROR', [
      'body',
      'method_options',
      'filter',
      'lambda',
    ]);
    await refused(body({ method_options: { filter: { model: 'garch' } } }), 422, 'VALIDATION_ERROR');
  });
});
