//! Scenario kernels: fill one block of per-asset and portfolio P&L. Arrays are structure-of-arrays,
//! `[asset][simulation]`, with the simulation loop innermost so that LLVM emits f64x2 code.

use crate::math::expm1;
use crate::rng::Xoshiro256pp;
use crate::spec::{Method, Mode, Spec, BLOCK};
use crate::ziggurat::{standard_normal, ChiSquare};

#[cfg(test)]
mod reference;

/// Scratch space of one task, allocated once.
pub struct Workspace {
    n: usize,
    z: Vec<f64>,
    shock: Vec<f64>,
    cumulative: Vec<f64>,
    gross: Vec<f64>,
    growth: Vec<f64>,
    scaled_gross: Vec<f64>,
    t_factor: Vec<f64>,
    /// Output: per-asset P&L of the block, [asset][simulation].
    pub asset_pnl: Vec<f64>,
    /// Output: portfolio P&L of the block.
    pub pnl: Vec<f64>,
}

impl Workspace {
    pub fn new(n: usize) -> Self {
        Workspace {
            n,
            z: vec![0.0; n * BLOCK],
            shock: vec![0.0; BLOCK],
            cumulative: vec![0.0; n * BLOCK],
            gross: vec![0.0; BLOCK],
            growth: vec![0.0; BLOCK],
            scaled_gross: vec![0.0; BLOCK],
            t_factor: vec![0.0; BLOCK],
            asset_pnl: vec![0.0; n * BLOCK],
            pnl: vec![0.0; BLOCK],
        }
    }
}

/// √T·L, the factor of the one-draw buy-and-hold model (empty for historical specs).
pub fn scaled_cholesky(spec: &Spec) -> Vec<f64> {
    let sqrt_t = (spec.horizon() as f64).sqrt();
    spec.cholesky().iter().map(|l| sqrt_t * l).collect()
}

/// Fills `ws` with block `block` of `spec` (`chol_t` from `scaled_cholesky`): every scenario of
/// the block, also those past the spec's last, which the caller ignores.
pub fn fill_block(spec: &Spec, chol_t: &[f64], ws: &mut Workspace, block: usize) {
    let block_start = block * BLOCK;
    match (spec.method(), spec.mode()) {
        (Method::Historical, _) => {
            let count = BLOCK.min(spec.scenarios() - block_start);
            historical_windows(spec, ws, block_start, count)
        }
        (Method::MonteCarloNormal, Mode::BuyAndHold) => {
            let mut rng = Xoshiro256pp::for_block(spec.seed(), block as u64);
            normal_buy_and_hold(spec, chol_t, ws, &mut rng)
        }
        _ => {
            let mut rng = Xoshiro256pp::for_block(spec.seed(), block as u64);
            daily_paths(spec, ws, &mut rng)
        }
    }
}

/// Draw order, fixed for every build: asset by asset, simulation by simulation. Antithetic runs
/// pair simulation 2m with 2m + 1.
fn fill_normals(rng: &mut Xoshiro256pp, z: &mut [f64], antithetic: bool) {
    if antithetic {
        for pair in z.chunks_exact_mut(2) {
            let x = standard_normal(rng);
            pair[0] = x;
            pair[1] = -x;
        }
    } else {
        for x in z.iter_mut() {
            *x = standard_normal(rng);
        }
    }
}

/// shock[s] = base + Σ_{j≤i} l[j] · z[j][s], summed in increasing j.
#[inline(always)]
fn correlate(shock: &mut [f64], base: f64, l_row: &[f64], z: &[f64]) {
    shock.iter_mut().for_each(|x| *x = base);
    for (l, zj) in l_row.iter().zip(z.chunks_exact(BLOCK)) {
        for (x, zv) in shock.iter_mut().zip(zj) {
            *x += l * zv;
        }
    }
}

/// Buy-and-hold normal: one draw per simulation, R ~ N(Tμ, TΣ).
pub fn normal_buy_and_hold(
    spec: &Spec,
    chol_t: &[f64],
    ws: &mut Workspace,
    rng: &mut Xoshiro256pp,
) {
    let n = ws.n;
    let t = spec.horizon() as f64;
    fill_normals(rng, &mut ws.z, spec.antithetic());
    ws.pnl.iter_mut().for_each(|x| *x = 0.0);
    for i in 0..n {
        correlate(
            &mut ws.shock,
            t * spec.mean()[i],
            &chol_t[i * n..=i * n + i],
            &ws.z,
        );
        let position = spec.portfolio_value() * spec.weights()[i];
        let out = &mut ws.asset_pnl[i * BLOCK..(i + 1) * BLOCK];
        for ((a, p), r) in out.iter_mut().zip(ws.pnl.iter_mut()).zip(&ws.shock) {
            *a = position * expm1(*r);
            *p += *a;
        }
    }
}

/// T daily steps: rebalanced normal, and Student-t in both modes.
pub fn daily_paths(spec: &Spec, ws: &mut Workspace, rng: &mut Xoshiro256pp) {
    let n = ws.n;
    let student = spec.method() == Method::MonteCarloStudentT;
    let rebalanced = spec.mode() == Mode::Rebalanced;
    let nu = spec.degrees_of_freedom();
    let chi = ChiSquare::new(nu);
    let t_scale = ((nu - 2.0) / nu).sqrt();
    ws.cumulative.iter_mut().for_each(|x| *x = 0.0);
    ws.gross.iter_mut().for_each(|x| *x = 1.0);
    for _day in 0..spec.horizon() {
        fill_normals(rng, &mut ws.z, spec.antithetic());
        if student {
            let step = if spec.antithetic() { 2 } else { 1 };
            for pair in ws.t_factor.chunks_exact_mut(step) {
                let w = chi.sample(rng);
                let f = t_scale / (w / nu).sqrt();
                pair.iter_mut().for_each(|x| *x = f);
            }
        }
        ws.growth.iter_mut().for_each(|x| *x = 0.0);
        for (vg, g) in ws.scaled_gross.iter_mut().zip(&ws.gross) {
            *vg = spec.portfolio_value() * g;
        }
        for i in 0..n {
            correlate(
                &mut ws.shock,
                0.0,
                &spec.cholesky()[i * n..=i * n + i],
                &ws.z,
            );
            let mu = spec.mean()[i];
            if student {
                for (x, f) in ws.shock.iter_mut().zip(&ws.t_factor) {
                    *x = mu + f * *x;
                }
            } else {
                ws.shock.iter_mut().for_each(|x| *x += mu);
            }
            let cum = &mut ws.cumulative[i * BLOCK..(i + 1) * BLOCK];
            if rebalanced {
                let w = spec.weights()[i];
                for (((c, g), vg), r) in cum
                    .iter_mut()
                    .zip(ws.growth.iter_mut())
                    .zip(&ws.scaled_gross)
                    .zip(&ws.shock)
                {
                    let d = w * expm1(*r);
                    *g += d;
                    *c += vg * d;
                }
            } else {
                cum.iter_mut().zip(&ws.shock).for_each(|(c, r)| *c += r);
            }
        }
        if rebalanced {
            for (g, d) in ws.gross.iter_mut().zip(&ws.growth) {
                *g *= 1.0 + d;
            }
        }
    }
    finish_paths(spec, ws, rebalanced);
}

/// Turns accumulated paths into P&L. Buy-and-hold: V·w_i·(e^{ΣR} − 1). Rebalanced: asset i's gains
/// day by day on the running portfolio value, which add up to V·(Π(1 + g_t) − 1).
fn finish_paths(spec: &Spec, ws: &mut Workspace, rebalanced: bool) {
    let n = ws.n;
    if rebalanced {
        ws.asset_pnl.copy_from_slice(&ws.cumulative);
        for (p, g) in ws.pnl.iter_mut().zip(&ws.gross) {
            *p = spec.portfolio_value() * (g - 1.0);
        }
        return;
    }
    ws.pnl.iter_mut().for_each(|x| *x = 0.0);
    for i in 0..n {
        let position = spec.portfolio_value() * spec.weights()[i];
        let range = i * BLOCK..(i + 1) * BLOCK;
        for ((a, p), r) in ws.asset_pnl[range.clone()]
            .iter_mut()
            .zip(ws.pnl.iter_mut())
            .zip(&ws.cumulative[range])
        {
            *a = position * expm1(*r);
            *p += *a;
        }
    }
}

/// Historical simulation: scenario w is the T-day window of returns starting at observation w.
pub fn historical_windows(spec: &Spec, ws: &mut Workspace, first_window: usize, count: usize) {
    let n = ws.n;
    let rebalanced = spec.mode() == Mode::Rebalanced;
    let (returns, mean, weights) = (spec.returns(), spec.mean(), spec.weights());
    ws.cumulative.iter_mut().for_each(|x| *x = 0.0);
    ws.gross.iter_mut().for_each(|x| *x = 1.0);
    for s in 0..count {
        let start = first_window + s;
        for day in start..start + spec.horizon() {
            let row = &returns[day * n..(day + 1) * n];
            let scaled = spec.portfolio_value() * ws.gross[s];
            let mut growth = 0.0;
            for (i, (x, mu)) in row.iter().zip(mean).enumerate() {
                let r = x - mu;
                if rebalanced {
                    let d = weights[i] * expm1(r);
                    growth += d;
                    ws.cumulative[i * BLOCK + s] += scaled * d;
                } else {
                    ws.cumulative[i * BLOCK + s] += r;
                }
            }
            ws.gross[s] *= 1.0 + growth;
        }
    }
    finish_paths(spec, ws, rebalanced);
}
