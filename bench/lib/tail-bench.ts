import { checkStatus, encodeSpec } from '../../src/engine/codec.js';
import { DirectExecutor } from '../../src/engine/direct-executor.js';
import { instantiateEngine, resolveEngineSource } from '../../src/engine/load.js';
import { ABI } from '../../src/engine/abi.js';
import { warmUp } from '../../src/engine/warm-up.js';
import { blockCount } from '../../src/risk/plan.js';
import { simulationSpec } from '../../src/risk/risk-calculation.js';
import { interleaved } from './stats.js';
import { prepare, workloads } from './workloads.js';

export interface TailLevels {
  simulations: number;
  ms_c99: number;
  ms_c60: number;
  /** Time at c = 0.99 / time at c = 0.6 (1 = the tail costs nothing; higher is better). */
  c99_over_c60: number;
}

/**
 * The cost of a large tail: 10 assets × `simulations` × 1 day, buy-and-hold, one task on WASM
 * simd128, at c = 0.99 and at c = 0.6 (k = 40 % of the scenarios, each with its asset P&L for the
 * component figures), interleaved, medians of `repeats`.
 */
export async function benchTailLevels(simulations: number, repeats: number): Promise<TailLevels> {
  const engine = warmUp(instantiateEngine(resolveEngineSource('wasm')));
  const p = await prepare(new DirectExecutor(engine), workloads(true)[0]!, { simulations, horizon: 1 });
  const input = (confidence: number) => encodeSpec(simulationSpec({ ...p.model, confidence }, p.estimation), 0, blockCount(simulations));
  const [at99, at60] = [input(0.99), input(0.6)];
  const run = (spec: Float64Array) => () => checkStatus(engine.call(ABI.OP_RUN, spec));
  const { ms } = await interleaved({ c99: run(at99), c60: run(at60) }, repeats);
  return { simulations, ms_c99: ms.c99!, ms_c60: ms.c60!, c99_over_c60: ms.c99! / ms.c60! };
}
