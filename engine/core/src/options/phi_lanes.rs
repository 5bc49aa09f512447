//! erfc over a group of lanes, the same bits as `phi::erfc` lane by lane (a NaN's sign aside),
//! for the pricer's columns. The branch-free `erfc` selects every coefficient among Cody's three
//! regions, which costs more than the arithmetic; but a column's d1 (or d2) across neighbouring
//! scenarios mostly falls in one region. A group whose lanes all do takes that region's own
//! rational function with no selects (and the near region no e^x); a group of near and middle
//! lanes takes both forms and keeps each lane's; any other mix the branch-free form. Each
//! region's form performs the operations the merged form performs for it (its top zero
//! coefficients only add exact zeros in `math::estrin9`'s tree; below 1.11e-16 the near form's y² is not 0,
//! which rounds away: `erfc_near`), so the choice never changes a bit.

use super::phi::{
    erfc, exp_minus_square, FAR_DENOMINATOR, FAR_NUMERATOR, MIDDLE_DENOMINATOR, MIDDLE_NUMERATOR,
    NEAR_DENOMINATOR, NEAR_NUMERATOR, SQRPI, XBIG,
};
use crate::math::{estrin5, estrin6, estrin9};

/// Lanes per group: two AVX2 registers of f64, four simd128 ones.
pub const LANES: usize = 8;

/// Cody's region bounds on |x|: near up to NEAR, middle up to MIDDLE, far beyond.
const NEAR: f64 = 0.46875;
const MIDDLE: f64 = 4.0;

/// erfc(x) for |x| ≤ 0.46875: 1 − x·N(y²)/D(y²), y = |x|. Cody takes y² as 0 for y ≤ 1.11e-16
/// (to raise no underflow); here y² is taken as it is, the same bits: below that bound N and D
/// differ from A₃ and B₃ by under 2e-29, which their sums round away (half an ulp of either is
/// over 2e-13). Without the select the group's lanes compile to whole vector instructions.
#[inline(always)]
pub fn erfc_near(x: f64, y: f64) -> f64 {
    let ysq = y * y;
    1.0 - x * estrin5(NEAR_NUMERATOR, ysq) / estrin5(NEAR_DENOMINATOR, ysq)
}

/// erfc(y) for 0.46875 < y ≤ 4, from `tail` = e^{−y²}.
#[inline(always)]
pub fn erfc_middle(y: f64, tail: f64) -> f64 {
    estrin9(MIDDLE_NUMERATOR, y) / estrin9(MIDDLE_DENOMINATOR, y) * tail
}

/// erfc(y) for 4 < y < XBIG, from `tail` = e^{−y²}.
#[inline(always)]
pub fn erfc_far(y: f64, tail: f64) -> f64 {
    let inverse = 1.0 / y;
    let t = inverse * inverse;
    (SQRPI - t * estrin6(FAR_NUMERATOR, t) / estrin6(FAR_DENOMINATOR, t)) * inverse * tail
}

/// erfc(−x) = 2 − erfc(x): the middle and far regions' reflection.
#[inline(always)]
fn reflected(x: f64, r: f64) -> f64 {
    if x < 0.0 {
        2.0 - r
    } else {
        r
    }
}

/// erfc of each lane, the bits of `erfc` lane by lane.
#[inline(always)]
pub fn erfc_lanes(x: &[f64; LANES]) -> [f64; LANES] {
    let mut y = [0.0; LANES];
    for (y, x) in y.iter_mut().zip(x) {
        *y = x.abs();
    }
    let mut out = [0.0; LANES];
    if y.iter().all(|&y| y <= NEAR) {
        for ((o, &x), &y) in out.iter_mut().zip(x).zip(&y) {
            *o = erfc_near(x, y);
        }
    } else if y.iter().all(|&y| y > NEAR && y <= MIDDLE) {
        for ((o, &x), &y) in out.iter_mut().zip(x).zip(&y) {
            *o = reflected(x, erfc_middle(y, exp_minus_square(y)));
        }
    } else if y.iter().all(|&y| y > MIDDLE && y < XBIG) {
        for ((o, &x), &y) in out.iter_mut().zip(x).zip(&y) {
            *o = reflected(x, erfc_far(y, exp_minus_square(y)));
        }
    } else if y.iter().all(|&y| y <= MIDDLE) {
        // Near and middle lanes (a column crossing |x| = 0.46875, the commonest mix): both
        // regions' forms on every lane and each lane's own kept, cheaper than selecting every
        // coefficient.
        for ((o, &x), &y) in out.iter_mut().zip(x).zip(&y) {
            let near = erfc_near(x, y);
            let middle = reflected(x, erfc_middle(y, exp_minus_square(y)));
            *o = if y <= NEAR { near } else { middle };
        }
    } else {
        for (o, &x) in out.iter_mut().zip(x) {
            *o = erfc(x);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::XorShift;

    #[test]
    fn every_kind_of_group_gives_the_branch_free_bits() {
        let mut draw = XorShift(0x9e37_79b9_7f4a_7c15_u64);
        let mut uniform = || draw.uniform();
        // Groups inside each region (both signs), straddling each bound, and spread over (−40, 40).
        let ranges: [(f64, f64); 9] = [
            (-NEAR, NEAR),
            (NEAR, MIDDLE),
            (-MIDDLE, -NEAR),
            (MIDDLE, XBIG),
            (-XBIG, -MIDDLE),
            (NEAR - 0.01, NEAR + 0.01),
            (-NEAR - 0.3, NEAR + 0.3),
            (MIDDLE - 0.01, MIDDLE + 0.01),
            (-40.0, 40.0),
        ];
        let edges = [
            0.0,
            -0.0,
            1e-17,
            // Either side of the bound where Cody's y² is 0 and the near form's is not (down to
            // where y² underflows to 0 in both): the same bits.
            1.11e-16,
            -1.11e-16,
            1.2e-16,
            1e-150,
            1e-300,
            -5e-324,
            NEAR,
            -NEAR,
            MIDDLE,
            -MIDDLE,
            XBIG,
            -XBIG,
            f64::MAX,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        let check = |g: [f64; LANES]| {
            for (x, got) in g.iter().zip(erfc_lanes(&g)) {
                let want = erfc(*x);
                assert!(
                    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                    "erfc({x:e}): {got:e} vs {want:e}"
                );
            }
        };
        edges.iter().for_each(|&e| check([e; LANES]));
        // Checked as drawn, with no list of the groups (a WASI run's memory kept small).
        for _ in 0..50_000 {
            for (low, high) in ranges {
                let mut g = [0.0; LANES];
                for x in g.iter_mut() {
                    *x = low + (high - low) * uniform();
                }
                check(g);
            }
        }
    }
}
