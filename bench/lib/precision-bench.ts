import { DirectExecutor } from '../../src/engine/direct-executor.js';
import { instantiateEngine, resolveEngineSource } from '../../src/engine/load.js';
import { warmUp } from '../../src/engine/warm-up.js';
import { runToPrecision } from '../../src/risk/precision.js';
import { runModel } from '../../src/risk/risk-calculation.js';
import { runNumpy } from './numpy.js';
import { interleaved } from './stats.js';
import { prepare, workloads } from './workloads.js';

export interface PrecisionFigures {
  target: number;
  simulations_used: number;
  rounds: number;
  achieved_es: number | null;
  /** Rounds until the target, WASM simd128, one thread. */
  rounds_ms: number;
  /** One plain run of simulations_used, the same engine. */
  plain_ms: number;
  /** NumPy plain Monte Carlo of simulations_used (the same error), one thread; null without NumPy. */
  numpy_ms: number | null;
}

/**
 * Time to a target error: 20 assets × 10 days, 99 %, ES and VaR to within `target`, by precision
 * rounds, against one plain run of the count the rounds stopped at and
 * NumPy's plain Monte Carlo of that count. Medians of `repeats`. (Each round runs afresh: about
 * twice a plain run.)
 */
export async function benchPrecision(target: number, repeats: number, numpy: boolean): Promise<PrecisionFigures> {
  const exec = new DirectExecutor(warmUp(instantiateEngine(resolveEngineSource('wasm'))));
  const p = await prepare(exec, workloads(true)[1]!, { simulations: 10_000_000 });
  const policy = { maxBatches: 1 };
  const toTarget = () => runToPrecision(target, p.model.simulations, (simulations) => runModel(exec, { ...p.model, simulations }, p.estimation, policy));
  const { precision } = await toTarget();
  const plain = { ...p.model, simulations: precision.simulations_used };
  const { ms } = await interleaved<unknown>({ rounds: toTarget, plain: () => runModel(exec, plain, p.estimation, policy) }, repeats);
  return {
    target,
    simulations_used: precision.simulations_used,
    rounds: precision.rounds,
    achieved_es: precision.achieved_es,
    rounds_ms: ms.rounds!,
    plain_ms: ms.plain!,
    numpy_ms: numpy ? runNumpy({ ...p, model: plain }, repeats).median_ms : null,
  };
}
