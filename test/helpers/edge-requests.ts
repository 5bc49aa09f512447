// The edges of every field of a calculate request (api.md §5), each in a request of its own: the
// cases a property test runs before its random draws.
import { ABI } from '../../src/engine/abi.js';
import { choicesOf } from '../../src/risk/request-checks.js';
import { METHODS, type CalculateRequest } from '../../src/contract/schemas.js';
import { DOMAIN, SEED_EDGES } from './calculation-domain.js';
import { without } from './without.js';

/** A plain request to derive edge cases from: one field changed at a time. */
export function baseRequest(datasetId: string, symbols: string[]): CalculateRequest {
  return {
    dataset_id: datasetId,
    method: 'monte_carlo_normal',
    method_options: { seed: 1 },
    portfolio_value: 1_000_000,
    currency: 'USD',
    portfolio: [
      { symbol: symbols[0]!, weight: 0.5 },
      { symbol: symbols[3]!, weight: 0.5 },
    ],
    confidence_level: 0.99,
    time_horizon: 10,
    simulations: 1_000,
  };
}

/** The edges of every field, each in a request of its own (run before the random cases). */
export function edgeRequests(datasetId: string, symbols: string[], maxAssets: number): CalculateRequest[] {
  const base = baseRequest(datasetId, symbols);
  const opts = (o: NonNullable<CalculateRequest['method_options']>) => ({ ...base, method_options: { ...base.method_options, ...o } });
  const one = (symbol: string) => [{ symbol, weight: 1 }];
  const out: CalculateRequest[] = [];
  for (const seed of SEED_EDGES) for (const method of ['monte_carlo_normal', 'monte_carlo_student_t'] as const) out.push({ ...opts({ seed }), method });
  out.push({ ...base, simulations: DOMAIN.simulations.min }, { ...base, simulations: DOMAIN.simulations.min + 1 });
  out.push({ ...base, portfolio: one(symbols[0]!), simulations: DOMAIN.simulations.max, confidence_level: 0.999 });
  const many = symbols.slice(0, maxAssets);
  out.push({ ...base, portfolio: many.map((symbol) => ({ symbol, weight: 1 / many.length })) });
  out.push({ ...base, portfolio: many.map((symbol, i) => ({ symbol, weight: i === many.length - 1 ? 1 : 0 })) });
  for (const time_horizon of [DOMAIN.horizon.min, DOMAIN.horizon.max]) {
    for (const method of METHODS) {
      for (const portfolio_mode of ['buy_and_hold', 'rebalanced'] as const) {
        if (portfolio_mode === 'rebalanced' && !choicesOf(method).rebalanced) continue;
        if (time_horizon !== 1 && method === 'historical_filtered') continue; // its own T > 1 edges follow
        out.push({ ...base, method, portfolio_mode, time_horizon, simulations: DOMAIN.simulations.min, portfolio: one(symbols[0]!) });
      }
    }
  }
  for (const confidence_level of [DOMAIN.confidence.min, DOMAIN.confidence.max]) {
    for (const method of METHODS) out.push({ ...base, method, confidence_level });
  }
  for (const degrees_of_freedom of [DOMAIN.dof.min, DOMAIN.dof.max]) out.push({ ...base, method: 'monte_carlo_student_t', degrees_of_freedom });
  for (const histogram_bins of [DOMAIN.bins.min, DOMAIN.bins.max]) out.push(opts({ histogram_bins }));
  for (const target_relative_error of [DOMAIN.target.min, DOMAIN.target.max])
    for (const method of ['monte_carlo_normal', 'monte_carlo_student_t'] as const)
      out.push({ ...opts({ target_relative_error }), method, simulations: 40_000 });
  // Importance sampling on every model it applies to, at the confidence bounds, with the least ν.
  const shifted = opts({ variance_reduction: 'importance_sampling' });
  for (const portfolio_mode of ['buy_and_hold', 'rebalanced'] as const)
    for (const confidence_level of [DOMAIN.confidence.min, 0.99, DOMAIN.confidence.max]) {
      out.push({ ...shifted, portfolio_mode, confidence_level });
      out.push({ ...shifted, method: 'monte_carlo_student_t', degrees_of_freedom: ABI.MIN_IMPORTANCE_DEGREES_OF_FREEDOM, portfolio_mode, confidence_level });
    }
  out.push({ ...shifted, simulations: DOMAIN.simulations.min }, { ...shifted, portfolio: many.map((symbol) => ({ symbol, weight: 1 / many.length })) });
  out.push({ ...opts({ variance_reduction: 'importance_sampling', antithetic: true, target_relative_error: 0.01 }), simulations: 40_000 });
  for (const lookback of [DOMAIN.lookback.min, DOMAIN.lookback.max]) for (const method of METHODS) out.push({ ...opts({ lookback }), method });
  // The sampling rule's edges: loadings while lookback ≤ assets (Σ singular), a Cholesky factor above.
  const rule = many.length;
  for (const lookback of [DOMAIN.lookback.min, rule, rule + 1].filter((l) => l >= DOMAIN.lookback.min))
    for (const method of ['monte_carlo_normal', 'monte_carlo_student_t'] as const)
      for (const portfolio_mode of ['buy_and_hold', 'rebalanced'] as const)
        out.push({ ...opts({ lookback }), method, portfolio_mode, portfolio: many.map((symbol) => ({ symbol, weight: 1 / many.length })) });
  for (const ewma_lambda of [DOMAIN.lambda.min, 0.5, DOMAIN.lambda.max])
    for (const method of METHODS.filter((m) => choicesOf(m).ewma)) out.push({ ...opts({ covariance: 'ewma', ewma_lambda }), method });
  for (const portfolio_value of [DOMAIN.value.min, 1, DOMAIN.value.max]) for (const method of METHODS) out.push({ ...base, method, portfolio_value });
  for (const drift of ['sample', 'zero'] as const) for (const method of METHODS) out.push({ ...opts({ drift, antithetic: true }), method });
  // Long/short books at the edges of the position domain, in both modes, with and without a what-if.
  const noBook = without(base, 'portfolio', 'portfolio_value');
  const max = DOMAIN.position.max;
  const books: NonNullable<CalculateRequest['positions']>[] = [
    [
      { symbol: symbols[0]!, market_value: 1.5e6 },
      { symbol: symbols[3]!, quantity: -2_000 },
    ],
    [
      { symbol: symbols[0]!, market_value: 1e6 },
      { symbol: symbols[3]!, market_value: -1e6 },
    ],
    [
      { symbol: symbols[0]!, quantity: -max },
      { symbol: symbols[3]!, market_value: -max },
    ],
    [
      { symbol: symbols[0]!, quantity: max },
      { symbol: symbols[3]!, quantity: 0 },
    ],
    [{ symbol: symbols[0]!, quantity: Number.MIN_VALUE }],
    many.map((symbol, i) => ({ symbol, market_value: i % 2 === 0 ? 1e6 : -1e6 })),
  ];
  // A rebalanced book levered ~30,000× over 158 days at c = 0.5, found by the random draws: its
  // components may be thousands of times their sum (±1.7e13 for a VaR of 2.9e9 on 96 symbols).
  const levered: NonNullable<CalculateRequest['positions']> = [
    { symbol: symbols[Math.min(43, many.length - 1)]!, quantity: 27_390_928.350531027 },
    { symbol: symbols[0]!, market_value: 2 ** 31 },
  ];
  out.push({
    ...noBook,
    method_options: { seed: 0 },
    positions: levered,
    portfolio_value: 68_892_848.66734564,
    confidence_level: 0.5,
    time_horizon: 158,
    simulations: 229,
    portfolio_mode: 'rebalanced',
  });
  for (const positions of books) {
    for (const method of METHODS) {
      for (const portfolio_mode of ['buy_and_hold', 'rebalanced'] as const)
        if (portfolio_mode === 'buy_and_hold' || choicesOf(method).rebalanced) out.push({ ...noBook, method, portfolio_mode, positions });
      out.push({ ...noBook, method, positions, portfolio_value: DOMAIN.value.min });
      out.push({
        ...noBook,
        method,
        positions,
        what_if: {
          trades: [
            { symbol: symbols[5]!, market_value: -1e5 },
            { symbol: symbols[0]!, quantity: 10 },
          ],
        },
      });
    }
  }
  // Filtered history: the edges above at T = 1 (every date, as before its bootstrap existed), then
  // its T > 1 bootstrap paths on their own: each filter, the seed edges, the longest horizon.
  const paths: CalculateRequest[] = [];
  // (λ near 0 explodes over a path: its overflow is filtered-bootstrap.test.ts's; here at T = 1.)
  for (const lambda of [DOMAIN.lambda.min, DOMAIN.lambda.max])
    paths.push({ ...opts({ filter: { model: 'ewma', lambda } }), method: 'historical_filtered', time_horizon: 1 });
  paths.push({ ...opts({ filter: { model: 'ewma', lambda: DOMAIN.lambda.max } }), method: 'historical_filtered', time_horizon: 10 });
  for (const time_horizon of [1, 10]) paths.push({ ...opts({ filter: { model: 'garch11' } }), method: 'historical_filtered', time_horizon });
  for (const seed of SEED_EDGES) paths.push({ ...opts({ seed }), method: 'historical_filtered' });
  paths.push({ ...base, method: 'historical_filtered', time_horizon: DOMAIN.horizon.max, simulations: DOMAIN.simulations.min, portfolio: one(symbols[0]!) });
  return [...out.map((r) => (r.method === 'historical_filtered' ? { ...r, time_horizon: 1 } : r)), ...paths];
}
