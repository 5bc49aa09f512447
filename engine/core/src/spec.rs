//! What one simulation task computes, validated once so that the kernels cannot fail.

use crate::error::{ensure, EngineError, Result};
use crate::select::rank_of_level;

/// Simulations per block: the unit of seeding (see `rng`) and of work splitting.
pub const BLOCK: usize = 256;
/// Bound on per-task tail memory (k · (2n + 2) values kept with 50 % slack).
pub const MAX_TAIL_BYTES: f64 = 1024.0 * 1024.0 * 1024.0;

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

/// Shared by every task of one calculation.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
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

impl Spec {
    pub fn n_assets(&self) -> usize {
        self.weights.len()
    }

    /// k = ⌈(1 − c)·N⌉, the number of scenarios in the tail.
    pub fn tail_count(&self) -> usize {
        rank_of_level(1.0 - self.confidence, self.scenarios)
    }

    pub fn blocks(&self) -> usize {
        (self.scenarios + BLOCK - 1) / BLOCK
    }

    pub fn validate(&self) -> Result<()> {
        let n = self.n_assets();
        ensure((1..=100_000).contains(&n), "assets must number 1..=100000")?;
        ensure(
            self.portfolio_value.is_finite() && self.portfolio_value > 0.0,
            "portfolio value must be finite and positive",
        )?;
        ensure(
            self.weights.iter().all(|w| w.is_finite()),
            "weights must be finite",
        )?;
        ensure(
            (1..=1000).contains(&self.horizon),
            "horizon must be 1..=1000 days",
        )?;
        ensure(
            self.confidence >= 0.5 && self.confidence < 1.0,
            "confidence must lie in [0.5, 1)",
        )?;
        ensure(
            (1..=100_000_000).contains(&self.scenarios),
            "scenarios must number 1..=1e8",
        )?;
        ensure(
            (1..=1000).contains(&self.histogram_bins),
            "histogram bins 1..=1000",
        )?;
        ensure(
            self.mean.len() == n && self.mean.iter().all(|m| m.is_finite()),
            "mean must hold one finite value per asset",
        )?;
        let tail_bytes = self.tail_count() as f64 * (2 * n + 2) as f64 * 12.0;
        if tail_bytes > MAX_TAIL_BYTES {
            return Err(EngineError::LimitExceeded(format!(
                "simulations × (1 − confidence_level) × assets too large: the exact tail of {} \
                 scenarios × {n} assets needs {:.0} MiB, the limit is {:.0} MiB",
                self.tail_count(),
                tail_bytes / 1048576.0,
                MAX_TAIL_BYTES / 1048576.0
            )));
        }
        match self.method {
            Method::MonteCarloNormal | Method::MonteCarloStudentT => {
                ensure(
                    n.checked_mul(n) == Some(self.cholesky.len())
                        && self.cholesky.iter().all(|x| x.is_finite()),
                    "cholesky factor must be n×n and finite",
                )?;
                if self.method == Method::MonteCarloStudentT {
                    ensure(
                        self.degrees_of_freedom >= 3.0
                            && self.degrees_of_freedom <= 1000.0
                            && self.degrees_of_freedom.fract() == 0.0,
                        "degrees of freedom must be an integer in 3..=1000",
                    )?;
                }
            }
            Method::Historical => {
                ensure(
                    !self.returns.is_empty()
                        && self.returns.len() % n == 0
                        && self.returns.iter().all(|r| r.is_finite()),
                    "returns must be observations × assets and finite",
                )?;
                let windows = (self.returns.len() / n + 1).saturating_sub(self.horizon);
                ensure(
                    self.scenarios == windows,
                    "historical scenarios must equal the number of T-day windows",
                )?;
            }
        }
        Ok(())
    }
}

/// The blocks [first, end) one task simulates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockRange {
    pub first: usize,
    pub end: usize,
}

impl BlockRange {
    pub fn validate(&self, spec: &Spec) -> Result<()> {
        ensure(
            self.first < self.end && self.end <= spec.blocks(),
            "block range must be non-empty and within the scenarios",
        )
    }

    /// Global scenario indices [start, end) covered by the range.
    pub fn scenarios(&self, spec: &Spec) -> (usize, usize) {
        (self.first * BLOCK, (self.end * BLOCK).min(spec.scenarios))
    }
}
