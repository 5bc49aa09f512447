//! What the merge needs of a calculation, and its check when it arrives decoded.

use crate::error::{ensure, Result};
use crate::limits::{check_books, confidence_in_range, histogram_bins_in_range};
use crate::spec::{Book, Comparison, Spec};

/// What the merge needs of the calculation. Every partial repeats it as its header, so that
/// finalize needs nothing but the partials.
/// No `PartialEq`: whether two are of one calculation is `same_calculation`, to the bit.
#[derive(Clone, Debug)]
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

    /// Whether two partials' headers are of one calculation: equal to the bit, since a weight of +0
    /// and one of −0 read different lanes (`Book::reads_largest`). Every field is named, so that
    /// a field added to the header or a book cannot be left out of the comparison.
    pub(crate) fn same_calculation(&self, other: &Self) -> bool {
        let FinalizeParams {
            scenarios,
            n_assets,
            confidence,
            histogram_bins,
            comparison,
            lanes,
            books,
            weighted,
        } = self;
        let same = |a: f64, b: f64| a.to_bits() == b.to_bits();
        *scenarios == other.scenarios
            && *n_assets == other.n_assets
            && same(*confidence, other.confidence)
            && *histogram_bins == other.histogram_bins
            && *comparison == other.comparison
            && *lanes == other.lanes
            && *weighted == other.weighted
            && books.len() == other.books.len()
            && books.iter().zip(&other.books).all(|(a, b)| {
                let Book { capital, weights } = a;
                same(*capital, b.capital)
                    && weights.len() == b.weights.len()
                    && weights.iter().zip(&b.weights).all(|(x, y)| same(*x, *y))
            })
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
                    && b.capital_in_range()
                    && b.weights.iter().all(|w| w.is_finite())
            }),
            "books must hold a finite, positive capital and one finite weight per asset",
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
