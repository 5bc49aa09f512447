//! Scenario kernels: one block of per-asset and portfolio P&L for each book. Arrays are
//! structure-of-arrays, `[asset][simulation]`, with the simulation loop innermost so that LLVM emits
//! f64x2 code. Buy-and-hold draws every asset's return once for all books (`fill_units`) and prices
//! each book on it; rebalanced paths depend on the book, so they are walked per book, a group of
//! books at a time on the very same draws (`fill_rebalanced`).

use crate::group_sums::{add_group, group_pnl, GroupSums, PNL_GROUP};
use crate::math::expm1_each;
use crate::rng::Xoshiro256pp;
use crate::spec::{Book, Method, Mode, Spec, BLOCK};
use crate::ziggurat::ChiSquare;

mod correlate;
mod daily;
#[cfg(test)]
mod drawn_specs;
mod likelihood;
mod rebalanced;
#[cfg(test)]
mod reference;
mod workspace;

#[cfg(feature = "bench-ops")]
pub use correlate::correlate_factor;
use correlate::correlate_rows;
use daily::{day_returns, fill_t_factors};
use likelihood::{close_weights, draw_normals, reset_weights};
pub use rebalanced::fill_rebalanced;
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
            expm1_each(&mut ws.unit);
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
    // The summed returns become the units in place; the buffer swapped out is zeroed before its
    // next use.
    expm1_each(&mut ws.cumulative);
    std::mem::swap(&mut ws.unit, &mut ws.cumulative);
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
