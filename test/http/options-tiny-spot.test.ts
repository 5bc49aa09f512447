// An option whose Greeks leave double precision: on an underlying trading near 1e-303 (a CSV price
// may be any positive double) with a day to expiry at the least volatility, Γ = φ(d₁)/(S·σ√τ) is
// past 1e308. The engine answered it as ∞ and the service a 500; now the engine says it overflows
// and the service answers 422 (type overflow), as it does for P&L that overflows. Found by fuzzing
// OP_OPTION_GREEKS (engine/core/fuzz).
import t from 'tap';
import { call, csvForm } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';
import { iso, walk, wideCsv } from '../helpers/price-series.js';
import { allFinite } from '../../src/risk/failures.js';

const DAYS = 400;
const tiny = walk(DAYS, 31).map((p) => Number((p * 1e-305).toPrecision(12)));
const msft = walk(DAYS, 7).map((p) => Number(p.toPrecision(12)));

t.test('an option whose gamma overflows a double is refused, not answered as a 500', async (t) => {
  const s = await startTestService({});
  t.teardown(() => s.stop());
  const up = await call(s.base, 'POST', '/api/v1/risk/datasets/upload', { key: s.key, body: csvForm(wideCsv({ TINY: tiny, MSFT: msft })) });
  t.equal(up.status, 200, up.text.slice(0, 300));
  const option = (underlying: string, spot: number) => ({ underlying, type: 'call', strike: spot, expiry: iso(DAYS), volatility: 1e-6, rate: 0 });
  const calc = (underlying: string, spot: number, extra: Record<string, unknown> = {}) =>
    call(s.base, 'POST', '/api/v1/risk/calculate', {
      key: s.key,
      json: {
        dataset_id: up.body.dataset_id,
        currency: 'USD',
        method: 'historical',
        confidence_level: 0.99,
        time_horizon: 1,
        positions: [
          { option: option(underlying, spot), quantity: 1, multiplier: 1 },
          { symbol: 'MSFT', quantity: 10 },
        ],
        ...extra,
      },
    });
  for (const extra of [{}, { portfolio_value: 1e6 }]) {
    const r = await calc('TINY', tiny[DAYS - 1]!, extra);
    t.equal(r.status, 422, `${JSON.stringify(extra)}: ${r.text.slice(0, 300)}`);
    const e = (r.body as { detail?: { errors?: { loc: unknown[]; type: string; msg: string }[] } }).detail?.errors?.[0];
    t.same(e?.loc, ['body']);
    t.equal(e?.type, 'overflow');
    t.match(e?.msg ?? '', /value or Greeks overflow double precision/);
  }
  // The same option on the ordinary underlying prices, every number finite.
  const fine = await calc('MSFT', msft[DAYS - 1]!);
  t.equal(fine.status, 200, fine.text.slice(0, 300));
  t.ok(allFinite(fine.body), 'every number finite');
});
