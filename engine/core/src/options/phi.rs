//! Φ for the pricer: W. J. Cody's rational Chebyshev erfc (Math. Comp. 1969, as in CALERF, 1990),
//! a fixed number of +, −, ×, ÷ and the engine's own e^x per call — several times faster than the
//! series of `math::normal_cdf` (which the reference pricer keeps, so the two check each other),
//! and the same bits on every build. Coefficients as in src/risk/numerics/distributions.ts.

#![allow(clippy::excessive_precision)] // published coefficients kept verbatim

use crate::math::{estrin9, exp_sum};

pub(super) const A: [f64; 5] = [
    3.161_123_743_870_565_5,
    113.864_154_151_050_16,
    377.485_237_685_302,
    3_209.377_589_138_469_4,
    0.185_777_706_184_603_15,
];
pub(super) const B: [f64; 4] = [
    23.601_290_952_344_122,
    244.024_637_934_444_17,
    1_282.616_526_077_372_3,
    2_844.236_833_439_171,
];
pub(super) const C: [f64; 9] = [
    0.564_188_496_988_670_1,
    8.883_149_794_388_377,
    66.119_190_637_141_63,
    298.635_138_197_400_1,
    881.952_221_241_769,
    1_712.047_612_634_070_7,
    2_051.078_377_826_071_6,
    1_230.339_354_797_997_2,
    2.153_115_354_744_038_3e-8,
];
pub(super) const D: [f64; 8] = [
    15.744_926_110_709_835,
    117.693_950_891_312_5,
    537.181_101_862_009_9,
    1_621.389_574_566_690_3,
    3_290.799_235_733_459_7,
    4_362.619_090_143_247,
    3_439.367_674_143_721_6,
    1_230.339_354_803_749_5,
];
pub(super) const P: [f64; 6] = [
    0.305_326_634_961_232_36,
    0.360_344_899_949_804_45,
    0.125_781_726_111_229_26,
    0.016_083_785_148_742_275,
    0.000_658_749_161_529_837_8,
    0.016_315_387_137_302_097,
];
pub(super) const Q: [f64; 5] = [
    2.568_520_192_289_822,
    1.872_952_849_923_460_4,
    0.527_905_102_951_428_5,
    0.060_518_341_312_441_32,
    0.002_335_204_976_268_691_8,
];
pub(super) const SQRPI: f64 = 0.564_189_583_547_756_3; // 1/√π
/// Above this erfc(x) is below the smallest normal double (Cody's XBIG).
pub(super) const XBIG: f64 = 26.543;

/// 2^27 + 1: Dekker's splitter, cutting a double into two halves whose products are exact.
const SPLITTER: f64 = 134_217_729.0;

/// e^{−y²} without the rounding of y² (which would cost a relative error of y²·2⁻⁵³, 8e-14 near
/// XBIG): y² is formed exactly as hi + lo by Dekker's product (no fused multiply-add, so the same
/// bits everywhere) and e^{−hi−lo} taken in one `exp_sum`. Cody splits y at a multiple of 1/16
/// instead, which costs a second e^x; this is as accurate and half the work. Finite for y below
/// 2^995; the caller selects 0 from XBIG on, where a NaN here (y = ∞) is discarded.
#[inline(always)]
pub(super) fn exp_minus_square(y: f64) -> f64 {
    let c = SPLITTER * y;
    let high = c - (c - y);
    let low = y - high;
    let square = y * y;
    let rest = ((high * high - square) + 2.0 * high * low) + low * low;
    exp_sum(-square, -rest)
}

/// Cody's numerators and denominators, coefficients in ascending powers of t: near |x| ≤ 0.46875
/// in t = x², middle ≤ 4 in t = y, far in t = 1/y² (Cody's own order reads from the top).
pub(super) const NEAR_NUMERATOR: [f64; 5] = [A[3], A[2], A[1], A[0], A[4]];
pub(super) const NEAR_DENOMINATOR: [f64; 5] = [B[3], B[2], B[1], B[0], 1.0];
pub(super) const MIDDLE_NUMERATOR: [f64; 9] =
    [C[7], C[6], C[5], C[4], C[3], C[2], C[1], C[0], C[8]];
pub(super) const MIDDLE_DENOMINATOR: [f64; 9] =
    [D[7], D[6], D[5], D[4], D[3], D[2], D[1], D[0], 1.0];
pub(super) const FAR_NUMERATOR: [f64; 6] = [P[4], P[3], P[2], P[1], P[0], P[5]];
pub(super) const FAR_DENOMINATOR: [f64; 6] = [Q[4], Q[3], Q[2], Q[1], Q[0], 1.0];

/// A region's coefficients padded with zeros to nine.
const fn padded<const N: usize>(c: [f64; N]) -> [f64; 9] {
    let mut out = [0.0; 9];
    let mut j = 0;
    while j < N {
        out[j] = c[j];
        j += 1;
    }
    out
}

/// The three regions' coefficients side by side, [near, middle, far] per power: the branch-free
/// form selects a lane's region per coefficient and evaluates one `estrin9` pair and one division.
const fn merged(near: [f64; 9], middle: [f64; 9], far: [f64; 9]) -> [[f64; 3]; 9] {
    let mut out = [[0.0; 3]; 9];
    let mut j = 0;
    while j < 9 {
        out[j] = [near[j], middle[j], far[j]];
        j += 1;
    }
    out
}

const NUMERATOR: [[f64; 3]; 9] = merged(
    padded(NEAR_NUMERATOR),
    MIDDLE_NUMERATOR,
    padded(FAR_NUMERATOR),
);
const DENOMINATOR: [[f64; 3]; 9] = merged(
    padded(NEAR_DENOMINATOR),
    MIDDLE_DENOMINATOR,
    padded(FAR_DENOMINATOR),
);

/// erfc(x), relative error about 1e-15 for x ≥ 0. Branch-free: the region is chosen per lane by
/// selects on |x| (of coefficients, not of results), so a loop of it vectorises (the pricer's
/// columns) and each lane evaluates one rational function and one e^x.
#[inline(always)]
pub fn erfc(x: f64) -> f64 {
    let y = x.abs();
    let near = y <= 0.46875;
    let middle = y <= 4.0;
    let pick = |k: [f64; 3]| {
        if near {
            k[0]
        } else if middle {
            k[1]
        } else {
            k[2]
        }
    };
    let ysq = if y > 1.11e-16 { y * y } else { 0.0 };
    // One reciprocal for the far region's 1/y² and 1/y (Cody divides twice).
    let inverse = 1.0 / y;
    let t = pick([ysq, y, inverse * inverse]);
    let num = estrin9(NUMERATOR.map(pick), t);
    let den = estrin9(DENOMINATOR.map(pick), t);
    // near: x·N/D; middle: N/D; far: t·N/D — each region's own order of operations.
    let q = (pick([x, 1.0, t]) * num) / den;
    let tail = exp_minus_square(y);
    let far = (SQRPI - q) * inverse * tail;
    let far = if y >= XBIG { 0.0 } else { far };
    let r = if middle { q * tail } else { far };
    let r = if x < 0.0 { 2.0 - r } else { r };
    if near {
        1.0 - q
    } else {
        r
    }
}

/// Standard normal distribution function Φ(x) = erfc(−x/√2)/2.
#[inline(always)]
pub fn cdf(x: f64) -> f64 {
    0.5 * erfc(-x * std::f64::consts::FRAC_1_SQRT_2)
}

#[cfg(test)]
mod tests {
    use super::cdf;
    use super::*;
    use crate::math::normal_cdf;
    use crate::options::phi_lanes::{erfc_far, erfc_middle, erfc_near};
    use crate::rng::XorShift;

    /// Cody's e^{−y²}: y split at a multiple of 1/16, two e^x, with the platform's exp.
    fn exp_minus_square_cody(y: f64) -> f64 {
        let ysq = (y * 16.0).trunc() / 16.0;
        let del = (y - ysq) * (y + ysq);
        (-ysq * ysq).exp() * (-del).exp()
    }

    #[test]
    fn exact_square_tail_matches_codys_split() {
        let mut y = 0.0;
        while y < XBIG {
            let (a, b) = (exp_minus_square(y), exp_minus_square_cody(y));
            assert!((a - b).abs() <= 2e-15 * b, "e^-y² at {y}: {a:e} vs {b:e}");
            y += 0.000_976_562_5 * 1.37;
        }
        assert_eq!(exp_minus_square(0.0), 1.0);
    }

    /// The branching form, as it was before `erfc` became branch-free: each region only where it
    /// applies (the tail e^{−y²} shared).
    fn erfc_branching(x: f64) -> f64 {
        let y = x.abs();
        if y <= 0.46875 {
            return erfc_near(x, y);
        }
        let r = if y <= 4.0 {
            erfc_middle(y, exp_minus_square(y))
        } else if y >= XBIG {
            0.0
        } else {
            erfc_far(y, exp_minus_square(y))
        };
        if x < 0.0 {
            2.0 - r
        } else {
            r
        }
    }

    #[test]
    fn branch_free_erfc_gives_the_branching_bits() {
        let mut draw = XorShift(0x2545_f491_4f6c_dd1d_u64);
        let check = |x: f64| {
            let (got, want) = (erfc(x), erfc_branching(x));
            assert_eq!(
                got.to_bits(),
                want.to_bits(),
                "erfc({x:e}): {got:e} vs {want:e}"
            );
        };
        let edges = [
            0.0,
            -0.0,
            1e-17,
            -1e-17,
            0.46875,
            -0.46875,
            4.0,
            -4.0,
            XBIG,
            -XBIG,
            30.0,
            -30.0,
            f64::MAX,
            -f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        edges.into_iter().for_each(check);
        // Checked as drawn, with no list of a million cases (a WASI run's memory kept small).
        for _ in 0..1_000_000 {
            // Uniform over (−40, 40), where the pricer's d1 and d2 live.
            check(draw.uniform() * 80.0 - 40.0);
        }
    }

    #[test]
    fn agrees_with_the_series_across_the_range() {
        let mut x = -38.0;
        while x <= 9.0 {
            let (a, b) = (cdf(x), normal_cdf(x));
            // Both lose digits to e^{−x²/2} in the tail (about x²/2 ulps), and the series to
            // cancellation in 1/2 − φ·Σ just below x = −3 (6.5e-14 measured).
            let tol = 1e-13 * (1.0 + x * x);
            assert!(
                (a - b).abs() <= tol * b || (a - b).abs() < 1e-300,
                "{x}: {a} {b}"
            );
            x += 0.001_953_125;
        }
        assert_eq!(cdf(f64::NEG_INFINITY), 0.0);
        assert_eq!(cdf(f64::INFINITY), 1.0);
    }
}
