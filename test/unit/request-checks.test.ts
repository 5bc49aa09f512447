// Cross-field rules of the calculate request (after the schema): each raises its own code and
// location, in a fixed order, and the weight-sum tolerance holds on both sides of 1.
import t, { type Test } from 'tap';
import { ApiError } from '../../src/contract/errors.js';
import { type CalculateRequest } from '../../src/contract/schemas.js';
import { WEIGHT_TOLERANCE, checkRequest } from '../../src/risk/request-checks.js';

const base: CalculateRequest = {
  dataset_id: 'ds_0123456789abcdef',
  method: 'monte_carlo_normal',
  portfolio_value: 1_000_000,
  currency: 'USD',
  portfolio: [
    { symbol: 'A', weight: 0.6 },
    { symbol: 'B', weight: 0.4 },
  ],
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
