//! Rebalanced paths: each day's gains on the running value, walked per book (a group of books at
//! a time on the very same draws), and the rounding residual shared back over the assets.

use super::daily::{day_returns, fill_t_factors};
use super::likelihood::{close_weights, draw_normals, reset_weights};
use super::workspace::{BookPaths, Workspace};
use crate::math::expm1;
use crate::rng::Xoshiro256pp;
use crate::spec::{Book, Method, Spec, BLOCK};
use crate::ziggurat::ChiSquare;

/// Rebalanced paths of `books` (one group) on block `block`, into `ws.paths`: each day, asset i's
/// gain on the running value C·gross is C·gross·a_i·(e^{r_i} − 1), and gross moves by
/// 1 + Σ_i a_i (e^{r_i} − 1); the portfolio P&L is C·(gross − 1).
pub fn fill_rebalanced(spec: &Spec, ws: &mut Workspace, block: usize, books: &[Book]) {
    let n = ws.n;
    while ws.paths.len() < books.len() {
        ws.paths.push(BookPaths::new(n));
    }
    for path in &mut ws.paths[..books.len()] {
        path.asset_pnl.iter_mut().for_each(|x| *x = 0.0);
        path.gross.iter_mut().for_each(|x| *x = 1.0);
    }
    if spec.method() == Method::Historical {
        rebalanced_windows(spec, ws, block, books);
    } else {
        rebalanced_draws(spec, ws, block, books);
    }
    for (path, book) in ws.paths.iter_mut().zip(books) {
        for (p, g) in path.pnl.iter_mut().zip(&path.gross) {
            *p = book.capital * (g - 1.0);
        }
        reconcile(path, n);
    }
}

/// The daily gains telescope to C·(gross − 1) only in exact arithmetic: a path whose value swings
/// far beyond where it ends (a levered book passing near zero) leaves a rounding residual of the
/// order of ε times its largest value. Sharing it over the assets in proportion to |gain| makes the
/// parts add up to the portfolio P&L, so Euler components add up to ES; zero positions stay zero.
fn reconcile(path: &mut BookPaths, n: usize) {
    let (sum, abs) = (&mut path.growth, &mut path.scaled_gross);
    sum.iter_mut().for_each(|x| *x = 0.0);
    abs.iter_mut().for_each(|x| *x = 0.0);
    for gains in path.asset_pnl.chunks_exact(BLOCK).take(n) {
        for ((t, a), g) in sum.iter_mut().zip(abs.iter_mut()).zip(gains) {
            *t += g;
            *a += g.abs();
        }
    }
    for ((t, a), p) in sum.iter_mut().zip(abs.iter()).zip(&path.pnl) {
        let residual = p - *t;
        *t = if residual.is_finite() && a.is_finite() && *a > 0.0 {
            residual
        } else {
            0.0
        };
    }
    for gains in path.asset_pnl.chunks_exact_mut(BLOCK).take(n) {
        for ((g, r), a) in gains.iter_mut().zip(sum.iter()).zip(abs.iter()) {
            if *r != 0.0 {
                *g += r * (g.abs() / a);
            }
        }
    }
}

/// T daily draws per simulation, normal or Student-t.
fn rebalanced_draws(spec: &Spec, ws: &mut Workspace, block: usize, books: &[Book]) {
    let n = ws.n;
    let student = spec.method() == Method::MonteCarloStudentT;
    let nu = spec.degrees_of_freedom();
    let chi = ChiSquare::new(nu);
    let mut rng = Xoshiro256pp::for_block(spec.seed(), block as u64);
    reset_weights(spec, ws);
    for _day in 0..spec.horizon() {
        draw_normals(spec, &mut rng, ws);
        if student {
            fill_t_factors(&mut rng, &chi, nu, &mut ws.t_factor, spec.antithetic());
        }
        for (path, book) in ws.paths.iter_mut().zip(books) {
            path.growth.iter_mut().for_each(|x| *x = 0.0);
            for (vg, g) in path.scaled_gross.iter_mut().zip(&path.gross) {
                *vg = book.capital * g;
            }
        }
        day_returns(spec, ws, student);
        for i in 0..n {
            let returns = &ws.unit[i * BLOCK..(i + 1) * BLOCK];
            for (x, r) in ws.gain[..BLOCK].iter_mut().zip(returns) {
                *x = expm1(*r);
            }
            for (path, book) in ws.paths.iter_mut().zip(books) {
                let w = book.weights[i];
                let cum = &mut path.asset_pnl[i * BLOCK..(i + 1) * BLOCK];
                for (((c, g), vg), x) in cum
                    .iter_mut()
                    .zip(path.growth.iter_mut())
                    .zip(&path.scaled_gross)
                    .zip(&ws.gain[..BLOCK])
                {
                    let d = w * x;
                    *g += d;
                    *c += vg * d;
                }
            }
        }
        for path in &mut ws.paths[..books.len()] {
            for (g, d) in path.gross.iter_mut().zip(&path.growth) {
                *g *= 1.0 + d;
            }
        }
    }
    close_weights(spec, ws);
}

/// Historical: scenario w is the T-day window of returns starting at observation w.
fn rebalanced_windows(spec: &Spec, ws: &mut Workspace, block: usize, books: &[Book]) {
    let n = ws.n;
    let first_window = block * BLOCK;
    let count = BLOCK.min(spec.scenarios() - first_window);
    let (returns, mean) = (spec.returns(), spec.mean());
    for s in 0..count {
        let start = first_window + s;
        for day in start..start + spec.horizon() {
            let row = &returns[day * n..(day + 1) * n];
            for ((x, r), mu) in ws.gain[..n].iter_mut().zip(row).zip(mean) {
                *x = expm1(r - mu);
            }
            for (path, book) in ws.paths.iter_mut().zip(books) {
                let scaled = book.capital * path.gross[s];
                let mut growth = 0.0;
                for (i, (w, x)) in book.weights.iter().zip(&ws.gain[..n]).enumerate() {
                    let d = w * x;
                    growth += d;
                    path.asset_pnl[i * BLOCK + s] += scaled * d;
                }
                path.gross[s] *= 1.0 + growth;
            }
        }
    }
}
