//! What one simulation task computes. A `Spec` is valid by construction (`Spec::new`), so that the
//! kernels and the simulation loop never check it again and cannot fail.

use crate::error::{ensure, EngineError, Result};
use crate::finite::all_finite;
use crate::limits::{
    check_assets, check_books, check_degrees_of_freedom, check_histogram_bins, check_horizon,
    check_priced_scenarios, check_scenarios, confidence_in_range, MAX_ASSETS, MAX_TAIL_BYTES,
    MIN_IMPORTANCE_DEGREES_OF_FREEDOM,
};
use crate::select::rank_of_level;

mod fields;

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
    /// Checks every field, in the order the errors have always been reported.
    pub fn new(f: SpecFields) -> Result<Spec> {
        check_books(f.books.len())?;
        let n = f.books[0].weights.len();
        check_assets(n)?;
        ensure(
            f.books.iter().all(Book::capital_in_range),
            "portfolio value must be finite and positive",
        )?;
        ensure(
            f.books
                .iter()
                .all(|b| b.weights.len() == n && b.weights.iter().all(|w| w.is_finite())),
            "weights must be finite, one per asset in every book",
        )?;
        ensure(
            f.comparison == Comparison::None || f.books.len() == 2,
            "a what-if compares exactly two books",
        )?;
        check_horizon(f.horizon)?;
        if !confidence_in_range(f.confidence) {
            return Err(EngineError::InvalidInput(format!(
                "confidence must lie in {}",
                crate::limits::confidence_range()
            )));
        }
        check_scenarios(f.scenarios)?;
        check_priced_scenarios(f.books.len(), f.scenarios)?;
        check_histogram_bins(f.histogram_bins)?;
        ensure(
            f.mean.len() == n && f.mean.iter().all(|m| m.is_finite()),
            "mean must hold one finite value per asset",
        )?;
        ensure(
            !f.importance_sampling || f.method != Method::Historical,
            "importance sampling needs a Monte Carlo method",
        )?;
        // Per book its worst scenarios with every asset's P&L (k·(n + 2)); per asset its k worst
        // values, kept once for all books (one lane, or two when some book is short) or per book
        // (rebalanced). 12 bytes a value: 8 and the trackers' 50 % slack. Weighted scenarios keep
        // every scenario (a weighted tail has no count known in advance) and no value tails.
        let books = f.books.len() as f64;
        let (tail_count, lanes) = match f.mode {
            _ if f.importance_sampling => (f.scenarios, 0.0),
            Mode::BuyAndHold if f.books.iter().any(Book::has_short) => (tail_of(&f), 2.0),
            Mode::BuyAndHold => (tail_of(&f), 1.0),
            Mode::Rebalanced => (tail_of(&f), books),
        };
        let tail_bytes = tail_count as f64 * (books * (n + 2) as f64 + lanes * n as f64) * 12.0;
        if tail_bytes > MAX_TAIL_BYTES {
            let product = if f.importance_sampling {
                "simulations × assets (importance sampling keeps every scenario)"
            } else {
                "simulations × (1 − confidence_level) × assets"
            };
            return Err(EngineError::LimitExceeded(format!(
                "{product} too large: the exact tail of {} scenarios × {n} assets needs {:.0} MiB, \
                 the limit is {:.0} MiB",
                tail_count,
                tail_bytes / 1048576.0,
                MAX_TAIL_BYTES / 1048576.0
            )));
        }
        match f.method {
            Method::MonteCarloNormal | Method::MonteCarloStudentT => {
                let columns = if f.factor_columns == FACTOR_TRIANGULAR {
                    n
                } else {
                    f.factor_columns
                };
                // Loadings may have more columns than rows: a book's instruments can be sums of
                // risk factors (a foreign stock's return and its FX rate's), fewer than the factors.
                ensure(
                    columns <= MAX_ASSETS
                        && n.checked_mul(columns) == Some(f.factor.len())
                        && all_finite(&f.factor),
                    "the covariance factor must be n×n triangular or n×m loadings (m ≤ 100,000), finite",
                )?;
                if f.method == Method::MonteCarloStudentT {
                    check_degrees_of_freedom(f.degrees_of_freedom)?;
                    if f.importance_sampling
                        && f.degrees_of_freedom < MIN_IMPORTANCE_DEGREES_OF_FREEDOM
                    {
                        return Err(EngineError::InvalidInput(format!(
                            "importance sampling with Student-t needs degrees_of_freedom ≥ \
                             {MIN_IMPORTANCE_DEGREES_OF_FREEDOM}: below, the tail comes from the \
                             variance mixing, which a shift of the normals does not reach"
                        )));
                    }
                }
            }
            Method::Historical => {
                ensure(
                    !f.returns.is_empty() && f.returns.len() % n == 0 && all_finite(&f.returns),
                    "returns must be observations × assets and finite",
                )?;
                let windows = (f.returns.len() / n + 1).saturating_sub(f.horizon);
                ensure(
                    f.scenarios == windows,
                    "historical scenarios must equal the number of T-day windows",
                )?;
            }
        }
        let shift = if f.importance_sampling {
            let book = &f.books[0];
            let exposures: Vec<f64> = (0..n).map(|i| book.exposure(i)).collect();
            crate::importance::shift(
                &exposures,
                &f.factor,
                (f.factor_columns != FACTOR_TRIANGULAR).then_some(f.factor_columns),
                f.confidence,
                (f.method == Method::MonteCarloStudentT).then_some(f.degrees_of_freedom),
                draw_days(&f),
            )
        } else {
            Vec::new()
        };
        Ok(Spec { f, shift })
    }

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

/// k = ⌈(1 − c)·N⌉.
/// Normal draws a path adds up: one for a buy-and-hold normal model, one a day otherwise.
fn draw_days(f: &SpecFields) -> usize {
    if f.method == Method::MonteCarloNormal && f.mode == Mode::BuyAndHold {
        1
    } else {
        f.horizon
    }
}

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
