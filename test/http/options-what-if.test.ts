// What-if with options (API contract §8, §15) through the real server: the book and/or the trades
// hold options; meta.what_if's figures of the book after equal, bit for bit, a calculate of that
// book (its positions followed by the trades), the book's own figures a calculate of it over the
// same symbols, and the differences agree with both — in full, delta_gamma and delta valuation,
// over a single-currency and a multi-currency dataset. Refusals at their fields in the trades.
import t, { type Test } from 'tap';
import { call, calculate, csvForm } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';
import { iso, wideCsv } from '../helpers/price-series.js';
import { ok, optionsExpiring, uploadWith, walks, type Body, type Meta } from '../helpers/fx-market.js';

const DAYS = 300;
const walkOf = walks(DAYS, 43);
const CSV = wideCsv({
  SAP: walkOf(120, 0.015),
  AAPL: walkOf(180, 0.018),
  MSFT: walkOf(300, 0.014),
  EURUSD: walkOf(1.1, 0.005),
});
const FIELDS = { currencies: JSON.stringify({ SAP: 'EUR' }), base_currency: 'USD' };
const EXPIRY = iso(DAYS - 1 + 91);

type Position = Record<string, unknown>;
const optionOn = optionsExpiring(EXPIRY);

const METHODS: Body[] = [
  { method: 'monte_carlo_normal', simulations: 20_000, method_options: { seed: 4 } },
  { method: 'monte_carlo_student_t', simulations: 20_000, method_options: { seed: 4, valuation: 'delta_gamma' } },
  { method: 'historical' },
  { method: 'historical', method_options: { valuation: 'delta' } },
  { method: 'parametric_normal', method_options: { valuation: 'delta' } },
];

/** A book and its trades: options in the book and the trades, in the book only, in the trades only. */
function cases(multiCurrency: boolean): [string, Position[], Position[]][] {
  const under = multiCurrency ? 'SAP' : 'MSFT';
  const cash = multiCurrency ? [{ cash: 'EUR', amount: 30_000 }] : [];
  return [
    [
      'options in both',
      [{ symbol: 'AAPL', quantity: 1000 }, optionOn('AAPL', 185, -50), ...cash],
      [optionOn(under, 120, 30, 'put'), { symbol: 'AAPL', market_value: -20_000 }, { symbol: 'MSFT', quantity: 100 }],
    ],
    [
      'options in the book, a stock trade',
      [optionOn('AAPL', 175, 40), optionOn('AAPL', 175, 40, 'put'), { symbol: 'MSFT', quantity: -300 }],
      [{ symbol: 'AAPL', quantity: -500 }],
    ],
    ['a hedge of options on a stock book', [{ symbol: 'AAPL', quantity: 2000 }, ...cash], [optionOn('AAPL', 170, 150, 'put'), optionOn(under, 130, -20)]],
  ];
}

/** The book over the what-if's symbols: its positions, then zero positions in the trades' other symbols and underlyings. */
function spread(book: Position[], trades: Position[]): Position[] {
  const held = new Set(book.flatMap((p) => ('symbol' in p ? [p.symbol] : [])));
  const names = trades.map((p) => ('option' in p ? (p.option as { underlying: string }).underlying : (p.symbol as string)));
  return [...book, ...[...new Set(names)].filter((s) => !held.has(s)).map((symbol) => ({ symbol, quantity: 0 }))];
}

async function whatIfAgrees(t: Test, send: (body: Body) => ReturnType<typeof calculate>, label: string, book: Position[], trades: Position[]) {
  const r = await send({ positions: book, what_if: { trades } });
  t.equal(r.status, 200, `${label}: ${ok(r)}`);
  if (r.status !== 200) return;
  const m: Meta = r.body.meta;
  const after = await send({ positions: [...book, ...trades] });
  t.equal(after.status, 200, `${label} after: ${ok(after)}`);
  const a: Meta = after.body.meta;
  t.equal(m.what_if.value_at_risk, a.metrics.value_at_risk, `${label}: VaR after = calculate of the book after, bit for bit`);
  t.equal(m.what_if.expected_shortfall, a.metrics.expected_shortfall, `${label}: ES after, bit for bit`);
  t.strictSame(m.what_if.exposures, a.exposures, `${label}: exposures after`);
  const alone = await send({ positions: spread(book, trades) });
  t.equal(alone.status, 200, `${label} before: ${ok(alone)}`);
  const b: Meta = alone.body.meta;
  t.strictSame(m.metrics, b.metrics, `${label}: the book's figures = calculate of it over the same symbols, bit for bit`);
  t.strictSame(m.valuation, b.valuation, `${label}: meta.valuation of the book`);
  // The differences are of the two books on the same scenarios: after − before.
  const dv = a.metrics.value_at_risk - b.metrics.value_at_risk;
  const de = a.metrics.expected_shortfall - b.metrics.expected_shortfall;
  t.equal(m.what_if.incremental_var, dv, `${label}: incremental VaR = after − before, bit for bit`);
  t.equal(m.what_if.incremental_es, de, `${label}: incremental ES = after − before, bit for bit`);
  for (const k of ['incremental_var_standard_error', 'incremental_es_standard_error']) {
    t.ok(Number.isFinite(m.what_if[k]) && m.what_if[k] >= 0, `${label}: ${k} ${m.what_if[k]}`);
  }
}

t.test('what-if with options', async (t) => {
  const s = await startTestService();
  t.teardown(() => s.stop());
  const multi = await uploadWith(s.base, s.key, CSV, FIELDS);
  t.equal(multi.status, 200, ok(multi));
  const plain = await call(s.base, 'POST', '/api/v1/risk/datasets/upload', { key: s.key, body: csvForm(CSV) });
  t.equal(plain.status, 200, ok(plain));
  const common = (ds: string, over: Body): Body => ({ dataset_id: ds, currency: 'USD', confidence_level: 0.99, time_horizon: 5, ...over });

  for (const [name, ds, multiCurrency] of [
    ['single-currency', plain.body.dataset_id as string, false],
    ['multi-currency', multi.body.dataset_id as string, true],
  ] as const) {
    t.test(`${name}: after = calculate of the book after; before = calculate of the book`, async (t) => {
      for (const m of METHODS) {
        const v = (m.method_options as Body | undefined)?.valuation ?? 'full';
        for (const [label, book, trades] of cases(multiCurrency)) {
          await whatIfAgrees(t, (body) => calculate(s.base, s.key, common(ds, { ...m, ...body })), `${m.method} ${v}, ${label}`, book, trades);
        }
      }
    });
  }

  t.test('sensitivities stay in the book after', async (t) => {
    const ds = plain.body.dataset_id as string;
    const sensitivities = [{ symbol: 'MSFT', delta: 50_000, gamma: -20_000 }];
    const mc = { method: 'monte_carlo_normal', simulations: 20_000, method_options: { seed: 6 }, sensitivities };
    const [, book, trades] = cases(false)[0]!;
    await whatIfAgrees(t, (body) => calculate(s.base, s.key, common(ds, { ...mc, ...body })), 'sensitivities', book, trades);
  });

  t.test('a book after whose weight overflows is refused as a calculate of it is', async (t) => {
    // A call deep in the money on a price near 1e302, portfolio_value 1e-6: its money delta over the
    // capital overflows a double (its size over it does not), so the book after, at its delta, is refused.
    const big = await call(s.base, 'POST', '/api/v1/risk/datasets/upload', {
      key: s.key,
      body: csvForm(wideCsv({ AAPL: walkOf(180, 0.018), BIG: walkOf(1e302, 0.01) })),
    });
    t.equal(big.status, 200, ok(big));
    const over = { method: 'monte_carlo_normal', simulations: 1000, method_options: { seed: 3 }, portfolio_value: 1e-6 };
    const book = [{ symbol: 'AAPL', quantity: 1e-9 }];
    const trade = optionOn('BIG', 1e15, 1);
    const send = (body: Body) => calculate(s.base, s.key, common(big.body.dataset_id as string, { ...over, ...body }));
    const after = await send({ positions: [...book, trade] });
    t.equal(after.status, 422, `the book after: ${after.text.slice(0, 300)}`);
    t.equal(after.body?.detail?.errors?.[0]?.type, 'overflow', 'an overflow');
    const whatIf = await send({ positions: book, what_if: { trades: [trade] } });
    t.equal(whatIf.status, 422, `the what-if: ${whatIf.text.slice(0, 300)}`);
    t.strictSame(whatIf.body?.detail?.errors?.[0], after.body?.detail?.errors?.[0], 'the same refusal');
  });

  t.test('refusals at their fields in the trades', async (t) => {
    const ds = plain.body.dataset_id as string;
    const mc = { method: 'monte_carlo_normal', simulations: 1000, method_options: { seed: 1 } };
    const book = [{ symbol: 'AAPL', quantity: 10 }, optionOn('AAPL', 180, 1)];
    const bad = (over: Record<string, unknown>) => ({ ...optionOn('AAPL', 180, 1), option: { ...optionOn('AAPL', 180, 1).option, ...over } });
    const trades = (o: Position) => ({ trades: [{ symbol: 'MSFT', quantity: 5 }, o] });
    const rows: [string, Body, (string | number)[], string?][] = [
      ['strike 0', { positions: book, what_if: trades(bad({ strike: 0 })) }, ['body', 'what_if', 'trades', 1, 'option', 'strike']],
      ['volatility 6', { positions: book, what_if: trades(bad({ volatility: 6 })) }, ['body', 'what_if', 'trades', 1, 'option', 'volatility']],
      ['expiry before the last date', { positions: book, what_if: trades(bad({ expiry: iso(10) })) }, ['body', 'what_if', 'trades', 1, 'option', 'expiry']],
      [
        'unknown underlying',
        { positions: book, what_if: trades(bad({ underlying: 'NOPE' })) },
        ['body', 'what_if', 'trades', 1, 'option', 'underlying'],
        'UNKNOWN_SYMBOL',
      ],
      [
        'an option trade on a portfolio of weights',
        { portfolio: [{ symbol: 'AAPL', weight: 1 }], portfolio_value: 1e6, what_if: trades(optionOn('AAPL', 180, 1)) },
        ['body', 'what_if', 'trades', 1],
      ],
      ['rebalanced', { positions: book, portfolio_mode: 'rebalanced', what_if: trades(optionOn('AAPL', 180, 1)) }, ['body', 'portfolio_mode']],
      [
        'parametric at full, options in the trades only',
        { method: 'parametric_normal', method_options: {}, positions: [{ symbol: 'AAPL', quantity: 10 }], what_if: trades(optionOn('AAPL', 180, 1)) },
        ['body', 'method_options', 'valuation'],
      ],
      [
        'duplicate stock trades',
        { positions: book, what_if: { trades: [{ symbol: 'MSFT', quantity: 5 }, optionOn('AAPL', 180, 1), { symbol: 'MSFT', quantity: 1 }] } },
        ['body', 'what_if', 'trades', 2, 'symbol'],
      ],
    ];
    for (const [label, over, loc, code] of rows) {
      const r = await calculate(s.base, s.key, common(ds, { ...mc, ...over }));
      t.equal(r.status, 422, `${label}: ${r.text.slice(0, 300)}`);
      t.equal(r.body?.detail?.code, code ?? 'VALIDATION_ERROR', `${label}: code`);
      t.strictSame(r.body?.detail?.errors?.[0]?.loc, loc, `${label}: loc ${JSON.stringify(loc)}`);
    }
  });
});
