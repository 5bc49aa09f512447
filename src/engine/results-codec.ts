import { ABI } from './abi.js';
import { checkStatus } from './codec.js';

/**
 * Decoding of the engine's results (simulate + finalize, run, parametric): the layout mirrors
 * `encode_results` in engine/core/src/abi/codec.rs.
 */

export interface EngineMetrics {
  scenarios: number;
  valueAtRisk: number;
  expectedShortfall: number;
  expectedPnl: number;
  volatility: number;
  probabilityOfLoss: number;
  worstLoss: number;
  bestGain: number;
  valueAtRiskStandardError: number;
  expectedShortfallStandardError: number;
  percentiles: number[]; // p01 … p99
  componentEs: number[];
  standaloneVar: number[];
  componentVar: number[];
  binEdges: number[];
  counts: number[];
}

/** A what-if's figures: after − before, and the standard errors of those differences. */
export interface WhatIfFigures {
  incrementalVar: number;
  incrementalEs: number;
  incrementalVarStandardError: number;
  incrementalEsStandardError: number;
}

export interface EngineResults {
  /** One per book, in the order of the request's books. */
  books: EngineMetrics[];
  whatIf: WhatIfFigures | null;
}

export function decodeResults(out: Float64Array): EngineResults {
  checkStatus(out);
  const count = out[1] ?? 0;
  let at: number = ABI.RESULTS_HEADER_LEN;
  const books: EngineMetrics[] = [];
  for (let b = 0; b < count; b++) {
    const [metrics, next] = decodeMetrics(out, at);
    books.push(metrics);
    at = next;
  }
  if (out[2] !== ABI.COMPARISON_WHAT_IF) return { books, whatIf: null };
  const [incrementalVar = NaN, incrementalEs = NaN, varSe = NaN, esSe = NaN] = out.subarray(at, at + ABI.COMPARISON_FIGURES);
  return { books, whatIf: { incrementalVar, incrementalEs, incrementalVarStandardError: varSe, incrementalEsStandardError: esSe } };
}

/** One book's metrics starting at `start`; returns them and the position after them. */
function decodeMetrics(out: Float64Array, start: number): [EngineMetrics, number] {
  let at = start;
  const next = () => out[at++] ?? NaN;
  const take = (len: number) => Array.from(out.subarray(at, (at += len)));
  const scalars = take(ABI.METRICS_SCALARS);
  const percentiles = take(ABI.PERCENTILES);
  const n = next();
  const componentEs = take(n);
  const standaloneVar = take(n);
  const componentVar = take(n);
  const bins = next();
  const binEdges = take(bins > 0 ? bins + 1 : 0);
  const counts = take(bins);
  const [scenarios, valueAtRisk, expectedShortfall, expectedPnl, volatility, probabilityOfLoss, worstLoss, bestGain, varSe, esSe] =
    scalars as [number, number, number, number, number, number, number, number, number, number];
  const metrics = {
    scenarios,
    valueAtRisk,
    expectedShortfall,
    expectedPnl,
    volatility,
    probabilityOfLoss,
    worstLoss,
    bestGain,
    valueAtRiskStandardError: varSe,
    expectedShortfallStandardError: esSe,
    percentiles,
    componentEs,
    standaloneVar,
    componentVar,
    binEdges,
    counts,
  };
  return [metrics, at];
}
