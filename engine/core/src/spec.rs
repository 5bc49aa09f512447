//! What one simulation task computes. A `Spec` is valid by construction (`Spec::new`), so that the
//! kernels and the simulation loop never check it again and cannot fail.

use crate::error::{ensure, EngineError, Result};
use crate::limits::{
    check_assets, check_degrees_of_freedom, check_histogram_bins, check_horizon, check_scenarios,
    confidence_in_range, MAX_TAIL_BYTES,
};
use crate::select::rank_of_level;

/// Simulations per block: the unit of seeding (see `rng`) and of work splitting.
pub const BLOCK: usize = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    MonteCarloNormal,
    MonteCarloStudentT,
    Historical,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    BuyAndHold,
    Rebalanced,
}

/// The fields of a spec before validation: what a decoder or a test assembles.
#[derive(Clone, Debug, PartialEq)]
pub struct SpecFields {
    pub method: Method,
    pub mode: Mode,
    pub portfolio_value: f64,
    pub weights: Vec<f64>,
    pub horizon: usize,
    pub degrees_of_freedom: f64,
    pub seed: u64,
    pub antithetic: bool,
    /// Total scenarios N over all tasks (historical: the number of T-day windows).
    pub scenarios: usize,
    pub confidence: f64,
    pub histogram_bins: usize,
    /// Daily drift per asset (historical: the amount subtracted from each return).
    pub mean: Vec<f64>,
    /// Cholesky factor of the daily covariance, row-major n×n (Monte Carlo only).
    pub cholesky: Vec<f64>,
    /// Daily returns [observation][asset] (historical only).
    pub returns: Vec<f64>,
}

/// Shared by every task of one calculation; only `Spec::new` makes one.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    f: SpecFields,
}

impl Spec {
    /// Checks every field, in the order the errors have always been reported.
    pub fn new(f: SpecFields) -> Result<Spec> {
        let n = f.weights.len();
        check_assets(n)?;
        ensure(
            f.portfolio_value.is_finite() && f.portfolio_value > 0.0,
            "portfolio value must be finite and positive",
        )?;
        ensure(
            f.weights.iter().all(|w| w.is_finite()),
            "weights must be finite",
        )?;
        check_horizon(f.horizon)?;
        if !confidence_in_range(f.confidence) {
            return Err(EngineError::InvalidInput(format!(
                "confidence must lie in {}",
                crate::limits::confidence_range()
            )));
        }
        check_scenarios(f.scenarios)?;
        check_histogram_bins(f.histogram_bins)?;
        ensure(
            f.mean.len() == n && f.mean.iter().all(|m| m.is_finite()),
            "mean must hold one finite value per asset",
        )?;
        let tail_count = rank_of_level(1.0 - f.confidence, f.scenarios);
        let tail_bytes = tail_count as f64 * (2 * n + 2) as f64 * 12.0;
        if tail_bytes > MAX_TAIL_BYTES {
            return Err(EngineError::LimitExceeded(format!(
                "simulations × (1 − confidence_level) × assets too large: the exact tail of {} \
                 scenarios × {n} assets needs {:.0} MiB, the limit is {:.0} MiB",
                tail_count,
                tail_bytes / 1048576.0,
                MAX_TAIL_BYTES / 1048576.0
            )));
        }
        match f.method {
            Method::MonteCarloNormal | Method::MonteCarloStudentT => {
                ensure(
                    n.checked_mul(n) == Some(f.cholesky.len())
                        && f.cholesky.iter().all(|x| x.is_finite()),
                    "cholesky factor must be n×n and finite",
                )?;
                if f.method == Method::MonteCarloStudentT {
                    check_degrees_of_freedom(f.degrees_of_freedom)?;
                }
            }
            Method::Historical => {
                ensure(
                    !f.returns.is_empty()
                        && f.returns.len() % n == 0
                        && f.returns.iter().all(|r| r.is_finite()),
                    "returns must be observations × assets and finite",
                )?;
                let windows = (f.returns.len() / n + 1).saturating_sub(f.horizon);
                ensure(
                    f.scenarios == windows,
                    "historical scenarios must equal the number of T-day windows",
                )?;
            }
        }
        Ok(Spec { f })
    }

    pub fn method(&self) -> Method {
        self.f.method
    }
    pub fn mode(&self) -> Mode {
        self.f.mode
    }
    pub fn portfolio_value(&self) -> f64 {
        self.f.portfolio_value
    }
    pub fn weights(&self) -> &[f64] {
        &self.f.weights
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
    /// Cholesky factor of the daily covariance, row-major n×n (Monte Carlo only, else empty).
    pub fn cholesky(&self) -> &[f64] {
        &self.f.cholesky
    }
    /// Daily returns [observation][asset] (historical only, else empty).
    pub fn returns(&self) -> &[f64] {
        &self.f.returns
    }

    pub fn n_assets(&self) -> usize {
        self.f.weights.len()
    }

    /// k = ⌈(1 − c)·N⌉, the number of scenarios in the tail.
    pub fn tail_count(&self) -> usize {
        rank_of_level(1.0 - self.f.confidence, self.f.scenarios)
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
