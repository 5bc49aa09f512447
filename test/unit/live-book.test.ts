// The live book (risk/live-book.ts) and its coalescing runner (risk/live-subscription.ts), without a
// server: after any sequence of prices and trades the book's calculate request carries, as
// market_value, the exposures a client computes itself (quantity × its latest price + market value);
// refused inputs change nothing; and computations never overlap, `seq` only rises and the last one
// includes the last input, however inputs and computations interleave.
import t from 'tap';
import { type ApiError } from '../../src/contract/errors.js';
import { type CalculateRequest, type PositionEntry } from '../../src/contract/schemas.js';
import { type CalculateResponseBody } from '../../src/contract/responses.js';
import { checkLiveRequest, LiveBook } from '../../src/risk/live-book.js';
import { LiveSubscription } from '../../src/risk/live-subscription.js';
import { mulberry32 } from '../helpers/mulberry32.js';

const base = {
  dataset_id: 'ds_x',
  method: 'monte_carlo_normal',
  currency: 'USD',
  confidence_level: 0.99,
  time_horizon: 10,
  simulations: 1000,
} as unknown as CalculateRequest;

/** The first calculation's answer as far as the book reads it: each symbol's price, the seed. */
const first = (prices: Record<string, number>, seed: number | null = 7) =>
  ({ meta: { seed, exposures: { items: Object.entries(prices).map(([symbol, price]) => ({ symbol, price })) } } }) as unknown as CalculateResponseBody;

const marketValues = (book: LiveBook) => (book.request().positions! as PositionEntry[]).map((p) => [p.symbol, p.market_value]);

t.test('a weights book is V·w in market values; the seed drawn first is kept', async (t) => {
  const req = {
    ...base,
    portfolio_value: 3e6,
    portfolio: [
      { symbol: 'A', weight: 0.1 },
      { symbol: 'B', weight: 0.9 },
    ],
  } as CalculateRequest;
  const book = LiveBook.of(req, first({ A: 10, B: 20 }, 12345));
  const out = book.request();
  t.same(marketValues(book), [
    ['A', 3e6 * 0.1],
    ['B', 3e6 * 0.9],
  ]);
  t.equal(out.portfolio, undefined, 'no weights left');
  t.equal(out.portfolio_value, 3e6, 'portfolio_value stays');
  t.equal(out.method_options?.seed, 12345);
  book.setPrices({ A: 11 });
  t.same(
    marketValues(book),
    [
      ['A', 3e6 * 0.1],
      ['B', 3e6 * 0.9],
    ],
    'a weight does not revalue',
  );
});

t.test('drawn sequences of prices and trades: exposures as a client computes them, refusals change nothing', async (t) => {
  const rand = mulberry32(33);
  for (let run = 0; run < 200; run++) {
    const symbols = ['A', 'B', 'C', 'D'];
    const price: Record<string, number> = Object.fromEntries(symbols.map((s) => [s, 1 + Math.floor(rand() * 50000) / 100]));
    const qty: Record<string, number | undefined> = {};
    const mv: Record<string, number | undefined> = {};
    const positions = symbols.map((symbol, i) => {
      if (i % 2 === 0) return { symbol, quantity: (qty[symbol] = Math.round((rand() - 0.5) * 2000)) };
      return { symbol, market_value: (mv[symbol] = Math.round((rand() - 0.5) * 1e6)) };
    });
    if (positions.every((p) => (p.quantity ?? p.market_value) === 0)) continue;
    const book = LiveBook.of({ ...base, positions } as CalculateRequest, first(price));
    const expected = () =>
      symbols.map((s) => [s, qty[s] === undefined ? (mv[s] ?? 0) : mv[s] === undefined ? qty[s]! * price[s]! : qty[s]! * price[s]! + mv[s]!]);
    for (let step = 0; step < 10; step++) {
      const s = symbols[Math.floor(rand() * 4)]!;
      const r = rand();
      const before = marketValues(book);
      if (r < 0.4) {
        const p = Math.max(0.01, Math.floor(rand() * 50000) / 100);
        book.setPrices({ [s]: p });
        price[s] = p;
      } else if (r < 0.7) {
        const q = Math.round((rand() - 0.5) * 500);
        book.addTrades([{ symbol: s, quantity: q }]);
        qty[s] = (qty[s] ?? 0) + q;
      } else if (r < 0.85) {
        const m = Math.round((rand() - 0.5) * 1e5);
        book.addTrades([{ symbol: s, market_value: m }]);
        mv[s] = (mv[s] ?? 0) + m;
      } else {
        // Refused: a symbol outside the scenario set, with a valid one before it (all or nothing).
        t.throws(
          () =>
            book.addTrades([
              { symbol: s, quantity: 1 },
              { symbol: 'Z', quantity: 1 },
            ]),
          { code: 'VALIDATION_ERROR' },
        );
        t.throws(() => book.setPrices({ [s]: 5, Z: 1 }), { code: 'VALIDATION_ERROR' });
        t.same(marketValues(book), before, 'nothing changed');
      }
      if (JSON.stringify(marketValues(book)) !== JSON.stringify(expected())) {
        t.fail(`run ${run} step ${step}: ${JSON.stringify(marketValues(book))} ≠ ${JSON.stringify(expected())}`);
        return;
      }
    }
  }
  t.pass('200 runs of 10 inputs agree');
});

t.test('a book emptied, or beyond 1e15, is refused whole', async (t) => {
  const book = LiveBook.of(
    {
      ...base,
      positions: [
        { symbol: 'A', quantity: 10 },
        { symbol: 'B', market_value: 500 },
      ],
    } as CalculateRequest,
    first({ A: 50, B: 1 }),
  );
  const error = (f: () => void) => {
    try {
      f();
    } catch (e) {
      return (e as ApiError).extra.errors as { loc: unknown[]; msg: string }[];
    }
    return undefined;
  };
  t.match(
    error(() =>
      book.addTrades([
        { symbol: 'A', quantity: -10 },
        { symbol: 'B', market_value: -500 },
      ]),
    ),
    [{ loc: ['trades'], msg: /zero/ }],
  );
  t.match(
    error(() => book.setPrices({ A: 1e15 })),
    [{ loc: ['prices'], msg: /1e\+?15|1000000000000000/ }],
  );
  t.match(
    error(() => book.setPrices({ Q: 1 })),
    [{ loc: ['prices', 'Q'] }],
  );
  t.same(
    marketValues(book),
    [
      ['A', 500],
      ['B', 500],
    ],
    'unchanged',
  );
  book.addTrades([{ symbol: 'A', quantity: -10 }]);
  t.same(
    marketValues(book),
    [
      ['A', 0],
      ['B', 500],
    ],
    'a closed position stays, at 0: the scenario set stays',
  );
});

t.test('what a live book may start from', async (t) => {
  const refused = (over: object) => t.throws(() => checkLiveRequest({ ...base, ...over } as CalculateRequest), { code: 'VALIDATION_ERROR' });
  refused({ method: 'parametric_normal' });
  refused({ what_if: { trades: [{ symbol: 'A', quantity: 1 }] } });
  refused({ method_options: { target_relative_error: 0.01 } });
  t.doesNotThrow(() => checkLiveRequest({ ...base, method: 'historical' } as CalculateRequest));
  t.doesNotThrow(() => checkLiveRequest(base));
});

t.test('coalescing: no overlap, seq rising, the last computation includes the last input, latency from its first input', async (t) => {
  const rand = mulberry32(7);
  for (let run = 0; run < 50; run++) {
    const book = LiveBook.of({ ...base, positions: [{ symbol: 'A', quantity: 1 }] } as CalculateRequest, first({ A: 1 }));
    let running = 0;
    let overlapped = false;
    const pending: (() => void)[] = [];
    const seqs: number[] = [];
    const since: number[] = [];
    let coalesced = 0;
    const sub = new LiveSubscription(
      book,
      (req) => {
        overlapped ||= ++running > 1;
        const price = (req.positions![0] as PositionEntry).market_value!;
        return new Promise((resolve) => pending.push(() => (running--, resolve({ meta: { price } } as unknown as CalculateResponseBody))));
      },
      { risk: (seq, _body, from) => (seqs.push(seq), since.push(from)), failed: () => t.fail('no failure'), coalesced: (n) => (coalesced += n) },
    );
    const done = sub.run();
    const inputs = 1 + Math.floor(rand() * 30);
    for (let i = 1; i <= inputs; i++) {
      // Input i arrives at time i: a message's latency counts from the first input it includes.
      sub.input((b) => b.setPrices({ A: i + 1 }), i);
      // Sometimes the computation under way ends between inputs.
      while (rand() < 0.3 && pending.length) pending.shift()!();
      await Promise.resolve();
    }
    // Let every computation finish (each may start the next).
    while (running > 0 || pending.length) {
      pending.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    await done;
    t.notOk(overlapped, 'one computation at a time');
    t.equal(seqs.at(-1), inputs, 'the last includes the last input');
    t.ok(
      seqs.every((q, i) => i === 0 || q > seqs[i - 1]!),
      'seq rises',
    );
    t.equal(coalesced + seqs.length - 1, inputs, 'each input priced on its own or coalesced');
    t.ok(
      seqs.every((q, i) => i === 0 || since[i] === seqs[i - 1]! + 1),
      `each message counted from the first input after the last one's: ${JSON.stringify([seqs, since])}`,
    );
  }
});
