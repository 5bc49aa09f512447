// Options in a batch (API contract §8, §15) through the real server: each book of a batch mixing
// stocks, cash and options equals, bit for bit, a calculate of that book alone over the batch's set
// of symbols (its figures, its option rows' price and Greeks, its meta.valuation), in full,
// delta_gamma and delta valuation (filtered history too), over a single-currency and a multi-currency dataset; and each
// refusal at its field inside `books`.
import t, { type Test } from 'tap';
import { call, calculate, csvForm, type Reply } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';
import { iso, wideCsv } from '../helpers/price-series.js';
import { ok, optionsExpiring, uploadWith, walks, type Body, type Meta } from '../helpers/fx-market.js';

const DAYS = 300;
const walkOf = walks(DAYS, 41);
const CSV = wideCsv({
  SAP: walkOf(120, 0.015),
  AAPL: walkOf(180, 0.018),
  MSFT: walkOf(300, 0.014),
  TOYO: walkOf(2500, 0.016),
  EURUSD: walkOf(1.1, 0.005),
  USDJPY: walkOf(150, 0.006),
});
const FIELDS = { currencies: JSON.stringify({ SAP: 'EUR', TOYO: 'JPY' }), base_currency: 'USD' };
const EXPIRY = iso(DAYS - 1 + 91);

type Position = Record<string, unknown>;
const optionOn = optionsExpiring(EXPIRY);
const isOption = (p: Position) => 'option' in p;
const isCash = (p: Position) => 'cash' in p;

/**
 * The books of the batch: options beside stock (and cash where the dataset has currencies), an
 * options-only straddle, a stock-only book; options listed between other positions.
 */
function booksOf(multiCurrency: boolean): { id: string; positions: Position[] }[] {
  const cash = multiCurrency ? [{ cash: 'EUR', amount: 20_000 }] : [];
  const foreign = multiCurrency ? 'SAP' : 'MSFT';
  return [
    { id: 'covered', positions: [{ symbol: 'AAPL', quantity: 1000 }, optionOn('AAPL', 185, -60), ...cash, { symbol: 'MSFT', quantity: -200 }] },
    { id: 'straddle', positions: [optionOn(foreign, 120, -40), optionOn(foreign, 120, -40, 'put'), optionOn('AAPL', 170, 25, 'put')] },
    {
      id: 'stock',
      positions: [
        { symbol: 'TOYO', quantity: 300 },
        { symbol: 'MSFT', market_value: 250_000 },
      ],
    },
  ];
}

/**
 * The book alone over the batch's set: its own stock and cash positions first (as stated), a zero
 * position in every other symbol and currency the batch names, then its options.
 */
function alone(book: { positions: Position[] }, batch: { positions: Position[] }[]): Position[] {
  const own = book.positions.filter((p) => !isOption(p));
  const held = new Set(own.map((p) => (isCash(p) ? `cash:${p.cash}` : p.symbol)));
  const fill: Position[] = [];
  for (const p of batch.flatMap((b) => b.positions)) {
    const name = isCash(p) ? `cash:${p.cash}` : isOption(p) ? (p.option as { underlying: string }).underlying : (p.symbol as string);
    if (held.has(name)) continue;
    held.add(name);
    fill.push(isCash(p) ? { cash: p.cash, amount: 0 } : { symbol: name, quantity: 0 });
  }
  return [...own, ...fill, ...book.positions.filter(isOption)];
}

/** Each book of `b` against a calculate of it alone: every figure bit for bit. */
async function sameAsAlone(
  t: Test,
  b: Reply,
  single: (positions: Position[]) => Promise<Reply>,
  books: { id: string; positions: Position[] }[],
  label: string,
) {
  t.equal(b.status, 200, `${label}: ${ok(b)}`);
  if (b.status !== 200) return;
  for (const [i, book] of books.entries()) {
    const got: Meta = b.body.meta.books[i];
    const one = await single(alone(book, books));
    t.equal(one.status, 200, `${label} ${book.id}: ${ok(one)}`);
    const m: Meta = one.body.meta;
    t.equal(got.id, book.id);
    t.strictSame(got.metrics, m.metrics, `${label} ${book.id}: metrics bit for bit`);
    t.strictSame(got.distribution, m.distribution, `${label} ${book.id}: distribution`);
    t.equal(got.portfolio_value, m.portfolio_value, `${label} ${book.id}: capital`);
    const options = book.positions.filter(isOption).length;
    if (options > 0) t.strictSame(got.valuation, m.valuation, `${label} ${book.id}: meta.valuation`);
    else t.equal(got.valuation, undefined, `${label} ${book.id}: no valuation without options`);
    // Alone, the zero positions have rows too, and the options sit at other indices of `positions`.
    const stockRows = book.positions.length - options;
    const rows = [...m.contributions.slice(0, stockRows), ...m.contributions.filter((c: Meta) => c.option !== undefined)];
    const optionIndex = book.positions.flatMap((p, k) => (isOption(p) ? [k] : []));
    const expected = rows.map((c: Meta, r: number) => (c.option === undefined ? c : { ...c, option: optionIndex[r - stockRows] }));
    t.strictSame(got.contributions, expected, `${label} ${book.id}: contributions, option price and Greeks`);
    const items = new Set(got.exposures.items.map((x: Meta) => x.symbol));
    t.strictSame(got.exposures, { ...m.exposures, items: m.exposures.items.filter((x: Meta) => items.has(x.symbol)) }, `${label} ${book.id}: exposures`);
    t.strictSame(b.body.meta.estimation.daily_volatility, m.estimation.daily_volatility, `${label} ${book.id}: the same estimation`);
    // Alone, the zero positions add rows of nothing in their currencies.
    const breakdown = (m.currency_breakdown as Meta[] | undefined)?.filter((r) => r.gross !== 0 || r.component_es !== 0);
    t.strictSame(got.currency_breakdown, breakdown, `${label} ${book.id}: currency breakdown`);
  }
}

const METHODS: Body[] = [
  { method: 'monte_carlo_normal', simulations: 20_000, method_options: { seed: 8 } },
  { method: 'monte_carlo_normal', simulations: 20_000, method_options: { seed: 8, valuation: 'delta_gamma' } },
  { method: 'monte_carlo_student_t', simulations: 20_000, method_options: { seed: 8, valuation: 'delta' } },
  { method: 'historical' },
  { method: 'historical', method_options: { valuation: 'delta_gamma' } },
  { method: 'parametric_normal', method_options: { valuation: 'delta' } },
  { method: 'historical_filtered', time_horizon: 1 },
  { method: 'historical_filtered', simulations: 2000, method_options: { seed: 8, valuation: 'delta_gamma' } },
];

t.test('options in a batch', async (t) => {
  const s = await startTestService({ RATE_LIMIT_BATCH_PER_MIN: '1000' });
  t.teardown(() => s.stop());
  const multi = await uploadWith(s.base, s.key, CSV, FIELDS);
  t.equal(multi.status, 200, ok(multi));
  const plain = await call(s.base, 'POST', '/api/v1/risk/datasets/upload', { key: s.key, body: csvForm(CSV) });
  t.equal(plain.status, 200, ok(plain));
  const common = (ds: string, over: Body): Body => ({ dataset_id: ds, currency: 'USD', confidence_level: 0.99, time_horizon: 5, ...over });
  const batch = (json: Body) => call(s.base, 'POST', '/api/v1/risk/calculate/batch', { key: s.key, json });

  for (const [name, ds, multiCurrency] of [
    ['single-currency', plain.body.dataset_id as string, false],
    ['multi-currency', multi.body.dataset_id as string, true],
  ] as const) {
    t.test(`${name}: each book equals a calculate of it alone over the batch's symbols`, async (t) => {
      const books = booksOf(multiCurrency);
      for (const m of METHODS) {
        const label = `${m.method} ${(m.method_options as Body | undefined)?.valuation ?? 'full'}`;
        const b = await batch(common(ds, { ...m, books }));
        await sameAsAlone(t, b, (positions) => calculate(s.base, s.key, common(ds, { ...m, positions })), books, label);
        if (b.status === 200) {
          const symbols = multiCurrency ? ['AAPL', '@cash:EUR', 'MSFT', 'SAP', 'TOYO'] : ['AAPL', 'MSFT', 'TOYO'];
          t.strictSame([...b.body.meta.symbols].sort(), symbols.sort(), `${label}: the union of symbols and underlyings ${b.body.meta.symbols}`);
        }
      }
    });
  }

  t.test('a portfolio of weights beside option books, with portfolio_value', async (t) => {
    const ds = plain.body.dataset_id as string;
    const m = { method: 'monte_carlo_normal', simulations: 10_000, method_options: { seed: 2 }, portfolio_value: 2_000_000 };
    const books = booksOf(false);
    const weights = [
      { symbol: 'MSFT', weight: 0.4 },
      { symbol: 'AAPL', weight: 0.6 },
    ];
    const b = await batch(common(ds, { ...m, books: [{ id: 'weights', portfolio: weights }, ...books] }));
    t.equal(b.status, 200, ok(b));
    const one = await calculate(s.base, s.key, common(ds, { ...m, portfolio: [...weights, { symbol: 'TOYO', weight: 0 }] }));
    t.equal(one.status, 200, ok(one));
    t.strictSame(b.body.meta.books[0].metrics, one.body.meta.metrics, 'the weights book: metrics bit for bit');
  });

  t.test('refusals at their fields inside books', async (t) => {
    const ds = plain.body.dataset_id as string;
    const mc = { method: 'monte_carlo_normal', simulations: 1000, method_options: { seed: 1 } };
    const stock = { id: 's', positions: [{ symbol: 'AAPL', quantity: 10 }] };
    const withOption = (o: Position) => ({ id: 'o', positions: [{ symbol: 'MSFT', quantity: 5 }, o] });
    const bad = (over: Record<string, unknown>) => ({ ...optionOn('AAPL', 180, 1), option: { ...optionOn('AAPL', 180, 1).option, ...over } });
    const rows: [string, Body, (string | number)[], string?][] = [
      ['strike 0', common(ds, { ...mc, books: [stock, stock, withOption(bad({ strike: 0 }))] }), ['body', 'books', 2, 'positions', 1, 'option', 'strike']],
      ['volatility 6', common(ds, { ...mc, books: [withOption(bad({ volatility: 6 }))] }), ['body', 'books', 0, 'positions', 1, 'option', 'volatility']],
      [
        'expiry before the last date',
        common(ds, { ...mc, books: [stock, withOption(bad({ expiry: iso(10) }))] }),
        ['body', 'books', 1, 'positions', 1, 'option', 'expiry'],
      ],
      [
        'unknown underlying',
        common(ds, { ...mc, books: [stock, withOption(bad({ underlying: 'NOPE' }))] }),
        ['body', 'books', 1, 'positions', 1, 'option', 'underlying'],
        'UNKNOWN_SYMBOL',
      ],
      [
        'multiplier 0',
        common(ds, { ...mc, books: [withOption({ ...optionOn('AAPL', 180, 1), multiplier: 0 })] }),
        ['body', 'books', 0, 'positions', 1, 'multiplier'],
      ],
      ['rebalanced', common(ds, { ...mc, portfolio_mode: 'rebalanced', books: [withOption(optionOn('AAPL', 180, 1))] }), ['body', 'portfolio_mode']],
      [
        'parametric at full',
        common(ds, { method: 'parametric_normal', books: [withOption(optionOn('AAPL', 180, 1))] }),
        ['body', 'method_options', 'valuation'],
      ],
    ];
    for (const [label, body, loc, code] of rows) {
      const r = await batch(body);
      t.equal(r.status, 422, `${label}: ${r.text.slice(0, 300)}`);
      t.equal(r.body?.detail?.code, code ?? 'VALIDATION_ERROR', `${label}: code`);
      t.strictSame(r.body?.detail?.errors?.[0]?.loc, loc, `${label}: loc ${JSON.stringify(loc)}`);
    }
  });
});
