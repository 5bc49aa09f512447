// The books' one weight rule (books.ts, `weightsOf`): a = e / C except where the request states the
// weight — a portfolio's, and after trades at an unchanged capital the untouched symbols' — which
// reach the engine to the bit. Trades merge quantities, add new symbols, change the capital, and a
// book beyond double precision is refused where it was stated.
import t from 'tap';
import { ApiError } from '../../src/contract/errors.js';
import { applyTrades, priceBook, priceStockPart } from '../../src/risk/books.js';

const symbols = ['A', 'B', 'C'];
const prices = new Float64Array([101.25, 37.5, 12.125]);
const at = ['body'];

/** The first validation issue `f` is refused with, if any. */
function refusal(f: () => unknown) {
  try {
    f();
  } catch (e) {
    return e instanceof ApiError ? (e.extra as { errors?: { loc: unknown[]; msg: string; type: string }[] }).errors?.[0] : undefined;
  }
  return undefined;
}

t.test('a portfolio keeps its stated weights exactly; exposures are V·w', async (t) => {
  const weights = [0.1, 0.7, 0.2];
  const book = priceBook({ portfolio: symbols.map((symbol, i) => ({ symbol, weight: weights[i]! })) }, symbols, prices, 3e6, at);
  t.same(Array.from(book.engine.weights), weights, 'the weights as stated');
  t.same(Array.from(book.exposures), [3e6 * 0.1, 3e6 * 0.7, 3e6 * 0.2]);
  t.equal(book.capital, 3e6);
  t.same(book.quantities, [null, null, null], 'a weight is no quantity');
});

t.test('trades at the same capital: untouched weights keep their bits, traded ones are e / C', async (t) => {
  const before = priceBook(
    {
      portfolio: [
        { symbol: 'A', weight: 0.3 },
        { symbol: 'B', weight: 0.7 },
      ],
    },
    symbols,
    prices,
    1e6,
    at,
  );
  const after = applyTrades(
    before,
    [
      { symbol: 'B', quantity: -100 },
      { symbol: 'C', market_value: 5000 },
    ],
    symbols,
    prices,
    1e6,
  );
  t.equal(after.engine.weights[0], 0.3, 'A untouched: its stated weight, not (1e6 · 0.3) / 1e6');
  t.equal(after.engine.weights[1], (1e6 * 0.7 - 100 * 37.5) / 1e6, 'B traded: e / C');
  t.equal(after.engine.weights[2], 5000 / 1e6, 'C, new: e / C');
  t.same(after.own, [true, true, true]);
  t.same(after.listed, [0, 1, 2], 'the new symbol listed after the book’s');
  t.same(after.quantities, [null, null, null], 'a quantity traded on a weight is not a quantity');
});

t.test('trades that change the capital: every weight is e / C of the new capital', async (t) => {
  const before = priceBook(
    {
      positions: [
        { symbol: 'A', quantity: 100 },
        { symbol: 'B', quantity: -50 },
      ],
    },
    symbols,
    prices,
    undefined,
    at,
  );
  t.equal(before.capital, 100 * 101.25 + 50 * 37.5, 'without portfolio_value the capital is the gross exposure');
  const after = applyTrades(before, [{ symbol: 'A', quantity: 20 }], symbols, prices, undefined);
  const gross = 120 * 101.25 + 50 * 37.5;
  t.equal(after.capital, gross);
  t.same(Array.from(after.engine.weights), [(120 * 101.25) / gross, (-50 * 37.5) / gross, 0]);
  t.same(after.quantities, [120, -50, null], 'quantities merge: 100 + 20');
});

t.test('positions naming a symbol twice add up; quantity and market value held together report no quantity', async (t) => {
  const book = priceBook(
    {
      positions: [
        { symbol: 'A', quantity: 60 },
        { symbol: 'C', market_value: -1000 },
        { symbol: 'A', quantity: 40 },
        { symbol: 'C', quantity: 10 },
      ],
    },
    symbols,
    prices,
    undefined,
    at,
  );
  t.equal(book.exposures[0], 100 * 101.25, '60 + 40 of A');
  t.equal(book.exposures[2], 10 * 12.125 + -1000);
  t.same(book.quantities, [100, null, null]);
  t.same(book.listed, [0, 2], 'each symbol once, where first named');
});

t.test('a book beyond double precision is refused where it was stated', async (t) => {
  const huge = priceBook({ positions: [{ symbol: 'A', quantity: 1e306 }] }, symbols, prices, undefined, at);
  t.ok(Number.isFinite(huge.capital));
  const overflow = refusal(() =>
    applyTrades(
      huge,
      [
        { symbol: 'B', quantity: 1e306 },
        { symbol: 'A', quantity: 1e306 },
      ],
      symbols,
      new Float64Array([1e300, 1e300, 1]),
      undefined,
    ),
  );
  t.same(overflow, { loc: ['body', 'what_if', 'trades'], msg: 'exposures (quantity × price) overflow double precision', type: 'overflow' });
  const empty = refusal(() => priceBook({ positions: [{ symbol: 'A', quantity: 0 }] }, symbols, prices, undefined, at));
  t.same(empty?.loc, ['body', 'positions'], 'an empty book');
  const tiny = refusal(() => priceBook({ positions: [{ symbol: 'A', quantity: 1e305 }] }, symbols, prices, 1e-6, at));
  t.equal(tiny?.type, 'overflow', 'e / C beyond double precision');
});

t.test('the stock part of an option book may be worth nothing; the book alone may not', async (t) => {
  // 5e-324 held at 1e-10 a unit (cash converted into a far larger currency) is worth 0.
  const tiny = new Float64Array([1e-10, 37.5, 12.125]);
  const stock = priceStockPart({ positions: [{ symbol: 'A', quantity: 5e-324 }] }, symbols, tiny, at);
  t.equal(stock.gross, 0, 'no exposure, no refusal: the options carry the book');
  t.same(stock.own, [true, false, false]);
  t.same(stock.listed, [0]);
  t.equal(
    refusal(() => priceBook({ positions: [{ symbol: 'A', quantity: 5e-324 }] }, symbols, tiny, undefined, at))?.msg,
    'every exposure is zero: the book is empty',
  );
  const huge = { positions: ['A', 'B'].map((symbol) => ({ symbol, quantity: 1e308 })) };
  t.same(refusal(() => priceStockPart(huge, symbols, prices, at))?.loc, ['body', 'positions'], 'stock beyond double precision is still refused');
});
