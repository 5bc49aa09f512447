import { type DatasetQuality, type SymbolQuality } from '../contract/dataset-schemas.js';
import { type Dataset } from './dataset.js';
import {
  FINDING_EXAMPLES,
  listedEntry,
  MAX_FINDINGS_LISTED,
  MAX_FINDINGS_PER_LIST,
  qualityWarnings,
  type StaleRun,
  type SymbolFindings,
} from './quality-report.js';
import { middle } from './middle-pair.js';

/**
 * The data-quality report of a dataset (api.md §11). The definitions are the ones the response
 * schema states (src/contract/responses.ts, `SymbolQualitySchema`); the constants here are its
 * numbers. One pass per symbol over its column plus two linear-time medians: O(dates × symbols),
 * deterministic, every number finite. Computed once per decoded dataset and kept beside it (a
 * WeakMap, so it leaves memory with the dataset).
 */
export const STALE_RUN_MIN = 5;
export const SPLIT_RATIOS: readonly number[] = [1 / 2, 1 / 3, 1 / 4, 1 / 5, 1 / 10, 2, 3, 4, 5, 10];
export const SPLIT_TOLERANCE = 0.02;
export const MAD_TO_SIGMA = 1.4826;
export const OUTLIER_SIGMAS = 10;
/** Below this many returns (suspected splits left out) the MAD is no scale: no outliers are sought. */
export const MIN_RETURNS_FOR_OUTLIERS = 20;
/** A robust σ below this counts as zero (returns equal to floating-point precision): no outliers. */
export const MIN_ROBUST_SIGMA = 1e-12;

// Ratios in [0.52, 1.95] are within 2 % of no split ratio (the nearest bounds: 0.51 and 1.96).
const SPLIT_SCREEN_LOW = 0.52;
const SPLIT_SCREEN_HIGH = 1.95;
const DAY_MS = 86_400_000;
const BLOCK = 32; // symbols copied out together: 256 contiguous bytes of each row

const cache = new WeakMap<Dataset, DatasetQuality>();

/** The quality report of `d`, computed on first use and remembered for this decoded dataset. */
export function datasetQuality(d: Dataset): DatasetQuality {
  let q = cache.get(d);
  if (!q) {
    q = computeQuality(d);
    cache.set(d, q);
  }
  return q;
}

/** Price cells analysed between two turns of the event loop (a few ms), so /healthz and others are answered meanwhile. */
const CELLS_PER_TURN = 1 << 16;

/**
 * The same report, computed a slice of symbols at a time with the event loop free in between
 * (review L7: a 50 MB upload held it for half a second), then remembered: datasetQuality finds it.
 */
export async function datasetQualityInTurns(d: Dataset): Promise<DatasetQuality> {
  let q = cache.get(d);
  if (q) return q;
  const steps = qualitySteps(d);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) {
      q = step.value;
      break;
    }
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  cache.set(d, q);
  return q;
}

/** Calendar day number of each `YYYY-MM-DD` date (NaN for anything else: its gaps count 0). */
function dayNumbers(dates: string[]): Float64Array {
  const out = new Float64Array(dates.length);
  for (let i = 0; i < dates.length; i++) {
    const s = dates[i]!;
    out[i] = /^\d{4}-\d{2}-\d{2}$/.test(s) ? Date.UTC(Number(s.slice(0, 4)), Number(s.slice(5, 7)) - 1, Number(s.slice(8, 10))) / DAY_MS : NaN;
  }
  return out;
}

/** The split ratio k that `ratio` lies within SPLIT_TOLERANCE of (|ratio / k − 1| ≤ 0.02), or 0. */
export function splitTarget(ratio: number): number {
  for (const k of SPLIT_RATIOS) if (Math.abs(ratio / k - 1) <= SPLIT_TOLERANCE) return k;
  return 0;
}

const resetArea = new Float64Array(4);
/**
 * Call after Math.log/exp/tanh/atanh and before a hot loop. Those functions run V8's C code,
 * which leaves the upper halves of the vector registers dirty; the JIT's SSE code then pays a
 * transition penalty on every instruction until something clears them (measured: loops 4–7×
 * slower). A typed-array fill runs libc code that ends with `vzeroupper`; elsewhere it costs ~20 ns.
 */
function resetVectorState(): void {
  resetArea.fill(0);
}

/** Buffers of one dataset's length, reused for every symbol. */
interface Scratch {
  ratios: Float64Array;
  rows: Int32Array;
  keys: Float64Array;
  work: Float64Array;
  candidates: Int32Array;
}

function addStaleRun(f: SymbolFindings, run: StaleRun, limit: number): void {
  f.staleCount++;
  if (f.staleRuns.length < limit) f.staleRuns.push(run);
  if (!f.longestStale || run.length > f.longestStale.length) f.longestStale = run;
}

/**
 * Outliers among the n ratios q = P_t / P_{t−1} in s (suspected splits left out), by their log
 * returns r = ln q: |r − m| > 10 × 1.4826 × MAD. A logarithm per return would cost more than all
 * the rest, so the medians select on increasing functions of the values instead and take logarithms
 * of the selected ones only: m = ln of the middle ratio(s); |r − m| = 2·atanh(|q − M| / (q + M))
 * with M = e^m, so MAD = 2·atanh of the middle such key(s). Each candidate is then confirmed on
 * its own log return, ln P_t − ln P_{t−1}, the figure reported.
 */
function findOutliers(f: SymbolFindings, col: Float64Array, dates: string[], n: number, limit: number, s: Scratch): void {
  if (n < MIN_RETURNS_FOR_OUTLIERS) return;
  const { ratios, keys, work } = s;
  work.set(ratios.subarray(0, n));
  const [q1, q2] = middle(work, n);
  const m = (Math.log(q1) + Math.log(q2)) / 2;
  const M = Math.exp(m);
  resetVectorState();
  for (let i = 0; i < n; i++) keys[i] = Math.abs((ratios[i]! - M) / (ratios[i]! + M));
  work.set(keys.subarray(0, n));
  const [u1, u2] = middle(work, n);
  const sigma = MAD_TO_SIGMA * (Math.atanh(u1) + Math.atanh(u2));
  if (!(sigma >= MIN_ROBUST_SIGMA && sigma < Infinity)) return;
  const bound = OUTLIER_SIGMAS * sigma;
  const screen = Math.tanh(bound / 2) * (1 - 1e-9); // keys at or below it are certainly within the bound
  resetVectorState();
  const candidates = s.candidates;
  let found = 0;
  for (let i = 0; i < n; i++) if (keys[i]! > screen) candidates[found++] = i; // a tight loop: the rest is rare
  for (let c = 0; c < found; c++) {
    const i = candidates[c]!;
    const r = s.rows[i]!;
    let before = r - 1;
    while (!(col[before]! > 0 && col[before]! < Infinity)) before--; // the previous priced date
    const logReturn = Math.log(col[r]!) - Math.log(col[before]!);
    const dev = logReturn - m;
    if (!(Math.abs(dev) > bound)) continue;
    f.outlierCount++;
    if (f.outliers.length < limit) f.outliers.push({ date: dates[r]!, log_return: logReturn, robust_z: dev / sigma });
  }
}

/** One symbol's column (prices by date, NaN missing): its findings, each list at most `limit` long. */
function analyze(col: Float64Array, days: Float64Array, dates: string[], symbol: string, limit: number, s: Scratch): SymbolFindings {
  const f: SymbolFindings = {
    symbol,
    observations: 0,
    firstDate: null,
    lastDate: null,
    missing: 0,
    longestGapDays: 0,
    hole: null,
    splits: [],
    splitCount: 0,
    outliers: [],
    outlierCount: 0,
    staleRuns: [],
    staleCount: 0,
    longestStale: null,
  };
  let obs = 0;
  let first = -1;
  let prev = -1;
  let prevP = 0;
  let gapDays = 0;
  let holeDays = 0;
  let holeFrom = -1;
  let holeTo = -1;
  let runStart = -1;
  let runLen = 0;
  let n = 0;
  resetVectorState(); // the previous symbol's findOutliers ended on Math calls, maybe
  for (let r = 0; r < col.length; r++) {
    const p = col[r]!;
    if (!(p > 0 && p < Infinity)) continue; // NaN is missing (and anything else not a price is too)
    obs++;
    if (prev < 0) {
      first = r;
      runStart = r;
      runLen = 1;
    } else {
      const gap = days[r]! - days[prev]! - 1;
      if (gap > gapDays) gapDays = gap;
      if (r - prev > 1 && gap > holeDays) {
        holeDays = gap;
        holeFrom = prev;
        holeTo = r;
      }
      const q = p / prevP;
      const k = q < SPLIT_SCREEN_LOW || q > SPLIT_SCREEN_HIGH ? splitTarget(q) : 0;
      if (k) {
        f.splitCount++;
        if (f.splits.length < limit) f.splits.push({ date: dates[r]!, ratio: q, k });
      } else {
        // Kept within 1e±300 so that, with extreme prices, every later sum and quotient stays finite.
        s.ratios[n] = q < 1e-300 ? 1e-300 : q > 1e300 ? 1e300 : q;
        s.rows[n++] = r;
      }
      if (p === prevP) runLen++;
      else {
        if (runLen >= STALE_RUN_MIN) addStaleRun(f, { start: dates[runStart]!, end: dates[prev]!, length: runLen }, limit);
        runStart = r;
        runLen = 1;
      }
    }
    prev = r;
    prevP = p;
  }
  if (runLen >= STALE_RUN_MIN) addStaleRun(f, { start: dates[runStart]!, end: dates[prev]!, length: runLen }, limit);
  f.observations = obs;
  f.longestGapDays = gapDays;
  if (first >= 0) {
    f.firstDate = dates[first]!;
    f.lastDate = dates[prev]!;
    f.missing = prev - first + 1 - obs;
  }
  if (holeFrom >= 0) f.hole = { days: holeDays, from: dates[holeFrom]!, to: dates[holeTo]!, rows: holeTo - holeFrom - 1 };
  findOutliers(f, col, dates, n, limit, s);
  return f;
}

/** The report, computed afresh (see datasetQuality). */
export function computeQuality(d: Dataset): DatasetQuality {
  const steps = qualitySteps(d);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** The report's computation, pausing (yield) after about CELLS_PER_TURN cells; the report is its return value. */
function* qualitySteps(d: Dataset): Generator<void, DatasetQuality> {
  const n = d.symbols.length;
  const rows = d.dates.length;
  const days = dayNumbers(d.dates);
  const prices = d.prices;
  const cols = new Float64Array(BLOCK * rows);
  const s: Scratch = {
    ratios: new Float64Array(rows),
    rows: new Int32Array(rows),
    keys: new Float64Array(rows),
    work: new Float64Array(rows),
    candidates: new Int32Array(rows),
  };
  const symbols: SymbolQuality[] = [];
  const findings: SymbolFindings[] = [];
  const budget = { left: MAX_FINDINGS_LISTED };
  let truncated = false;
  let cells = 0;
  for (let j0 = 0; j0 < n; j0 += BLOCK) {
    const w = Math.min(BLOCK, n - j0);
    resetVectorState();
    for (let r = 0; r < rows; r++) {
      const base = r * n + j0;
      for (let b = 0; b < w; b++) cols[b * rows + r] = prices[base + b]!;
    }
    for (let b = 0; b < w; b++) {
      const limit = Math.max(FINDING_EXAMPLES, Math.min(MAX_FINDINGS_PER_LIST, budget.left));
      const f = analyze(cols.subarray(b * rows, (b + 1) * rows), days, d.dates, d.symbols[j0 + b]!, limit, s);
      const { q, cut } = listedEntry(f, budget);
      truncated ||= cut;
      symbols.push(q);
      findings.push(f);
      cells += rows;
      if (cells >= CELLS_PER_TURN) {
        cells = 0;
        yield;
        resetVectorState(); // whatever ran meanwhile may have left the vector registers dirty
      }
    }
  }
  const warnings = qualityWarnings(findings);
  return { symbols, warnings: warnings.list, truncated: truncated || warnings.truncated };
}
