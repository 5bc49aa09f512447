import { decodeResults } from '../../src/engine/results-codec.js';
import { encodeSpec } from '../../src/engine/spec-codec.js';
import { DirectExecutor } from '../../src/engine/direct-executor.js';
import { instantiateEngine, resolveEngineSource } from '../../src/engine/load.js';
import { ABI } from '../../src/engine/abi.js';
import { type Engine } from '../../src/engine/ops.js';
import { NativeEngine } from '../../src/engine/native-engine.js';
import { compileWasm, WasmEngine } from '../../src/engine/wasm-engine.js';
import { warmUp } from '../../src/engine/warm-up.js';
import { blockCount } from '../../src/risk/plan.js';
import { simulationSpec } from '../../src/risk/engine-run.js';
import { plainVarEs } from '../plain-ts-engine.js';
import { interleaved } from './stats.js';
import { prepare, type PreparedWorkload, type Workload, triangularFactor } from './workloads.js';

export const BUILDS = { 'wasm-simd128': 'wasm', 'wasm-scalar': 'wasm-scalar', native: 'native' } as const;
export type BuildName = keyof typeof BUILDS | 'native-x86-64';

/** Every build, each warmed up (the first calls of a fresh instance run slower: tier-up, memory growth). */
export function engines(): Record<BuildName, Engine> {
  const es = Object.fromEntries(Object.entries(BUILDS).map(([name, choice]) => [name, instantiateEngine(resolveEngineSource(choice))])) as Record<
    BuildName,
    Engine
  >;
  es['native-x86-64'] = NativeEngine.baseline();
  for (const e of Object.values(es)) for (let i = 0; i < 3; i++) warmUp(e);
  return es;
}

export interface EngineFigures {
  ms: Record<string, number>;
  /** Every round's time of each build (ms), for ratios within a round. */
  samples: Record<string, number[]>;
  var: number;
  es: number;
  oracle?: { var: number; ms: number; simulations: number };
}

/** One workload on every build (single thread, interleaved), answers checked across builds. */
export async function benchWorkload(es: Record<BuildName, Engine>, p: PreparedWorkload, repeats: number, plainSims: number): Promise<EngineFigures> {
  const input = encodeSpec(simulationSpec(p.model, p.estimation), 0, blockCount(p.model.simulations));
  const builds: Record<string, () => Float64Array | PlainResult> = Object.fromEntries(
    Object.entries(es).map(([name, e]) => [name, () => e.call(ABI.OP_RUN, input)]),
  );
  const plain = plainSims > 0 ? plainModel(p, plainSims) : null;
  if (plain) {
    plainVarEs({ ...plain, simulations: Math.min(plainSims, 2_000) }); // JIT warm-up
    // In the same interleaved rounds as the builds, so that a busy moment lands on both sides.
    builds.plain = () => plainVarEs(plain);
  }
  const { ms, last, samples } = await interleaved(builds, repeats);
  const reference = last['wasm-simd128'] as Float64Array;
  for (const name of Object.keys(es)) {
    const out = last[name] as Float64Array;
    if (out.length !== reference.length || out.some((x, i) => !Object.is(x, reference[i])))
      throw new Error(`${p.workload.id}: ${name} disagrees with wasm-simd128`);
  }
  const m = decodeResults(reference).books[0]!;
  const { plain: plainMs, ...buildMs } = ms;
  const figures: EngineFigures = { ms: buildMs, samples, var: m.valueAtRisk, es: m.expectedShortfall };
  if (plain) {
    // Time per simulation scaled to the workload's simulations (the plain code is linear in them).
    figures.oracle = { var: (last.plain as PlainResult).valueAtRisk, ms: (plainMs! * p.model.simulations) / plainSims, simulations: plainSims };
  }
  return figures;
}

type PlainResult = ReturnType<typeof plainVarEs>;

/** The workload's model for the plain TypeScript engine, at `simulations`. */
export function plainModel(p: PreparedWorkload, simulations: number): Parameters<typeof plainVarEs>[0] {
  return {
    mean: Array.from(p.estimation.mean),
    cholesky: Array.from(triangularFactor(p)),
    weights: Array.from(p.model.books[0]!.weights),
    portfolioValue: p.model.books[0]!.capital,
    horizon: p.model.horizon,
    simulations,
    confidence: p.model.confidence,
    rebalanced: p.model.rebalanced,
    studentDof: p.model.method === 'monte_carlo_student_t' ? p.model.degreesOfFreedom : null,
    seed: 99,
  };
}

/** The builds that carry the benchmark-only normals operation: WASM simd128 with bench-ops, and the native x86-64 baseline. */
export function normalsEngines(): Record<'wasm-simd128' | 'native-x86-64', Engine> {
  return { 'wasm-simd128': new WasmEngine(compileWasm('simd-bench'), 'wasm-simd128'), 'native-x86-64': NativeEngine.baseline() };
}

/** ns per normal (the engine's block streams, no storage): the median of `trials` draws of `count`. */
export function engineNormalNs(e: Engine, count: number, trials: number): number {
  e.call(ABI.OP_NORMALS, new Float64Array([1, 1e5]));
  const times = [];
  for (let r = 0; r < trials; r++) {
    const start = performance.now();
    e.call(ABI.OP_NORMALS, new Float64Array([r + 1, count]));
    times.push(((performance.now() - start) * 1e6) / count);
  }
  return times.sort((a, b) => a - b)[trials >> 1]!;
}

/** ns per normal on each build of `normalsEngines`, median of 5. */
export function normalsNs(count: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, e] of Object.entries(normalsEngines())) out[name] = engineNormalNs(e, count, 5);
  return out;
}

/** Time against one parameter, on the WASM simd build, single thread. */
export async function scalingCurve(
  e: Engine,
  base: Workload,
  key: 'simulations' | 'horizon' | 'assets',
  values: number[],
  repeats: number,
): Promise<[number, number][]> {
  const exec = new DirectExecutor(e);
  const points: [number, number][] = [];
  for (const v of values) {
    const p = await prepare(exec, base, { [key]: v });
    const input = encodeSpec(simulationSpec(p.model, p.estimation), 0, blockCount(p.model.simulations));
    const { ms } = await interleaved({ run: () => e.call(ABI.OP_RUN, input) }, repeats);
    points.push([v, ms.run!]);
  }
  return points;
}
