//! What the merge needs of a calculation, and its check when it arrives decoded.

use crate::error::{ensure, Result};
use crate::limits::{check_books, confidence_in_range, histogram_bins_in_range};
use crate::spec::{Book, Comparison, Spec};

/// What the merge needs of the calculation. Every partial repeats it as its header, so that
/// finalize needs nothing but the partials.
#[derive(Clone, Debug, PartialEq)]
pub struct FinalizeParams {
    pub scenarios: usize,
    pub n_assets: usize,
    pub confidence: f64,
    pub histogram_bins: usize,
    pub comparison: Comparison,
    /// Per-asset tails kept once for all books: 0 (each book keeps its own), 1 (smallest) or 2
    /// (smallest and largest).
    pub lanes: usize,
    pub books: Vec<Book>,
    /// Whether scenarios carry likelihood-ratio weights (importance sampling).
    pub weighted: bool,
}

impl FinalizeParams {
    pub fn of(spec: &Spec) -> Self {
        FinalizeParams {
            scenarios: spec.scenarios(),
            n_assets: spec.n_assets(),
            confidence: spec.confidence(),
            histogram_bins: spec.histogram_bins(),
            comparison: spec.comparison(),
            lanes: if spec.shares_asset_tails() {
                1 + usize::from(spec.needs_largest())
            } else {
                0
            },
            books: spec.books().to_vec(),
            weighted: spec.importance_sampling(),
        }
    }

    /// Decoded parameters come from outside; from a `Spec` they are in range already.
    pub(crate) fn validate(&self) -> Result<()> {
        ensure(
            confidence_in_range(self.confidence) && histogram_bins_in_range(self.histogram_bins),
            "finalize parameters out of range",
        )?;
        check_books(self.books.len())?;
        ensure(
            self.books.iter().all(|b| {
                b.weights.len() == self.n_assets
                    && b.capital.is_finite()
                    && b.weights.iter().all(|w| w.is_finite())
            }),
            "books must hold one finite weight per asset",
        )?;
        ensure(
            self.comparison == Comparison::None || self.books.len() == 2,
            "a what-if compares exactly two books",
        )?;
        // A short book's standalone VaR needs the largest returns: one lane is not enough.
        let short = self.books.iter().any(Book::has_short);
        ensure(
            self.lanes == 0 || self.lanes == 1 + usize::from(short),
            "per-asset tail lanes do not match the books",
        )
    }
}
