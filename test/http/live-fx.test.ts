// Live risk of a multi-currency book (API contract §14, §17) through the real uWS server: a price
// tick names a symbol's price in its own currency, or the rate of an FX column the book's
// conversions use (direct, inverse, cross); a quantity position's exposure is quantity × local
// price × rate, computed here from the CSV's last row and the ticks; every `risk` message equals,
// bit for bit, POST /calculate of the request with those exposures as market_value.
import t, { type Test } from 'tap';
import { calculate } from '../helpers/http.js';
import { bitJson } from '../helpers/bit-json.js';
import { LiveClient, type LiveMessage } from '../helpers/live-client.js';
import { without } from '../helpers/without.js';
import { startTestService } from '../helpers/service.js';
import { calcOf, CURRENCIES, marketCsv, ok, uploadWith, type Body } from '../helpers/fx-market.js';

const figures = (meta: LiveMessage) => bitJson(without(meta, 'calculation_id', 'timing_ms'));

const csv = marketCsv();
const header = csv.trim().split('\n')[0]!.split(',');
const lastRow = csv.trim().split('\n').at(-1)!.split(',').map(Number);
/** The CSV's last prices by column: the state a subscription starts from. */
const lastPrices = () => Object.fromEntries(header.slice(1).map((name, i) => [name, lastRow[i + 1]!]));

t.test('live risk of a multi-currency book', async (t) => {
  const s = await startTestService({ LIVE_MESSAGES_PER_SEC: '100000' });
  t.teardown(() => s.stop());
  const up = await uploadWith(s.base, s.key, csv, CURRENCIES);
  t.equal(up.status, 200, ok(up));
  const ds = up.body.dataset_id as string;

  const same = async (t: Test, live: LiveMessage, request: Body, exposures: [string, number][], what: string) => {
    const positions = exposures.map(([symbol, market_value]) => ({ symbol, market_value }));
    const options = { ...(request.method_options as Body), ...(live.meta.seed !== null ? { seed: live.meta.seed } : {}) };
    const r = await calculate(s.base, s.key, { ...without(request, 'positions'), method_options: options, positions });
    t.equal(r.status, 200, ok(r));
    t.equal(figures(live.meta), figures(r.body.meta), `${what}: the figures of calculate, bit for bit`);
    const items = live.meta.exposures.items as { symbol: string; exposure: number }[];
    for (const [symbol, e] of exposures) t.equal(items.find((i) => i.symbol === symbol)!.exposure, e, `${what}: ${symbol} exposure ${e}`);
  };

  t.test('in USD: local price ticks, a direct and a cross rate', async (t) => {
    const c = await LiveClient.open(s.base, s.key);
    t.teardown(() => c.close());
    const request = calcOf(ds, {
      method: 'monte_carlo_normal',
      simulations: 4000,
      method_options: { seed: 5 },
      positions: [
        { symbol: 'SAP', quantity: 100 },
        { symbol: 'BARC', quantity: -2000 },
        { symbol: 'AAPL', quantity: 50 },
      ],
    });
    c.send({ type: 'subscribe', id: 'usd', request });
    const p = lastPrices();
    // SAP in EUR by EURUSD; BARC in GBP by the cross GBPEUR × EURUSD (§14), in the order of its legs.
    const book = (): [string, number][] => [
      ['SAP', 100 * (p.SAP! * p.EURUSD!)],
      ['BARC', -2000 * (p.BARC! * (p.GBPEUR! * p.EURUSD!))],
      ['AAPL', 50 * p.AAPL!],
    ];
    const first = await c.risk('usd');
    t.ok(first.meta.fx, 'the answer states its FX figures');
    await same(t, first, request, book(), 'seq 0');

    c.send({ type: 'prices', id: 'usd', prices: { SAP: 125.5 } });
    p.SAP = 125.5;
    await same(t, await c.risk('usd', 1), request, book(), 'SAP ticks in euros');

    c.send({ type: 'prices', id: 'usd', prices: { EURUSD: 1.2 } });
    p.EURUSD = 1.2;
    await same(t, await c.risk('usd', 2), request, book(), 'EURUSD ticks: SAP and BARC (through the cross) revalue');

    c.send({ type: 'prices', id: 'usd', prices: { GBPEUR: 1.1, BARC: 2.5, AAPL: 190 } });
    Object.assign(p, { GBPEUR: 1.1, BARC: 2.5, AAPL: 190 });
    await same(t, await c.risk('usd', 3), request, book(), 'the cross leg, BARC and AAPL together');

    c.send({ type: 'prices', id: 'usd', prices: { USDJPY: 140 } });
    const notUsed = await c.next((m) => m.type === 'error');
    t.equal(notUsed.detail.code, 'VALIDATION_ERROR', 'a rate no conversion of the book uses is refused');
    t.same(notUsed.detail.errors[0].loc, ['prices', 'USDJPY']);
    c.send({ type: 'trades', id: 'usd', trades: [{ symbol: 'EURUSD', quantity: 1 }] });
    const rateTrade = await c.next((m) => m.type === 'error');
    t.same(rateTrade.detail.errors[0].loc, ['trades', 0, 'symbol'], 'a rate the book does not hold is no position to trade');

    c.send({ type: 'trades', id: 'usd', trades: [{ symbol: 'SAP', quantity: -40 }] });
    const traded: [string, number][] = [['SAP', 60 * (p.SAP! * p.EURUSD!)], ...book().slice(1)];
    await same(t, await c.risk('usd', 4), request, traded, 'a trade in the foreign stock');
  });

  t.test('in EUR: a USD stock through the inverse of EURUSD', async (t) => {
    const c = await LiveClient.open(s.base, s.key);
    t.teardown(() => c.close());
    const request = calcOf(ds, {
      method: 'historical',
      currency: 'EUR',
      positions: [
        { symbol: 'AAPL', quantity: 10 },
        { symbol: 'SAP', quantity: 30 },
      ],
    });
    c.send({ type: 'subscribe', id: 'eur', request });
    const p = lastPrices();
    const book = (): [string, number][] => [
      ['AAPL', 10 * (p.AAPL! * (1 / p.EURUSD!))],
      ['SAP', 30 * p.SAP!],
    ];
    await same(t, await c.risk('eur'), request, book(), 'seq 0');
    c.send({ type: 'prices', id: 'eur', prices: { EURUSD: 1.25, SAP: 118 } });
    Object.assign(p, { EURUSD: 1.25, SAP: 118 });
    await same(t, await c.risk('eur', 1), request, book(), 'EURUSD and SAP tick');
  });
});
