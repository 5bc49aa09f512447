//! An estimation split over workers: each part computes some rows of Σ's lower triangle, and the
//! estimation given their concatenation (`EstimationInput::covariance_lower`) factors it.

use std::ops::Range;

use super::covariance::covariance_rows;
use super::estimate::uses_loadings;
use super::returns::{returns_of, window, EstimationInput};
use crate::error::{ensure, Result};

/// Rows of Σ's lower triangle computed by one part of a split estimation.
#[derive(Clone, Debug, PartialEq)]
pub struct CovariancePart {
    pub rows: Range<usize>,
    /// Row i's entries j ≤ i, row after row.
    pub lower: Vec<f64>,
}

/// The rows of part `part` of `parts`: cut where the lower triangle's entries (∝ i²) are equal.
pub fn part_rows(n: usize, part: usize, parts: usize) -> Range<usize> {
    let boundary = |k: usize| {
        if k >= parts {
            n
        } else {
            (n as f64 * (k as f64 / parts as f64).sqrt()) as usize
        }
    };
    boundary(part)..boundary(part + 1)
}

/// Part `part` of `parts` of Σ's lower triangle for `input`, or None when the window samples
/// through loadings (Σ is never formed). Concatenated in part order, the parts are the
/// `covariance_lower` of the same input, bit for bit what the estimation alone computes.
pub fn covariance_part(
    input: &EstimationInput,
    part: usize,
    parts: usize,
) -> Result<Option<CovariancePart>> {
    ensure(part < parts, "part must be below parts")?;
    ensure(
        input.covariance_lower.is_none(),
        "a covariance part computes Σ: none may be given",
    )?;
    let w = window(input)?;
    if uses_loadings(w.observations, input.n_assets) {
        return Ok(None);
    }
    let (returns, sample_mean, weights) = returns_of(input, &w)?;
    let rows = part_rows(input.n_assets, part, parts);
    let lower = covariance_rows(&returns, &sample_mean, &weights, rows.clone());
    Ok(Some(CovariancePart { rows, lower }))
}
