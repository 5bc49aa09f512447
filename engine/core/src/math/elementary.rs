//! e^x, e^x − 1 and ln, the engine's own. Platform `exp`/`ln` differ by an ulp between the WASM and
//! native builds; these use only +, −, ×, ÷, sqrt and bit operations (never fused multiply-add), so
//! every build returns the same bits.

#![allow(clippy::excessive_precision)] // published constants (fdlibm) are kept verbatim

use super::estrin::estrin13;

const LN2_HI: f64 = 6.931_471_803_691_238_164_90e-01;
const LN2_LO: f64 = 1.908_214_929_270_587_700_02e-10;
const LOG2_E: f64 = std::f64::consts::LOG2_E;
/// 1.5 · 2^52: adding it rounds to an integer held in the low mantissa bits.
const ROUND_MAGIC: f64 = 6_755_399_441_055_744.0;
/// Beyond these, e^x over- or underflows; clamping keeps results finite and branch-free.
const EXP_MAX_ARG: f64 = 709.0;
const EXP_MIN_ARG: f64 = -708.0;

/// The Taylor coefficients 1/(j + 2)! of (e^r − 1 − r)/r², j = 0…12.
const EXPM1_TERMS: [f64; 13] = [
    1.0 / 2.0,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5040.0,
    1.0 / 40320.0,
    1.0 / 362_880.0,
    1.0 / 3_628_800.0,
    1.0 / 39_916_800.0,
    1.0 / 479_001_600.0,
    1.0 / 6_227_020_800.0,
    1.0 / 87_178_291_200.0,
];

/// e^r − 1 of each lane's |r| ≤ ln2/2: Taylor series to degree 13 in Horner's order, error below
/// 1e-17 relative, each step taken over every lane before the next (one lane: the scalar series).
#[inline(always)]
fn expm1_reduced_lanes<const L: usize>(r: [f64; L]) -> [f64; L] {
    let mut p = [EXPM1_TERMS[12]; L];
    for c in EXPM1_TERMS[..12].iter().rev() {
        for k in 0..L {
            p[k] = p[k] * r[k] + c;
        }
    }
    let mut out = [0.0; L];
    for k in 0..L {
        out[k] = r[k] + (r[k] * r[k]) * p[k];
    }
    out
}

#[inline(always)]
fn expm1_reduced(r: f64) -> f64 {
    expm1_reduced_lanes([r])[0]
}

/// `expm1_reduced`'s series summed in Estrin's order (`estrin13`), for Φ (`exp_sum`); `exp` and
/// `expm1` keep Horner's order, in which the recorded Monte Carlo figures were computed. Its error
/// is of the same order (tested against Horner's).
#[inline(always)]
fn expm1_reduced_estrin(r: f64) -> f64 {
    r + (r * r) * estrin13(EXPM1_TERMS, r)
}

/// Splits x into n·ln2 + r with |r| ≤ ln2/2; returns (r, 2^n).
#[inline(always)]
fn reduce(x: f64) -> (f64, f64) {
    let x = if x > EXP_MAX_ARG { EXP_MAX_ARG } else { x };
    let x = if x < EXP_MIN_ARG { EXP_MIN_ARG } else { x };
    let shifted = x * LOG2_E + ROUND_MAGIC;
    let n = shifted - ROUND_MAGIC;
    let r = (x - n * LN2_HI) - n * LN2_LO;
    let n_bits = shifted.to_bits().wrapping_sub(ROUND_MAGIC.to_bits());
    let scale = f64::from_bits(n_bits.wrapping_add(1023) << 52);
    (r, scale)
}

/// e^x, branch-free (vectorises), relative error ≤ 5e-16. Arguments are clamped to [−708, 709].
#[inline(always)]
pub fn exp(x: f64) -> f64 {
    let (r, scale) = reduce(x);
    scale * (1.0 + expm1_reduced(r))
}

/// e^{hi + lo} for |lo| at most an ulp or so of hi (an argument held as an unevaluated sum, e.g. an
/// exact square): lo joins the reduced argument, so e^x is evaluated once and its accuracy is
/// that of `exp`, not spoilt by the rounding of hi + lo (an error of |hi|·2⁻⁵³ in the exponent).
/// The series in Estrin's order (`expm1_reduced_estrin`): Φ is its one caller.
#[inline(always)]
pub fn exp_sum(hi: f64, lo: f64) -> f64 {
    let (r, scale) = reduce(hi);
    scale * (1.0 + expm1_reduced_estrin(r + lo))
}

/// e^x − 1, accurate near zero (where the P&L of a small return lives).
#[inline(always)]
pub fn expm1(x: f64) -> f64 {
    expm1_lanes([x])[0]
}

/// `expm1` of `L` values, each step of the series taken over all of them before the next: the
/// same operations per value in the same order as one at a time, so the same bits.
#[inline(always)]
pub(super) fn expm1_lanes<const L: usize>(x: [f64; L]) -> [f64; L] {
    let mut r = [0.0; L];
    let mut scale = [0.0; L];
    for k in 0..L {
        (r[k], scale[k]) = reduce(x[k]);
    }
    let p = expm1_reduced_lanes(r);
    let mut out = [0.0; L];
    for k in 0..L {
        out[k] = scale[k] * p[k] + (scale[k] - 1.0);
    }
    out
}

/// ln(2^k · m) for m in [sqrt(2)/2, sqrt(2)] and k = `dk`: fdlibm's polynomial.
#[inline(always)]
fn ln_reduced(m: f64, dk: f64) -> f64 {
    const LG1: f64 = 6.666_666_666_666_735_130e-01;
    const LG2: f64 = 3.999_999_999_940_941_908e-01;
    const LG3: f64 = 2.857_142_874_366_239_149e-01;
    const LG4: f64 = 2.222_219_843_214_978_396e-01;
    const LG5: f64 = 1.818_357_216_161_805_012e-01;
    const LG6: f64 = 1.531_383_769_920_937_332e-01;
    const LG7: f64 = 1.479_819_860_511_658_591e-01;
    let f = m - 1.0;
    let hfsq = 0.5 * f * f;
    let s = f / (2.0 + f);
    let z = s * s;
    let w = z * z;
    let t1 = w * (LG2 + w * (LG4 + w * LG6));
    let t2 = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7)));
    let r = t2 + t1;
    s * (hfsq + r) + dk * LN2_LO - hfsq + f + dk * LN2_HI
}

/// Natural logarithm, fdlibm's algorithm. ln(0) = −∞, ln(x < 0) = NaN; callers pass x > 0.
/// Branch-free (the special cases are selects after the general path), so a loop of it
/// vectorises; the same bits as the branching form (tested against it).
#[inline(always)]
pub fn ln(x: f64) -> f64 {
    /// 2^54: scales a subnormal into the normal range.
    const TWO54: f64 = 18_014_398_509_481_984.0;
    /// 2^52 as the bits of a double: adding a small integer to its mantissa and subtracting
    /// 2^52 converts that integer exactly, with no integer-to-float instruction.
    const TWO52_BITS: u64 = 0x4330_0000_0000_0000;
    const TWO52: f64 = 4_503_599_627_370_496.0;

    let raw = x.to_bits();
    let subnormal = raw >> 52 == 0;
    let bits = if subnormal {
        (x * TWO54).to_bits()
    } else {
        raw
    };
    // Reduce x into [sqrt(2)/2, sqrt(2)]: x = 2^k · m.
    let hx = ((bits >> 32) as u32).wrapping_add(0x3ff0_0000 - 0x3fe6_a09e);
    let biased = u64::from(hx >> 20) + if subnormal { 0 } else { 54 };
    // k = biased − 0x3ff − 54, exact.
    let dk = (f64::from_bits(TWO52_BITS | biased) - TWO52) - (0x3ff + 54) as f64;
    let m =
        f64::from_bits((u64::from((hx & 0x000f_ffff) + 0x3fe6_a09e) << 32) | (bits & 0xffff_ffff));

    let general = ln_reduced(m, dk);
    // ±0 → −∞; negative (a negative NaN included) → NaN; +∞ and a positive NaN → x.
    let finite_or_not = if raw >> 52 >= 0x7ff { x } else { general };
    let signed = if raw >> 63 != 0 {
        f64::NAN
    } else {
        finite_or_not
    };
    if raw << 1 == 0 {
        f64::NEG_INFINITY
    } else {
        signed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::XorShift;

    /// The branching form of fdlibm's ln, as it was before `ln` became branch-free: special cases
    /// by branches, k by an integer conversion; the polynomial shared.
    fn ln_branching(x: f64) -> f64 {
        let mut bits = x.to_bits();
        let mut hx = (bits >> 32) as u32;
        let mut k: i32 = 0;
        if hx < 0x0010_0000 || hx >> 31 != 0 {
            if bits << 1 == 0 {
                return f64::NEG_INFINITY;
            }
            if hx >> 31 != 0 {
                return f64::NAN;
            }
            // Subnormal: scale into the normal range.
            k -= 54;
            bits = (x * 18_014_398_509_481_984.0).to_bits();
            hx = (bits >> 32) as u32;
        } else if hx >= 0x7ff0_0000 {
            return x;
        } else if hx == 0x3ff0_0000 && bits << 32 == 0 {
            return 0.0;
        }
        // Reduce x into [sqrt(2)/2, sqrt(2)].
        hx = hx.wrapping_add(0x3ff0_0000 - 0x3fe6_a09e);
        k += (hx >> 20) as i32 - 0x3ff;
        hx = (hx & 0x000f_ffff) + 0x3fe6_a09e;
        let m = f64::from_bits((u64::from(hx) << 32) | (bits & 0xffff_ffff));

        ln_reduced(m, f64::from(k))
    }

    fn rel(a: f64, b: f64) -> f64 {
        ((a - b) / b).abs()
    }

    #[test]
    fn exp_matches_platform_within_1e15() {
        let mut x = -700.0;
        while x < 700.0 {
            assert!(rel(exp(x), x.exp()) < 1e-15, "exp({x})");
            x += 0.137;
        }
        assert_eq!(exp(0.0), 1.0);
        assert!(exp(1e6).is_finite() && exp(-1e6) >= 0.0);
    }

    #[test]
    fn the_series_in_estrins_order_agrees_with_horners() {
        let half = std::f64::consts::LN_2 / 2.0;
        let mut r = -half;
        while r <= half {
            let (e, h) = (expm1_reduced_estrin(r), expm1_reduced(r));
            // Within an ulp or so of e^r, the value `exp_sum` returns.
            assert!(
                (e - h).abs() <= 2.5e-16 * (1.0 + h),
                "r = {r}: {e:e} vs {h:e}"
            );
            r += 1.0 / 65_536.0;
        }
        assert_eq!(expm1_reduced_estrin(0.0), 0.0);
        let mut x = -700.0;
        while x < 700.0 {
            assert!(rel(exp_sum(x, 0.0), x.exp()) < 1e-15, "exp_sum({x}, 0)");
            x += 0.137;
        }
    }

    #[test]
    fn expm1_is_accurate_near_zero() {
        for &x in &[1e-12, -3e-9, 1e-4, -0.01, 0.3, -0.34, 0.5, 2.0, -5.0] {
            assert!(rel(expm1(x), x.exp_m1()) < 2e-15, "expm1({x})");
        }
        assert_eq!(expm1(0.0), 0.0);
    }

    #[test]
    fn branch_free_ln_gives_the_branching_bits() {
        let mut draw = XorShift(0x9e37_79b9_7f4a_7c15_u64);
        let check = |x: f64| {
            let (got, want) = (ln(x), ln_branching(x));
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "ln({x:e}): {got:e} vs {want:e}"
            );
        };
        let edges = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            5e-324,
            2.2e-308,
            2.2250738585072014e-308,
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -f64::NAN,
            0.5,
            2.0,
            1e-300,
            1e300,
        ];
        edges.into_iter().for_each(check);
        // Each drawn case checked as it is drawn: no list of millions of them (which, in a WASI
        // run's memory, made Node crash on its way out).
        for _ in 0..1_000_000 {
            let bits = draw.next_bits();
            check(f64::from_bits(bits));
            // Near 1, where the P&L's logs live.
            check(1.0 + (f64::from_bits(bits >> 12 | 0x3ff0_0000_0000_0000) - 1.5));
        }
    }

    #[test]
    fn ln_matches_platform() {
        let mut x = 1e-300;
        while x < 1e300 {
            // fdlibm log is within one ulp.
            assert!(
                (ln(x) - x.ln()).abs() <= 2.3e-16 * x.ln().abs().max(1.0),
                "ln({x})"
            );
            x *= 1.37;
        }
        assert_eq!(ln(1.0), 0.0);
        assert!((ln(5e-324) - 5e-324f64.ln()).abs() < 1e-12);
        assert_eq!(ln(0.0), f64::NEG_INFINITY);
        assert!(ln(-1.0).is_nan());
    }
}
