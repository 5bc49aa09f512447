// The reported standard errors of VaR and ES (20 independent batches of the scenarios) against the
// spread of the figures themselves over 200 independent seeds: the mean reported error must match
// the observed standard deviation within 20 %. This is what a target error (precision on demand)
// stops on, so it must mean what it says.
import t from 'tap';
import { runModel, type ModelInput } from '../../src/risk/engine-run.js';
import { portfolioBook, type Estimation } from '../../src/engine/codec.js';
import { DirectExecutor } from '../../src/engine/direct-executor.js';
import { instantiateEngine, resolveEngineSource } from '../../src/engine/load.js';
import { ABI } from '../../src/engine/abi.js';

const SEEDS = 200;
const TOLERANCE = 0.2;
const engine = new DirectExecutor(instantiateEngine(resolveEngineSource('native')));

/** Three correlated assets (daily volatilities 1.2 %, 1.8 %, 0.9 %), as estimation would hand them over. */
function threeAssets(): Estimation {
  const vol = [0.012, 0.018, 0.009];
  const corr = [
    [1, 0.6, 0.3],
    [0.6, 1, 0.2],
    [0.3, 0.2, 1],
  ];
  const covariance = new Float64Array(9);
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) covariance[i * 3 + j] = corr[i]![j]! * vol[i]! * vol[j]!;
  const cholesky = new Float64Array(9);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j <= i; j++) {
      let s = covariance[i * 3 + j]!;
      for (let k = 0; k < j; k++) s -= cholesky[i * 3 + k]! * cholesky[j * 3 + k]!;
      cholesky[i * 3 + j] = i === j ? Math.sqrt(s) : s / cholesky[j * 3 + j]!;
    }
  }
  const mean = Float64Array.of(0.0004, 0.0002, 0.0001);
  return { observations: 500, firstDate: 0, lastDate: 500, jitter: 0, factorColumns: ABI.FACTOR_TRIANGULAR, mean, sampleMean: mean, covariance, factor: cholesky, volatility: Float64Array.from(vol), returns: new Float64Array(0) };
}

const stdev = (xs: number[]) => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) * (x - m), 0) / (xs.length - 1));
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

const cases: { label: string; method: ModelInput['method']; confidence: number; simulations: number; horizon: number }[] = [
  { label: 'normal, 95 %, 10 d', method: 'monte_carlo_normal', confidence: 0.95, simulations: 50_000, horizon: 10 },
  { label: 'normal, 99 %, 10 d', method: 'monte_carlo_normal', confidence: 0.99, simulations: 100_000, horizon: 10 },
  { label: 'Student-t ν = 5, 99 %, 1 d', method: 'monte_carlo_student_t', confidence: 0.99, simulations: 100_000, horizon: 1 },
];

for (const c of cases) {
  t.test(`${c.label}: the mean reported standard error matches the spread over ${SEEDS} seeds within ${TOLERANCE * 100} %`, async (t) => {
    const figures = { var: [] as number[], es: [] as number[], varSe: [] as number[], esSe: [] as number[] };
    for (let s = 1; s <= SEEDS; s++) {
      const input: ModelInput = {
        method: c.method,
        rebalanced: false,
        books: [portfolioBook(1_000_000, Float64Array.of(0.5, 0.3, 0.2))],
        comparison: 'none',
        horizon: c.horizon,
        confidence: c.confidence,
        simulations: c.simulations,
        degreesOfFreedom: 5,
        seed: s * 7_919,
        antithetic: false,
        importanceSampling: false,
        zeroDrift: false,
        histogramBins: 50,
      };
      const m = (await runModel(engine, input, threeAssets(), { maxBatches: 1 })).books[0]!;
      figures.var.push(m.valueAtRisk);
      figures.es.push(m.expectedShortfall);
      figures.varSe.push(m.valueAtRiskStandardError);
      figures.esSe.push(m.expectedShortfallStandardError);
    }
    for (const [name, values, errors] of [
      ['VaR', figures.var, figures.varSe],
      ['ES', figures.es, figures.esSe],
    ] as const) {
      const ratio = mean(errors) / stdev(values);
      t.comment(`${name}: spread ${stdev(values).toFixed(1)}, mean reported standard error ${mean(errors).toFixed(1)} (ratio ${ratio.toFixed(3)})`);
      t.ok(Math.abs(ratio - 1) <= TOLERANCE, `${name}: reported / observed ${ratio.toFixed(3)}`);
    }
  });
}
