import { checkStatus } from '../../src/engine/codec.js';
import { encodeSpec } from '../../src/engine/spec-codec.js';
import { DirectExecutor } from '../../src/engine/direct-executor.js';
import { instantiateEngine, resolveEngineSource } from '../../src/engine/load.js';
import { ABI } from '../../src/engine/abi.js';
import { decodeResults } from '../../src/engine/results-codec.js';
import { warmUp } from '../../src/engine/warm-up.js';
import { blockCount } from '../../src/risk/plan.js';
import { simulationSpec } from '../../src/risk/engine-run.js';
import { plainVarEs } from '../plain-ts-engine.js';
import { plainModel } from './engine-bench.js';
import { agreeWithinErrors, interleaved, pairedRatio } from './stats.js';
import { prepare, workloads } from './workloads.js';

export interface TailLevels {
  simulations: number;
  ms_c99: number;
  ms_c60: number;
  /** Time at c = 0.99 / time at c = 0.6, the median of the rounds' ratios (1 = the tail costs nothing; higher is better). */
  c99_over_c60: number;
}

/** The plain TypeScript engine's draws per level: its error is √(simulations / this) × the engine's. */
const PLAIN_SIMULATIONS = 250_000;

/**
 * The cost of a large tail: 10 assets × `simulations` × 1 day, buy-and-hold, one task on WASM
 * simd128, at c = 0.99 and at c = 0.6 (k = 40 % of the scenarios, each with its asset P&L for the
 * component figures), interleaved, medians of `repeats`. First, both levels' VaR and ES are checked
 * against the plain TypeScript engine's (other draws, a full sort) within their combined errors.
 */
export async function benchTailLevels(simulations: number, repeats: number): Promise<TailLevels> {
  const engine = warmUp(instantiateEngine(resolveEngineSource('wasm')));
  const p = await prepare(new DirectExecutor(engine), workloads(true)[0]!, { simulations, horizon: 1 });
  const input = (confidence: number) => encodeSpec(simulationSpec({ ...p.model, confidence }, p.estimation), 0, blockCount(simulations));
  const [at99, at60] = [input(0.99), input(0.6)];
  for (const [confidence, spec] of [
    [0.99, at99],
    [0.6, at60],
  ] as const) {
    const m = decodeResults(engine.call(ABI.OP_RUN, spec)).books[0]!;
    const plain = plainVarEs({ ...plainModel(p, PLAIN_SIMULATIONS), confidence });
    const scale = Math.sqrt(simulations / PLAIN_SIMULATIONS);
    agreeWithinErrors(`tail c = ${confidence}: VaR`, m.valueAtRisk, m.valueAtRiskStandardError, plain.valueAtRisk, scale * m.valueAtRiskStandardError);
    agreeWithinErrors(
      `tail c = ${confidence}: ES`,
      m.expectedShortfall,
      m.expectedShortfallStandardError,
      plain.expectedShortfall,
      scale * m.expectedShortfallStandardError,
    );
  }
  const run = (spec: Float64Array) => () => checkStatus(engine.call(ABI.OP_RUN, spec));
  const { ms, samples } = await interleaved({ c99: run(at99), c60: run(at60) }, repeats);
  return { simulations, ms_c99: ms.c99!, ms_c60: ms.c60!, c99_over_c60: pairedRatio(samples, 'c99', 'c60') };
}
