import { checkStatus, portfolioBook } from '../engine/codec.js';
import { encodeSpec, type SimulationSpec } from '../engine/spec-codec.js';
import { ABI } from '../engine/abi.js';
import { type EngineExecutor } from '../engine/ops.js';
import { DEFAULTS } from '../contract/schemas.js';
import { WorkAdmission } from './admission.js';
import { workUnits, type WorkShape } from './work-cost.js';
import { blockCount } from './plan.js';

/** The calibration calculation: mid-sized, a few tens of ms on one worker. */
const CALIBRATION: WorkShape = { scenarios: 131_072, assets: 16, books: 1, steps: 1, correlated: true, window: 1000, confidence: 0.99 };

/**
 * Times one Monte Carlo calculation of a known shape on the executor (independent assets, 1 % daily
 * volatility) and starts the admission's cost model from it: ns of worker time per work unit.
 */
export async function calibratedAdmission(exec: EngineExecutor, workers: number, ownerShare?: number, memoryBytes?: number): Promise<WorkAdmission> {
  const n = CALIBRATION.assets;
  const factor = new Float64Array(n * n);
  for (let i = 0; i < n; i++) factor[i * n + i] = 0.01;
  const spec: SimulationSpec = {
    method: 'monte_carlo_normal',
    rebalanced: false,
    books: [portfolioBook(1e6, new Float64Array(n).fill(1 / n))],
    comparison: 'none',
    horizon: 1,
    confidence: CALIBRATION.confidence,
    degreesOfFreedom: DEFAULTS.degrees_of_freedom,
    seed: 1,
    antithetic: false,
    importanceSampling: false,
    histogramBins: DEFAULTS.histogram_bins,
    scenarios: CALIBRATION.scenarios,
    mean: new Float64Array(n),
    factor,
    factorColumns: ABI.FACTOR_TRIANGULAR,
    returns: new Float64Array(0),
  };
  const input = () => encodeSpec(spec, 0, blockCount(spec.scenarios));
  checkStatus((await exec.run(ABI.OP_RUN, input())).output); // a fresh worker's first call is slower
  const reply = await exec.run(ABI.OP_RUN, input());
  checkStatus(reply.output);
  return new WorkAdmission(workers, (Math.max(reply.computeMs, 0.001) * 1e6) / workUnits(CALIBRATION), ownerShare, memoryBytes);
}
