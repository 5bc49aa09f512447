//! The worst historical window of a book: over every T-day span of complete price rows, the one
//! whose buy-and-hold P&L Σ e_i·(p1_i / p0_i − 1) is lowest (the earliest of equal ones).

use crate::deadline::Deadline;
use crate::error::{ensure, EngineError, Result};
use crate::limits::{check_assets, check_horizon};

/// Start rows tried between two looks at the deadline.
const ROWS_PER_DEADLINE_CHECK: usize = 256;

/// A book's exposures and its symbols' complete price rows, checked once here.
#[derive(Clone, Debug, PartialEq)]
pub struct WorstWindowInput {
    exposures: Vec<f64>,
    /// rows × assets, row-major, every price finite and positive.
    prices: Vec<f64>,
    horizons: Vec<usize>,
}

impl WorstWindowInput {
    pub fn new(exposures: Vec<f64>, prices: Vec<f64>, horizons: Vec<usize>) -> Result<Self> {
        let assets = exposures.len();
        check_assets(assets)?;
        ensure(
            prices.len() % assets == 0,
            "prices hold whole rows of the book's assets",
        )?;
        ensure(
            exposures.iter().all(|e| e.is_finite()),
            "exposures must be finite",
        )?;
        ensure(
            prices.iter().all(|p| p.is_finite() && *p > 0.0),
            "prices must be finite and positive",
        )?;
        for &h in &horizons {
            check_horizon(h)?;
        }
        Ok(WorstWindowInput {
            exposures,
            prices,
            horizons,
        })
    }

    pub fn horizons(&self) -> usize {
        self.horizons.len()
    }

    fn rows(&self) -> usize {
        self.prices.len() / self.exposures.len()
    }

    fn row(&self, r: usize) -> &[f64] {
        let n = self.exposures.len();
        &self.prices[r * n..(r + 1) * n]
    }
}

/// The start row of the worst window of `horizon` days, or None when the rows span fewer days.
fn worst_start(
    input: &WorstWindowInput,
    horizon: usize,
    deadline: &Deadline,
) -> Result<Option<usize>> {
    let mut worst = None;
    let mut worst_pnl = f64::INFINITY;
    for from in 0..input.rows().saturating_sub(horizon) {
        if from % ROWS_PER_DEADLINE_CHECK == 0 && deadline.passed() {
            return Err(EngineError::DeadlineExceeded);
        }
        let (p0, p1) = (input.row(from), input.row(from + horizon));
        let mut pnl = 0.0;
        for ((e, a), b) in input.exposures.iter().zip(p0).zip(p1) {
            pnl += e * (b / a - 1.0);
        }
        if !pnl.is_finite() {
            return Err(EngineError::Overflow("a window's P&L is not finite".into()));
        }
        if pnl < worst_pnl {
            worst_pnl = pnl;
            worst = Some(from);
        }
    }
    Ok(worst)
}

/// Each horizon's worst start row, in order.
pub fn worst_windows(input: &WorstWindowInput, deadline: &Deadline) -> Result<Vec<Option<usize>>> {
    input
        .horizons
        .iter()
        .map(|&h| worst_start(input, h, deadline))
        .collect()
}
