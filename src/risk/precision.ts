import { type EngineResults } from '../engine/results-codec.js';

/** Simulations of a precision-targeted calculation's first round: 64 whole blocks. */
export const FIRST_ROUND = 16_384;

/** What `meta.precision` reports. */
export interface Precision {
  target: number;
  /** The largest VaR standard error / |VaR| over the books; null where a VaR is 0. */
  achieved_var: number | null;
  /** The same for ES. */
  achieved_es: number | null;
  simulations_used: number;
  rounds: number;
  reached: boolean;
}

/**
 * The simulation counts of the rounds under a cap: FIRST_ROUND, doubling, the last one the cap. A
 * fixed function of the request, so the same request and seed stop at the same count on every build
 * and thread count; every count but the cap is a whole number of blocks.
 */
export function roundSchedule(cap: number): number[] {
  const rounds: number[] = [];
  for (let n = Math.min(cap, FIRST_ROUND); ; n = Math.min(cap, 2 * n)) {
    rounds.push(n);
    if (n >= cap) return rounds;
  }
}

/** Standard error / |estimate|, the worst over the books; null when an estimate is 0. */
function worstRelative(results: EngineResults, figure: (m: EngineResults['books'][number]) => [number, number]): number | null {
  let worst = 0;
  for (const book of results.books) {
    const [se, estimate] = figure(book);
    if (estimate === 0) return null;
    worst = Math.max(worst, se / Math.abs(estimate));
  }
  return worst;
}

/**
 * Runs the calculation (`run`, for a simulation count) round after round of `roundSchedule(cap)`
 * until the standard errors of VaR and ES are both at most `target` times their estimates for every
 * book, or the cap is reached. A scenario depends only on the seed and its index, so a round with
 * N simulations gives exactly what a plain request for N gives.
 */
export async function runToPrecision(
  target: number,
  cap: number,
  run: (simulations: number) => Promise<EngineResults>,
): Promise<{ results: EngineResults; precision: Precision }> {
  const schedule = roundSchedule(cap);
  for (let r = 0; ; r++) {
    const simulations = schedule[r]!;
    const results = await run(simulations);
    const achievedVar = worstRelative(results, (m) => [m.valueAtRiskStandardError, m.valueAtRisk]);
    const achievedEs = worstRelative(results, (m) => [m.expectedShortfallStandardError, m.expectedShortfall]);
    const reached = achievedVar !== null && achievedEs !== null && achievedVar <= target && achievedEs <= target;
    if (reached || r === schedule.length - 1) {
      return {
        results,
        precision: { target, achieved_var: achievedVar, achieved_es: achievedEs, simulations_used: simulations, rounds: r + 1, reached },
      };
    }
  }
}
