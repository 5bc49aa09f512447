import { type SymbolQuality } from '../contract/dataset-schemas.js';

/**
 * From what the quality analysis found for one symbol (its lists cut at a limit, its counts
 * whole) to the report: each symbol's entry, its lists cut to the dataset's budget, and the warning
 * sentences, one per symbol and kind, ordered by kind, then by symbol.
 */
export interface StaleRun {
  start: string;
  end: string;
  length: number;
}

export interface SymbolFindings {
  symbol: string;
  observations: number;
  firstDate: string | null;
  lastDate: string | null;
  missing: number;
  longestGapDays: number;
  /** The longest gap over which the file has dates without a price for this symbol. */
  hole: { days: number; from: string; to: string; rows: number } | null;
  splits: { date: string; ratio: number; k: number }[];
  splitCount: number;
  outliers: { date: string; log_return: number; robust_z: number }[];
  outlierCount: number;
  staleRuns: StaleRun[];
  staleCount: number;
  longestStale: StaleRun | null;
}

export const MAX_FINDINGS_PER_LIST = 100;
export const MAX_FINDINGS_LISTED = 10_000;
export const MAX_WARNINGS = 200;
/** A gap warns when it is longer than this many calendar days and the file has dates in it. */
export const GAP_WARNING_DAYS = 7;
/** Findings kept for a warning sentence even where the dataset's budget leaves the list empty. */
export const FINDING_EXAMPLES = 3;

/** The public entry of one symbol, its lists cut to what the dataset's budget has left. */
export function listedEntry(f: SymbolFindings, budget: { left: number }): { q: SymbolQuality; cut: boolean } {
  const take = <T>(list: T[]): T[] => {
    const kept = list.slice(0, Math.min(MAX_FINDINGS_PER_LIST, budget.left));
    budget.left -= kept.length;
    return kept;
  };
  // The budget goes to splits first, then outliers, then stale runs: the graver findings.
  const splits = take(f.splits).map(({ date, ratio }) => ({ date, ratio }));
  const outliers = take(f.outliers);
  const staleRuns = take(f.staleRuns);
  const q: SymbolQuality = {
    symbol: f.symbol,
    first_date: f.firstDate,
    last_date: f.lastDate,
    observations: f.observations,
    missing: f.missing,
    longest_gap_days: f.longestGapDays,
    stale_runs: staleRuns,
    suspected_splits: splits,
    outliers,
    counts: { stale_runs: f.staleCount, suspected_splits: f.splitCount, outliers: f.outlierCount },
  };
  return { q, cut: splits.length < f.splitCount || outliers.length < f.outlierCount || staleRuns.length < f.staleCount };
}

const fixed = (x: number, digits: number) => (Object.is(Math.round(x * 10 ** digits), -0) ? 0 : x).toFixed(digits);

/** "2:1 split" for k = 1/2, "1:3 reverse split" for k = 3. */
function splitName(k: number): string {
  return k < 1 ? `${Math.round(1 / k)}:1 split` : `1:${Math.round(k)} reverse split`;
}

/** "a; b; c and 3 more": the first FINDING_EXAMPLES items, and how many of `count` are left. */
function examples(items: string[], count: number): string {
  const shown = items.slice(0, FINDING_EXAMPLES);
  const more = count - shown.length;
  return more > 0 ? `${shown.join('; ')} and ${more} more` : shown.join('; ');
}

function splitWarning(f: SymbolFindings): string | null {
  if (f.splitCount === 0) return null;
  const items = f.splits.map((s) => `${splitName(s.k)} on ${s.date} (price ratio ${fixed(s.ratio, 4)})`);
  if (f.splitCount === 1) return `${f.symbol}: possible ${items[0]}.`;
  return `${f.symbol}: ${f.splitCount} possible splits: ${examples(items, f.splitCount)}.`;
}

function outlierWarning(f: SymbolFindings): string | null {
  if (f.outlierCount === 0) return null;
  const items = f.outliers.map((o) => `${o.date} (log return ${fixed(o.log_return, 4)}, ${fixed(o.robust_z, 1)} robust σ from the median)`);
  if (f.outlierCount === 1) return `${f.symbol}: outlier return on ${items[0]}.`;
  return `${f.symbol}: ${f.outlierCount} outlier returns (more than 10 robust σ from the median): ${examples(items, f.outlierCount)}.`;
}

function staleWarning(f: SymbolFindings): string | null {
  const run = f.longestStale;
  if (!run) return null;
  const span = `${run.length} consecutive prices from ${run.start} to ${run.end}`;
  if (f.staleCount === 1) return `${f.symbol}: price unchanged for ${span} (stale run).`;
  return `${f.symbol}: ${f.staleCount} stale runs (5 or more equal prices in a row); the longest, ${span}.`;
}

function gapWarning(f: SymbolFindings): string | null {
  const h = f.hole;
  if (!h || h.days <= GAP_WARNING_DAYS) return null;
  const dates = h.rows === 1 ? '1 of the file’s dates in between has none' : `${h.rows} of the file’s dates in between have none`;
  return `${f.symbol}: no price for ${h.days} calendar days between ${h.from} and ${h.to} (${dates}; ${f.missing} missing in all).`;
}

function fewPricesWarning(f: SymbolFindings): string | null {
  if (f.observations === 0) return `${f.symbol}: no prices at all.`;
  if (f.observations === 1) return `${f.symbol}: only one price (${f.firstDate}); no return can be computed.`;
  return null;
}

const KINDS = [splitWarning, outlierWarning, staleWarning, gapWarning, fewPricesWarning];

/** The warnings of a dataset, at most MAX_WARNINGS, the last saying how many were left out. */
export function qualityWarnings(findings: SymbolFindings[]): { list: string[]; truncated: boolean } {
  const all: string[] = [];
  let total = 0;
  for (const kind of KINDS) {
    for (const f of findings) {
      const w = kind(f);
      if (w === null) continue;
      total++;
      if (all.length < MAX_WARNINGS) all.push(w);
    }
  }
  if (total <= MAX_WARNINGS) return { list: all, truncated: false };
  const left = total - (MAX_WARNINGS - 1);
  all[MAX_WARNINGS - 1] = `… and ${left} more warnings, not shown (at most ${MAX_WARNINGS} are listed; the per-symbol entries hold every count).`;
  return { list: all, truncated: true };
}
