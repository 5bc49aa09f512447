// Invalid calculate requests, drawn apart from the valid ones (calculation-domain.ts): a valid
// request with one rule broken, each with the exact answer the contract's table gives it (status,
// code, and where: the loc of one of its issues).
import fc from 'fast-check';
import { type CalculateRequest, type PositionEntry } from '../../src/contract/schemas.js';
import { DOMAIN, MAX_SIMULATIONS } from './calculation-domain.js';
import { without } from './without.js';

type Loc = (string | number)[];

export interface InvalidCase {
  what: string;
  request: unknown;
  status: number;
  code: string;
  loc: Loc;
}

const double = (min: number, max: number) => fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
/** Beyond a bound, by its nearest doubles and far. */
const above = (max: number) =>
  fc.oneof(
    fc.constant(max + Math.max(1, Math.abs(max)) * 2 ** -52),
    double(max, Number.MAX_VALUE).filter((x) => x > max),
  );
const below = (min: number) =>
  fc.oneof(
    fc.constant(min - Math.max(1, Math.abs(min)) * 2 ** -52),
    double(-Number.MAX_VALUE, min).filter((x) => x < min),
  );
const outside = (min: number, max: number) => fc.oneof(above(max), below(min));
const intOutside = (min: number, max: number) =>
  fc.oneof(fc.constantFrom(min - 1, max + 1), fc.integer({ min: -(2 ** 31), max: min - 1 }), fc.integer({ min: max + 1, max: Math.max(max + 1, 2 ** 31) }));

/** A valid book of two to four of the dataset's symbols, by weights or by positions. */
function validBase(datasetId: string, symbols: string[]): fc.Arbitrary<CalculateRequest> {
  return fc.record({ n: fc.integer({ min: 2, max: Math.min(4, symbols.length) }), positions: fc.boolean() }).map(({ n, positions }) => {
    const names = symbols.slice(0, n);
    const common = {
      dataset_id: datasetId,
      method: 'monte_carlo_normal' as const,
      method_options: { seed: 1 },
      currency: 'USD',
      confidence_level: 0.99,
      time_horizon: 10,
      simulations: 1_000,
    };
    return positions
      ? { ...common, positions: names.map((symbol, i) => (i % 2 === 0 ? { symbol, quantity: 100 } : { symbol, market_value: -1e5 })) }
      : { ...common, portfolio_value: 1e6, portfolio: names.map((symbol) => ({ symbol, weight: 1 / n })) };
  });
}

const bad = (what: string, request: unknown, loc: Loc, code = 'VALIDATION_ERROR', status = 422): InvalidCase => ({ what, request, status, code, loc });

/** One broken rule per case, over every field's outside and every rule across fields. */
export function invalidRequests(datasetId: string, symbols: string[]): fc.Arbitrary<InvalidCase> {
  const base = validBase(datasetId, symbols);
  const opts = (r: CalculateRequest, o: Record<string, unknown>) => ({ ...r, method_options: { ...r.method_options, ...o } });
  const asPositions = (r: CalculateRequest): CalculateRequest =>
    r.positions ? r : { ...without(r, 'portfolio', 'portfolio_value'), positions: r.portfolio!.map((p) => ({ symbol: p.symbol, quantity: 10 })) };
  const asPortfolio = (r: CalculateRequest): CalculateRequest =>
    r.portfolio
      ? r
      : {
          ...without(r, 'positions'),
          portfolio_value: 1e6,
          portfolio: (r.positions! as PositionEntry[]).map((p, _, all) => ({ symbol: p.symbol, weight: 1 / all.length })),
        };
  const kinds: fc.Arbitrary<InvalidCase>[] = [
    fc
      .tuple(
        base,
        fc.oneof(above(DOMAIN.position.max), below(DOMAIN.position.min), fc.constant(2 ** 53 - 1)),
        fc.constantFrom('quantity', 'market_value'),
        fc.nat(),
      )
      .map(([r, a, field, k]) => {
        const p = asPositions(r).positions! as PositionEntry[];
        const i = k % p.length;
        return bad(`${field} beyond ±1e15`, { ...asPositions(r), positions: p.map((x, j) => (j === i ? { symbol: x.symbol, [field]: a } : x)) }, [
          'body',
          'positions',
          i,
          field,
        ]);
      }),
    fc
      .tuple(base, above(DOMAIN.position.max))
      .map(([r, a]) =>
        bad('trade beyond 1e15', { ...asPositions(r), what_if: { trades: [{ symbol: symbols[0]!, market_value: a }] } }, [
          'body',
          'what_if',
          'trades',
          0,
          'market_value',
        ]),
      ),
    fc
      .tuple(base, fc.oneof(outside(DOMAIN.value.min, DOMAIN.value.max), fc.constantFrom(0, -0)))
      .map(([r, v]) => bad('portfolio_value outside [1e-6, 1e15]', { ...r, portfolio_value: v }, ['body', 'portfolio_value'])),
    fc
      .tuple(base, intOutside(DOMAIN.simulations.min, MAX_SIMULATIONS))
      .map(([r, n]) => bad('simulations outside', { ...r, simulations: n }, ['body', 'simulations'])),
    fc
      .tuple(base, fc.oneof(fc.constantFrom(1, 0.5 - 2 ** -54, 0, -1), outside(DOMAIN.confidence.min, 1 - 2 ** -53)))
      .map(([r, c]) => bad('confidence_level outside [0.5, 1)', { ...r, confidence_level: c }, ['body', 'confidence_level'])),
    fc
      .tuple(base, intOutside(DOMAIN.horizon.min, DOMAIN.horizon.max))
      .map(([r, h]) => bad('time_horizon outside', { ...r, time_horizon: h }, ['body', 'time_horizon'])),
    fc.tuple(base, fc.constantFrom(1.5, 10.25)).map(([r, h]) => bad('time_horizon not whole', { ...r, time_horizon: h }, ['body', 'time_horizon'])),
    fc
      .tuple(base, intOutside(DOMAIN.dof.min, DOMAIN.dof.max))
      .map(([r, v]) => bad('degrees_of_freedom outside', { ...r, method: 'monte_carlo_student_t', degrees_of_freedom: v }, ['body', 'degrees_of_freedom'])),
    fc
      .tuple(base, intOutside(DOMAIN.bins.min, DOMAIN.bins.max))
      .map(([r, b]) => bad('histogram_bins outside', opts(r, { histogram_bins: b }), ['body', 'method_options', 'histogram_bins'])),
    fc
      .tuple(base, intOutside(DOMAIN.lookback.min, DOMAIN.lookback.max))
      .map(([r, l]) => bad('lookback outside', opts(r, { lookback: l }), ['body', 'method_options', 'lookback'])),
    fc
      .tuple(base, fc.constantFrom(-1, 2 ** 53, 2 ** 64, 0.5))
      .map(([r, seed]) => bad('seed outside [0, 2^53 − 1]', opts(r, { seed }), ['body', 'method_options', 'seed'])),
    fc
      .tuple(base, outside(DOMAIN.target.min, DOMAIN.target.max))
      .map(([r, e]) => bad('target_relative_error outside', opts(r, { target_relative_error: e }), ['body', 'method_options', 'target_relative_error'])),
    // Short of 1 (the rest at 0), or over it (the first at 1, the second above the tolerance).
    fc.tuple(base, fc.oneof(fc.tuple(double(0, 0.999998), fc.constant(0)), fc.tuple(fc.constant(1), double(0.000002, 1)))).map(([r, [w0, w1]]) => {
      const p = asPortfolio(r).portfolio!;
      const weights = p.map((x, i) => ({ symbol: x.symbol, weight: i === 0 ? w0 : i === 1 ? w1 : 0 }));
      return bad('weights not summing to 1', { ...asPortfolio(r), portfolio: weights }, ['body', 'portfolio'], 'WEIGHTS_DO_NOT_SUM_TO_ONE');
    }),
    fc.tuple(base, fc.oneof(above(1), below(0))).map(([r, w]) => {
      const p = asPortfolio(r);
      return bad('a weight outside [0, 1]', { ...p, portfolio: p.portfolio!.map((x, i) => (i === 0 ? { ...x, weight: w } : x)) }, [
        'body',
        'portfolio',
        0,
        'weight',
      ]);
    }),
    fc.tuple(base, fc.nat()).map(([r, k]) => {
      const p = asPortfolio(r).portfolio!;
      const i = k % p.length;
      return bad(
        'unknown symbol',
        { ...asPortfolio(r), portfolio: p.map((x, j) => (j === i ? { ...x, symbol: 'NOT_THERE' } : x)) },
        ['body', 'portfolio', i, 'symbol'],
        'UNKNOWN_SYMBOL',
      );
    }),
    fc.tuple(base, fc.constantFrom('=cmd', '+SUM(1)', '-1', '@x', '__proto__', 'constructor', 'a"b', 'X'.repeat(65), 'tab\there', ' lead')).map(([r, name]) => {
      const p = asPortfolio(r);
      return bad('a symbol outside the grammar', { ...p, portfolio: p.portfolio!.map((x, i) => (i === 0 ? { ...x, symbol: name } : x)) }, [
        'body',
        'portfolio',
        0,
        'symbol',
      ]);
    }),
    base.map((r) => {
      const p = asPortfolio(r).portfolio!;
      return bad('a weight symbol twice', { ...asPortfolio(r), portfolio: [...p, { symbol: p[0]!.symbol, weight: 0 }] }, [
        'body',
        'portfolio',
        p.length,
        'symbol',
      ]);
    }),
    base.map((r) =>
      bad(
        'a trade symbol twice',
        {
          ...asPositions(r),
          what_if: {
            trades: [
              { symbol: symbols[0]!, quantity: 1 },
              { symbol: symbols[0]!, quantity: 2 },
            ],
          },
        },
        ['body', 'what_if', 'trades', 1, 'symbol'],
      ),
    ),
    base.map((r) => {
      const p = asPositions(r).positions! as PositionEntry[];
      return bad('quantity and market_value', { ...asPositions(r), positions: [{ ...p[0]!, quantity: 1, market_value: 1 }, ...p.slice(1)] }, [
        'body',
        'positions',
        0,
      ]);
    }),
    base.map((r) => bad('parametric rebalanced', { ...r, method: 'parametric_normal', portfolio_mode: 'rebalanced' }, ['body', 'portfolio_mode'])),
    base.map((r) => bad('ewma_lambda without ewma', opts(r, { ewma_lambda: 0.94 }), ['body', 'method_options', 'ewma_lambda'])),
    base.map((r) => bad('Monte Carlo without simulations', without(r, 'simulations'), ['body', 'simulations'])),
    base.map((r) =>
      bad('a target error without simulation', opts({ ...r, method: 'historical' }, { target_relative_error: 0.01 }), [
        'body',
        'method_options',
        'target_relative_error',
      ]),
    ),
    base.map((r) => bad('an unknown field', { ...r, leverage: 2 }, ['body', 'leverage'])),
    base.map((r) => bad('an unknown method', { ...r, method: 'monte_carlo' }, ['body', 'method'])),
    base.map((r) => bad('an unknown dataset', { ...r, dataset_id: 'ds_none' }, [], 'DATASET_NOT_FOUND', 404)),
  ];
  return fc.oneof(...kinds);
}
