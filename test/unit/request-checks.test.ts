// Cross-field rules of the calculate request (after the schema): each raises its own code and
// location, in a fixed order, and the weight-sum tolerance holds on both sides of 1.
import t, { type Test } from 'tap';
import { ApiError } from '../../src/contract/errors.js';
import { type BatchRequest, type CalculateRequest } from '../../src/contract/schemas.js';
import { WEIGHT_TOLERANCE, checkBatchRequest, checkRequest } from '../../src/risk/request-checks.js';
import { without } from '../helpers/without.js';
import { portfolio } from '../helpers/portfolio.js';

const base: CalculateRequest = {
  dataset_id: 'ds_0123456789abcdef',
  method: 'monte_carlo_normal',
  portfolio_value: 1_000_000,
  currency: 'USD',
  portfolio: portfolio({ A: 0.6, B: 0.4 }),
  confidence_level: 0.99,
  time_horizon: 10,
  simulations: 10_000,
};
const req = (over: Partial<CalculateRequest>): CalculateRequest => ({ ...base, ...over });
const weights = (...ws: number[]) => ws.map((weight, i) => ({ symbol: `S${i}`, weight }));

function raised(fn: () => void): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('no error raised');
}

/** Asserts a 422 VALIDATION_ERROR with exactly one issue at `loc` of `type`. */
function rejects(t: Test, r: CalculateRequest, loc: (string | number)[], type: string, msg: RegExp) {
  const e = raised(() => checkRequest(r));
  t.equal(e.code, 'VALIDATION_ERROR', 'code');
  t.equal(e.status, 422, 'status');
  const errors = e.extra.errors as { loc: unknown[]; msg: string; type: string }[];
  t.equal(errors.length, 1, 'one issue');
  t.same(errors[0]!.loc, loc, 'loc');
  t.equal(errors[0]!.type, type, 'type');
  t.match(errors[0]!.msg, msg, 'msg');
}

t.test('a valid request passes and is left unchanged', async (t) => {
  const r = req({});
  const copy = structuredClone(r);
  t.doesNotThrow(() => checkRequest(r));
  t.same(r, copy, 'no defaults written into the request');
  t.doesNotThrow(() => checkRequest(req({ portfolio: weights(1) })), 'one asset of weight 1');
});

t.test('Monte Carlo methods require simulations; the others do not', async (t) => {
  for (const method of ['monte_carlo_normal', 'monte_carlo_student_t'] as const) {
    rejects(t, req({ method, simulations: undefined }), ['body', 'simulations'], 'missing', new RegExp(method));
  }
  for (const method of ['historical', 'parametric_normal'] as const) {
    t.doesNotThrow(() => checkRequest(req({ method, simulations: undefined })), `${method} without simulations`);
    t.doesNotThrow(() => checkRequest(req({ method, simulations: 500 })), `${method} ignores simulations`);
  }
});

t.test('model choices a method cannot use are refused, not echoed as used', async (t) => {
  const mode = ['body', 'portfolio_mode'];
  rejects(t, req({ method: 'parametric_normal', portfolio_mode: 'rebalanced' }), mode, 'value_error', /parametric_normal.*buy-and-hold/);
  const cov = ['body', 'method_options', 'covariance'];
  rejects(t, req({ method: 'historical', method_options: { covariance: 'ewma' } }), cov, 'value_error', /historical.*no covariance/);
  rejects(t, req({ method: 'historical', method_options: { covariance: 'ewma', ewma_lambda: 0.9 } }), cov, 'value_error', /ewma/);
  const methods = ['monte_carlo_normal', 'monte_carlo_student_t', 'historical', 'parametric_normal'] as const;
  for (const method of methods) {
    t.doesNotThrow(() => checkRequest(req({ method, portfolio_mode: 'buy_and_hold' })), `${method} buy_and_hold`);
    t.doesNotThrow(() => checkRequest(req({ method, method_options: { covariance: 'sample' } })), `${method} sample covariance`);
    // What the contract lets every method carry stays accepted (meta reports it as unused).
    t.doesNotThrow(() => checkRequest(req({ method, degrees_of_freedom: 7, method_options: { seed: 1, antithetic: true } })), `${method} seed, ν`);
  }
  for (const method of ['monte_carlo_normal', 'monte_carlo_student_t', 'historical'] as const) {
    t.doesNotThrow(() => checkRequest(req({ method, portfolio_mode: 'rebalanced' })), `${method} rebalanced`);
  }
  for (const method of ['monte_carlo_normal', 'monte_carlo_student_t', 'parametric_normal'] as const) {
    t.doesNotThrow(() => checkRequest(req({ method, method_options: { covariance: 'ewma' } })), `${method} ewma`);
  }
  const batch: BatchRequest = {
    ...without(base, 'portfolio'),
    method: 'parametric_normal',
    portfolio_mode: 'rebalanced',
    books: [{ id: 'a', portfolio: weights(1) }],
  };
  t.equal(raised(() => checkBatchRequest(batch)).code, 'VALIDATION_ERROR', 'the batch too');
});

t.test('ewma_lambda only with covariance "ewma"', async (t) => {
  const loc = ['body', 'method_options', 'ewma_lambda'];
  rejects(t, req({ method_options: { ewma_lambda: 0.9 } }), loc, 'value_error', /ewma/);
  rejects(t, req({ method_options: { ewma_lambda: 0.9, covariance: 'sample' } }), loc, 'value_error', /ewma/);
  t.doesNotThrow(() => checkRequest(req({ method_options: { ewma_lambda: 0.9, covariance: 'ewma' } })));
  t.doesNotThrow(() => checkRequest(req({ method_options: { covariance: 'ewma' } })), 'ewma with the default lambda');
  t.doesNotThrow(() => checkRequest(req({ method_options: {} })), 'empty options');
});

t.test('duplicate symbols are refused at the first repeat', async (t) => {
  const dup = (symbols: string[]) => req({ portfolio: symbols.map((symbol) => ({ symbol, weight: 1 / symbols.length })) });
  rejects(t, dup(['A', 'A']), ['body', 'portfolio', 1, 'symbol'], 'value_error', /duplicate symbol A/);
  rejects(t, dup(['A', 'B', 'C', 'B', 'A']), ['body', 'portfolio', 3, 'symbol'], 'value_error', /duplicate symbol B/);
  rejects(t, dup(['X', 'Y', 'X', 'X']), ['body', 'portfolio', 2, 'symbol'], 'value_error', /X/);
  t.doesNotThrow(() => checkRequest(dup(['A', 'a', 'A '])), 'symbols are compared exactly (case and spaces count)');
  const many = Array.from({ length: 5000 }, (_, i) => `S${i}`);
  t.doesNotThrow(() => checkRequest(dup(many)), '5000 distinct symbols');
  rejects(t, dup([...many.slice(0, 4999), 'S0']), ['body', 'portfolio', 4999, 'symbol'], 'value_error', /S0/);
});

t.test('weights must sum to 1 within the tolerance, on both sides', async (t) => {
  t.equal(WEIGHT_TOLERANCE, 1e-6);
  const ok = (ws: number[], why: string) => t.doesNotThrow(() => checkRequest(req({ portfolio: weights(...ws) })), why);
  const bad = (ws: number[], why: string) => {
    const e = raised(() => checkRequest(req({ portfolio: weights(...ws) })));
    t.equal(e.code, 'WEIGHTS_DO_NOT_SUM_TO_ONE', why);
    t.equal(e.status, 422);
    const sum = ws.reduce((a, b) => a + b, 0);
    t.equal(e.extra.weight_sum, sum, 'the sum is reported');
    t.same(e.body().detail.weight_sum, sum, 'and rendered in the body');
  };
  ok([0.5, 0.5], 'exactly 1');
  ok([1 + 0.9e-6], 'just above, inside');
  ok([1 - 0.9e-6], 'just below, inside');
  ok([1 + 1e-6], 'exactly at the upper edge (1.000001)');
  ok([1 - 1e-6 + 1e-15], 'a hair inside the lower edge');
  // 0.999999 as a double is 1 − 1.00000000003e-6, so the nominal lower edge is refused.
  t.doesNotThrow(() => checkRequest(req({ portfolio: weights(0.999999) })), 'exactly at the lower edge (0.999999)');
  bad([1 + 1.1e-6], 'just above, outside');
  bad([1 - 1.1e-6], 'just below, outside');
  bad([0.5, 0.4], 'well below');
  bad([1, 1], 'well above');
  bad([0], 'all zero');
  ok(
    Array.from({ length: 5000 }, () => 1 / 5000),
    'many small weights: rounding error stays inside the tolerance',
  );
  ok(
    Array.from({ length: 3 }, () => 1 / 3),
    'thirds',
  );
});

t.test('rules apply in order: simulations, ewma, duplicates, then the sum', async (t) => {
  const all = req({
    simulations: undefined,
    method_options: { ewma_lambda: 0.9 },
    portfolio: [
      { symbol: 'A', weight: 0.9 },
      { symbol: 'A', weight: 0.9 },
    ],
  });
  t.same((raised(() => checkRequest(all)).extra.errors as { loc: unknown }[])[0]!.loc, ['body', 'simulations']);
  const noSims = { ...all, simulations: 1000 };
  t.same((raised(() => checkRequest(noSims)).extra.errors as { loc: unknown }[])[0]!.loc, ['body', 'method_options', 'ewma_lambda']);
  const noEwma = { ...noSims, method_options: {} };
  t.same((raised(() => checkRequest(noEwma)).extra.errors as { loc: unknown }[])[0]!.loc, ['body', 'portfolio', 1, 'symbol']);
  const noDup = { ...noEwma, portfolio: weights(0.9, 0.9) };
  t.equal(raised(() => checkRequest(noDup)).code, 'WEIGHTS_DO_NOT_SUM_TO_ONE');
});

t.test('a NaN weight sum is refused', async (t) => {
  // Found by this test: `abs(sum − 1) > tol` was false for NaN. The schema refuses NaN before this
  // check, so only a direct caller could reach it.
  const e = (() => {
    try {
      checkRequest(req({ portfolio: weights(NaN) }));
      return null;
    } catch (err) {
      return err as ApiError;
    }
  })();
  t.equal(e?.code, 'WEIGHTS_DO_NOT_SUM_TO_ONE', 'NaN sum');
});

// --- books: positions, what-if, batch (api.md §7–§8) ---------------------------------------------

const noBook = without(base, 'portfolio', 'portfolio_value');
const positions = (...items: CalculateRequest['positions'] & object) => req({ ...noBook, portfolio: undefined, portfolio_value: undefined, positions: items });

t.test('a book is exactly one of portfolio and positions', async (t) => {
  rejects(t, { ...noBook } as CalculateRequest, ['body'], 'missing', /one of portfolio or positions/);
  rejects(t, req({ positions: [{ symbol: 'A', quantity: 1 }] }), ['body', 'positions'], 'value_error', /exclude each other/);
  t.doesNotThrow(() => checkRequest(positions({ symbol: 'A', quantity: 10 }, { symbol: 'B', market_value: -5e5 })), 'long/short, no portfolio_value');
  rejects(t, req({ portfolio_value: undefined }), ['body', 'portfolio_value'], 'missing', /required with portfolio/);
});

t.test('each position states exactly one of quantity and market_value; a symbol may repeat; not all zero', async (t) => {
  rejects(t, positions({ symbol: 'A', quantity: 1 }, { symbol: 'B' }), ['body', 'positions', 1], 'missing', /exactly one/);
  rejects(t, positions({ symbol: 'A', quantity: 1, market_value: 2 }), ['body', 'positions', 0], 'value_error', /exactly one/);
  t.doesNotThrow(() => checkRequest(positions({ symbol: 'A', quantity: 1 }, { symbol: 'A', market_value: 2 })), 'a symbol in two positions: they add up');
  rejects(t, positions({ symbol: 'A', quantity: 0 }, { symbol: 'A', quantity: -0 }), ['body', 'positions'], 'value_error', /zero/);
  rejects(t, positions({ symbol: 'A', quantity: 0 }, { symbol: 'B', market_value: -0 }), ['body', 'positions'], 'value_error', /zero/);
  t.doesNotThrow(() => checkRequest(positions({ symbol: 'A', quantity: 0 }, { symbol: 'B', market_value: -1e15 })), 'one zero among others');
});

t.test('what-if trades follow the position rules', async (t) => {
  const book = positions({ symbol: 'A', quantity: 10 });
  t.doesNotThrow(() => checkRequest({ ...book, what_if: { trades: [{ symbol: 'B', market_value: 1 }] } }));
  t.doesNotThrow(() => checkRequest({ ...req({}), what_if: { trades: [{ symbol: 'A', quantity: -1 }] } }), 'on a weights portfolio too');
  rejects(t, { ...book, what_if: { trades: [{ symbol: 'B' }] } }, ['body', 'what_if', 'trades', 0], 'missing', /exactly one/);
  const dup = {
    ...book,
    what_if: {
      trades: [
        { symbol: 'B', quantity: 1 },
        { symbol: 'B', quantity: 2 },
      ],
    },
  };
  rejects(t, dup, ['body', 'what_if', 'trades', 1, 'symbol'], 'value_error', /duplicate/);
  // Option trades (api.md §15) sit among stock trades: each stock trade is reported at its own index.
  const call = { option: { underlying: 'A', type: 'call' as const, strike: 10, expiry: '2030-01-01', volatility: 0.2 }, quantity: 1 };
  t.doesNotThrow(() => checkRequest({ ...book, what_if: { trades: [call, { symbol: 'B', quantity: 1 }] } }), 'an option trade beside a stock trade');
  rejects(t, { ...book, what_if: { trades: [call, { symbol: 'B' }] } }, ['body', 'what_if', 'trades', 1], 'missing', /exactly one/);
  const around = { ...book, what_if: { trades: [{ symbol: 'B', quantity: 1 }, call, { symbol: 'B', quantity: 2 }] } };
  rejects(t, around, ['body', 'what_if', 'trades', 2, 'symbol'], 'value_error', /duplicate/);
  rejects(
    t,
    { ...req({}), what_if: { trades: [{ symbol: 'B', quantity: 1 }, call] } },
    ['body', 'what_if', 'trades', 1],
    'value_error',
    /portfolio of weights/,
  );
});

t.test('a batch: unique ids, and each book by the same rules at its own location', async (t) => {
  const fields = without(base, 'portfolio');
  const batch = (books: BatchRequest['books'], over: Partial<BatchRequest> = {}): BatchRequest => ({ ...fields, books, ...over });
  const fail = (r: BatchRequest, loc: (string | number)[], msg: RegExp) => {
    const e = raised(() => checkBatchRequest(r));
    t.equal(e.code, 'VALIDATION_ERROR');
    t.same((e.extra.errors as { loc: unknown[] }[])[0]!.loc, loc, JSON.stringify(loc));
    t.match(e.message + JSON.stringify(e.extra), msg);
  };
  t.doesNotThrow(() =>
    checkBatchRequest(
      batch([
        { id: 'a', portfolio: weights(0.5, 0.5) },
        { id: 'b', positions: [{ symbol: 'S0', quantity: -3 }] },
      ]),
    ),
  );
  fail(
    batch([
      { id: 'a', positions: [{ symbol: 'A', quantity: 1 }] },
      { id: 'a', positions: [{ symbol: 'B', quantity: 1 }] },
    ]),
    ['body', 'books', 1, 'id'],
    /duplicate book id/,
  );
  fail(batch([{ id: 'a' }]), ['body', 'books', 0], /one of portfolio or positions/);
  fail(batch([{ id: 'a', positions: [{ symbol: 'A' }] }]), ['body', 'books', 0, 'positions', 0], /exactly one/);
  fail(batch([{ id: 'a', portfolio: weights(1) }], { portfolio_value: undefined }), ['body', 'portfolio_value'], /required with portfolio/);
  const e = raised(() => checkBatchRequest(batch([{ id: 'a', portfolio: weights(0.5, 0.4) }])));
  t.equal(e.code, 'WEIGHTS_DO_NOT_SUM_TO_ONE');
  t.same((e.extra.errors as { loc: unknown[] }[])[0]!.loc, ['body', 'books', 0, 'portfolio']);
});
