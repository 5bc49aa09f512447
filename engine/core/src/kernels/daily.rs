//! One day of a block's draws: Student-t factors, and every asset's returns from the correlated
//! normals.

use super::correlate::correlate_rows;
use super::workspace::Workspace;
use crate::rng::Xoshiro256pp;
use crate::spec::{Spec, BLOCK};
use crate::ziggurat::ChiSquare;

/// One day's Student-t factors √((ν − 2)/ν) / √(W/ν), one W per simulation (per pair).
pub fn fill_t_factors(
    rng: &mut Xoshiro256pp,
    chi: &ChiSquare,
    nu: f64,
    f: &mut [f64],
    antithetic: bool,
) {
    let t_scale = ((nu - 2.0) / nu).sqrt();
    let step = if antithetic { 2 } else { 1 };
    for pair in f.chunks_exact_mut(step) {
        let w = chi.sample(rng);
        let x = t_scale / (w / nu).sqrt();
        pair.iter_mut().for_each(|y| *y = x);
    }
}

/// One day's returns of every asset on every path of the block, into `ws.unit`: r = μ_i + F_i z
/// (normal) or μ_i + f·F_i z (Student-t).
pub fn day_returns(spec: &Spec, ws: &mut Workspace, student: bool) {
    correlate_rows(spec, spec.factor(), |_| 0.0, &ws.z, &mut ws.unit);
    for (row, mu) in ws.unit.chunks_exact_mut(BLOCK).zip(spec.mean()) {
        if student {
            for (x, f) in row.iter_mut().zip(&ws.t_factor) {
                *x = mu + f * *x;
            }
        } else {
            row.iter_mut().for_each(|x| *x += mu);
        }
    }
}
