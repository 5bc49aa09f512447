// The declared domain of a calculate request (api.md §5), read from the TypeBox schema that
// validates requests, as fast-check arbitraries: every field over its whole range, with its edges.
import fc from 'fast-check';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { EstimateCache } from '../../src/risk/estimate-cache.js';
import { calculate, type CalculatorDeps } from '../../src/risk/calculate.js';
import { choicesOf } from '../../src/risk/request-checks.js';
import { readCsv } from '../../src/datasets/csv-reader.js';
import { DirectExecutor } from '../../src/engine/direct-executor.js';
import { instantiateEngine, resolveEngineSource } from '../../src/engine/load.js';
import { NativeEngine } from '../../src/engine/native-engine.js';
import { type Engine } from '../../src/engine/ops.js';
import { ISO_4217 } from '../../src/contract/currencies.js';
import { ApiError } from '../../src/contract/errors.js';
import { calculateRequestSchema, DEFAULTS, METHODS, MONTE_CARLO, VARIANCE_REDUCTIONS, type CalculateRequest } from '../../src/contract/schemas.js';
import { ABI } from '../../src/engine/abi.js';
import { type CalculateResponseBody } from '../../src/contract/responses.js';
import { compileValidator } from '../../src/http/validator.js';
import { FileDatasetStore } from '../../src/datasets/dataset-store.js';
import { mulberry32 } from './mulberry32.js';
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
const positionProps = (schema.properties.positions as unknown as { items: { properties: Record<string, Bounds> } }).items.properties;
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
if (DOMAIN.confidence.max !== 1 - 2 ** -53 || bound(props.confidence_level, 'exclusiveMaximum') !== 1) throw new Error('confidence domain changed');

/** Seeds every run includes: the ends of the range and both sides of 2^31 and 2^32. */
export const SEED_EDGES = [0, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 1, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 2 ** 40 + 7, 2 ** 53 - 2, 2 ** 53 - 1];

// --- the dataset every generated request names -----------------------------------------------

/** Synthetic daily prices: one market factor plus noise, a late starter and scattered gaps. */
export function syntheticWideCsv(symbols: number, dates: number, seed = 7): string {
  const rand = mulberry32(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const names = Array.from({ length: symbols }, (_, i) => `S${String(i).padStart(4, '0')}`);
  const vol = names.map((_, i) => 0.006 + (0.02 * ((i * 7919) % 101)) / 100);
  const price = names.map(() => 50 + 100 * rand());
  const lines = ['date,' + names.join(',')];
  const day = new Date(Date.UTC(2018, 0, 1));
  for (let d = 0; d < dates; d++) {
    do day.setUTCDate(day.getUTCDate() + 1);
    while (day.getUTCDay() === 0 || day.getUTCDay() === 6);
    const market = normal();
    const cells = price.map((p, i) => {
      price[i] = p * Math.exp(0.0002 + vol[i]! * (0.6 * market + 0.8 * normal()));
      const missing = (i === 1 && d < 50) || (i === 2 && d % 97 === 5);
      return missing ? '' : price[i]!.toPrecision(10);
    });
    lines.push(`${day.toISOString().slice(0, 10)},${cells.join(',')}`);
  }
  return lines.join('\n') + '\n';
}

export const OWNER = 'property';

/** A dataset stored through the real file store, and its symbols. */
export async function storeSyntheticDataset(symbols: number, dates: number): Promise<{ store: FileDatasetStore; id: string; symbols: string[] }> {
  const store = new FileDatasetStore(mkdtempSync(path.join(os.tmpdir(), 'risk-property-')));
  await store.open();
  const dataset = await readCsv(Readable.from([Buffer.from(syntheticWideCsv(symbols, dates))]), { maxSymbols: 5000 });
  const saved = await store.save(OWNER, dataset);
  return { store, id: saved.id, symbols: dataset.symbols };
}

// --- the four builds ---------------------------------------------------------------------------

export interface Build {
  name: string;
  deps: CalculatorDeps;
}

/** WASM simd128, WASM scalar, native for this CPU and native x86-64, each with its own task split. */
export function fourBuilds(store: FileDatasetStore): Build[] {
  const engines: [string, Engine, number][] = [
    ['wasm-simd128', instantiateEngine(resolveEngineSource('wasm')), 1],
    ['wasm-scalar', instantiateEngine(resolveEngineSource('wasm-scalar')), 3],
    ['native', instantiateEngine(resolveEngineSource('native')), 2],
    ['native-x86-64', NativeEngine.baseline(), 1],
  ];
  return engines.map(([name, engine, maxBatches]) => ({
    name,
    deps: {
      datasets: store,
      executor: new DirectExecutor(engine),
      estimates: new EstimateCache(),
      engine: { build: engine.build, version: engine.version, threads: maxBatches },
      maxBatches,
      // Every estimation of a build with several tasks is split over them: the builds that do
      // must agree bit for bit with those that do not.
      minSplitEstimationWork: 0,
      timeoutMs: 3_600_000,
    },
  }));
}

export type Outcome = { ok: true; body: CalculateResponseBody } | { ok: false; status: number; code: string; message: string };

/** One calculation through validation and the risk layer; a non-contract failure throws. */
export async function outcomeOf(request: unknown, deps: CalculatorDeps): Promise<Outcome> {
  try {
    return { ok: true, body: await calculate(validateRequest(request), OWNER, deps) };
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    return { ok: false, status: e.status, code: e.code, message: e.message };
  }
}

/** What must be identical between builds: the response without its id, timings and engine name. */
export function comparable(o: Outcome): string {
  if (!o.ok) return JSON.stringify(o);
  return JSON.stringify({ ...o.body.meta, calculation_id: null, timing_ms: null, engine: null });
}

// --- requests ----------------------------------------------------------------------------------

/** Work units of one simulation (a rough count of multiply-adds), to keep a case within a budget. */
function perScenarioCost(r: CalculateRequest): number {
  const n = (r.portfolio ?? r.positions ?? []).length + (r.what_if?.trades.length ?? 0);
  const daily = r.method === 'monte_carlo_student_t' || r.portfolio_mode === 'rebalanced';
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

const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 3 });
const double = (min: number, max: number) => fc.double({ min, max, noNaN: true, noDefaultInfinity: true });

/**
 * Valid calculate requests over the whole declared domain (fast-check biases integers and doubles
 * towards their bounds). `maxAssets` bounds the book by the dataset's symbols; `budget` bounds a
 * case's work by lowering its simulation count only.
 */
export function calculateRequests(datasetId: string, symbols: string[], maxAssets: number, budget: number): fc.Arbitrary<CalculateRequest> {
  const book = fc
    .uniqueArray(fc.integer({ min: 0, max: symbols.length - 1 }), { minLength: 1, maxLength: Math.min(maxAssets, symbols.length) })
    .chain((idx) => fc.tuple(fc.constant(idx), fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: idx.length, maxLength: idx.length })));
  // Positions: any sign, every magnitude up to the bound and its edges, by quantity or by value.
  const amount = fc.oneof(
    fc.constantFrom<number>(0, -0, 1, -1, Number.MIN_VALUE, -DOMAIN.position.max, DOMAIN.position.max, 2 ** 31, 2 ** 32, 2 ** 53 - 1),
    double(DOMAIN.position.min, DOMAIN.position.max),
    double(-1e7, 1e7),
  );
  const positions = fc.record({
    amounts: fc.array(amount, { minLength: maxAssets, maxLength: maxAssets }),
    byQuantity: fc.array(fc.boolean(), { minLength: maxAssets, maxLength: maxAssets }),
    withValue: fc.boolean(),
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
      lookback: optional(fc.integer({ min: DOMAIN.lookback.min, max: DOMAIN.lookback.max })),
      covariance: optional(fc.constantFrom('sample' as const, 'ewma' as const)),
      ewma_lambda: optional(double(DOMAIN.lambda.min, DOMAIN.lambda.max)),
      histogram_bins: optional(fc.integer({ min: DOMAIN.bins.min, max: DOMAIN.bins.max })),
      target_relative_error: optional(double(DOMAIN.target.min, DOMAIN.target.max)),
      variance_reduction: optional(fc.constantFrom(...VARIANCE_REDUCTIONS)),
      portfolio_value: double(DOMAIN.value.min, DOMAIN.value.max),
      currency: fc.constantFrom(...[...ISO_4217].sort()),
      book,
      confidence_level: double(DOMAIN.confidence.min, DOMAIN.confidence.max),
      time_horizon: fc.integer({ min: DOMAIN.horizon.min, max: DOMAIN.horizon.max }),
      simulations: fc.integer({ min: DOMAIN.simulations.min, max: DOMAIN.simulations.max }),
      degrees_of_freedom: optional(fc.integer({ min: DOMAIN.dof.min, max: DOMAIN.dof.max })),
    })
    .map((d) => {
      const [idx, raw] = d.book;
      const total = raw.reduce((a, b) => a + b, 0);
      const weights = total === 0 ? raw.map((_, i) => (i === 0 ? 1 : 0)) : raw.map((x) => x / total);
      const lookback = d.lookback;
      // Historical simulation needs a T-day window inside the returns it is given.
      const horizon = d.method === 'historical' && lookback !== undefined ? Math.min(d.time_horizon, lookback) : d.time_horizon;
      // Options a method would ignore are refused (test/unit/request-checks.test.ts): drawn only where they apply.
      const applies = choicesOf(d.method);
      const covariance = d.covariance === 'ewma' && !applies.ewma ? undefined : d.covariance;
      const method_options: NonNullable<CalculateRequest['method_options']> = { seed: d.seed };
      if (d.antithetic !== undefined) method_options.antithetic = d.antithetic;
      if (d.drift !== undefined) method_options.drift = d.drift;
      if (lookback !== undefined) method_options.lookback = lookback;
      if (covariance !== undefined) method_options.covariance = covariance;
      if (covariance === 'ewma' && d.ewma_lambda !== undefined) method_options.ewma_lambda = d.ewma_lambda;
      if (d.histogram_bins !== undefined) method_options.histogram_bins = d.histogram_bins;
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
        ...(d.portfolio_mode !== undefined && (applies.rebalanced || d.portfolio_mode !== 'rebalanced') ? { portfolio_mode: d.portfolio_mode } : {}),
        ...(d.degrees_of_freedom !== undefined ? { degrees_of_freedom: d.degrees_of_freedom } : {}),
      };
      if (d.kind === 'portfolio') return withinBudget(request, budget);
      // The same symbols as a long/short book; a book of zeros gets one unit of its first symbol.
      const p = d.positions;
      const amounts: number[] = idx.map((_, k) => p.amounts[k]!);
      if (!amounts.some((a) => a !== 0)) amounts[0] = 1;
      const positionsRequest: CalculateRequest = {
        ...without(request, 'portfolio'),
        positions: idx.map((i, k) => (p.byQuantity[k] ? { symbol: symbols[i]!, quantity: amounts[k]! } : { symbol: symbols[i]!, market_value: amounts[k]! })),
      };
      if (!p.withValue) delete positionsRequest.portfolio_value;
      if (p.trades) {
        const trades = [
          ...new Map(p.trades.map(([i, a, q]) => [symbols[i]!, q ? { symbol: symbols[i]!, quantity: a } : { symbol: symbols[i]!, market_value: a }])).values(),
        ];
        positionsRequest.what_if = { trades };
      }
      return withinBudget(positionsRequest, budget);
    });
}

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
  for (const positions of books) {
    for (const method of METHODS) {
      for (const portfolio_mode of ['buy_and_hold', 'rebalanced'] as const) out.push({ ...noBook, method, portfolio_mode, positions });
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
  return out;
}
