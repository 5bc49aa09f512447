// The book, not its listing, fixes the figures (API contract §13), through the real server: the same
// book listed in other orders, and split into positions that add up exactly, gives bit-identical
// figures in every method and mode, in calculate, what-if, batch, backtest and stress; answers keep
// the request's order. The builds' agreement on drawn books is the property test's.
import t from 'tap';
import { calcBody, calculate, call, type Reply, uploadFile } from '../helpers/http.js';
import { startTestService, WIDE_SAMPLE } from '../helpers/service.js';
import { without } from '../helpers/without.js';

type Body = Record<string, unknown>;
type Position = { symbol: string; quantity?: number; market_value?: number };
type Row = { symbol: string };

// Listed out of the dataset's column order (AAPL, MSFT, AMZN, GOOGL, JPM, XOM, JNJ, PG, KO, KHC).
const BOOK: Position[] = [
  { symbol: 'XOM', quantity: -5000 },
  { symbol: 'AAPL', quantity: 3000 },
  { symbol: 'JNJ', market_value: 400_000 },
  { symbol: 'MSFT', quantity: -2000 },
];
const reversed = [...BOOK].reverse();
const rotated = [...BOOK.slice(2), ...BOOK.slice(0, 2)];
/** The same book split: 3000 = 1000 + 2000 and 400,000 = 150,000 + 250,000 exactly, the parts apart. */
const SPLIT: Position[] = [
  { symbol: 'XOM', quantity: -5000 },
  { symbol: 'AAPL', quantity: 1000 },
  { symbol: 'JNJ', market_value: 150_000 },
  { symbol: 'MSFT', quantity: -2000 },
  { symbol: 'AAPL', quantity: 2000 },
  { symbol: 'JNJ', market_value: 250_000 },
];

const CONFIGS: Body[] = [
  { method: 'monte_carlo_normal', portfolio_mode: 'buy_and_hold', method_options: { seed: 7 } },
  { method: 'monte_carlo_normal', portfolio_mode: 'rebalanced', method_options: { seed: 7, antithetic: true } },
  { method: 'monte_carlo_student_t', portfolio_mode: 'buy_and_hold', method_options: { seed: 2 ** 53 - 1, variance_reduction: 'importance_sampling' } },
  { method: 'monte_carlo_student_t', portfolio_mode: 'rebalanced', method_options: { seed: 0, covariance: 'ewma' } },
  { method: 'historical', portfolio_mode: 'rebalanced', method_options: { drift: 'zero' } },
  { method: 'parametric_normal', method_options: {} },
];

const ok = (r: Reply) => (r.status === 200 ? 'ok' : r.text.slice(0, 300));
const symbolsOf = (rows: Row[]) => rows.map((r) => r.symbol);
const firstSeen = (positions: Position[]) => [...new Set(symbolsOf(positions))];
const bySymbol = <T extends Row>(rows: T[]) => Object.fromEntries(rows.map((r) => [r.symbol, r]));
/** Per-symbol maps as sorted entries: their key order follows the request, their values must not. */
const entries = (o: Record<string, number>) => Object.entries(o).sort(([a], [b]) => a.localeCompare(b));

t.test('canonical books', async (t) => {
  const s = await startTestService({ RATE_LIMIT_BATCH_PER_MIN: '1000', RATE_LIMIT_BACKTEST_PER_MIN: '1000', RATE_LIMIT_STRESS_PER_MIN: '1000' });
  t.teardown(() => s.stop());
  const up = await uploadFile(s.base, s.key, WIDE_SAMPLE);
  t.equal(up.status, 200, ok(up));
  const ds = up.body.dataset_id as string;
  const body = (positions: Position[], over: Body = {}): Body => ({
    ...without(calcBody(ds), 'portfolio', 'portfolio_value'),
    simulations: 20_000,
    time_horizon: 5,
    positions,
    ...over,
  });

  /** Everything but the ids, timings and the request-ordered lists must be the same bits. */
  function sameFigures(t: Tap, a: Body, b: Body, label: string): void {
    const whatIf = (w: unknown) => (w ? { ...(w as Body), exposures: null } : null);
    const strip = (m: Body) => ({
      ...m,
      calculation_id: null,
      timing_ms: null,
      contributions: null,
      exposures: null,
      estimation: null,
      what_if: whatIf(m.what_if),
    });
    t.equal(JSON.stringify(strip(b)), JSON.stringify(strip(a)), `${label}: metrics, distribution, what-if figures bit for bit`);
    const est = (m: Body) => m.estimation as { daily_mean: Record<string, number>; daily_volatility: Record<string, number> };
    t.strictSame(entries(est(b).daily_mean), entries(est(a).daily_mean), `${label}: daily means`);
    t.strictSame(entries(est(b).daily_volatility), entries(est(a).daily_volatility), `${label}: daily volatilities`);
    t.strictSame(bySymbol(b.contributions as Row[]), bySymbol(a.contributions as Row[]), `${label}: contributions per symbol`);
  }
  type Tap = typeof t;

  t.test('any listing, any split: the same figures in every method and mode; rows in the request’s order', async (t) => {
    for (const config of CONFIGS) {
      const label = `${config.method as string} ${(config.portfolio_mode as string | undefined) ?? ''}`;
      const first = await calculate(s.base, s.key, body(BOOK, config));
      t.equal(first.status, 200, `${label}: ${ok(first)}`);
      for (const [name, positions] of [
        ['reversed', reversed],
        ['rotated', rotated],
        ['split', SPLIT],
      ] as const) {
        const other = await calculate(s.base, s.key, body(positions, config));
        t.equal(other.status, 200, `${label} ${name}: ${ok(other)}`);
        sameFigures(t, first.body.meta, other.body.meta, `${label} ${name}`);
        const order = firstSeen(positions);
        t.strictSame(symbolsOf(other.body.meta.contributions), order, `${label} ${name}: contributions in the request's order, each symbol once`);
        t.strictSame(symbolsOf(other.body.meta.exposures.items), order, `${label} ${name}: exposure items in the request's order`);
        t.strictSame(Object.keys(other.body.meta.estimation.daily_mean), order, `${label} ${name}: daily means keyed in the request's order`);
      }
    }
  });

  t.test('a split symbol: its quantities add up, a mixed split has no single quantity', async (t) => {
    const split = await calculate(s.base, s.key, body(SPLIT));
    t.equal(split.status, 200, ok(split));
    const item = bySymbol(split.body.meta.exposures.items as (Row & { quantity: number | null })[]);
    t.equal(item.AAPL!.quantity, 3000, 'AAPL 1000 + 2000 units');
    t.equal(item.JNJ!.quantity, null, 'JNJ held by market value');
    const mixed = await calculate(s.base, s.key, body([...BOOK, { symbol: 'AAPL', market_value: 10_000 }]));
    t.equal(mixed.status, 200, ok(mixed));
    const aapl = bySymbol(mixed.body.meta.exposures.items as (Row & { quantity: number | null; price: number; exposure: number })[]).AAPL!;
    t.equal(aapl.quantity, null, 'units and money of one symbol: no single quantity');
    t.equal(aapl.exposure, 3000 * aapl.price + 10_000, 'exposure = quantity × price + market value');
    const flat = await calculate(s.base, s.key, body([...BOOK, { symbol: 'AAPL', quantity: -3000 }, { symbol: 'XOM', quantity: 5000 }]));
    t.equal(flat.status, 200, ok(flat));
    t.equal(bySymbol(flat.body.meta.contributions as (Row & { exposure: number })[]).AAPL!.exposure, 0, 'a symbol closed out keeps its row, at zero');
    const empty = await calculate(
      s.base,
      s.key,
      body([
        ...BOOK,
        ...BOOK.map((p) => ({ symbol: p.symbol, ...(p.quantity !== undefined ? { quantity: -p.quantity } : { market_value: -p.market_value! }) })),
      ]),
    );
    t.equal(empty.status, 422, 'a book whose parts cancel is empty');
    t.equal(empty.body?.detail?.code, 'VALIDATION_ERROR');
  });

  t.test('what-if: trades and book in any order price the same', async (t) => {
    const trades = [
      { symbol: 'KO', market_value: 50_000 },
      { symbol: 'AAPL', quantity: -500 },
      { symbol: 'GOOGL', quantity: 100 },
    ];
    const a = await calculate(s.base, s.key, body(BOOK, { what_if: { trades } }));
    const b = await calculate(s.base, s.key, body(rotated, { what_if: { trades: [...trades].reverse() } }));
    t.equal(a.status, 200, ok(a));
    t.equal(b.status, 200, ok(b));
    sameFigures(t, a.body.meta, b.body.meta, 'what-if');
    const after = (r: Reply) => bySymbol(r.body.meta.what_if.exposures.items as Row[]);
    t.strictSame(after(b), after(a), 'the book after the trades: the same items');
    t.strictSame(
      symbolsOf(b.body.meta.what_if.exposures.items),
      [...firstSeen(rotated), 'GOOGL', 'KO'],
      'after the trades: the book, then new symbols as traded',
    );
  });

  // The scenarios are those of the batch's set of symbols: the single call names the same set (KHC at zero).
  t.test('batch: a book equals its single call however either lists it; the union as first named', async (t) => {
    const books = [
      { id: 'one', positions: rotated },
      {
        id: 'two',
        portfolio: [
          { symbol: 'KHC', weight: 0.25 },
          { symbol: 'AAPL', weight: 0.75 },
        ],
      },
    ];
    const r = await call(s.base, 'POST', '/api/v1/risk/calculate/batch', {
      key: s.key,
      json: { ...without(body(BOOK), 'positions'), portfolio_value: 1e6, method_options: { seed: 11 }, books },
    });
    t.equal(r.status, 200, ok(r));
    t.strictSame(r.body.meta.symbols, [...firstSeen(rotated), 'KHC'], 'meta.symbols in order of first appearance');
    const single = await calculate(s.base, s.key, body([{ symbol: 'KHC', quantity: 0 }, ...reversed], { portfolio_value: 1e6, method_options: { seed: 11 } }));
    t.equal(single.status, 200, ok(single));
    t.equal(JSON.stringify(r.body.meta.books[0].metrics), JSON.stringify(single.body.meta.metrics), 'batch book = single call, listed otherwise');
    t.strictSame(symbolsOf(r.body.meta.books[1].contributions), ['KHC', 'AAPL'], "each book's rows in its own order");
  });

  t.test('backtest and stress depend on the book, not its listing', async (t) => {
    const backtest = (positions: Position[]) =>
      call(s.base, 'POST', '/api/v1/risk/backtest', {
        key: s.key,
        json: { ...without(body(positions), 'simulations'), method: 'historical', time_horizon: 1, backtest: { window: 60, estimation_window: 250 } },
      });
    const [a, b] = [await backtest(BOOK), await backtest(SPLIT)];
    t.equal(a.status, 200, ok(a));
    t.equal(
      JSON.stringify({ ...b.body.meta, calculation_id: null, timing_ms: null }),
      JSON.stringify({ ...a.body.meta, calculation_id: null, timing_ms: null }),
    );
    const stress = (positions: Position[]) =>
      call(s.base, 'POST', '/api/v1/risk/stress', {
        key: s.key,
        json: {
          dataset_id: ds,
          currency: 'USD',
          positions,
          scenarios: [
            { type: 'shock', shocks: { AAPL: -0.2, XOM: 0.1 } },
            { type: 'conditional', shocks: { KO: -0.1 }, horizon: 5 },
            { type: 'historical_worst', horizon: 10 },
          ],
        },
      });
    const [x, y] = [await stress(BOOK), await stress(reversed)];
    t.equal(x.status, 200, ok(x));
    t.equal(y.status, 200, ok(y));
    type Result = { pnl: number; items: Row[] };
    (y.body.meta.results as Result[]).forEach((res, i) => {
      const base = (x.body.meta.results as Result[])[i]!;
      t.equal(res.pnl, base.pnl, `scenario ${i}: the same P&L`);
      t.strictSame(symbolsOf(res.items), firstSeen(reversed), `scenario ${i}: items in the request's order`);
      t.strictSame(bySymbol(res.items), bySymbol(base.items), `scenario ${i}: the same items`);
    });
  });
});
