import { DirectExecutor } from '../../src/engine/direct-executor.js';
import { instantiateEngine, resolveEngineSource } from '../../src/engine/load.js';
import { warmUp } from '../../src/engine/warm-up.js';
import { roundSchedule, runToPrecision } from '../../src/risk/precision.js';
import { runModel, type ModelInput } from '../../src/risk/engine-run.js';
import { type EngineResults } from '../../src/engine/results-codec.js';
import { runNumpy } from './numpy.js';
import { agreeWithinErrors, interleaved } from './stats.js';
import { prepare, workloads, type PreparedWorkload as Prepared } from './workloads.js';

export interface PrecisionFigures {
  target: number;
  simulations_used: number;
  rounds: number;
  achieved_es: number | null;
  /** Rounds until the target, plain Monte Carlo, WASM simd128, one thread. */
  rounds_ms: number;
  /** One plain run of simulations_used, the same engine. */
  plain_ms: number;
  /** NumPy plain Monte Carlo of simulations_used (the same error), one thread; null without NumPy. */
  numpy_ms: number | null;
  /** The same rounds with importance sampling. */
  weighted: { simulations_used: number; rounds: number; achieved_es: number | null; rounds_ms: number };
  /** Per confidence level, at one simulation count: ES variance plain / weighted, and the times of one run each. */
  reduction: { confidence: number; simulations: number; es_variance_factor: number; var_variance_factor: number; plain_ms: number; weighted_ms: number }[];
  /** Relative ES standard error against the time of one run, for the round counts of each. */
  error_vs_time: { plain: [number, number][]; weighted: [number, number][] };
}

type Exec = DirectExecutor;
type Book = EngineResults['books'][number];

/** Weighted VaR and ES must agree with plain ones within their combined reported errors (before timing). */
function checkWeighted(what: string, plain: Book, weighted: Book): void {
  agreeWithinErrors(`${what}: weighted VaR`, weighted.valueAtRisk, weighted.valueAtRiskStandardError, plain.valueAtRisk, plain.valueAtRiskStandardError);
  agreeWithinErrors(
    `${what}: weighted ES`,
    weighted.expectedShortfall,
    weighted.expectedShortfallStandardError,
    plain.expectedShortfall,
    plain.expectedShortfallStandardError,
  );
}

const relativeEs = (m: { expectedShortfallStandardError: number; expectedShortfall: number }) => m.expectedShortfallStandardError / m.expectedShortfall;

/** Relative ES error and the median time of one run, for each count of `counts`. */
async function errorVsTime(exec: Exec, p: Prepared, model: ModelInput, counts: number[], repeats: number): Promise<[number, number][]> {
  const out: [number, number][] = [];
  for (const simulations of counts) {
    const m = { ...model, simulations };
    const { ms, last } = await interleaved({ run: () => runModel(exec, m, p.estimation, { maxBatches: 1 }) }, repeats);
    out.push([ms.run!, relativeEs(last.run!.books[0]!)]);
  }
  return out;
}

/** ES and VaR variance factors (plain / weighted) at one count, and the time of one run of each. */
async function reductionAt(exec: Exec, p: Prepared, confidence: number, simulations: number, repeats: number) {
  const plain = { ...p.model, confidence, simulations };
  const weighted = { ...plain, importanceSampling: true };
  const { ms, last } = await interleaved(
    {
      plain: () => runModel(exec, plain, p.estimation, { maxBatches: 1 }),
      weighted: () => runModel(exec, weighted, p.estimation, { maxBatches: 1 }),
    },
    repeats,
  );
  const [a, b] = [last.plain!.books[0]!, last.weighted!.books[0]!];
  checkWeighted(`${simulations} simulations at ${confidence}`, a, b);
  return {
    confidence,
    simulations,
    es_variance_factor: (a.expectedShortfallStandardError / b.expectedShortfallStandardError) ** 2,
    var_variance_factor: (a.valueAtRiskStandardError / b.valueAtRiskStandardError) ** 2,
    plain_ms: ms.plain!,
    weighted_ms: ms.weighted!,
  };
}

/**
 * Time to a target error: 20 assets × 10 days, 99 %, ES and VaR to within `target`, by precision
 * rounds with and without importance sampling, against one plain run of the count the plain rounds
 * stopped at and NumPy's plain Monte Carlo of that count; the variance-reduction factors at 95 %,
 * 99 %, 99.9 %; the error against time of both. Medians of `repeats`, WASM simd128, one thread.
 */
export async function benchPrecision(target: number, repeats: number, numpy: boolean, quick = false): Promise<PrecisionFigures> {
  const exec = new DirectExecutor(warmUp(instantiateEngine(resolveEngineSource('wasm'))));
  const p = await prepare(exec, workloads(true)[1]!, { simulations: 10_000_000 });
  const policy = { maxBatches: 1 };
  const weightedModel = { ...p.model, importanceSampling: true };
  const toTarget = (model: ModelInput) => () =>
    runToPrecision(target, model.simulations, (simulations) => runModel(exec, { ...model, simulations }, p.estimation, policy));
  const { precision, results } = await toTarget(p.model)();
  const { precision: weightedPrecision, results: weightedResults } = await toTarget(weightedModel)();
  // An under-reported weighted error would stop the rounds early and flatter the ratio; checked
  // here against the plain rounds' figures, each within its own reported error.
  checkWeighted(`to ${target}`, results.books[0]!, weightedResults.books[0]!);
  const plain = { ...p.model, simulations: precision.simulations_used };
  const { ms } = await interleaved<unknown>(
    { rounds: toTarget(p.model), weighted: toTarget(weightedModel), plain: () => runModel(exec, plain, p.estimation, policy) },
    repeats,
  );
  const reduction = [];
  for (const c of [0.95, 0.99, 0.999]) reduction.push(await reductionAt(exec, p, c, 65_536, repeats));
  const counts = roundSchedule(quick ? 262_144 : 2_097_152);
  return {
    target,
    simulations_used: precision.simulations_used,
    rounds: precision.rounds,
    achieved_es: precision.achieved_es,
    rounds_ms: ms.rounds!,
    plain_ms: ms.plain!,
    numpy_ms: numpy ? runNumpy({ ...p, model: plain }, repeats).median_ms : null,
    weighted: {
      simulations_used: weightedPrecision.simulations_used,
      rounds: weightedPrecision.rounds,
      achieved_es: weightedPrecision.achieved_es,
      rounds_ms: ms.weighted!,
    },
    reduction,
    error_vs_time: {
      plain: await errorVsTime(exec, p, p.model, counts, quick ? 1 : 3),
      weighted: await errorVsTime(exec, p, weightedModel, counts.slice(0, 4), quick ? 1 : 3),
    },
  };
}
