//! What one simulation task computes. A `Spec` is valid by construction (`Spec::new`), so that the
//! kernels and the simulation loop never check it again and cannot fail (its checks: `validation`).

use crate::error::{ensure, Result};
use crate::select::rank_of_level;

mod fields;
mod validation;

pub use fields::{
    reads_lane, Book, Comparison, Method, Mode, SpecFields, BLOCK, FACTOR_TRIANGULAR,
};

/// Shared by every task of one calculation; only `Spec::new` makes one.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    f: SpecFields,
    /// The shift θ added to every day's normals under importance sampling, else empty.
    shift: Vec<f64>,
}

impl Spec {
    pub fn method(&self) -> Method {
        self.f.method
    }
    pub fn mode(&self) -> Mode {
        self.f.mode
    }
    pub fn books(&self) -> &[Book] {
        &self.f.books
    }
    pub fn comparison(&self) -> Comparison {
        self.f.comparison
    }
    pub fn horizon(&self) -> usize {
        self.f.horizon
    }
    /// ν (meaningful for Student-t only, where it is a whole number in 3..=1000).
    pub fn degrees_of_freedom(&self) -> f64 {
        self.f.degrees_of_freedom
    }
    pub fn seed(&self) -> u64 {
        self.f.seed
    }
    pub fn antithetic(&self) -> bool {
        self.f.antithetic
    }
    /// Whether scenarios carry likelihood-ratio weights (importance sampling).
    pub fn importance_sampling(&self) -> bool {
        self.f.importance_sampling
    }
    /// θ, added to each day's normals (one entry per factor column); empty without importance
    /// sampling.
    pub fn shift(&self) -> &[f64] {
        &self.shift
    }
    /// Total scenarios N over all tasks (historical: the number of T-day windows).
    pub fn scenarios(&self) -> usize {
        self.f.scenarios
    }
    pub fn confidence(&self) -> f64 {
        self.f.confidence
    }
    pub fn histogram_bins(&self) -> usize {
        self.f.histogram_bins
    }
    /// Daily drift per asset (historical: the amount subtracted from each return).
    pub fn mean(&self) -> &[f64] {
        &self.f.mean
    }
    /// The covariance factor F, Σ = F·Fᵀ (Monte Carlo only, else empty; see `SpecFields`).
    pub fn factor(&self) -> &[f64] {
        &self.f.factor
    }
    /// `FACTOR_TRIANGULAR`, or the m of n×m loadings.
    pub fn factor_columns(&self) -> usize {
        self.f.factor_columns
    }
    /// Normals drawn per scenario and step: the factor's columns.
    pub fn draws(&self) -> usize {
        match self.f.factor_columns {
            FACTOR_TRIANGULAR => self.n_assets(),
            m => m,
        }
    }
    /// The nonzero part of row i of `factor` (which may be the factor scaled by √T): the first
    /// i + 1 entries of a triangular factor, all m loadings.
    #[inline(always)]
    pub fn factor_row<'a>(&self, factor: &'a [f64], i: usize) -> &'a [f64] {
        match self.f.factor_columns {
            FACTOR_TRIANGULAR => {
                let n = self.n_assets();
                &factor[i * n..=i * n + i]
            }
            m => &factor[i * m..(i + 1) * m],
        }
    }
    /// Daily returns [observation][asset] (historical only, else empty).
    pub fn returns(&self) -> &[f64] {
        &self.f.returns
    }

    pub fn n_assets(&self) -> usize {
        self.f.books[0].weights.len()
    }

    /// Whether the per-asset tails are kept once for all books (buy-and-hold, where an asset's
    /// P&L is its exposure times a return every book shares) rather than per book.
    pub fn shares_asset_tails(&self) -> bool {
        self.f.mode == Mode::BuyAndHold && !self.f.importance_sampling
    }

    /// Whether the shared asset tails must also keep each asset's largest returns (a short
    /// exposure's worst outcomes).
    pub fn needs_largest(&self) -> bool {
        self.f.books.iter().any(Book::has_short)
    }

    /// Scenarios each book's worst-scenario tail keeps: k + m, m = max(1, ⌊√k⌋), the ranks the
    /// component VaR window reaches, at most N; every scenario when they are weighted.
    pub fn worst_count(&self) -> usize {
        if self.f.importance_sampling {
            return self.f.scenarios;
        }
        let k = self.tail_count();
        (k + var_window(k)).min(self.f.scenarios)
    }

    /// k = ⌈(1 − c)·N⌉, the number of scenarios in the tail; per-asset value tails keep none
    /// when the scenarios are weighted (the worst-scenario tail then holds them all).
    pub fn tail_count(&self) -> usize {
        if self.f.importance_sampling {
            return 0;
        }
        tail_of(&self.f)
    }

    /// Of a tail of `full` scenarios, how many a task of `count` scenarios keeps: all it can
    /// (`full`, at most `count`), or its own share (`own_share_of`) where it may and the scenarios
    /// are exchangeable (Monte Carlo, unweighted). Historical windows are not exchangeable (a
    /// crisis lies in one task's dates): they keep the full tail.
    pub fn task_tail(&self, full: usize, count: usize, tails: TaskTails) -> usize {
        let exchangeable = self.f.method != Method::Historical && !self.f.importance_sampling;
        if tails == TaskTails::Full || !exchangeable {
            return full.min(count);
        }
        own_share_of(full, count, self.f.scenarios)
    }

    /// Of each book's worst scenarios, how many a task of `count` keeps (`task_tail`). A book of
    /// no exposure ties at every rank, so the merge could never prove an own share of its worst
    /// scenarios long enough; the partial's books share one worst count, so every book then keeps
    /// its full list (the asset tails may still be their own share).
    pub fn task_worst_tail(&self, count: usize, tails: TaskTails) -> usize {
        let tails = if self.f.books.iter().all(Book::has_exposure) {
            tails
        } else {
            TaskTails::Full
        };
        self.task_tail(self.worst_count(), count, tails)
    }

    pub fn blocks(&self) -> usize {
        (self.f.scenarios + BLOCK - 1) / BLOCK
    }

    /// Every block: what one task that runs the whole calculation simulates.
    pub fn all_blocks(&self) -> BlockRange {
        BlockRange {
            first: 0,
            end: self.blocks(),
        }
    }
}

/// How much of each tail a task keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskTails {
    /// The calculation's whole tail (at most the task's scenarios).
    Full,
    /// Its own share and a margin where the scenarios are exchangeable (`Spec::task_tail`).
    OwnShare,
}

/// Standard deviations of a task's share of a tail that its own-share tail keeps beyond the
/// expected share: where the scenarios are exchangeable, the tail scenarios a task holds are
/// hypergeometric, and a count beyond six deviations has odds below one in 10⁹.
pub const TAIL_SHARE_SIGMAS: f64 = 6.0;
/// Scenarios an own-share tail keeps beyond its deviations: small tails' shares are far from normal.
pub const TAIL_SHARE_SLACK: f64 = 64.0;

/// Of a tail of `full` of `scenarios` exchangeable scenarios, what a task of `count` keeps: its
/// expected share full·count/N plus `TAIL_SHARE_SIGMAS` standard deviations of that share and
/// `TAIL_SHARE_SLACK`, at most `full` and `count` (what a full tail keeps). A task of 1/T of the
/// scenarios keeps about 1/T of the tail instead of all of it. Never 0 unless the full tail is.
pub fn own_share_of(full: usize, count: usize, scenarios: usize) -> usize {
    let kept = full.min(count);
    let share = count as f64 / scenarios.max(1) as f64;
    let expected = full as f64 * share;
    let spread = (expected * (1.0 - share)).max(0.0).sqrt();
    let bound = (expected + TAIL_SHARE_SIGMAS * spread).ceil() + TAIL_SHARE_SLACK;
    if bound >= kept as f64 {
        kept
    } else {
        bound as usize
    }
}

/// k = ⌈(1 − c)·N⌉.
fn tail_of(f: &SpecFields) -> usize {
    rank_of_level(1.0 - f.confidence, f.scenarios)
}

/// m = max(1, ⌊√k⌋): the component VaR averages the scenarios ranked k − m ..= k + m.
pub fn var_window(k: usize) -> usize {
    ((k as f64).sqrt() as usize).max(1)
}

/// The blocks [first, end) one task simulates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockRange {
    pub first: usize,
    pub end: usize,
}

impl BlockRange {
    /// A range is only meaningful against its spec: checked when decoded and again by `simulate`.
    pub fn validate(&self, spec: &Spec) -> Result<()> {
        ensure(
            self.first < self.end && self.end <= spec.blocks(),
            "block range must be non-empty and within the scenarios",
        )
    }

    /// Global scenario indices [start, end) covered by the range.
    pub fn scenarios(&self, spec: &Spec) -> (usize, usize) {
        (self.first * BLOCK, (self.end * BLOCK).min(spec.scenarios()))
    }
}
