// Live risk (API contract §17), refused input through the real uWS server: each malformed,
// invalid or out-of-book message answered with the contract's code and location, the subscription's
// state kept (a refused input is not counted in seq).
import t from 'tap';
import { calcBody, uploadFile } from '../helpers/http.js';
import { LiveClient } from '../helpers/live-client.js';
import { startTestService, WIDE_SAMPLE } from '../helpers/service.js';

t.test('errors carry the contract codes', async (t) => {
  const s = await startTestService({ LIVE_MESSAGES_PER_SEC: '100000' });
  t.teardown(() => s.stop());
  const ds = (await uploadFile(s.base, s.key, WIDE_SAMPLE)).body.dataset_id as string;
  const c = await LiveClient.open(s.base, s.key);
  t.teardown(() => c.close());
  const error = () => c.next((m) => m.type === 'error');
  c.send('{not json');
  t.equal((await error()).detail.code, 'MALFORMED_JSON');
  c.send({ type: 'subscribe', id: 'x', request: { ...calcBody(ds), confidence_level: 2 } });
  let e = await error();
  t.equal(e.detail.code, 'VALIDATION_ERROR');
  t.same(e.detail.errors[0].loc, ['request', 'confidence_level'], 'the calculate schema, located in the request');
  c.send({ type: 'subscribe', id: 'x', request: calcBody(ds, { method: 'parametric_normal' }) });
  t.equal((await error()).detail.code, 'VALIDATION_ERROR', 'parametric draws no scenarios');
  c.send({
    type: 'subscribe',
    id: 'x',
    request: calcBody(ds, {
      portfolio: undefined,
      positions: [{ symbol: 'MSFT', quantity: 10 }],
      sensitivities: [{ symbol: 'AAPL', delta: 1000, gamma: -50 }],
    }),
  });
  t.same((await error()).detail.errors?.[0]?.loc, ['request', 'sensitivities'], 'sensitivities: calculate only');
  const call = { option: { underlying: 'AAPL', type: 'call', strike: 150, expiry: '2099-01-02', volatility: 0.3 }, quantity: 2 };
  c.send({ type: 'subscribe', id: 'x', request: calcBody(ds, { portfolio: undefined, positions: [{ symbol: 'MSFT', quantity: 10 }, call] }) });
  t.same((await error()).detail.errors?.[0]?.loc, ['request', 'positions', 1, 'option'], 'options: calculate only');
  c.send({ type: 'subscribe', id: 'x', request: calcBody(ds, { portfolio: [{ symbol: 'NOPE', weight: 1 }] }) });
  t.equal((await error()).detail.code, 'UNKNOWN_SYMBOL');
  c.send({ type: 'subscribe', id: 'x', request: calcBody(ds, { portfolio: [{ symbol: 'AAPL', weight: 0.5 }] }) });
  e = await error();
  t.equal(e.detail.code, 'WEIGHTS_DO_NOT_SUM_TO_ONE', 'the checks of calculate itself');
  c.send({ type: 'subscribe', id: 'x', request: calcBody(ds, { simulations: undefined }) });
  e = await error();
  t.same(e.detail.errors?.[0]?.loc, ['request', 'simulations'], 'located in the request too');
  c.send({ type: 'subscribe', id: 'x', request: calcBody(ds, { simulations: 1000 }) });
  await c.risk('x');
  c.send({ type: 'prices', id: 'x', prices: { JPM: 10 } });
  e = await error();
  t.equal(e.id, 'x');
  t.same(e.detail.errors[0].loc, ['prices', 'JPM'], 'a symbol outside the scenario set');
  c.send({ type: 'prices', id: 'x', prices: { AAPL: -1 } });
  t.equal((await error()).detail.code, 'VALIDATION_ERROR', 'a price ≤ 0');
  c.send({
    type: 'trades',
    id: 'x',
    trades: [
      { symbol: 'AAPL', market_value: -400_000 },
      { symbol: 'MSFT', market_value: -300_000 },
      { symbol: 'KHC', market_value: -300_000 },
    ],
  });
  t.match((await error()).detail.errors[0].msg, /zero/, 'a book emptied is refused, the state kept');
  // A trade is exactly one of quantity and market_value, as in calculate's what-if (each was
  // taken: none as a trade of nothing, both as the two added).
  for (const [trade, type] of [
    [{ symbol: 'AAPL' }, 'missing'],
    [{ symbol: 'AAPL', quantity: 1, market_value: 1 }, 'value_error'],
  ] as const) {
    c.send({ type: 'trades', id: 'x', trades: [{ symbol: 'MSFT', quantity: 1 }, trade] });
    e = await error();
    t.same(
      e.detail.errors?.[0],
      { loc: ['trades', 1], msg: 'exactly one of quantity or market_value', type },
      `${JSON.stringify(trade)} refused, the whole message`,
    );
  }
  c.send({ type: 'prices', id: 'x', prices: { AAPL: 5 } });
  t.equal((await c.risk('x', 1)).seq, 1, 'refused inputs do not count');
  c.send({ type: 'hello', id: 'x' });
  t.equal((await error()).detail.code, 'VALIDATION_ERROR');
});
