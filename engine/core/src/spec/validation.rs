//! `Spec::new`: every field checked, in the order the errors have always been reported, and the
//! importance-sampling shift computed once.

use super::{tail_of, Book, Comparison, Method, Mode, Spec, SpecFields, FACTOR_TRIANGULAR};
use crate::error::{ensure, EngineError, Result};
use crate::finite::all_finite;
use crate::limits::{
    check_assets, check_books, check_degrees_of_freedom, check_histogram_bins, check_horizon,
    check_priced_scenarios, check_scenarios, confidence_in_range, MAX_ASSETS, MAX_TAIL_BYTES,
    MIN_IMPORTANCE_DEGREES_OF_FREEDOM,
};

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
}

/// Normal draws a path adds up: one for a buy-and-hold normal model, one a day otherwise.
fn draw_days(f: &SpecFields) -> usize {
    if f.method == Method::MonteCarloNormal && f.mode == Mode::BuyAndHold {
        1
    } else {
        f.horizon
    }
}
