// Distribution functions for the backtest statistics, written out here so that the figures depend on
// no library: erfc (W. J. Cody's rational Chebyshev approximations, Math. Comp. 1969, as in his
// CALERF of 1990), the standard normal density and quantile (M. J. Wichura, AS 241, 1988), the χ²
// survival function for 1 and 2 degrees of freedom, and the binomial CDF by a recurrence from the mode.
// Coefficients are the published ones written as the shortest decimals of the same doubles.

const SQRPI = 0.5641895835477563; // 1/√π
const INV_SQRT_2PI = 0.3989422804014327; // 1/√(2π)

// erf on |x| ≤ 0.46875
const A = [3.1611237438705655, 113.86415415105016, 377.485237685302, 3209.3775891384694, 0.18577770618460315];
const B = [23.601290952344122, 244.02463793444417, 1282.6165260773723, 2844.236833439171];
// erfc on 0.46875 < |x| ≤ 4
const C = [
  0.5641884969886701, 8.883149794388377, 66.11919063714163, 298.6351381974001, 881.952221241769, 1712.0476126340707, 2051.0783778260716, 1230.3393547979972,
  2.1531153547440383e-8,
];
const D = [
  15.744926110709835, 117.6939508913125, 537.1811018620099, 1621.3895745666903, 3290.7992357334597, 4362.619090143247, 3439.3676741437216, 1230.3393548037495,
];
// erfc on |x| > 4
const P = [0.30532663496123236, 0.36034489994980445, 0.12578172611122926, 0.016083785148742275, 0.0006587491615298378, 0.016315387137302097];
const Q = [2.568520192289822, 1.8729528499234604, 0.5279051029514285, 0.06051834131244132, 0.0023352049762686918];

/** Above this erfc(x) is below the smallest normal double; Cody's XBIG for IEEE double. */
const ERFC_XBIG = 26.543;

/** e^{−y²} without the rounding error of squaring y: y² split into a multiple of 1/16 and a remainder. */
function expMinusSquare(y: number): number {
  const ysq = Math.trunc(y * 16) / 16;
  const del = (y - ysq) * (y + ysq);
  return Math.exp(-ysq * ysq) * Math.exp(-del);
}

/** Complementary error function erfc(x) = (2/√π) ∫ₓ^∞ e^{−t²} dt, relative error about 1e-15 for x ≥ 0. */
export function erfc(x: number): number {
  if (Number.isNaN(x)) return NaN;
  const y = Math.abs(x);
  if (y <= 0.46875) {
    const ysq = y > 1.11e-16 ? y * y : 0;
    let num = A[4]! * ysq;
    let den = ysq;
    for (let i = 0; i < 3; i++) {
      num = (num + A[i]!) * ysq;
      den = (den + B[i]!) * ysq;
    }
    return 1 - (x * (num + A[3]!)) / (den + B[3]!);
  }
  let r: number;
  if (y <= 4) {
    let num = C[8]! * y;
    let den = y;
    for (let i = 0; i < 7; i++) {
      num = (num + C[i]!) * y;
      den = (den + D[i]!) * y;
    }
    r = ((num + C[7]!) / (den + D[7]!)) * expMinusSquare(y);
  } else if (y >= ERFC_XBIG) {
    r = 0;
  } else {
    const ysq = 1 / (y * y);
    let num = P[5]! * ysq;
    let den = ysq;
    for (let i = 0; i < 4; i++) {
      num = (num + P[i]!) * ysq;
      den = (den + Q[i]!) * ysq;
    }
    r = ((SQRPI - (ysq * (num + P[4]!)) / (den + Q[4]!)) / y) * expMinusSquare(y);
  }
  return x < 0 ? 2 - r : r;
}

/** Standard normal density φ(z). */
export function normalPdf(z: number): number {
  return INV_SQRT_2PI * Math.exp(-0.5 * z * z);
}

/** Standard normal quantile Φ⁻¹(p), Wichura's AS 241 (PPND16, relative error about 1e-16); ±∞ at 0 and 1, NaN outside [0, 1]. */
export function normalQuantile(p: number): number {
  if (!(p >= 0 && p <= 1)) return NaN;
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    const num =
      (((((((2509.0809287301227 * r + 33430.57558358813) * r + 67265.7709270087) * r + 45921.95393154987) * r + 13731.69376550946) * r + 1971.5909503065513) *
        r +
        133.14166789178438) *
        r +
        3.3871328727963665) *
      q;
    const den =
      ((((((5226.495278852854 * r + 28729.085735721943) * r + 39307.89580009271) * r + 21213.794301586597) * r + 5394.196021424751) * r + 687.1870074920579) *
        r +
        42.31333070160091) *
        r +
      1;
    return num / den;
  }
  let r = Math.sqrt(-Math.log(q < 0 ? p : 1 - p));
  let x: number;
  if (r <= 5) {
    r -= 1.6;
    x =
      (((((((0.0007745450142783414 * r + 0.022723844989269184) * r + 0.2417807251774506) * r + 1.2704582524523684) * r + 3.6478483247632045) * r +
        5.769497221460691) *
        r +
        4.630337846156546) *
        r +
        1.4234371107496835) /
      (((((((1.0507500716444169e-9 * r + 0.0005475938084995345) * r + 0.015198666563616457) * r + 0.14810397642748008) * r + 0.6897673349851) * r +
        1.6763848301838038) *
        r +
        2.053191626637759) *
        r +
        1);
  } else {
    r -= 5;
    x =
      (((((((2.0103343992922881e-7 * r + 0.000027115555687434876) * r + 0.0012426609473880784) * r + 0.026532189526576124) * r + 0.29656057182850487) * r +
        1.7848265399172913) *
        r +
        5.463784911164114) *
        r +
        6.657904643501103) /
      (((((((2.0442631033899397e-15 * r + 1.421511758316446e-7) * r + 0.000018463183175100548) * r + 0.0007868691311456133) * r + 0.014875361290850615) * r +
        0.1369298809227358) *
        r +
        0.599832206555888) *
        r +
        1);
  }
  return q < 0 ? -x : x;
}

/**
 * Survival function of the χ² distribution, P(X > x): 1 degree of freedom erfc(√(x/2)), 2 degrees
 * exp(−x/2). 1 for x ≤ 0, NaN for NaN.
 */
export function chiSquareSurvival(x: number, dof: 1 | 2): number {
  if (Number.isNaN(x)) return NaN;
  if (x <= 0) return 1;
  if (dof === 1) return erfc(Math.sqrt(x / 2));
  if (dof === 2) return Math.exp(-x / 2);
  throw new RangeError(`chi-square survival: ${String(dof)} degrees of freedom not supported (1 or 2)`);
}

/**
 * Binomial CDF F(x; n, p) = P(X ≤ x) for X ~ Binomial(n, p), n a whole number.
 * The probabilities are built by the ratio recurrence outward from the mode (which is set to 1, so
 * nothing overflows; terms more than ~1e-308 below the mode's underflow to 0), each side summed from
 * its smallest term up, then normalised by their total: relative error about (distance from the
 * mode) × 1e-16, and no cancellation in either tail. O(n) time and memory.
 */
export function binomialCdf(x: number, n: number, p: number): number {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`binomial CDF: n must be a whole number ≥ 0, got ${String(n)}`);
  if (!(p >= 0 && p <= 1)) throw new RangeError(`binomial CDF: p must lie in [0, 1], got ${String(p)}`);
  if (Number.isNaN(x)) return NaN;
  const k = Math.floor(x);
  if (k < 0) return 0;
  if (k >= n) return 1;
  if (p === 0) return 1;
  if (p === 1) return 0;
  const odds = p / (1 - p);
  const mode = Math.min(n, Math.floor((n + 1) * p));
  const terms = new Float64Array(n + 1);
  terms[mode] = 1;
  for (let j = mode + 1; j <= n; j++) terms[j] = ((terms[j - 1]! * (n - j + 1)) / j) * odds;
  for (let j = mode - 1; j >= 0; j--) terms[j] = (terms[j + 1]! * (j + 1)) / (n - j) / odds;
  let lower = 0;
  for (let j = 0; j <= k; j++) lower += terms[j]!; // from the far left tail inward
  let upper = 0;
  for (let j = n; j > k; j--) upper += terms[j]!; // from the far right tail inward
  return lower / (lower + upper);
}
