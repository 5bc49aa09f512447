// One long-only book of equal weights over `assets`, as the engine's tests and benchmarks price it:
// capital 1,000,000, one day at 99 %, Monte Carlo normal unless `fields` says otherwise.
import { portfolioBook } from '../../src/engine/codec.js';
import { type ModelInput } from '../../src/risk/engine-run.js';

export function equalWeightModel(assets: number, simulations: number, fields: Partial<ModelInput> = {}): ModelInput {
  return {
    method: 'monte_carlo_normal',
    rebalanced: false,
    books: [portfolioBook(1_000_000, new Float64Array(assets).fill(1 / assets))],
    comparison: 'none',
    horizon: 1,
    confidence: 0.99,
    simulations,
    degreesOfFreedom: 5,
    seed: 1,
    antithetic: false,
    importanceSampling: false,
    zeroDrift: false,
    histogramBins: 50,
    ...fields,
  };
}
