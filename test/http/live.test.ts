// Live risk over a WebSocket (API contract §17), through the real uWS server: after every kind of
// input (prices, trades adding a symbol of the scenario set, trades closing a position) the `risk`
// message's figures equal, bit for bit, POST /calculate of the same request with the seed fixed and
// the book's current exposures (computed here independently: quantity × the new price) as
// market_value; for weights, long/short and historical books.
import diagnostics_channel from 'node:diagnostics_channel';
import t, { type Test } from 'tap';
import { HTTP_ANSWERED, LIVE_RISK_SENT, type HttpAnswered, type LiveRiskSent } from '../../src/http/diagnostics.js';
import { calcBody, calculate, call, uploadFile } from '../helpers/http.js';
import { bitJson } from '../helpers/bit-json.js';
import { LiveClient, type LiveMessage } from '../helpers/live-client.js';
import { without } from '../helpers/without.js';
import { startTestService, WIDE_SAMPLE } from '../helpers/service.js';

type Body = Record<string, unknown>;

/** A meta without what differs between two calculations of the same figures. */
const figures = (meta: LiveMessage) => {
  return bitJson(without(meta, 'calculation_id', 'timing_ms'));
};

/** The calculate body the contract equates with the live book: seed fixed, exposures as market_value. */
const equivalent = (request: Body, seed: number | null, exposures: [string, number][]): Body => {
  const rest = without(request, 'portfolio', 'positions');
  const options = { ...(request.method_options as Body), ...(seed !== null ? { seed } : {}) };
  return { ...rest, method_options: options, positions: exposures.map(([symbol, market_value]) => ({ symbol, market_value })) };
};

t.test('live risk', async (t) => {
  const s = await startTestService({ LIVE_MESSAGES_PER_SEC: '100000' });
  t.teardown(() => s.stop());
  const ds = (await uploadFile(s.base, s.key, WIDE_SAMPLE)).body.dataset_id as string;

  const same = async (t: Test, live: LiveMessage, request: Body, exposures: [string, number][], what: string) => {
    const r = await calculate(s.base, s.key, equivalent(request, live.meta.seed, exposures));
    t.equal(r.status, 200, r.text.slice(0, 300));
    t.equal(figures(live.meta), figures(r.body.meta), `${what}: the figures of calculate, bit for bit`);
  };

  t.test('long/short positions: prices, a trade in the scenario set, a position closed', async (t) => {
    const c = await LiveClient.open(s.base, s.key);
    t.teardown(() => c.close());
    const request = calcBody(ds, {
      method_options: { seed: 11 },
      portfolio: undefined,
      positions: [
        { symbol: 'AAPL', quantity: 3000 },
        { symbol: 'XOM', quantity: -5000 },
        { symbol: 'JNJ', market_value: 400_000 },
        { symbol: 'MSFT', quantity: 0 },
      ],
      simulations: 5000,
    });
    c.send({ type: 'subscribe', id: 'desk-1', request });
    const first = await c.risk('desk-1');
    t.equal(first.seq, 0);
    const price = Object.fromEntries((first.meta.exposures.items as { symbol: string; price: number }[]).map((i) => [i.symbol, i.price]));
    const qty: Record<string, number> = { AAPL: 3000, XOM: -5000, MSFT: 0 };
    const book = () =>
      [
        ['AAPL', qty.AAPL! * price.AAPL!],
        ['XOM', qty.XOM! * price.XOM!],
        ['JNJ', 400_000],
        ['MSFT', qty.MSFT! * price.MSFT!],
      ] as [string, number][];
    await same(t, first, request, book(), 'seq 0');

    c.send({ type: 'prices', id: 'desk-1', prices: { AAPL: 191.2, XOM: 77.5 } });
    price.AAPL = 191.2;
    price.XOM = 77.5;
    const second = await c.risk('desk-1', 1);
    t.equal(second.seq, 1);
    await same(t, second, request, book(), 'after prices');

    c.send({ type: 'trades', id: 'desk-1', trades: [{ symbol: 'MSFT', quantity: 1200 }] });
    qty.MSFT = 1200;
    const third = await c.risk('desk-1', 2);
    t.equal(third.seq, 2);
    await same(t, third, request, book(), 'after a trade adding MSFT');

    c.send({ type: 'trades', id: 'desk-1', trades: [{ symbol: 'XOM', quantity: 5000 }] });
    qty.XOM = 0;
    const fourth = await c.risk('desk-1', 3);
    t.equal(fourth.seq, 3);
    await same(t, fourth, request, book(), 'after closing XOM');
    t.equal(fourth.meta.exposures.items.find((i: { symbol: string }) => i.symbol === 'XOM').exposure, 0);

    c.send({ type: 'unsubscribe', id: 'desk-1' });
    c.send({ type: 'prices', id: 'desk-1', prices: { AAPL: 1 } });
    const err = await c.next((m) => m.type === 'error');
    t.equal(err.id, 'desk-1');
    t.equal(err.detail.code, 'VALIDATION_ERROR', 'no subscription after unsubscribe');
  });

  t.test('weights and historical books', async (t) => {
    const c = await LiveClient.open(s.base, s.key);
    t.teardown(() => c.close());
    const weights = calcBody(ds, { simulations: 2000, method_options: {} }); // no seed: the first answer's is kept
    const historical = calcBody(ds, {
      method: 'historical',
      method_options: {},
      portfolio_mode: 'rebalanced',
      portfolio: undefined,
      positions: [
        { symbol: 'KO', quantity: -100 },
        { symbol: 'PG', market_value: 50_000 },
      ],
    });
    c.send({ type: 'subscribe', id: 'w', request: weights });
    c.send({ type: 'subscribe', id: 'h', request: historical });
    const w0 = await c.risk('w');
    t.type(w0.meta.seed, 'number');
    await same(
      t,
      w0,
      weights,
      [
        ['AAPL', 400_000],
        ['MSFT', 300_000],
        ['KHC', 300_000],
      ],
      'weights, seq 0',
    );
    c.send({ type: 'trades', id: 'w', trades: [{ symbol: 'KHC', market_value: -100_000 }] });
    const w1 = await c.risk('w', 1);
    await same(
      t,
      w1,
      weights,
      [
        ['AAPL', 400_000],
        ['MSFT', 300_000],
        ['KHC', 200_000],
      ],
      'weights after a trade',
    );
    const h0 = await c.risk('h');
    t.equal(h0.meta.seed, null);
    const ko = (h0.meta.exposures.items as { symbol: string; price: number }[])[0]!.price;
    await same(
      t,
      h0,
      historical,
      [
        ['KO', -100 * ko],
        ['PG', 50_000],
      ],
      'historical, seq 0',
    );
    c.send({ type: 'prices', id: 'h', prices: { KO: 61.25 } });
    const h1 = await c.risk('h', 1);
    await same(
      t,
      h1,
      historical,
      [
        ['KO', -100 * 61.25],
        ['PG', 50_000],
      ],
      'historical after prices',
    );
  });

  t.test('a burst of 1,000 ticks is coalesced: seq rises, the last risk includes the last tick', async (t) => {
    const c = await LiveClient.open(s.base, s.key);
    t.teardown(() => c.close());
    const request = calcBody(ds, {
      portfolio: undefined,
      positions: [
        { symbol: 'AAPL', quantity: 1000 },
        { symbol: 'MSFT', quantity: -800 },
      ],
      simulations: 20_000,
    });
    c.send({ type: 'subscribe', id: 'b', request });
    await c.risk('b');
    for (let i = 1; i <= 1000; i++) c.send({ type: 'prices', id: 'b', prices: { AAPL: 100 + i / 100 } });
    const last = await c.risk('b', 1000);
    const seqs = c.received.filter((m) => m.type === 'risk' && m.id === 'b').map((m) => m.seq as number);
    t.equal(last.seq, 1000, 'the last risk includes every tick');
    t.ok(
      seqs.every((q, i) => i === 0 || q > seqs[i - 1]!),
      'seq strictly increasing (no reordering)',
    );
    t.ok(seqs.length < 1001, `coalesced: ${seqs.length} risk messages for 1,001 states`);
    t.notOk(
      c.received.some((m) => m.type === 'error'),
      'no error',
    );
    const msft = (last.meta.exposures.items as { symbol: string; price: number }[]).find((i) => i.symbol === 'MSFT')!.price;
    await same(
      t,
      last,
      request,
      [
        ['AAPL', 1000 * 110],
        ['MSFT', -800 * msft],
      ],
      'after the burst',
    );

    const metrics = (await call(s.base, 'GET', '/metrics')).text;
    const value = (name: string) =>
      Number(
        metrics
          .split('\n')
          .find((l) => l.startsWith(`${name} `))
          ?.split(' ')[1],
      );
    t.equal(value('live_coalesced_inputs_total') + seqs.length - 1, 1000, 'every input was priced on its own or counted as coalesced');
    t.ok(value('live_updates_total') >= seqs.length, 'updates counted');
    t.ok(value('live_update_seconds_count') >= seqs.length, 'update latency observed');
    t.ok(value('live_subscriptions') >= 1, 'the open subscription counted');
  });

  t.test("the server's own latency: each risk message and answer on its diagnostics channel", async (t) => {
    const sent: LiveRiskSent[] = [];
    const answered: HttpAnswered[] = [];
    const onSent = (m: unknown) => sent.push(m as LiveRiskSent);
    const onAnswered = (m: unknown) => answered.push(m as HttpAnswered);
    diagnostics_channel.subscribe(LIVE_RISK_SENT, onSent);
    diagnostics_channel.subscribe(HTTP_ANSWERED, onAnswered);
    t.teardown(() => {
      diagnostics_channel.unsubscribe(LIVE_RISK_SENT, onSent);
      diagnostics_channel.unsubscribe(HTTP_ANSWERED, onAnswered);
    });
    const c = await LiveClient.open(s.base, s.key);
    t.teardown(() => c.close());
    const request = calcBody(ds, { portfolio: undefined, positions: [{ symbol: 'AAPL', quantity: 1000 }], simulations: 5000 });
    c.send({ type: 'subscribe', id: 'timed', request });
    await c.risk('timed');
    // One tick at a time: each message's event is published before the client reads it.
    for (let i = 1; i <= 3; i++) {
      c.send({ type: 'prices', id: 'timed', prices: { AAPL: 100 + i } });
      await c.risk('timed', i);
    }
    const own = sent.filter((m) => m.id === 'timed');
    t.same(
      own.map((m) => m.seq),
      [0, 1, 2, 3],
      'one event per risk message, in order',
    );
    for (const [i, m] of own.slice(1).entries()) {
      t.ok(Number.isFinite(m.ms) && m.ms > 0, `tick ${i + 1}: ${m.ms} ms in the server`);
    }
    answered.length = 0;
    t.equal((await calculate(s.base, s.key, request)).status, 200);
    const calc = answered.filter((a) => a.route === '/api/v1/risk/calculate');
    t.equal(calc.length, 1, 'one event for the calculation');
    t.match(calc[0], { method: 'POST', status: 200 });
    t.ok(Number.isFinite(calc[0]!.ms) && calc[0]!.ms > 0, `calculate: ${calc[0]!.ms} ms in the server`);
  });
});
