// Stress scenarios whose moves or P&L do not fit a double are refused at the scenario (API contract
// §10, §14), never a 500: a −100 % shock on a rate an instrument is converted through inversely
// (its value divides by 0), a conditional move whose log return is beyond e^709 (a symbol with a
// large beta on a tiny-volatility shocked one), and P&L overflowing with prices near the largest
// double — stock and option books, each beside the same request that is priced.
import t from 'tap';
import { call, csvForm, type Reply } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';
import { iso, walk, wideCsv, gaussian } from '../helpers/price-series.js';
import { mulberry32 } from '../helpers/mulberry32.js';
import { CURRENCIES, marketCsv, uploadWith } from '../helpers/fx-market.js';

const STRESS = '/api/v1/risk/stress';

t.test('stress moves and P&L beyond a double', async (t) => {
  const s = await startTestService({ RATE_LIMIT_STRESS_PER_MIN: '1000', RATE_LIMIT_UPLOAD_PER_MIN: '1000' });
  t.teardown(() => s.stop());
  const post = (json: Record<string, unknown>) => call(s.base, 'POST', STRESS, { key: s.key, json });
  const upload = async (csv: string) => {
    const r = await call(s.base, 'POST', '/api/v1/risk/datasets/upload', { key: s.key, body: csvForm(csv) });
    t.equal(r.status, 200, r.text.slice(0, 300));
    return r.body.dataset_id as string;
  };
  const refused = (r: Reply, loc: (string | number)[], msg: RegExp, what: string) => {
    t.equal(r.status, 422, `${what}: ${r.text.slice(0, 300)}`);
    t.equal(r.body.detail?.code, 'VALIDATION_ERROR', `${what}: the contract's code`);
    t.same(r.body.detail?.errors?.[0]?.loc, loc, `${what}: at ${loc.join('.')}`);
    t.match(r.body.detail?.errors?.[0]?.msg ?? '', msg, `${what}: says why`);
  };

  t.test('a −100 % shock on a rate an instrument converts through inversely', async (t) => {
    const up = await uploadWith(s.base, s.key, marketCsv(), CURRENCIES);
    t.equal(up.status, 200, up.text.slice(0, 300));
    const fx = (currency: string, positions: unknown[], shocks: Record<string, number>) =>
      post({ dataset_id: up.body.dataset_id, currency, positions, scenarios: [{ type: 'shock', shocks }] });
    const inverse = /moves AAPL by a return that is not finite/;
    const at = ['body', 'scenarios', 0, 'shocks'];
    refused(await fx('EUR', [{ symbol: 'AAPL', quantity: 1 }], { EURUSD: -1 }), at, inverse, 'a USD stock in a EUR book');
    refused(await fx('EUR', [{ cash: 'USD', amount: 100 }], { EURUSD: -1 }), at, /return that is not finite/, 'USD cash in a EUR book');
    const call180 = { option: { underlying: 'AAPL', type: 'call', strike: 180, expiry: iso(330), volatility: 0.3 }, quantity: 1 };
    refused(await fx('EUR', [call180], { EURUSD: -1 }), at, inverse, 'an option on a USD underlying in a EUR book');
    // Through the pair as quoted, −100 % is a total loss and priced.
    const direct = await fx('USD', [{ symbol: 'SAP', quantity: 1 }], { EURUSD: -1 });
    t.equal(direct.status, 200, direct.text.slice(0, 300));
    const sap = direct.body.meta.results[0].items[0];
    t.equal(sap.return, -1, 'a EUR stock in a USD book loses all of its value');
    t.equal(sap.pnl, -direct.body.meta.exposures.gross, 'its P&L is its whole exposure');
    // Just above −100 %, the inverse conversion is large and finite: priced.
    const near = await fx('EUR', [{ symbol: 'AAPL', quantity: 1 }], { EURUSD: -0.999999 });
    t.equal(near.status, 200, near.text.slice(0, 300));
    t.ok(Number.isFinite(near.body.meta.results[0].pnl) && near.body.meta.results[0].pnl > 0, 'a USD stock gains in EUR as the euro collapses');
  });

  t.test('a conditional move whose log return is beyond a double', async (t) => {
    // B loads on A with β ≈ 800: A's daily volatility 1e-5, B's 1 %, correlation 0.8.
    const rand = mulberry32(3);
    const [a, b] = [[100], [100]];
    for (let i = 1; i < 200; i++) {
      const [z, e] = [gaussian(rand), gaussian(rand)];
      a.push(a[i - 1]! * Math.exp(1e-5 * z));
      b.push(b[i - 1]! * Math.exp(0.01 * (0.8 * z + 0.6 * e)));
    }
    const id = await upload(wideCsv({ A: a, B: b }));
    const conditional = (positions: unknown[], shock: number, portfolio_value?: number) =>
      post({
        dataset_id: id,
        currency: 'USD',
        positions,
        ...(portfolio_value ? { portfolio_value } : {}),
        scenarios: [{ type: 'conditional', shocks: { A: shock }, horizon: 1 }],
      });
    const stock = [{ symbol: 'B', market_value: 1e6 }];
    const option = [{ option: { underlying: 'B', type: 'call', strike: 100, expiry: iso(230), volatility: 0.3 }, quantity: 1 }];
    const at = ['body', 'scenarios', 0, 'shocks'];
    refused(await conditional(stock, 10), at, /moves B by a return that is not finite/, 'a stock');
    refused(await conditional(option, 10, 1e6), at, /moves B by a return that is not finite/, 'an option, before it is repriced');
    const mild = await conditional(stock, 0.5);
    t.equal(mild.status, 200, mild.text.slice(0, 300));
    t.ok(Number.isFinite(mild.body.meta.results[0].pnl), 'a milder shock is priced');
  });

  t.test('P&L beyond a double with prices near the largest one', async (t) => {
    const id = await upload(wideCsv({ AAPL: walk(60, 31).map((p) => p * 1.5e298), MSFT: walk(60, 7) }));
    const stress = (positions: unknown[], scenarios: unknown[], portfolio_value?: number) =>
      post({ dataset_id: id, currency: 'USD', positions, ...(portfolio_value ? { portfolio_value } : {}), scenarios });
    const huge = /P&L on this book overflows double precision/;
    refused(
      await stress([{ symbol: 'AAPL', quantity: 1e8 }], [{ type: 'shock', shocks: { AAPL: 10 } }]),
      ['body', 'scenarios', 0, 'shocks'],
      huge,
      'a stock shocked +1,000 %',
    );
    const finite = await stress([{ symbol: 'AAPL', quantity: 1e8 }], [{ type: 'shock', shocks: { AAPL: 0.1 } }]);
    t.equal(finite.status, 200, `the same book shocked +10 %: ${finite.text.slice(0, 300)}`);
    const option = (quantity: number) => [
      { option: { underlying: 'AAPL', type: 'call', strike: 100, expiry: iso(150), volatility: 0.3 }, quantity, multiplier: 1 },
    ];
    refused(await stress(option(1e9), [{ type: 'shock', shocks: { AAPL: 0.5 } }], 1e6), ['body', 'scenarios', 0, 'shocks'], huge, 'an option, shocked');
    refused(await stress(option(1e12), [{ type: 'historical_worst', horizon: 5 }], 1e6), ['body', 'scenarios', 0], huge, 'an option, its worst window');
    refused(
      await stress(option(1e9), [{ type: 'shock', shocks: { AAPL: 0.5 } }]),
      ['body', 'positions'],
      /gross exposure .* overflows double precision/,
      'its defaulted capital',
    );
    const small = await stress(option(1e6), [{ type: 'shock', shocks: { AAPL: 0.5 } }], 1e6);
    t.equal(small.status, 200, `fewer of the same option: ${small.text.slice(0, 300)}`);
  });
});
