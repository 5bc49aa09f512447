// Bring your own Greeks (API contract §15 `sensitivities`) through the real server: δ alone is a
// stock position of market value δ to the bit in every method; with γ the historical VaR is
// recomputed here from the CSV (P&L = Σ δ·x + ½γ·x² per date, order statistic) to 1e-9 and Monte
// Carlo brackets the exact VaR of a monotone loss within its standard error; each refusal.
import t from 'tap';
import { calculate } from '../helpers/http.js';
import { serviceWithPrices } from '../helpers/dataset-service.js';
import { iso, walk } from '../helpers/price-series.js';

/** z at 0.99, docs/oracles.md. */
const Z99 = 2.326347874040841;
const DAYS = 500;
const aapl = walk(DAYS, 31).map((p) => Number(p.toPrecision(12)));
const msft = walk(DAYS, 7).map((p) => Number(p.toPrecision(12)));
/** x = e^R − 1 of each date's log return, as the CSV gives it. */
const moves = (p: number[]) => p.slice(1).map((v, i) => Math.expm1(Math.log(v / p[i]!)));
const logs = aapl.slice(1).map((p, i) => Math.log(p / aapl[i]!));
const MU = logs.reduce((a, x) => a + x, 0) / logs.length;
const SIGMA = Math.sqrt(logs.reduce((a, x) => a + (x - MU) ** 2, 0) / (logs.length - 1));

/** Historical VaR at 0.99 over one day: −x_(k) of the sorted P&L, k = ⌈0.01·n⌉. */
function historicalVar(pnl: number[]): number {
  const sorted = [...pnl].sort((a, b) => a - b);
  return -sorted[Math.ceil(0.01 * sorted.length - 1e-9) - 1]!;
}

t.test('sensitivities', async (t) => {
  const { s, body } = await serviceWithPrices(t, { AAPL: aapl, MSFT: msft }, 20_000);

  t.test('delta alone is a stock position of market value delta, to the bit', async (t) => {
    for (const method of ['monte_carlo_normal', 'monte_carlo_student_t', 'historical', 'parametric_normal']) {
      const a = await calculate(s.base, s.key, body({ method, sensitivities: [{ symbol: 'AAPL', delta: -321_000.5 }] }));
      t.equal(a.status, 200, a.text.slice(0, 300));
      const b = await calculate(s.base, s.key, body({ method, positions: [{ symbol: 'AAPL', market_value: -321_000.5 }] }));
      t.same(a.body.meta.metrics, b.body.meta.metrics, `${method}: the same metrics`);
      t.equal(a.body.meta.contributions[0].component_var, b.body.meta.contributions[0].component_var);
      t.same([a.body.meta.contributions[0].sensitivity, a.body.meta.contributions[0].delta], [0, -321_000.5]);
      t.equal(a.body.meta.valuation.sensitivities, 1);
      t.equal(a.body.meta.valuation.nonlinearity_var, 0);
    }
    // valuation "delta" drops the gamma: the same linear book.
    const d = await calculate(
      s.base,
      s.key,
      body({ sensitivities: [{ symbol: 'AAPL', delta: 5e5, gamma: -3e6 }], method_options: { seed: 5, valuation: 'delta' } }),
    );
    const l = await calculate(s.base, s.key, body({ positions: [{ symbol: 'AAPL', market_value: 5e5 }] }));
    t.equal(d.status, 200, d.text.slice(0, 300));
    t.same(d.body.meta.metrics, l.body.meta.metrics, 'delta valuation: the linear book');
  });

  t.test('historical with gamma: VaR recomputed from the CSV', async (t) => {
    const sens = [
      { symbol: 'AAPL', delta: 250_000, gamma: -8_000_000 },
      { symbol: 'MSFT', delta: -60_000, gamma: 3_000_000 },
    ];
    const stock = { symbol: 'MSFT', market_value: 100_000 };
    const r = await calculate(s.base, s.key, body({ method: 'historical', positions: [stock], sensitivities: sens }));
    t.equal(r.status, 200, r.text.slice(0, 300));
    const xa = moves(aapl);
    const xm = moves(msft);
    const pnl = (gammas: boolean) =>
      xa.map((a, i) => {
        const m = xm[i]!;
        const g = gammas ? 1 : 0;
        return 100_000 * m + (250_000 * a + 0.5 * -8_000_000 * g * a * a) + (-60_000 * m + 0.5 * 3_000_000 * g * m * m);
      });
    const full = historicalVar(pnl(true));
    const linear = historicalVar(pnl(false));
    const m = r.body.meta.metrics;
    t.ok(Math.abs(m.value_at_risk - full) <= 1e-9 * full, `VaR ${m.value_at_risk} vs ${full}`);
    t.ok(Math.abs(m.value_at_risk - linear - r.body.meta.valuation.nonlinearity_var) <= 1e-9 * full, 'nonlinearity: full minus delta');
    t.ok(full - linear > 100, 'the gammas matter here');
    const rows = r.body.meta.contributions;
    t.same(
      rows.map((c: { symbol: string }) => c.symbol),
      ['MSFT', 'AAPL sensitivity', 'MSFT sensitivity'],
    );
    t.same(
      rows.slice(1).map((c: { sensitivity: number; delta: number; gamma: number }) => [c.sensitivity, c.delta, c.gamma]),
      [
        [0, 250_000, -8_000_000],
        [1, -60_000, 3_000_000],
      ],
    );
    const sum = (k: 'component_var' | 'component_es') => rows.reduce((a: number, c: Record<string, number>) => a + c[k]!, 0);
    t.ok(Math.abs(sum('component_var') - m.value_at_risk) <= 1e-9 * m.value_at_risk, 'components add up to VaR');
    t.ok(Math.abs(sum('component_es') - m.expected_shortfall) <= 1e-9 * m.expected_shortfall, 'components add up to ES');
  });

  t.test('Monte Carlo brackets the exact VaR of a monotone loss', async (t) => {
    // δ + γx > 0 for every x < 6.25: the P&L rises with R, its 1 % quantile is at R's.
    const delta = 250_000;
    const gamma = -40_000;
    const x = Math.expm1(MU - Z99 * SIGMA);
    const exact = -(delta * x + 0.5 * gamma * x * x);
    for (const method of ['monte_carlo_normal']) {
      const r = await calculate(s.base, s.key, body({ method, simulations: 200_000, sensitivities: [{ symbol: 'AAPL', delta, gamma }] }));
      t.equal(r.status, 200, r.text.slice(0, 300));
      const m = r.body.meta.metrics;
      t.ok(Math.abs(m.value_at_risk - exact) <= 4 * m.value_at_risk_standard_error, `VaR ${m.value_at_risk} vs ${exact} ± ${m.value_at_risk_standard_error}`);
    }
    const st = await calculate(s.base, s.key, body({ method: 'monte_carlo_student_t', sensitivities: [{ symbol: 'AAPL', delta, gamma: -4e6 }] }));
    t.equal(st.status, 200, st.text.slice(0, 300));
    t.ok(st.body.meta.valuation.nonlinearity_var > 0, 'short gamma loses more than its delta says');
  });

  t.test('refusals at their fields', async (t) => {
    const refused = async (over: Record<string, unknown>, loc: (string | number)[] | null, code = 'VALIDATION_ERROR') => {
      const r = await calculate(s.base, s.key, body(over));
      t.equal(r.status, 422, `${JSON.stringify(loc)}: ${r.text.slice(0, 200)}`);
      t.equal(r.body?.detail?.code, code);
      if (loc) t.same(r.body?.detail?.errors?.[0]?.loc, loc);
    };
    const one = (o: Record<string, unknown>) => ({ sensitivities: [{ symbol: 'AAPL', delta: 1000, gamma: 10, ...o }] });
    await refused(
      {
        sensitivities: [
          { symbol: 'AAPL', delta: 1 },
          { symbol: 'NOPE', delta: 1 },
        ],
      },
      ['body', 'sensitivities', 1, 'symbol'],
      'UNKNOWN_SYMBOL',
    );
    await refused({ positions: [{ symbol: 'MSFT', quantity: 1 }], ...one({ symbol: 'NOPE' }) }, ['body', 'sensitivities', 0, 'symbol'], 'UNKNOWN_SYMBOL');
    await refused(one({ delta: 2e15 }), ['body', 'sensitivities', 0, 'delta']);
    await refused(one({ gamma: -2e15 }), ['body', 'sensitivities', 0, 'gamma']);
    await refused(one({ delta: '1' }), ['body', 'sensitivities', 0, 'delta']);
    await refused(one({ vega: 3 }), null);
    await refused({ sensitivities: [{ symbol: 'AAPL', gamma: 1 }] }, null);
    await refused({ sensitivities: [] }, ['body', 'sensitivities']);
    await refused({ sensitivities: Array.from({ length: 501 }, () => ({ symbol: 'AAPL', delta: 1 })) }, ['body', 'sensitivities']);
    // Options and sensitivities share the engine's columns: 2 × (300 + 201) > 1,000 (a 500 before).
    const opts = Array.from({ length: 300 }, () => ({
      option: { underlying: 'AAPL', type: 'call', strike: 100, expiry: iso(DAYS + 30), volatility: 0.2 },
      quantity: 1,
    }));
    const fill = Array.from({ length: 201 }, () => ({ symbol: 'AAPL', delta: 1, gamma: 1 }));
    await refused({ simulations: 100, positions: opts, sensitivities: fill }, ['body', 'sensitivities']);
    await refused(
      {
        method: 'parametric_normal',
        sensitivities: [
          { symbol: 'AAPL', delta: 1 },
          { symbol: 'MSFT', delta: 1, gamma: 2 },
        ],
      },
      ['body', 'sensitivities', 1, 'gamma'],
    );
    await refused({ portfolio: [{ symbol: 'AAPL', weight: 1 }], ...one({}) }, ['body', 'sensitivities']);
    await refused({ portfolio_mode: 'rebalanced', ...one({}) }, ['body', 'portfolio_mode']);
    await refused({ method: 'cornish_fisher', ...one({}) }, ['body', 'method']);
    await refused({ simulations: 1_000_000, sensitivities: Array.from({ length: 60 }, () => ({ symbol: 'AAPL', delta: 1 })) }, ['body', 'simulations']);
    // simulations bounds the option columns only where the method draws that many scenarios:
    // historical over one day ignores it (its windows are bounded by the engine), so no refusal.
    const ignored = await calculate(
      s.base,
      s.key,
      body({ method: 'historical', simulations: 1_000_000, sensitivities: Array.from({ length: 60 }, () => ({ symbol: 'AAPL', delta: 1 })) }),
    );
    t.equal(ignored.status, 200, `historical ignores simulations: ${ignored.text.slice(0, 200)}`);
    // A capital of one subnormal money delta: the weights overflow (was a 500), as a stock book's do.
    await refused({ portfolio_value: undefined, sensitivities: [{ symbol: 'AAPL', delta: 1e-310, gamma: 1 }] }, ['body', 'positions']);
    await refused({ portfolio_value: undefined, sensitivities: [{ symbol: 'AAPL', delta: -5e-324, gamma: 0.5 }] }, ['body', 'positions']);
  });
});
