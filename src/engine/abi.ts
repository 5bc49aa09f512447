import { type Engine } from './ops.js';

/**
 * The engine ABI's constants, each under the name it has in Rust (engine/core/src/abi/constants.rs).
 * The engine reports its own values through OP_ABI; `readAbi` compares them with these when an
 * engine is loaded, so a build whose layout drifted from this binding is refused at once.
 */
export const ABI = {
  OP_ESTIMATE: 1,
  OP_SIMULATE: 2,
  OP_FINALIZE: 3,
  OP_PARAMETRIC: 4,
  OP_RUN: 5,
  /** Benchmark builds only (cargo feature bench-ops). */
  OP_NORMALS: 6,
  OP_ABI: 7,
  /** Some rows of Σ, for an estimation split over workers. */
  OP_COVARIANCE_PART: 8,
  /** Conditional stress scenarios: each book symbol's conditional mean and deviation. */
  OP_CONDITIONAL: 9,
  /** The worst historical window of a book for each of some horizons. */
  OP_WORST_WINDOW: 10,
  BLOCK: 256,
  /** `factor columns` of an n×n lower-triangular (Cholesky) covariance factor; else m loadings. */
  FACTOR_TRIANGULAR: 0,
  METHOD_MONTE_CARLO_NORMAL: 0,
  METHOD_MONTE_CARLO_STUDENT_T: 1,
  METHOD_HISTORICAL: 2,
  MODE_BUY_AND_HOLD: 0,
  MODE_REBALANCED: 1,
  ESTIMATION_HEADER_LEN: 7,
  COVARIANCE_PART_HEADER_LEN: 2,
  COVARIANCE_PART_RESULT_HEADER_LEN: 4,
  ESTIMATION_RESULT_HEADER_LEN: 6,
  SPEC_HEADER_LEN: 16,
  PARTIAL_HEADER_LEN: 13,
  PARAMETRIC_HEADER_LEN: 5,
  /** The parametric input's `columns` word before a dense Σ (else the loadings' m). */
  COVARIANCE_DENSE: 0,
  CONDITIONAL_HEADER_LEN: 6,
  CONDITIONAL_RESULT_HEADER_LEN: 3,
  WORST_WINDOW_HEADER_LEN: 4,
  WORST_WINDOW_RESULT_HEADER_LEN: 2,
  /** A worst-window result's start row when the price rows span fewer days than the horizon. */
  WORST_WINDOW_NONE: -1,
  RESULTS_HEADER_LEN: 3,
  COMPARISON_FIGURES: 4,
  COMPARISON_NONE: 0,
  COMPARISON_WHAT_IF: 1,
  VARIANCE_REDUCTION_NONE: 0,
  VARIANCE_REDUCTION_IMPORTANCE_SAMPLING: 1,
  METRICS_SCALARS: 10,
  PERCENTILES: 9,
  ERR_INVALID_INPUT: 1,
  ERR_INSUFFICIENT_DATA: 2,
  ERR_LIMIT_EXCEEDED: 3,
  ERR_DEADLINE_EXCEEDED: 4,
  ERR_OVERFLOW: 5,
  MAX_BOOKS: 1000,
  /** Books × scenarios of one calculation (the P&L values it keeps). */
  MAX_PRICED_SCENARIOS: 100_000_000,
  MAX_COUNT: 4_294_967_295,
  MAX_EXACT_INT: Number.MAX_SAFE_INTEGER,
  /** Fewest Student-t degrees of freedom importance sampling accepts. */
  MIN_IMPORTANCE_DEGREES_OF_FREEDOM: 5,
} as const;

/** What OP_ABI reports besides the constants above. */
const REPORTED_ONLY = new Set(['VERSION_MAJOR', 'VERSION_MINOR', 'VERSION_PATCH']);

export class AbiMismatchError extends Error {}

/** The constants an engine reports: [0, count, (name length, name bytes…, value) × count]. */
export function reportedConstants(engine: Engine): Map<string, number> {
  const out = engine.call(ABI.OP_ABI, new Float64Array(0));
  if (out[0] !== 0) throw new AbiMismatchError('the engine does not answer OP_ABI: it predates this binding');
  const constants = new Map<string, number>();
  let at = 2;
  for (let i = 0; i < (out[1] ?? 0); i++) {
    const len = out[at++]!;
    const name = String.fromCharCode(...out.subarray(at, at + len));
    at += len;
    constants.set(name, out[at++]!);
  }
  return constants;
}

/** Checks that the engine's constants are this binding's; returns the engine's version. */
export function readAbi(engine: Engine): { version: string } {
  const reported = reportedConstants(engine);
  const ours = new Map<string, number>(Object.entries(ABI));
  const problems: string[] = [];
  for (const [name, value] of ours) {
    if (reported.get(name) !== value) problems.push(`${name}: binding ${value}, engine ${reported.get(name) ?? 'missing'}`);
  }
  for (const name of reported.keys()) if (!ours.has(name) && !REPORTED_ONLY.has(name)) problems.push(`${name}: unknown to the binding`);
  if (problems.length > 0) throw new AbiMismatchError(`engine ABI differs from the binding: ${problems.join('; ')}`);
  return { version: ['VERSION_MAJOR', 'VERSION_MINOR', 'VERSION_PATCH'].map((k) => reported.get(k)).join('.') };
}
