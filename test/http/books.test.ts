// Books over HTTP (API contract §7–§8): every error row of positions, what-if and batch with its
// exact location; batch figures equal to single calls over the same set of symbols; what-if
// against Euler and against a plain calculate of the book after the trades. The batch's own bucket
// is in rate-limits.test.ts, with every limited endpoint's.
import t from 'tap';
import { calcBody, calculate, call, type Reply, upload, uploadFile } from '../helpers/http.js';
import { startTestService, WIDE_SAMPLE } from '../helpers/service.js';
import { syntheticCsv } from '../helpers/csv.js';
import { without } from '../helpers/without.js';
import { portfolio } from '../helpers/portfolio.js';

type Body = Record<string, unknown>;
type Position = { symbol: string; quantity?: number; market_value?: number };
type Book = { id: string; portfolio?: { symbol: string; weight: number }[]; positions?: Position[] };
type Loc = (string | number)[];

const BATCH = '/api/v1/risk/calculate/batch';
const batch = (base: string, key: string | undefined, json: unknown) => call(base, 'POST', BATCH, { ...(key === undefined ? {} : { key }), json });
const ok = (r: Reply) => (r.status === 200 ? 'ok' : r.text);
const raw = (base: string, key: string, text: string) =>
  call(base, 'POST', '/api/v1/risk/calculate', { key, body: text, headers: { 'Content-Type': 'application/json' } });

// A long/short book: about 931k long AAPL, 323k short MSFT, 400k long JNJ, 346k short XOM.
const LS: Position[] = [
  { symbol: 'AAPL', quantity: 3000 },
  { symbol: 'MSFT', quantity: -2000 },
  { symbol: 'JNJ', market_value: 400_000 },
  { symbol: 'XOM', quantity: -5000 },
];
const BOOKS: Book[] = [
  {
    id: 'weights',
    portfolio: portfolio({ AAPL: 0.5, MSFT: 0.3, KHC: 0.2 }),
  },
  {
    id: 'long-short',
    positions: [
      { symbol: 'JPM', quantity: -1500 },
      { symbol: 'AAPL', quantity: 2000 },
      { symbol: 'XOM', quantity: 3000 },
    ],
  },
  {
    id: 'short',
    positions: [
      { symbol: 'MSFT', market_value: -300_000 },
      { symbol: 'JPM', market_value: -200_000 },
    ],
  },
];

/** The book over `symbols` in that order, zero weight / zero quantity / zero market value where it holds nothing. */
function spread(book: Book, symbols: string[]): Body {
  if (book.portfolio) return { portfolio: symbols.map((symbol) => ({ symbol, weight: book.portfolio!.find((p) => p.symbol === symbol)?.weight ?? 0 })) };
  const zero = book.positions![0]!.quantity !== undefined ? { quantity: 0 } : { market_value: 0 };
  return { positions: symbols.map((symbol) => book.positions!.find((p) => p.symbol === symbol) ?? { symbol, ...zero }) };
}

t.test('books', async (t) => {
  const s = await startTestService({ RATE_LIMIT_BATCH_PER_MIN: '1000' });
  t.teardown(() => s.stop());
  const up = await uploadFile(s.base, s.key, WIDE_SAMPLE);
  t.equal(up.status, 200, ok(up));
  const ds = up.body.dataset_id as string;
  /** The long/short book, capital = gross exposure (no portfolio_value). */
  const book = (over: Body = {}): Body => ({ ...without(calcBody(ds), 'portfolio', 'portfolio_value'), positions: LS, ...over });
  const batchOf = (books: unknown[], over: Body = {}): Body => ({ ...without(calcBody(ds), 'portfolio'), books, ...over });
  const pos = (symbols: string[]) => symbols.map((symbol) => ({ symbol, quantity: 100 }));
  const refused = (t: Tap, r: Reply, loc: Loc, code = 'VALIDATION_ERROR') => {
    t.equal(r.status, 422, r.status === 422 ? `422 ${code}` : r.text.slice(0, 300));
    t.equal(r.body?.detail?.code, code);
    t.strictSame(r.body?.detail?.errors?.[0]?.loc, loc, `loc ${JSON.stringify(loc)}`);
  };
  type Tap = typeof t;

  t.test('error rows: status, code and exact loc', async (t) => {
    const rows: [string, 'calc' | 'batch', unknown, Loc][] = [
      ['portfolio and positions', 'calc', book({ portfolio: calcBody(ds).portfolio, portfolio_value: 1e6 }), ['body', 'positions']],
      ['neither portfolio nor positions', 'calc', without(book(), 'positions'), ['body']],
      ['quantity and market_value', 'calc', book({ positions: [{ symbol: 'AAPL', quantity: 1, market_value: 1 }] }), ['body', 'positions', 0]],
      ['neither quantity nor market_value', 'calc', book({ positions: [...pos(['AAPL']), { symbol: 'MSFT' }] }), ['body', 'positions', 1]],
      [
        'all-zero positions',
        'calc',
        book({
          positions: [
            { symbol: 'AAPL', quantity: 0 },
            { symbol: 'MSFT', market_value: 0 },
          ],
        }),
        ['body', 'positions'],
      ],
      ['|quantity| > 1e15', 'calc', book({ positions: [{ symbol: 'AAPL', quantity: 1e15 + 1 }] }), ['body', 'positions', 0, 'quantity']],
      ['market_value = -1e15 - 1', 'calc', book({ positions: [{ symbol: 'AAPL', market_value: -1e15 - 1 }] }), ['body', 'positions', 0, 'market_value']],
      ['portfolio without portfolio_value', 'calc', without(calcBody(ds), 'portfolio_value'), ['body', 'portfolio_value']],
      ['trade with neither field', 'calc', book({ what_if: { trades: [{ symbol: 'KO' }] } }), ['body', 'what_if', 'trades', 0]],
      ['duplicate trade symbols', 'calc', book({ what_if: { trades: pos(['KO', 'AAPL', 'KO']) } }), ['body', 'what_if', 'trades', 2, 'symbol']],
      ['duplicate book ids', 'batch', batchOf([BOOKS[1], { ...BOOKS[2], id: 'long-short' }]), ['body', 'books', 1, 'id']],
      ['book with neither', 'batch', batchOf([BOOKS[1], { id: 'empty' }]), ['body', 'books', 1]],
      ['0 books', 'batch', batchOf([]), ['body', 'books']],
      ['201 books', 'batch', batchOf(Array.from({ length: 201 }, (_, i) => ({ id: `b${i}`, positions: pos(['AAPL']) }))), ['body', 'books']],
      ['id of 65 characters', 'batch', batchOf([{ ...BOOKS[1], id: 'x'.repeat(65) }]), ['body', 'books', 0, 'id']],
      ['batch portfolio without portfolio_value', 'batch', batchOf(BOOKS, { portfolio_value: undefined }), ['body', 'portfolio_value']],
    ];
    for (const [label, route, body, loc] of rows) {
      await t.test(label, async (t) => refused(t, route === 'calc' ? await calculate(s.base, s.key, body) : await batch(s.base, s.key, body), loc));
    }
    t.equal((await batch(s.base, s.key, batchOf([{ ...BOOKS[1], id: 'x'.repeat(64) }]))).status, 200, 'an id of 64 characters is accepted');
  });

  // JSON.parse reads 1e999 as Infinity, so the body parser does not refuse it (no 400 MALFORMED_JSON);
  // TypeBox's Number check refuses non-finite numbers: 422 VALIDATION_ERROR at the field.
  t.test('1e999 (Infinity to JSON.parse) is refused by the schema: 422, not 400', async (t) => {
    const text = JSON.stringify(book({ positions: [{ symbol: 'AAPL', quantity: 0.5 }] })).replace('0.5', '1e999');
    t.match(text, /"quantity":1e999/);
    refused(t, await raw(s.base, s.key, text), ['body', 'positions', 0, 'quantity']);
  });

  t.test('UNKNOWN_SYMBOL names each item', async (t) => {
    const cases: [string, Reply, string[], Loc[]][] = [
      [
        'positions',
        await calculate(s.base, s.key, book({ positions: pos(['AAPL', 'NOPE', 'ZZZ']) })),
        ['NOPE', 'ZZZ'],
        [1, 2].map((i) => ['body', 'positions', i, 'symbol']),
      ],
      [
        'what_if.trades',
        await calculate(s.base, s.key, book({ what_if: { trades: pos(['KO', 'NOPE']) } })),
        ['NOPE'],
        [['body', 'what_if', 'trades', 1, 'symbol']],
      ],
      [
        'a batch book',
        await batch(s.base, s.key, batchOf([BOOKS[0], { id: 'x', positions: pos(['MSFT', 'NOPE']) }])),
        ['NOPE'],
        [['body', 'books', 1, 'positions', 1, 'symbol']],
      ],
    ];
    for (const [label, r, symbols, locs] of cases) {
      refused(t, r, locs[0]!, 'UNKNOWN_SYMBOL');
      t.strictSame(r.body.detail.symbols, symbols, `${label}: detail.symbols`);
      t.strictSame(
        r.body.detail.errors.map((e: { loc: Loc }) => e.loc),
        locs,
        `${label}: one loc per unknown item`,
      );
    }
  });

  t.test('books × simulations over 1e8 is refused naming the limit', async (t) => {
    t.ok(s.config.maxSimulations >= 600_000, 'MAX_SIMULATIONS allows 600,000 on its own');
    const books = Array.from({ length: 200 }, (_, i) => ({ id: `b${i}`, positions: pos(['AAPL']) }));
    const r = await batch(s.base, s.key, batchOf(books, { simulations: 600_000 }));
    refused(t, r, ['body', 'simulations']);
    t.match(r.body.detail.message, /books × simulations must be at most 1e8: 200 × 600000/);
  });

  t.test('a P&L beyond double precision is 422 (ERR_OVERFLOW), never 500', async (t) => {
    for (const method of ['monte_carlo_normal', 'monte_carlo_student_t', 'historical']) {
      const body = book({ method, positions: [{ symbol: 'AAPL', quantity: 1e15 }], portfolio_value: 1e-6, portfolio_mode: 'rebalanced', time_horizon: 1000 });
      const r = await calculate(s.base, s.key, { ...body, simulations: 1000 });
      refused(t, r, ['body']);
      t.equal(r.body.detail.errors?.[0]?.type, 'overflow', `${method}: ${r.body.detail.message}`);
    }
  });

  // Found by this test: with prices near 1e290 (any finite price uploads) and C = 1e-6, a weight
  // e / C was Infinity, which the engine refused as invalid input: a 500. Now refused where stated.
  t.test('weights e / C beyond double precision are 422, never 500', async (t) => {
    const huge = await upload(s.base, s.key, syntheticCsv(['A', 'B'], 60).replace(/,(\d+\.\d+)/g, ',$1e288'));
    t.equal(huge.status, 200, ok(huge));
    const body = { ...without(calcBody(huge.body.dataset_id), 'portfolio'), method: 'parametric_normal', portfolio_value: 1e-6 };
    refused(t, await calculate(s.base, s.key, { ...body, positions: [{ symbol: 'A', quantity: 1e15 }] }), ['body', 'positions']);
  });

  t.test('check order: without a key a bad batch is 401', async (t) => {
    const r = await batch(s.base, undefined, batchOf([]));
    t.equal(r.status, 401);
    t.equal(r.body?.detail?.code, 'API_KEY_MISSING');
  });

  t.test('each book of a batch equals a single calculate over the union of symbols', async (t) => {
    const configs = [
      ['monte_carlo_normal', 'buy_and_hold'],
      ['monte_carlo_student_t', 'rebalanced'],
      ['historical', 'buy_and_hold'],
      ['parametric_normal', 'buy_and_hold'],
    ];
    for (const [method, mode] of configs) {
      const common = { method, portfolio_mode: mode, method_options: { seed: 2024 } };
      const b = await batch(s.base, s.key, batchOf(BOOKS, common));
      t.equal(b.status, 200, `${method} ${mode}: ${ok(b)}`);
      const meta = b.body.meta;
      t.strictSame(meta.symbols, ['AAPL', 'MSFT', 'KHC', 'JPM', 'XOM'], 'union in order of first appearance');
      for (const [i, bk] of BOOKS.entries()) {
        const label = `${method} ${mode}, ${bk.id}`;
        const got = meta.books[i];
        const one = await calculate(s.base, s.key, { ...without(calcBody(ds), 'portfolio'), ...common, ...spread(bk, meta.symbols) });
        t.equal(one.status, 200, `${label}: ${ok(one)}`);
        const own = new Set((bk.portfolio ?? bk.positions)!.map((p) => p.symbol));
        t.equal(got.id, bk.id);
        t.strictSame(got.metrics, one.body.meta.metrics, `${label}: metrics bit for bit`);
        // The single call lists the union; the batch book its own symbols, in its own order.
        const inBookOrder = <T extends { symbol: string }>(rows: T[]) => [...own].map((symbol) => rows.find((r) => r.symbol === symbol)!);
        t.strictSame(got.contributions, inBookOrder(one.body.meta.contributions), `${label}: contributions of the book's symbols`);
        const x = one.body.meta.exposures;
        t.strictSame(got.exposures, { ...x, items: inBookOrder(x.items) }, `${label}: exposures`);
        t.strictSame(got.distribution, one.body.meta.distribution, `${label}: distribution`);
        t.equal(got.portfolio_value, one.body.meta.portfolio_value);
        t.strictSame(meta.estimation, one.body.meta.estimation, `${label}: same estimation`);
      }
    }
  });

  t.test('what-if over HTTP', async (t) => {
    const mc = { method: 'monte_carlo_normal', simulations: 200_000, method_options: { seed: 99 } };
    // About 1 % of the gross exposure (≈ 2.0M), added to JNJ.
    const small = await calculate(s.base, s.key, book({ ...mc, what_if: { trades: [{ symbol: 'JNJ', market_value: 20_000 }] } }));
    t.equal(small.status, 200, ok(small));
    const { metrics, what_if: w, contributions } = small.body.meta;
    t.ok(
      w.incremental_es_standard_error < 0.1 * metrics.expected_shortfall_standard_error,
      `ΔES se ${w.incremental_es_standard_error} vs ES se ${metrics.expected_shortfall_standard_error}`,
    );
    t.ok(
      w.incremental_var_standard_error < 0.3 * metrics.value_at_risk_standard_error,
      `ΔVaR se ${w.incremental_var_standard_error} vs VaR se ${metrics.value_at_risk_standard_error}`,
    );
    const euler = 20_000 * contributions.find((c: { symbol: string }) => c.symbol === 'JNJ').marginal_es;
    t.ok(
      Math.abs(w.incremental_es - euler) < 4 * w.incremental_es_standard_error + 0.05 * Math.abs(euler),
      `ΔES ${w.incremental_es} ≈ Euler ${euler} (se ${w.incremental_es_standard_error})`,
    );

    // A new symbol (KO) and a market-value trade: the merged book is exact in money, so a plain
    // calculate of it over the same union (the book's symbols, then KO) must match bit for bit.
    const trades = [
      { symbol: 'KO', quantity: 1000 },
      { symbol: 'JNJ', market_value: 20_000 },
    ];
    const added = await calculate(s.base, s.key, book({ ...mc, what_if: { trades } }));
    t.equal(added.status, 200, ok(added));
    const items = added.body.meta.what_if.exposures.items;
    t.strictSame(
      items.map((i: { symbol: string }) => i.symbol),
      ['AAPL', 'MSFT', 'JNJ', 'XOM', 'KO'],
    );
    t.match(items[4], { symbol: 'KO', quantity: 1000, exposure: 1000 * items[4].price });
    t.equal(items[2].exposure, 420_000);
    const afterBook = [...LS.map((p) => (p.symbol === 'JNJ' ? { symbol: 'JNJ', market_value: 420_000 } : p)), trades[0]];
    const plain = await calculate(s.base, s.key, book({ ...mc, positions: afterBook }));
    t.equal(plain.status, 200, ok(plain));
    t.equal(added.body.meta.what_if.value_at_risk, plain.body.meta.metrics.value_at_risk, 'VaR after = plain calculate, bit for bit');
    t.equal(added.body.meta.what_if.expected_shortfall, plain.body.meta.metrics.expected_shortfall, 'ES after = plain calculate, bit for bit');
    t.strictSame(added.body.meta.what_if.exposures, plain.body.meta.exposures, 'exposures after = plain calculate');
  });
});
