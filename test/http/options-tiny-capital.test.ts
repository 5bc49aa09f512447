// An option book's defaulted capital (stock gross plus the options' absolute money deltas, API contract
// §15) is held to the least capital a stated one may be (1e-6). A call far out of the money at a
// volatility of 1 % has a money delta near 1e-306 but a price of tens under a +1,000 % shock with
// vol_shift 1, so its stress pnl_pct (pnl / C) overflowed a double: a 500. Now every route that
// defaults C refuses it at `positions`; the same book with the least portfolio_value prices finitely.
import t from 'tap';
import { call, csvForm } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';
import { iso, walk, wideCsv } from '../helpers/price-series.js';
import { blackScholesDelta } from '../helpers/black-scholes.js';
import { allFinite } from '../../src/risk/failures.js';

const DAYS = 400;
const aapl = walk(DAYS, 31).map((p) => Number(p.toPrecision(12)));
const msft = walk(DAYS, 7).map((p) => Number(p.toPrecision(12)));
const S0 = aapl[DAYS - 1]!;
const EXPIRY = iso(DAYS - 1 + 91);
const TAU = 91 / 365;
/** Strike 1.206·S at σ 0.01 over 91 days: d₁ ≈ −37.7, a money delta of about 2e-306. */
const FAR = { underlying: 'AAPL', type: 'call', strike: S0 * 1.206, expiry: EXPIRY, volatility: 0.01, rate: 0 };
const LEAST = 1e-6;

t.test('an option book whose defaulted capital is below the least capital', async (t) => {
  const s = await startTestService({ RATE_LIMIT_STRESS_PER_MIN: '1000', RATE_LIMIT_BACKTEST_PER_MIN: '1000', RATE_LIMIT_UPLOAD_PER_MIN: '1000' });
  t.teardown(() => s.stop());
  const up = await call(s.base, 'POST', '/api/v1/risk/datasets/upload', { key: s.key, body: csvForm(wideCsv({ AAPL: aapl, MSFT: msft })) });
  t.equal(up.status, 200, up.text.slice(0, 300));
  const delta = blackScholesDelta('call', S0, FAR.strike, 0, FAR.volatility, TAU);
  t.ok(delta > 0 && delta * S0 < 1e-300, `the oracle's money delta ${delta * S0} is positive and tiny`);

  const positions = [{ option: FAR, quantity: 1, multiplier: 1 }];
  const base = { dataset_id: up.body.dataset_id, currency: 'USD' };
  const stress = (over: Record<string, unknown>) =>
    call(s.base, 'POST', '/api/v1/risk/stress', {
      key: s.key,
      json: { ...base, positions, scenarios: [{ type: 'shock', shocks: { AAPL: 10 }, vol_shift: 1 }], ...over },
    });
  const calc = (over: Record<string, unknown>) =>
    call(s.base, 'POST', '/api/v1/risk/calculate', {
      key: s.key,
      json: { ...base, method: 'historical', confidence_level: 0.99, time_horizon: 1, positions, ...over },
    });
  const backtest = (over: Record<string, unknown>) =>
    call(s.base, 'POST', '/api/v1/risk/backtest', {
      key: s.key,
      json: {
        ...base,
        method: 'historical',
        confidence_level: 0.99,
        time_horizon: 1,
        positions,
        backtest: { window: 50, estimation_window: 250, es: false },
        ...over,
      },
    });
  const refusedAtPositions = (r: { status: number; text: string; body: { detail?: { errors?: { loc: unknown[]; msg: string }[] } } }, what: string) => {
    t.equal(r.status, 422, `${what}: ${r.text.slice(0, 300)}`);
    const e = r.body.detail?.errors?.[0];
    t.same(e?.loc, ['body', 'positions'], `${what}: refused at positions`);
    t.match(e?.msg ?? '', /below the least capital 1e-6: give portfolio_value/, `${what}: the message says what to do`);
  };

  refusedAtPositions(await stress({}), 'stress');
  refusedAtPositions(await calc({}), 'calculate');
  refusedAtPositions(await backtest({}), 'backtest');

  // The same book with the least capital stated: every figure finite.
  const stressed = await stress({ portfolio_value: LEAST });
  t.equal(stressed.status, 200, stressed.text.slice(0, 300));
  const result = stressed.body.meta.results[0];
  t.ok(result.pnl > 10, `the shocked call gains its price: ${result.pnl}`);
  t.equal(result.pnl_pct, result.pnl / LEAST, 'pnl_pct divides by the stated capital');
  t.ok(allFinite(stressed.body), 'every number of the stress answer is finite');
  for (const [what, r] of [
    ['calculate', await calc({ portfolio_value: LEAST })],
    ['backtest', await backtest({ portfolio_value: LEAST })],
  ] as const) {
    t.equal(r.status, 200, `${what}: ${r.text.slice(0, 300)}`);
    t.ok(allFinite(r.body), `every number of the ${what} answer is finite`);
  }

  // Sensitivities' money deltas make the capital too: exactly the least is priced, just below is refused.
  const sensitivities = (d: number) => ({ positions: undefined, sensitivities: [{ symbol: 'AAPL', delta: d, gamma: 1 }] });
  const least = await calc(sensitivities(LEAST));
  t.equal(least.status, 200, least.text.slice(0, 300));
  t.equal(least.body.meta.portfolio_value, LEAST, 'C is the money delta, the least capital');
  t.ok(allFinite(least.body), 'finite at the least capital');
  refusedAtPositions(await calc(sensitivities(LEAST * (1 - Number.EPSILON))), 'a money delta just below the least capital');
  refusedAtPositions(await calc(sensitivities(-5e-324)), 'the least subnormal money delta');
});
