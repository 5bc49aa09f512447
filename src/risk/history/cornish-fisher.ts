import { normalPdf, normalQuantile } from '../numerics/distributions.js';

/** Population moments (divisor N, as PerformanceAnalytics' modified VaR) of a P&L sample. */
export interface Moments {
  mean: number;
  /** √m2, m2 the second central moment with divisor N. */
  sd: number;
  /** m3 / m2^{3/2}. */
  skewness: number;
  /** m4 / m2² − 3. */
  excessKurtosis: number;
}

export function moments(x: ArrayLike<number>): Moments {
  const n = x.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += x[i]!;
  const mean = n > 0 ? sum / n : 0;
  // Deviations scaled by the largest: the fourth powers of a P&L near 1e80 would overflow otherwise.
  let scale = 0;
  for (let i = 0; i < n; i++) scale = Math.max(scale, Math.abs(x[i]! - mean));
  let [m2, m3, m4] = [0, 0, 0];
  for (let i = 0; i < n; i++) {
    const d = scale > 0 ? (x[i]! - mean) / scale : 0;
    const d2 = d * d;
    m2 += d2;
    m3 += d2 * d;
    m4 += d2 * d2;
  }
  [m2, m3, m4] = [m2 / n, m3 / n, m4 / n];
  // A sample without spread has no shape: the expansion falls back to the normal quantile.
  if (!(m2 > 0)) return { mean, sd: 0, skewness: 0, excessKurtosis: 0 };
  return { mean, sd: scale * Math.sqrt(m2), skewness: m3 / m2 ** 1.5, excessKurtosis: m4 / (m2 * m2) - 3 };
}

/** z_cf = z + (z² − 1)S/6 + (z³ − 3z)K/24 − (2z³ − 5z)S²/36 (api.md §16). */
export function cornishFisherQuantile(z: number, s: number, k: number): number {
  return z + ((z * z - 1) * s) / 6 + ((z * z * z - 3 * z) * k) / 24 - ((2 * z * z * z - 5 * z) * s * s) / 36;
}

/**
 * Whether z ↦ z_cf(z) increases over the whole tail z ≤ q. Its derivative is the quadratic
 * a z² + b z + c with a = K/8 − S²/6, b = S/3, c = 1 − K/8 + 5S²/36.
 */
export function monotoneOverTail(q: number, s: number, k: number): boolean {
  const [a, b, c] = [k / 8 - (s * s) / 6, s / 3, 1 - k / 8 + (5 * s * s) / 36];
  const slope = (z: number) => (a * z + b) * z + c;
  if (a < 0) return false; // the slope turns negative far enough in the tail
  if (a === 0) return b <= 0 ? slope(q) > 0 : false;
  const vertex = -b / (2 * a);
  return slope(Math.min(vertex, q)) > 0;
}

export interface CornishFisherFigures {
  valueAtRisk: number;
  expectedShortfall: number;
  skewness: number;
  excessKurtosis: number;
  valid: boolean;
}

/**
 * Modified VaR and ES of a P&L sample at confidence c, losses positive. With q = Φ⁻¹(1 − c),
 * α = 1 − c: VaR = −(μ + σ z_cf(q)); ES = −(μ + σ E[z_cf(Z) | Z ≤ q]) where the tail mean of the
 * expansion, integrated term by term against φ, is
 * −φ(q)/α · (1 + S q/6 + K (q² − 1)/24 + S² (1 − 2q²)/36).
 */
export function cornishFisher(pnl: ArrayLike<number>, confidence: number): CornishFisherFigures {
  const m = moments(pnl);
  const alpha = 1 - confidence;
  const q = normalQuantile(alpha);
  const [s, k] = [m.skewness, m.excessKurtosis];
  const zcf = cornishFisherQuantile(q, s, k);
  const tail = (-normalPdf(q) / alpha) * (1 + (s * q) / 6 + (k * (q * q - 1)) / 24 + (s * s * (1 - 2 * q * q)) / 36);
  return {
    valueAtRisk: -(m.mean + m.sd * zcf),
    expectedShortfall: -(m.mean + m.sd * tail),
    skewness: s,
    excessKurtosis: k,
    valid: monotoneOverTail(q, s, k),
  };
}
