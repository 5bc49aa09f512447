//! Standard normal and chi-square variates. The normal is Doornik's ZIGNOR ziggurat with 256 layers
//! (tables in `ziggurat_tables.rs`); chi-square is 2 · Gamma(ν/2) by Marsaglia–Tsang. Both use the
//! engine's own `exp`/`ln`, so every build draws the same bits.

use crate::math::{exp, ln};
use crate::rng::Xoshiro256pp;
use crate::ziggurat_tables::{ZIG_R, ZIG_RATIO, ZIG_X};

const TWO_POW_M52: f64 = 1.0 / 4_503_599_627_370_496.0;

/// One standard normal variate.
#[inline(always)]
pub fn standard_normal(rng: &mut Xoshiro256pp) -> f64 {
    loop {
        let bits = rng.next_u64();
        // The top 53 bits give u in [−1, 1); the low 8 bits pick the layer independently.
        let u = (bits >> 11) as f64 * TWO_POW_M52 - 1.0;
        let layer = (bits & 0xff) as usize;
        if u.abs() < ZIG_RATIO[layer] {
            return u * ZIG_X[layer];
        }
        if let Some(x) = slow_path(rng, u, layer) {
            return x;
        }
    }
}

#[cold]
#[inline(never)]
fn slow_path(rng: &mut Xoshiro256pp, u: f64, layer: usize) -> Option<f64> {
    if layer == 0 {
        return Some(normal_tail(rng, u < 0.0));
    }
    let x = u * ZIG_X[layer];
    let x2 = x * x;
    let f0 = exp(-0.5 * (ZIG_X[layer] * ZIG_X[layer] - x2));
    let f1 = exp(-0.5 * (ZIG_X[layer + 1] * ZIG_X[layer + 1] - x2));
    if f1 + rng.uniform_open0() * (f0 - f1) < 1.0 {
        Some(x)
    } else {
        None
    }
}

/// Marsaglia's exact sampler for the tail beyond R.
fn normal_tail(rng: &mut Xoshiro256pp, negative: bool) -> f64 {
    loop {
        let x = ln(rng.uniform_open0()) / ZIG_R;
        let y = ln(rng.uniform_open0());
        if -2.0 * y >= x * x {
            return if negative { x - ZIG_R } else { ZIG_R - x };
        }
    }
}

/// Precomputed constants of a chi-square sampler with ν ≥ 2 degrees of freedom.
#[derive(Clone, Copy, Debug)]
pub struct ChiSquare {
    d: f64,
    c: f64,
}

impl ChiSquare {
    /// `dof` ≥ 2, so the gamma shape ν/2 ≥ 1 and Marsaglia–Tsang needs no boosting step.
    pub fn new(dof: f64) -> Self {
        let d = dof / 2.0 - 1.0 / 3.0;
        ChiSquare {
            d,
            c: 1.0 / (9.0 * d).sqrt(),
        }
    }

    #[inline]
    pub fn sample(&self, rng: &mut Xoshiro256pp) -> f64 {
        loop {
            let x = standard_normal(rng);
            let v = 1.0 + self.c * x;
            if v <= 0.0 {
                continue;
            }
            let v = v * v * v;
            let u = rng.uniform_open0();
            let x2 = x * x;
            if u < 1.0 - 0.0331 * x2 * x2 || ln(u) < 0.5 * x2 + self.d * (1.0 - v + ln(v)) {
                return 2.0 * self.d * v;
            }
        }
    }
}
