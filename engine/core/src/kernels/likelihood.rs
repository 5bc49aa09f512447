//! A block's normals in the kernels, and importance sampling: each day's normals drawn in the one
//! fixed order, moved by the spec's shift θ, and each simulation's likelihood ratio φ(z)/φ(z − θ)
//! of the draws z it was given (the model's density over the shifted one), accumulated in logs
//! over its days.

use super::workspace::Workspace;
use crate::math::exp;
use crate::rng::Xoshiro256pp;
use crate::spec::{Spec, BLOCK};
use crate::ziggurat::fill_standard_normals;

/// Importance sampling: moves every simulation's normals by θ (`shift`, one entry per factor
/// column of `z`) and adds −θ·z + |θ|²/2 of the moved z to its log likelihood ratio, column by
/// column in a fixed order. Without a shift nothing changes.
fn shift_normals(shift: &[f64], z: &mut [f64], log_weight: &mut [f64]) {
    if shift.is_empty() {
        return;
    }
    let half_square = 0.5 * shift.iter().map(|t| t * t).sum::<f64>();
    for (column, &t) in z.chunks_exact_mut(BLOCK).zip(shift) {
        for (x, lw) in column.iter_mut().zip(log_weight.iter_mut()) {
            *x += t;
            *lw -= t * *x;
        }
    }
    log_weight.iter_mut().for_each(|lw| *lw += half_square);
}

/// Draw order, fixed for every build: factor column by column (asset by asset for a triangular
/// factor), simulation by simulation. Antithetic runs pair simulation 2m with 2m + 1.
fn fill_normals(rng: &mut Xoshiro256pp, z: &mut [f64], antithetic: bool) {
    if antithetic {
        // The pairs' first halves drawn into the front, then spread from the back: pair k's
        // slots 2k and 2k + 1 lie at or after k, so no draw is written over before it is read.
        let pairs = z.len() / 2;
        fill_standard_normals(rng, &mut z[..pairs]);
        for k in (0..pairs).rev() {
            let x = z[k];
            z[2 * k] = x;
            z[2 * k + 1] = -x;
        }
    } else {
        fill_standard_normals(rng, z);
    }
}

/// A block's normals for one day: drawn, paired when antithetic, moved under importance sampling.
pub(super) fn draw_normals(spec: &Spec, rng: &mut Xoshiro256pp, ws: &mut Workspace) {
    let draws = spec.draws() * BLOCK;
    // Loadings can have more columns than the assets the workspace was sized for (instruments
    // summing several factors): grown once, on the first block.
    if ws.z.len() < draws {
        ws.z.resize(draws, 0.0);
    }
    fill_normals(rng, &mut ws.z[..draws], spec.antithetic());
    shift_normals(spec.shift(), &mut ws.z[..draws], &mut ws.log_weight);
}

/// Starts a block's likelihood ratios at 1 (log 0).
pub(super) fn reset_weights(spec: &Spec, ws: &mut Workspace) {
    if !spec.shift().is_empty() {
        ws.log_weight.iter_mut().for_each(|x| *x = 0.0);
    }
}

/// Ends a block's likelihood ratios: e^{log ratio}.
pub(super) fn close_weights(spec: &Spec, ws: &mut Workspace) {
    if !spec.shift().is_empty() {
        for (w, lw) in ws.weight.iter_mut().zip(&ws.log_weight) {
            *w = exp(*lw);
        }
    }
}
