// The declared domain of a calculate request (api.md §5), read from the TypeBox schema that
// validates requests, as fast-check arbitraries: every field over its whole range, with its edges.
import fc from 'fast-check';
import { choicesOf } from '../../src/risk/request-checks.js';
import { ISO_4217 } from '../../src/contract/currencies.js';
import {
  calculateRequestSchema,
  DEFAULTS,
  HISTORICAL_WINDOWS,
  METHODS,
  MONTE_CARLO,
  VARIANCE_REDUCTIONS,
  type CalculateRequest,
} from '../../src/contract/schemas.js';
import { ABI } from '../../src/engine/abi.js';
import { compileValidator } from '../../src/http/validator.js';
import { without } from './without.js';

export const MAX_SIMULATIONS = 10_000_000; // the configuration's default (api.md §5)
const schema = calculateRequestSchema(MAX_SIMULATIONS);
export const validateRequest = compileValidator(schema);

interface Bounds {
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  maxItems?: number;
}
const props = schema.properties as unknown as Record<string, Bounds>;
const options = (schema.properties.method_options as unknown as { properties?: Record<string, Bounds> }).properties!;
// Positions are stocks or cash (api.md §14): the stock item's bounds, and cash's amount the same.
const positionItems = (schema.properties.positions as unknown as { items: { anyOf: { properties: Record<string, Bounds> }[] } }).items.anyOf;
const positionProps = positionItems[0]!.properties;
const bound = (b: Bounds | undefined, key: keyof Bounds): number => {
  const v = b?.[key];
  if (typeof v !== 'number') throw new Error(`schema has no ${key}`);
  return v;
};

/** Largest double below 1: the top of every half-open (…, 1) range. */
export const BELOW_ONE = 1 - 2 ** -53;
export const DOMAIN = {
  seed: { min: bound(options.seed, 'minimum'), max: bound(options.seed, 'maximum') },
  simulations: { min: bound(props.simulations, 'minimum'), max: bound(props.simulations, 'maximum') },
  horizon: { min: bound(props.time_horizon, 'minimum'), max: bound(props.time_horizon, 'maximum') },
  confidence: { min: bound(props.confidence_level, 'minimum'), max: BELOW_ONE },
  dof: { min: bound(props.degrees_of_freedom, 'minimum'), max: bound(props.degrees_of_freedom, 'maximum') },
  bins: { min: bound(options.histogram_bins, 'minimum'), max: bound(options.histogram_bins, 'maximum') },
  lookback: { min: bound(options.lookback, 'minimum'), max: bound(options.lookback, 'maximum') },
  lambda: { min: Number.MIN_VALUE, max: BELOW_ONE },
  target: { min: bound(options.target_relative_error, 'minimum'), max: bound(options.target_relative_error, 'maximum') },
  value: { min: bound(props.portfolio_value, 'minimum'), max: bound(props.portfolio_value, 'maximum') },
  assets: { min: 1, max: bound(props.portfolio, 'maxItems') },
  position: { min: bound(positionProps.quantity, 'minimum'), max: bound(positionProps.quantity, 'maximum') },
};
if (bound(positionProps.market_value, 'maximum') !== DOMAIN.position.max) throw new Error('position domain changed');
if (bound(positionItems[1]!.properties.amount, 'maximum') !== bound(positionProps.quantity, 'maximum')) throw new Error('cash domain changed');

if (DOMAIN.confidence.max !== 1 - 2 ** -53 || bound(props.confidence_level, 'exclusiveMaximum') !== 1) throw new Error('confidence domain changed');

/** Seeds every run includes: the ends of the range and both sides of 2^31 and 2^32. */
export const SEED_EDGES = [0, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 1, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 2 ** 40 + 7, 2 ** 53 - 2, 2 ** 53 - 1];

// --- requests ----------------------------------------------------------------------------------

/** Work units of one simulation (a rough count of multiply-adds), to keep a case within a budget. */
function perScenarioCost(r: CalculateRequest): number {
  const n = (r.portfolio ?? r.positions ?? []).length + (r.what_if?.trades.length ?? 0);
  // Filtered history's T > 1 bootstrap carries every asset's variance along T drawn days.
  const daily = r.method === 'monte_carlo_student_t' || r.portfolio_mode === 'rebalanced' || r.method === 'historical_filtered';
  // Importance sampling keeps and sorts every scenario's asset P&L.
  const weighted = r.method_options?.variance_reduction === 'importance_sampling' ? 40 * n : 0;
  return (daily ? r.time_horizon : 1) * ((n * (n + 1)) / 2 + 4 * n) + weighted;
}

/** Fewer simulations when a drawn case would cost more than `budget` units (the others unchanged). */
export function withinBudget(r: CalculateRequest, budget: number): CalculateRequest {
  if (r.simulations === undefined) return r;
  const fit = Math.max(DOMAIN.simulations.min, Math.floor(budget / perScenarioCost(r)));
  return fit >= r.simulations ? r : { ...r, simulations: fit };
}

/** Positions of a drawn book whose amounts take every edge of the domain. */
const POSITIONS_WITH_EDGES = 10;

const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 3 });
const double = (min: number, max: number) => fc.double({ min, max, noNaN: true, noDefaultInfinity: true });

/**
 * Valid calculate requests over the whole declared domain, and only inside it (fast-check biases
 * integers and doubles towards their bounds). `maxAssets` bounds the book by the dataset's symbols; `budget` bounds a
 * case's work by lowering its simulation count only.
 */
export function calculateRequests(datasetId: string, symbols: string[], maxAssets: number, budget: number): fc.Arbitrary<CalculateRequest> {
  const most = Math.min(maxAssets, symbols.length);
  const indices = (minLength: number) => fc.uniqueArray(fc.integer({ min: 0, max: symbols.length - 1 }), { minLength, maxLength: most });
  // Books of any size (fast-check favours small ones), and books at least as wide as the shortest
  // window, which sample through loadings when the window drawn is no longer than the book.
  const book = (most >= DOMAIN.lookback.min ? fc.oneof(indices(1), indices(DOMAIN.lookback.min)) : indices(1)).chain((idx) =>
    fc.tuple(fc.constant(idx), fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: idx.length, maxLength: idx.length })),
  );
  // Positions: any sign, every magnitude up to the bound and its edges, by quantity or by value
  // (amounts beyond the bound are invalid-requests.ts's).
  // Weighted to a desk's amounts, so that a wide book is not nearly always levered by an edge.
  const amount = fc.oneof(
    { arbitrary: fc.constantFrom<number>(0, -0, 1, -1, Number.MIN_VALUE, -DOMAIN.position.max, DOMAIN.position.max, 2 ** 31, 2 ** 32), weight: 1 },
    { arbitrary: double(DOMAIN.position.min, DOMAIN.position.max), weight: 1 },
    { arbitrary: double(-1e7, 1e7), weight: 6 },
  );
  const positions = fc.record({
    amounts: fc.array(amount, { minLength: maxAssets, maxLength: maxAssets }),
    deskAmounts: fc.array(double(-1e7, 1e7), { minLength: maxAssets, maxLength: maxAssets }),
    byQuantity: fc.array(fc.boolean(), { minLength: maxAssets, maxLength: maxAssets }),
    withValue: fc.boolean(),
    // Capital against the book's gross (its leverage), or null: the value drawn over the whole range.
    leverage: fc.option(double(0.01, 100), { nil: null, freq: 5 }),
    trades: fc.option(fc.array(fc.tuple(fc.integer({ min: 0, max: symbols.length - 1 }), amount, fc.boolean()), { minLength: 1, maxLength: 3 }), {
      nil: undefined,
      freq: 3,
    }),
  });
  return fc
    .record({
      kind: fc.constantFrom('portfolio' as const, 'positions' as const),
      positions,
      method: fc.constantFrom(...METHODS),
      portfolio_mode: optional(fc.constantFrom('buy_and_hold' as const, 'rebalanced' as const)),
      seed: fc.oneof(fc.constantFrom(...SEED_EDGES), fc.integer({ min: DOMAIN.seed.min, max: DOMAIN.seed.max })),
      antithetic: optional(fc.boolean()),
      drift: optional(fc.constantFrom('sample' as const, 'zero' as const)),
      // The whole range, and windows near the book sizes, where both sampling paths come up.
      lookback: optional(
        fc.oneof(
          fc.integer({ min: DOMAIN.lookback.min, max: DOMAIN.lookback.max }),
          fc.integer({ min: DOMAIN.lookback.min, max: Math.max(DOMAIN.lookback.min, 2 * maxAssets) }),
        ),
      ),
      covariance: optional(fc.constantFrom('sample' as const, 'ewma' as const)),
      ewma_lambda: optional(double(DOMAIN.lambda.min, DOMAIN.lambda.max)),
      filter_lambda: optional(fc.option(double(DOMAIN.lambda.min, DOMAIN.lambda.max), { nil: null })),
      garch: fc.boolean(),
      histogram_bins: optional(fc.integer({ min: DOMAIN.bins.min, max: DOMAIN.bins.max })),
      target_relative_error: optional(double(DOMAIN.target.min, DOMAIN.target.max)),
      variance_reduction: optional(fc.constantFrom(...VARIANCE_REDUCTIONS)),
      // The whole range of each, weighted to what desks send (see time_horizon).
      portfolio_value: fc.oneof({ arbitrary: double(DOMAIN.value.min, DOMAIN.value.max), weight: 1 }, { arbitrary: double(1e3, 1e10), weight: 3 }),
      currency: fc.constantFrom(...[...ISO_4217].sort()),
      book,
      confidence_level: fc.oneof({ arbitrary: double(DOMAIN.confidence.min, DOMAIN.confidence.max), weight: 1 }, { arbitrary: double(0.9, 0.9999), weight: 3 }),
      // The whole range, weighted to the horizons desks ask for: a long rebalanced path of a
      // leveraged book, or importance sampling at c within 1e-14 of 1, leaves double precision
      // (refused as an overflow), and those must not crowd out the cases that would show a valid
      // request wrongly refused (at most 2 % may be refused).
      time_horizon: fc.oneof(
        { arbitrary: fc.integer({ min: DOMAIN.horizon.min, max: DOMAIN.horizon.max }), weight: 1 },
        { arbitrary: fc.integer({ min: DOMAIN.horizon.min, max: 20 }), weight: 3 },
      ),
      simulations: fc.integer({ min: DOMAIN.simulations.min, max: DOMAIN.simulations.max }),
      degrees_of_freedom: optional(fc.integer({ min: DOMAIN.dof.min, max: DOMAIN.dof.max })),
    })
    .map((d) => {
      const [idx, raw] = d.book;
      const total = raw.reduce((a, b) => a + b, 0);
      const weights = total === 0 ? raw.map((_, i) => (i === 0 ? 1 : 0)) : raw.map((x) => x / total);
      const lookback = d.lookback;
      // Options a method would ignore are refused (test/unit/request-checks.test.ts): drawn only where they apply.
      const applies = choicesOf(d.method);
      // Historical simulation needs a T-day window inside the returns it is given (filtered history draws paths).
      const windowed =
        HISTORICAL_WINDOWS.has(d.method) && d.method !== 'historical_filtered' && lookback !== undefined ? Math.min(d.time_horizon, lookback) : d.time_horizon;
      // Filtered history: rebalanced at T = 1 only (its T > 1 paths carry T-day sums), and drawn paths of
      // up to 20 days, where desks use them: over hundreds of heavy-tailed days a path's variance can
      // run away (refused as an overflow, api.md §16); the edge requests reach T = 1,000.
      // A small λ makes σ_{t+1} ≈ |r_t|, z_t a ratio of consecutive returns (thousands on the sample), and
      // a path's variance multiply by z² each day (refused as an overflow, filtered-bootstrap.test.ts):
      // such λ are drawn at T = 1, the paths with λ ≥ 0.8, the default or GARCH.
      const filtered = d.method === 'historical_filtered';
      const explosive = d.filter_lambda !== undefined && d.filter_lambda !== null && d.filter_lambda < 0.8 && !d.garch;
      const horizon = !filtered ? windowed : d.portfolio_mode === 'rebalanced' || explosive ? 1 : Math.min(windowed, 20);
      const rebalances = applies.rebalanced && (horizon === 1 || applies.rebalancedOverDays);
      const covariance = d.covariance === 'ewma' && !applies.ewma ? undefined : d.covariance;
      const method_options: NonNullable<CalculateRequest['method_options']> = { seed: d.seed };
      if (d.antithetic !== undefined) method_options.antithetic = d.antithetic;
      if (d.drift !== undefined) method_options.drift = d.drift;
      if (lookback !== undefined) method_options.lookback = lookback;
      if (covariance !== undefined) method_options.covariance = covariance;
      if (covariance === 'ewma' && d.ewma_lambda !== undefined) method_options.ewma_lambda = d.ewma_lambda;
      if (d.histogram_bins !== undefined) method_options.histogram_bins = d.histogram_bins;
      if (applies.filter && d.garch) method_options.filter = { model: 'garch11' };
      else if (applies.filter && d.filter_lambda !== undefined)
        method_options.filter = d.filter_lambda === null ? { model: 'ewma' } : { model: 'ewma', lambda: d.filter_lambda };
      // A target error is refused where nothing is simulated (historical, the closed form).
      if (d.target_relative_error !== undefined && MONTE_CARLO.has(d.method)) method_options.target_relative_error = d.target_relative_error;
      // Importance sampling shifts normal draws: Monte Carlo only, Student-t from its least ν.
      const nu = d.degrees_of_freedom ?? DEFAULTS.degrees_of_freedom;
      const shiftable = MONTE_CARLO.has(d.method) && (d.method !== 'monte_carlo_student_t' || nu >= ABI.MIN_IMPORTANCE_DEGREES_OF_FREEDOM);
      if (d.variance_reduction !== undefined && (shiftable || d.variance_reduction === 'none')) method_options.variance_reduction = d.variance_reduction;
      const request: CalculateRequest = {
        dataset_id: datasetId,
        method: d.method,
        method_options,
        portfolio_value: d.portfolio_value,
        currency: d.currency,
        portfolio: idx.map((i, k) => ({ symbol: symbols[i]!, weight: weights[k]! })),
        confidence_level: d.confidence_level,
        time_horizon: horizon,
        simulations: d.simulations,
        ...(d.portfolio_mode !== undefined && (rebalances || d.portfolio_mode !== 'rebalanced') ? { portfolio_mode: d.portfolio_mode } : {}),
        ...(d.degrees_of_freedom !== undefined ? { degrees_of_freedom: d.degrees_of_freedom } : {}),
      };
      if (d.kind === 'portfolio') return withinBudget(request, budget);
      // The same symbols as a long/short book; a book of zeros gets one unit of its first symbol.
      const p = d.positions;
      // Past the first positions of a wide book, a desk's amounts: edges on every one of 70
      // positions would lever nearly every wide book past double precision.
      const amounts: number[] = idx.map((_, k) => (k < POSITIONS_WITH_EDGES ? p.amounts[k]! : p.deskAmounts[k]!));
      if (!amounts.some((a) => a !== 0)) amounts[0] = 1;
      const positionsRequest: CalculateRequest = {
        ...without(request, 'portfolio'),
        positions: idx.map((i, k) => (p.byQuantity[k] ? { symbol: symbols[i]!, quantity: amounts[k]! } : { symbol: symbols[i]!, market_value: amounts[k]! })),
      };
      if (!p.withValue) delete positionsRequest.portfolio_value;
      else if (p.leverage !== null) {
        // Mostly a desk's leverage: a book levered 1e20 times over a long rebalanced path leaves
        // double precision (an overflow), which the whole-range draws still reach.
        const gross = amounts.reduce((a, x, k) => a + Math.abs(x) * (p.byQuantity[k] ? 100 : 1), 0);
        positionsRequest.portfolio_value = Math.min(DOMAIN.value.max, Math.max(DOMAIN.value.min, gross / p.leverage));
      }
      if (p.trades) {
        const trades = [
          ...new Map(p.trades.map(([i, a, q]) => [symbols[i]!, q ? { symbol: symbols[i]!, quantity: a } : { symbol: symbols[i]!, market_value: a }])).values(),
        ];
        positionsRequest.what_if = { trades };
      }
      return withinBudget(positionsRequest, budget);
    });
}

/** The currencies of the multi-currency test dataset (test/helpers/four-builds.ts): its base and its pairs'. */
export const REPORTING_CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY'];

/**
 * Requests on a multi-currency dataset (api.md §14): every drawn request reported in USD, EUR, GBP
 * or JPY, and a positions book with up to three cash holdings (any of the four currencies, the
 * reporting one included) beside its stocks.
 */
export function multiCurrencyRequests(datasetId: string, symbols: string[], maxAssets: number, budget: number): fc.Arbitrary<CalculateRequest> {
  const cash = fc.array(fc.tuple(fc.constantFrom(...REPORTING_CURRENCIES), fc.oneof(double(-1e7, 1e7), fc.constantFrom(0, 1, -1, 2 ** 31, 2 ** 32))), {
    maxLength: 3,
  });
  return fc.tuple(calculateRequests(datasetId, symbols, maxAssets, budget), fc.constantFrom(...REPORTING_CURRENCIES), cash).map(([r, currency, held]) => ({
    ...r,
    currency,
    ...(r.positions ? { positions: [...r.positions, ...held.map(([code, amount]) => ({ cash: code, amount }))] } : {}),
  }));
}
