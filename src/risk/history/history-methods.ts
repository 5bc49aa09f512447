import { type EngineMetrics, type EngineResults } from '../../engine/results-codec.js';
import { EngineFailure, type EngineBook, type Estimation } from '../../engine/codec.js';
import { ABI } from '../../engine/abi.js';
import { type CalculateRequest } from '../../contract/schemas.js';
import { type Method } from '../engine-run.js';
import { cornishFisher, type CornishFisherFigures } from './cornish-fisher.js';
import { type FilterState } from './filtered-estimation.js';
import { windowPnl } from './window-pnl.js';

/**
 * Filtered history and Cornish–Fisher (api.md §16) price the historical windows with the engine's
 * historical path: the filter rescales the returns before it, Cornish–Fisher reads the moments of
 * the same window P&L after it. Both reuse its P&L, contributions, percentiles and histogram.
 */
export function engineMethod(method: CalculateRequest['method']): Method {
  return method === 'historical_filtered' || method === 'cornish_fisher' ? 'historical' : method;
}

export interface ReplayModel {
  books: EngineBook[];
  horizon: number;
  rebalanced: boolean;
  confidence: number;
  zeroDrift: boolean;
}

/**
 * Components rescaled to sum to `total`: each keeps its share of the components' own sum; where
 * that sum is 0 or the shares overflow (P&L that underflowed to zero), spread by |weight|.
 */
function rescaled(components: number[], total: number, weights: Float64Array): number[] {
  const sum = components.reduce((a, x) => a + x, 0);
  const scaled = components.map((x) => (x / sum) * total);
  if (sum !== 0 && scaled.every(Number.isFinite)) return scaled;
  const gross = weights.reduce((a, w) => a + Math.abs(w), 0);
  return components.map((_, i) => (gross > 0 ? (total * Math.abs(weights[i]!)) / gross : 0));
}

function modified(m: EngineMetrics, cf: CornishFisherFigures, book: EngineBook): EngineMetrics {
  return {
    ...m,
    valueAtRisk: cf.valueAtRisk,
    expectedShortfall: cf.expectedShortfall,
    // A closed form over the sample's moments: no batches to differ.
    valueAtRiskStandardError: 0,
    expectedShortfallStandardError: 0,
    componentEs: rescaled(m.componentEs, cf.expectedShortfall, book.weights),
    componentVar: rescaled(m.componentVar, cf.valueAtRisk, book.weights),
  };
}

/**
 * Cornish–Fisher VaR and ES of each book from the population moments of its window P&L, in place
 * of the order statistics; the Euler components are rescaled to sum to them.
 */
export function cornishFisherResults(results: EngineResults, est: Estimation, model: ReplayModel): { results: EngineResults; figures: CornishFisherFigures[] } {
  const n = est.mean.length;
  const drift = model.zeroDrift ? est.sampleMean : new Float64Array(n);
  const figures = model.books.map((b) => cornishFisher(windowPnl(est.returns, n, drift, b, model.horizon, model.rebalanced), model.confidence));
  if (!figures.every((f) => Number.isFinite(f.valueAtRisk) && Number.isFinite(f.expectedShortfall))) {
    throw new EngineFailure(ABI.ERR_OVERFLOW, 0, 'the Cornish–Fisher figures of the window P&L');
  }
  const books = results.books.map((m, b) => modified(m, figures[b]!, model.books[b]!));
  const [before, after] = books;
  const whatIf =
    results.whatIf && before && after
      ? {
          incrementalVar: after.valueAtRisk - before.valueAtRisk,
          incrementalEs: after.expectedShortfall - before.expectedShortfall,
          incrementalVarStandardError: 0,
          incrementalEsStandardError: 0,
        }
      : results.whatIf;
  return { results: { books, whatIf }, figures };
}

/** What filtered history and Cornish–Fisher add to an answer. */
export interface HistoryExtras {
  filter: FilterState | null;
  /** One per book, with cornish_fisher; else null. */
  cornishFisher: CornishFisherFigures[] | null;
}
