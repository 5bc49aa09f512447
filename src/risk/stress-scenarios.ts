import { NAMED_WINDOWS, type StressScenarioInput } from '../contract/stress-schemas.js';
import { type Estimation } from '../engine/codec.js';
import { ABI } from '../engine/abi.js';
import { type PricedBook } from './books.js';
import { type PriceHistory } from './price-history.js';

/** The book the scenarios revalue: its symbols (the model's first ones), exposures and capital. */
export interface StressBook {
  symbols: string[];
  book: PricedBook;
}

export interface StressItem {
  symbol: string;
  return: number;
  pnl: number;
  conditional_sd?: number;
}

export interface StressOutcome {
  covered: boolean;
  start?: string;
  end?: string;
  pnl: number;
  pnl_pct: number;
  items: StressItem[];
}

/** Revalues the book on simple returns per symbol (the book's order). */
function revalue(b: StressBook, returns: ArrayLike<number>, extra?: (i: number) => Partial<StressItem>): Omit<StressOutcome, 'covered'> {
  let pnl = 0;
  const items = b.symbols.map((symbol, i) => {
    const r = returns[i]!;
    const itemPnl = b.book.exposures[i]! * r;
    pnl += itemPnl;
    return { symbol, return: r, pnl: itemPnl, ...extra?.(i) };
  });
  return { pnl, pnl_pct: pnl / b.book.capital, items };
}

const uncovered = (b: StressBook): StressOutcome => ({
  covered: false,
  pnl: 0,
  pnl_pct: 0,
  items: b.symbols.map((symbol) => ({ symbol, return: 0, pnl: 0 })),
});

/** Buy-and-hold from row `from` to row `to`: simple returns P_to / P_from − 1. */
function replay(b: StressBook, h: PriceHistory, from: number, to: number): StressOutcome {
  const p0 = h.prices[from]!;
  const p1 = h.prices[to]!;
  const returns = p1.map((p, i) => p / p0[i]! - 1);
  return { covered: true, start: h.dates[from]!, end: h.dates[to]!, ...revalue(b, returns) };
}

/** The last row dated on or before `date` (−1 if none). */
function rowOnOrBefore(h: PriceHistory, date: string): number {
  let lo = 0;
  let hi = h.dates.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (h.dates[mid]! <= date) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** A dated window, covered when the data holds prices from `start` (or before) to `end` (or after). */
function window(b: StressBook, h: PriceHistory, start: string, end: string): StressOutcome {
  const from = rowOnOrBefore(h, start);
  const to = rowOnOrBefore(h, end);
  const last = h.dates[h.dates.length - 1];
  if (from < 0 || to <= from || last === undefined || last < end) return uncovered(b);
  return replay(b, h, from, to);
}

/** The T-day window (T + 1 price rows) of the worst P&L, the earliest of equal ones. */
function worstWindow(b: StressBook, h: PriceHistory, horizon: number): StressOutcome {
  let worst = -1;
  let worstPnl = Infinity;
  for (let from = 0; from + horizon < h.prices.length; from++) {
    const p0 = h.prices[from]!;
    const p1 = h.prices[from + horizon]!;
    let pnl = 0;
    for (let i = 0; i < p0.length; i++) pnl += b.book.exposures[i]! * (p1[i]! / p0[i]! - 1);
    if (pnl < worstPnl) {
      worstPnl = pnl;
      worst = from;
    }
  }
  return worst < 0 ? uncovered(b) : replay(b, h, worst, worst + horizon);
}

/**
 * Conditional on the shocked symbols' T-day log returns x_s = ln(1 + s), the others' mean
 * Tμ_o + Σ_os Σ_ss⁻¹ (x_s − Tμ_s) and covariance T(Σ_oo − Σ_os Σ_ss⁻¹ Σ_so), with Σ the model's
 * (repaired) covariance over `modelSymbols` (the book's symbols first).
 */
function conditional(b: StressBook, est: Estimation, modelSymbols: string[], shocks: Record<string, number>, horizon: number): StressOutcome {
  const sigma = covarianceEntries(est, modelSymbols.length);
  const shocked = modelSymbols.flatMap((s, i) => (Object.hasOwn(shocks, s) ? [i] : []));
  const x = shocked.map((i) => Math.log1p(shocks[modelSymbols[i]!]!) - horizon * est.mean[i]!);
  const chol = repairedCholesky(shocked.map((a) => shocked.map((c) => sigma(a, c))));
  const alpha = solve(chol, x);
  const returns = new Float64Array(b.symbols.length);
  const sds = new Float64Array(b.symbols.length);
  for (let i = 0; i < b.symbols.length; i++) {
    const k = shocked.indexOf(i);
    if (k >= 0) {
      returns[i] = shocks[b.symbols[i]!]!;
      continue;
    }
    const cross = shocked.map((s) => sigma(i, s));
    const mean = horizon * est.mean[i]! + cross.reduce((acc, c, j) => acc + c * alpha[j]!, 0);
    const v = forward(chol, cross);
    const explained = v.reduce((acc, y) => acc + y * y, 0);
    sds[i] = Math.sqrt(Math.max(0, horizon * (sigma(i, i) - explained)));
    returns[i] = Math.expm1(mean);
  }
  return { covered: true, ...revalue(b, returns, (i) => ({ conditional_sd: sds[i]! })) };
}

/** Σ_ij of the model: its dense covariance with the repair jitter, or F_i·F_j of its loadings. */
function covarianceEntries(est: Estimation, n: number): (i: number, j: number) => number {
  if (est.factorColumns === ABI.FACTOR_TRIANGULAR) return (i, j) => est.covariance[i * n + j]! + (i === j ? est.jitter : 0);
  const m = est.factorColumns;
  return (i, j) => {
    let s = 0;
    for (let t = 0; t < m; t++) s += est.factor[i * m + t]! * est.factor[j * m + t]!;
    return s;
  };
}

/** Lower Cholesky factor of a matrix, or null unless every pivot is positive. */
function cholesky(a: number[][]): number[][] | null {
  const n = a.length;
  const l = a.map(() => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i]![j]!;
      for (let k = 0; k < j; k++) s -= l[i]![k]! * l[j]![k]!;
      if (i === j && !(s > 0)) return null;
      l[i]![j] = i === j ? Math.sqrt(s) : s / l[j]![j]!;
    }
  }
  return l;
}

/**
 * The factor of Σ_ss, or of Σ_ss + δI for the smallest δ = s·10^e (s the mean variance,
 * e = −14…2) that has one: a Cholesky-sampled model's Σ is repaired already, but a model sampled
 * through loadings keeps its exact, singular Σ, and more shocked symbols than returns in the
 * window make Σ_ss singular.
 */
function repairedCholesky(a: number[][]): number[][] {
  const exact = cholesky(a);
  if (exact) return exact;
  const scale = Math.max(a.reduce((acc, row, i) => acc + row[i]!, 0) / a.length, 1e-300);
  for (let e = -14; e <= 2; e++) {
    const delta = scale * 10 ** e;
    const l = cholesky(a.map((row, i) => row.map((x, j) => (i === j ? x + delta : x))));
    if (l) return l;
  }
  return a.map((row, i) => row.map((_, j) => (i === j ? Math.sqrt(scale) : 0)));
}

/** y with L y = b. */
function forward(l: number[][], b: number[]): number[] {
  const y: number[] = [];
  for (let i = 0; i < b.length; i++) {
    let s = b[i]!;
    for (let k = 0; k < i; k++) s -= l[i]![k]! * y[k]!;
    y.push(s / l[i]![i]!);
  }
  return y;
}

/** z with L Lᵀ z = b. */
function solve(l: number[][], b: number[]): number[] {
  const y = forward(l, b);
  const z = new Array<number>(y.length).fill(0);
  for (let i = y.length - 1; i >= 0; i--) {
    let s = y[i]!;
    for (let k = i + 1; k < y.length; k++) s -= l[k]![i]! * z[k]!;
    z[i] = s / l[i]![i]!;
  }
  return z;
}

/** One scenario's outcome. `history` holds the book's symbols' complete price rows. */
export function runScenario(s: StressScenarioInput, b: StressBook, history: PriceHistory, model: { est: Estimation; symbols: string[] }): StressOutcome {
  switch (s.type) {
    case 'historical_worst':
      return worstWindow(b, history, s.horizon);
    case 'historical_window':
      return window(b, history, s.start, s.end);
    case 'named':
      return window(b, history, NAMED_WINDOWS[s.name].start, NAMED_WINDOWS[s.name].end);
    case 'shock':
      return {
        covered: true,
        ...revalue(
          b,
          Float64Array.from(b.symbols, (sym) => (Object.hasOwn(s.shocks, sym) ? s.shocks[sym]! : 0)),
        ),
      };
    case 'conditional':
      return conditional(b, model.est, model.symbols, s.shocks, s.horizon);
  }
}
