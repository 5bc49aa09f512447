//! Scenario kernels: one block of per-asset and portfolio P&L for each book. Arrays are
//! structure-of-arrays, `[asset][simulation]`, with the simulation loop innermost so that LLVM emits
//! f64x2 code. Buy-and-hold draws every asset's return once for all books (`fill_units`) and prices
//! each book on it; rebalanced paths depend on the book, so they are walked per book, a group of
//! books at a time on the very same draws (`fill_rebalanced`).

use crate::group_sums::{add_group, group_pnl, GroupSums, PNL_GROUP};
use crate::math::expm1;
use crate::rng::Xoshiro256pp;
use crate::spec::{Book, Method, Mode, Spec, BLOCK};
use crate::ziggurat::ChiSquare;

mod correlate;
mod likelihood;
#[cfg(test)]
mod reference;
mod workspace;

#[cfg(feature = "bench-ops")]
pub use correlate::correlate_factor;
use correlate::correlate_rows;
use likelihood::{close_weights, draw_normals, reset_weights};
pub use workspace::{group_size, BookPaths, Workspace};

/// What a block yields, in order: buy-and-hold first the shared returns, then each book.
pub enum Priced<'a> {
    /// e^{R_i} − 1 per asset [asset][simulation] (buy-and-hold only).
    Units(&'a [f64]),
    /// Book `book`'s per-asset P&L and portfolio P&L.
    Book {
        book: usize,
        assets: Assets<'a>,
        pnl: &'a [f64],
    },
}

/// A book's per-asset P&L over a block: stored (rebalanced paths), or e_i·(e^{R_i} − 1) computed
/// where it is read (buy-and-hold: only the tail's scenarios need it, and the product is the one
/// the portfolio sum was built from, bit for bit).
#[derive(Clone, Copy)]
pub enum Assets<'a> {
    /// [asset][simulation].
    Values(&'a [f64]),
    Scaled {
        units: &'a [f64],
        book: &'a Book,
    },
}

impl Assets<'_> {
    /// Asset i's P&L in simulation s of the block.
    #[inline(always)]
    pub fn at(&self, i: usize, s: usize) -> f64 {
        match self {
            Assets::Values(v) => v[i * BLOCK + s],
            Assets::Scaled { units, book } => book.exposure(i) * units[i * BLOCK + s],
        }
    }
}

/// √T·F, the factor of the one-draw buy-and-hold model (empty for historical specs).
pub fn scaled_factor(spec: &Spec) -> Vec<f64> {
    let sqrt_t = (spec.horizon() as f64).sqrt();
    spec.factor().iter().map(|l| sqrt_t * l).collect()
}

/// Prices block `block` of `spec` for every book (`factor_t` from `scaled_factor`), handing each
/// result to `emit`: every scenario of the block, also those past the spec's last, which the
/// caller ignores.
pub fn price_block(
    spec: &Spec,
    factor_t: &[f64],
    ws: &mut Workspace,
    block: usize,
    emit: &mut dyn FnMut(Priced),
) {
    price_block_from(spec, factor_t, ws, block, None, None, emit);
}

/// `price_block`, with a buy-and-hold block's units (its `ws.unit`, n × BLOCK) taken from `kept`
/// when given instead of drawn: the same values, so the same prices, bit for bit; and the books'
/// group sums kept in `sums` when given (summed again only where stale): the same prices again.
pub fn price_block_from(
    spec: &Spec,
    factor_t: &[f64],
    ws: &mut Workspace,
    block: usize,
    kept: Option<&[f64]>,
    mut sums: Option<&mut GroupSums>,
    emit: &mut dyn FnMut(Priced),
) {
    let books = spec.books();
    if spec.mode() == Mode::BuyAndHold {
        // Kept units are read where they lie: copying them into the workspace cost a tenth of a tick.
        let units: &[f64] = match kept {
            Some(units) => units,
            None => {
                fill_units(spec, factor_t, ws, block);
                &ws.unit
            }
        };
        emit(Priced::Units(units));
        for (b, book) in books.iter().enumerate() {
            match sums.as_deref_mut() {
                Some(sums) => sums.price(b, book, block, units, &mut ws.pnl),
                None => price_buy_and_hold(book, units, &mut ws.pnl),
            }
            emit(Priced::Book {
                book: b,
                assets: Assets::Scaled { units, book },
                pnl: &ws.pnl,
            });
        }
        return;
    }
    let group = ws.group;
    for first in (0..books.len()).step_by(group) {
        let members = &books[first..(first + group).min(books.len())];
        fill_rebalanced(spec, ws, block, members);
        for (j, path) in ws.paths[..members.len()].iter().enumerate() {
            emit(Priced::Book {
                book: first + j,
                assets: Assets::Values(&path.asset_pnl),
                pnl: &path.pnl,
            });
        }
    }
}

/// One day's Student-t factors √((ν − 2)/ν) / √(W/ν), one W per simulation (per pair).
fn fill_t_factors(
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
fn day_returns(spec: &Spec, ws: &mut Workspace, student: bool) {
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

/// Buy-and-hold: every asset's e^{R_i} − 1 of the block into `ws.unit`. Normal: one draw per
/// simulation, R ~ N(Tμ, TΣ); Student-t: T daily steps, log returns added up; historical: the
/// T-day window's returns added up.
pub fn fill_units(spec: &Spec, factor_t: &[f64], ws: &mut Workspace, block: usize) {
    let n = ws.n;
    match spec.method() {
        Method::MonteCarloNormal => {
            let mut rng = Xoshiro256pp::for_block(spec.seed(), block as u64);
            let t = spec.horizon() as f64;
            reset_weights(spec, ws);
            draw_normals(spec, &mut rng, ws);
            close_weights(spec, ws);
            let mean = spec.mean();
            correlate_rows(spec, factor_t, |i| t * mean[i], &ws.z, &mut ws.unit);
            ws.unit.iter_mut().for_each(|u| *u = expm1(*u));
            return;
        }
        Method::MonteCarloStudentT => {
            let mut rng = Xoshiro256pp::for_block(spec.seed(), block as u64);
            let nu = spec.degrees_of_freedom();
            let chi = ChiSquare::new(nu);
            ws.cumulative.iter_mut().for_each(|x| *x = 0.0);
            reset_weights(spec, ws);
            for _day in 0..spec.horizon() {
                draw_normals(spec, &mut rng, ws);
                fill_t_factors(&mut rng, &chi, nu, &mut ws.t_factor, spec.antithetic());
                day_returns(spec, ws, true);
                for (c, r) in ws.cumulative.iter_mut().zip(&ws.unit) {
                    *c += r;
                }
            }
            close_weights(spec, ws);
        }
        Method::Historical => {
            let first_window = block * BLOCK;
            let count = BLOCK.min(spec.scenarios() - first_window);
            let (returns, mean) = (spec.returns(), spec.mean());
            ws.cumulative.iter_mut().for_each(|x| *x = 0.0);
            for s in 0..count {
                let start = first_window + s;
                for day in start..start + spec.horizon() {
                    let row = &returns[day * n..(day + 1) * n];
                    for (i, (x, mu)) in row.iter().zip(mean).enumerate() {
                        ws.cumulative[i * BLOCK + s] += x - mu;
                    }
                }
            }
        }
    }
    ws.unit
        .iter_mut()
        .zip(&ws.cumulative)
        .for_each(|(u, r)| *u = expm1(*r));
}

/// One buy-and-hold book on the shared returns `units`: the portfolio P&L, the asset P&L
/// e_i·(e^{R_i} − 1) added up by groups of PNL_GROUP assets (`group_pnl`), then the groups' sums in
/// group order.
pub fn price_buy_and_hold(book: &Book, units: &[f64], pnl: &mut [f64]) {
    pnl.iter_mut().for_each(|x| *x = 0.0);
    let mut group = [0.0f64; BLOCK];
    for (g, columns) in units.chunks(PNL_GROUP * BLOCK).enumerate() {
        group_pnl(book, g, columns, &mut group);
        add_group(pnl, &group);
    }
}

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
