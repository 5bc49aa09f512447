// The calculate request's schema through the compiled validator: what passes is returned as is;
// what fails is one 422 VALIDATION_ERROR listing at most 20 issues, one per path, with body locs.
import t, { type Test } from 'tap';
import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ApiError, type ValidationIssue } from '../../src/contract/errors.js';
import { calculateRequestSchema } from '../../src/contract/schemas.js';
import { compileValidator } from '../../src/http/validator.js';
import { portfolio } from '../helpers/portfolio.js';

const MAX_SIMS = 10_000_000;
const validate = compileValidator(calculateRequestSchema(MAX_SIMS));

const valid = {
  dataset_id: 'ds_0123456789abcdef',
  method: 'monte_carlo_normal',
  portfolio_value: 1_000_000,
  currency: 'USD',
  portfolio: portfolio({ A: 0.5, B: 0.5 }),
  confidence_level: 0.99,
  time_horizon: 10,
  simulations: 10_000,
};
const withField = (over: Record<string, unknown>) => ({ ...valid, ...over });

function issues(value: unknown): ValidationIssue[] {
  try {
    validate(value);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    if (e.code !== 'VALIDATION_ERROR' || e.status !== 422) throw new Error(`unexpected ${e.code}`);
    return e.extra.errors as ValidationIssue[];
  }
  throw new Error('accepted');
}

const passes = (t: Test, over: Record<string, unknown>, why: string) => t.doesNotThrow(() => validate(withField(over)), why);

/** Refused, with an issue at `loc` (and, if given, of `type`). */
function refused(t: Test, over: Record<string, unknown>, loc: (string | number)[], type?: string) {
  const errs = issues(withField(over));
  const at = errs.filter((e) => JSON.stringify(e.loc) === JSON.stringify(loc));
  t.equal(at.length, 1, `${JSON.stringify(over)} → one issue at ${loc.join('.')}`);
  if (type !== undefined) t.equal(at[0]?.type, type, `type ${type}`);
}

t.test('a valid request is returned, the same object', async (t) => {
  const req = structuredClone(valid);
  t.equal(validate(req), req);
  t.same(req, valid, 'not modified (no defaults written)');
  const full = withField({
    method: 'monte_carlo_student_t',
    degrees_of_freedom: 5,
    portfolio_mode: 'rebalanced',
    method_options: { seed: 0, antithetic: true, drift: 'zero', lookback: 30, covariance: 'ewma', ewma_lambda: 0.5, histogram_bins: 200 },
  });
  t.equal(validate(full), full, 'every optional field');
  passes(t, { simulations: undefined, method: 'historical' }, 'simulations are optional to the schema (request-checks requires them)');
});

t.test('unknown fields are extra_forbidden at their path', async (t) => {
  t.same(issues(withField({ foo: 1 })), [{ loc: ['body', 'foo'], msg: 'unknown field', type: 'extra_forbidden' }]);
  t.same(issues(withField({ portfolio: [{ symbol: 'A', weight: 1, extra: true }] })), [
    { loc: ['body', 'portfolio', 0, 'extra'], msg: 'unknown field', type: 'extra_forbidden' },
  ]);
  t.same(issues(withField({ method_options: { seeds: 1 } })), [{ loc: ['body', 'method_options', 'seeds'], msg: 'unknown field', type: 'extra_forbidden' }]);
  t.same(issues(withField({ 'a/b~c': 1 })), [{ loc: ['body', 'a/b~c'], msg: 'unknown field', type: 'extra_forbidden' }], 'JSON-pointer escapes undone');
  t.same(issues(withField({ '12': 1 }))[0]!.loc, ['body', '12'], 'a numeric field name stays a string');
});

t.test('missing fields and a non-object body', async (t) => {
  const errs = issues({});
  t.same(
    errs.map((e) => e.loc[1]),
    // The book (portfolio or positions) and portfolio_value (required with a portfolio) are rules
    // across fields: request-checks.ts states them (test/unit/request-checks.test.ts).
    ['dataset_id', 'method', 'currency', 'confidence_level', 'time_horizon'],
    'every required field, none of the optional ones',
  );
  t.ok(
    errs.every((e) => e.type === 'ObjectRequiredProperty'),
    'typed as missing',
  );
  for (const body of [null, [], 'x', 1, true]) {
    t.same(issues(body), [{ loc: ['body'], msg: 'Expected object', type: 'Object' }], JSON.stringify(body));
  }
});

t.test('wrong types', async (t) => {
  refused(t, { time_horizon: '10' }, ['body', 'time_horizon'], 'Integer');
  refused(t, { time_horizon: 10.5 }, ['body', 'time_horizon'], 'Integer');
  refused(t, { portfolio_value: '1e6' }, ['body', 'portfolio_value'], 'Number');
  refused(t, { confidence_level: null }, ['body', 'confidence_level'], 'Number');
  refused(t, { dataset_id: 7 }, ['body', 'dataset_id'], 'String');
  refused(t, { portfolio: { symbol: 'A', weight: 1 } }, ['body', 'portfolio'], 'Array');
  refused(t, { portfolio: [{ symbol: 'A', weight: '1' }] }, ['body', 'portfolio', 0, 'weight'], 'Number');
  refused(t, { method: 'monte_carlo' }, ['body', 'method'], 'Union');
  // A position is a stock or cash: an issue is reported in the member the item comes closest to.
  refused(t, { portfolio: undefined, positions: [{ symbol: 'A', quantity: 1e16 }] }, ['body', 'positions', 0, 'quantity'], 'NumberMaximum');
  refused(t, { portfolio: undefined, positions: [{ cash: 'EUR', amount: 'x' }] }, ['body', 'positions', 0, 'amount'], 'Number');
  refused(t, { portfolio: undefined, positions: [{ cash: 'EUX', amount: 1 }] }, ['body', 'positions', 0, 'cash']);
  passes(
    t,
    {
      portfolio: undefined,
      positions: [
        { symbol: 'A', quantity: 1 },
        { cash: 'JPY', amount: -5e6 },
      ],
    },
    'stocks and cash in one book',
  );
  t.equal(
    issues(withField({ method: 'monte_carlo' }))[0]!.msg,
    'must be one of: "monte_carlo_normal", "monte_carlo_student_t", "historical", "parametric_normal", "historical_filtered", "cornish_fisher"',
    'an enum’s message names the values it allows',
  );
  t.equal(issues(withField({ method_options: { drift: 'none' } }))[0]!.msg, 'must be one of: "sample", "zero"');
  refused(t, { method_options: { antithetic: 'yes' } }, ['body', 'method_options', 'antithetic'], 'Boolean');
  refused(t, { method_options: [] }, ['body', 'method_options'], 'Object');
});

t.test('bounds, both edges', async (t) => {
  refused(t, { time_horizon: 0 }, ['body', 'time_horizon'], 'IntegerMinimum');
  passes(t, { time_horizon: 1 }, 'time_horizon 1');
  passes(t, { time_horizon: 1000 }, 'time_horizon 1000');
  refused(t, { time_horizon: 1001 }, ['body', 'time_horizon'], 'IntegerMaximum');

  refused(t, { confidence_level: 0.4999999 }, ['body', 'confidence_level'], 'NumberMinimum');
  passes(t, { confidence_level: 0.5 }, 'confidence 0.5');
  passes(t, { confidence_level: 0.9999999 }, 'confidence just under 1');
  refused(t, { confidence_level: 1 }, ['body', 'confidence_level'], 'NumberExclusiveMaximum');

  refused(t, { simulations: 99 }, ['body', 'simulations'], 'IntegerMinimum');
  passes(t, { simulations: 100 }, 'simulations 100');
  passes(t, { simulations: MAX_SIMS }, 'simulations at the configured maximum');
  refused(t, { simulations: MAX_SIMS + 1 }, ['body', 'simulations'], 'IntegerMaximum');

  passes(t, { portfolio_value: 1e-6 }, 'portfolio_value 1e-6');
  refused(t, { portfolio_value: 0 }, ['body', 'portfolio_value'], 'NumberMinimum');
  refused(t, { portfolio_value: 9.99e-7 }, ['body', 'portfolio_value'], 'NumberMinimum');
  passes(t, { portfolio_value: 1e15 }, 'portfolio_value 1e15');
  refused(t, { portfolio_value: 1.0000001e15 }, ['body', 'portfolio_value'], 'NumberMaximum');

  passes(t, { portfolio: [{ symbol: 'A', weight: 0 }] }, 'weight 0');
  refused(t, { portfolio: [{ symbol: 'A', weight: -1e-9 }] }, ['body', 'portfolio', 0, 'weight'], 'NumberMinimum');
  refused(t, { portfolio: [{ symbol: 'A', weight: 1.0000001 }] }, ['body', 'portfolio', 0, 'weight'], 'NumberMaximum');
  refused(t, { portfolio: [] }, ['body', 'portfolio'], 'ArrayMinItems');
  passes(t, { portfolio: Array.from({ length: 5000 }, (_, i) => ({ symbol: `S${i}`, weight: 0 })) }, '5000 items');
  refused(t, { portfolio: Array.from({ length: 5001 }, (_, i) => ({ symbol: `S${i}`, weight: 0 })) }, ['body', 'portfolio'], 'ArrayMaxItems');
  passes(t, { portfolio: [{ symbol: 'x'.repeat(64), weight: 1 }] }, 'symbol of 64');
  refused(t, { portfolio: [{ symbol: 'x'.repeat(65), weight: 1 }] }, ['body', 'portfolio', 0, 'symbol'], 'StringMaxLength');
  refused(t, { portfolio: [{ symbol: '', weight: 1 }] }, ['body', 'portfolio', 0, 'symbol'], 'StringMinLength');
  refused(t, { dataset_id: '' }, ['body', 'dataset_id'], 'StringMinLength');

  refused(t, { degrees_of_freedom: 2 }, ['body', 'degrees_of_freedom'], 'IntegerMinimum');
  passes(t, { degrees_of_freedom: 3 }, 'ν 3');
  refused(t, { method_options: { ewma_lambda: 1 } }, ['body', 'method_options', 'ewma_lambda'], 'NumberExclusiveMaximum');
  refused(t, { method_options: { ewma_lambda: 0 } }, ['body', 'method_options', 'ewma_lambda'], 'NumberExclusiveMinimum');
  refused(t, { method_options: { seed: -1 } }, ['body', 'method_options', 'seed'], 'IntegerMinimum');
  passes(t, { method_options: { seed: Number.MAX_SAFE_INTEGER } }, 'largest seed');
  refused(t, { method_options: { histogram_bins: 9 } }, ['body', 'method_options', 'histogram_bins'], 'IntegerMinimum');
});

t.test('currency must be an ISO 4217 code', async (t) => {
  passes(t, { currency: 'EUR' }, 'EUR');
  refused(t, { currency: 'usd' }, ['body', 'currency']);
  refused(t, { currency: 'ZZZ' }, ['body', 'currency']);
  refused(t, { currency: '' }, ['body', 'currency']);
});

t.test('non-finite numbers are refused', async (t) => {
  refused(t, { portfolio_value: NaN }, ['body', 'portfolio_value']);
  refused(t, { confidence_level: Infinity }, ['body', 'confidence_level']);
  refused(t, { portfolio: [{ symbol: 'A', weight: NaN }] }, ['body', 'portfolio', 0, 'weight']);
});

t.test('one issue per path, even when a value breaks several rules', async (t) => {
  const errs = issues(withField({ time_horizon: 1001.5, confidence_level: 'x' }));
  t.same(
    errs.map((e) => e.loc),
    [
      ['body', 'confidence_level'],
      ['body', 'time_horizon'],
    ],
    'each path once, in schema order',
  );
  // The calculate schema rarely yields two errors for one path; this one yields three and two.
  const schema = Type.Object({ s: Type.String({ minLength: 5, maxLength: 1, pattern: '^a' }), n: Type.Number({ minimum: 5, multipleOf: 2 }) });
  t.equal([...TypeCompiler.Compile(schema).Errors({ s: 'bb', n: 3 })].length, 5, 'TypeBox reports five');
  const e = (() => {
    try {
      compileValidator(schema)({ s: 'bb', n: 3 });
    } catch (err) {
      return (err as ApiError).extra.errors as ValidationIssue[];
    }
    return [];
  })();
  t.same(
    e.map((i) => [i.loc, i.type]),
    [
      [['body', 's'], 'StringMinLength'],
      [['body', 'n'], 'NumberMinimum'],
    ],
    'the first issue of each path is kept',
  );
});

t.test('at most 20 issues', async (t) => {
  const bad = (n: number) => withField({ portfolio: Array.from({ length: n }, () => ({ symbol: '', weight: 'x' })) });
  const errs = issues(bad(30));
  t.equal(errs.length, 20, '60 failing paths, 20 reported');
  t.same(errs[0]!.loc, ['body', 'portfolio', 0, 'symbol'], 'the first ones, in document order');
  t.same(errs[1]!.loc, ['body', 'portfolio', 0, 'weight']);
  t.equal(issues(bad(10)).length, 20, 'exactly 20 failing paths: all of them');
  t.equal(issues(bad(9)).length, 18, 'under the cap: all of them');
  t.equal(issues(bad(5000)).length, 20, 'the largest portfolio');
});

t.test('the maximum comes from the configuration', async (t) => {
  const small = compileValidator(calculateRequestSchema(1000));
  t.doesNotThrow(() => small(withField({ simulations: 1000 })));
  t.throws(() => small(withField({ simulations: 1001 })), { code: 'VALIDATION_ERROR' });
});
