import { type EngineMetrics, type EngineResults } from '../../engine/results-codec.js';
import { EngineFailure, type EngineBook, type Estimation } from '../../engine/codec.js';
import { ABI } from '../../engine/abi.js';
import { type CalculateRequest } from '../../contract/schemas.js';
import { type Method } from '../engine-run.js';
import { cornishFisher, type CornishFisherFigures } from './cornish-fisher.js';
import { ewmaFilter } from './ewma-filter.js';
import { windowPnl } from './window-pnl.js';

/**
 * Filtered history and Cornish–Fisher (api.md §16) price the historical windows with the engine's
 * historical path: the filter rescales the returns before it, Cornish–Fisher reads the moments of
 * the same window P&L after it. Both reuse its P&L, contributions, percentiles and histogram.
 */
export function engineMethod(method: CalculateRequest['method']): Method {
  return method === 'historical_filtered' || method === 'cornish_fisher' ? 'historical' : method;
}

export interface FilterSetting {
  model: 'ewma';
  lambda: number;
}

/** The filter's state per asset, as meta.filter reports it. */
export interface FilterState {
  setting: FilterSetting;
  current: Float64Array;
  longRun: Float64Array;
}

/** The estimation with its returns replaced by the filtered ones (and, for drift "zero", their own sample mean). */
export function filteredEstimation(est: Estimation, setting: FilterSetting, zeroDrift: boolean): { est: Estimation; state: FilterState } {
  const n = est.mean.length;
  const f = ewmaFilter(est.returns, n, setting.lambda);
  // Only drift "zero" reads it (historical replays the returns less it): not computed otherwise.
  const sampleMean = new Float64Array(n);
  if (zeroDrift) {
    for (let t = 0; t < est.observations; t++) for (let i = 0; i < n; i++) sampleMean[i]! += f.returns[t * n + i]!;
    for (let i = 0; i < n; i++) sampleMean[i] = est.observations > 0 ? sampleMean[i]! / est.observations : 0;
  }
  return { est: { ...est, returns: f.returns, sampleMean }, state: { setting, current: f.current, longRun: f.longRun } };
}

export interface ReplayModel {
  books: EngineBook[];
  horizon: number;
  rebalanced: boolean;
  confidence: number;
  zeroDrift: boolean;
}

/** Components rescaled to sum to `total` (spread by |weight| where the historical ones sum to 0). */
function rescaled(components: number[], from: number, total: number, weights: Float64Array): number[] {
  if (from !== 0) return components.map((x) => (x * total) / from);
  const gross = weights.reduce((s, w) => s + Math.abs(w), 0);
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
    componentEs: rescaled(m.componentEs, m.expectedShortfall, cf.expectedShortfall, book.weights),
    componentVar: rescaled(m.componentVar, m.valueAtRisk, cf.valueAtRisk, book.weights),
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

/** What the engine replays for `method`: the filtered returns with a filter, else the estimation as it is. */
export function replayedEstimation(est: Estimation, filter: FilterSetting | null, zeroDrift: boolean): { est: Estimation; state: FilterState | null } {
  return filter ? filteredEstimation(est, filter, zeroDrift) : { est, state: null };
}

/** What filtered history and Cornish–Fisher add to an answer. */
export interface HistoryExtras {
  filter: FilterState | null;
  /** One per book, with cornish_fisher; else null. */
  cornishFisher: CornishFisherFigures[] | null;
}
