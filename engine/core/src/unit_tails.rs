//! The per-asset tails of kept units that every buy-and-hold book on them shares.

use crate::spec::{reads_lane, Book};

/// Per asset, the k extreme values of e^{R_i} − 1 that every buy-and-hold book's asset P&L is a
/// multiple of, in no particular order: `smallest`, and (when some book is short) `largest` as the
/// k smallest of −(e^{R_i} − 1). Both empty where each book keeps its own asset tails; an asset's
/// lane empty where no book reads it (`reads_lane`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnitTails {
    pub smallest: Vec<Vec<u64>>,
    pub largest: Vec<Vec<u64>>,
    /// 0, or the rank k of the one value each asset's lane holds: its k-th smallest over the
    /// whole calculation (kept scenarios pooled once for every pricing: `simulate_kept`), the
    /// other ranges' lanes holding none.
    pub ranked: usize,
}

impl UnitTails {
    /// A layout's tail count word for these lanes, each holding `held` values: their rank when
    /// ranked, else `held`.
    pub fn count_word(&self, held: usize) -> usize {
        if self.ranked > 0 {
            self.ranked
        } else {
            held
        }
    }

    /// How many per-asset lanes are kept: 0 (per book), 1 or 2.
    pub fn lanes(&self) -> usize {
        usize::from(!self.smallest.is_empty()) + usize::from(!self.largest.is_empty())
    }

    /// Lets go of every lane no book reads (`reads_lane`): one kept only for the columns copying
    /// it, or given with kept units. A partial holds the lanes its books read, however filled.
    pub fn keep_read(&mut self, books: &[Book]) {
        for (lane, largest) in [(&mut self.smallest, false), (&mut self.largest, true)] {
            for (c, tail) in lane.iter_mut().enumerate() {
                if !reads_lane(books, c, largest) {
                    tail.clear();
                }
            }
        }
    }
}

/// Which of `n` columns' lanes of smallest (or `largest`) values a simulation fills: those some
/// book reads, and a unit's whose copy (`copies`: column, unit) is read, as the copy takes the
/// unit's lane. A copying column itself is filled by the copy, not by pushes.
pub(crate) fn lanes_filled(
    books: &[Book],
    n: usize,
    largest: bool,
    copies: &[(usize, usize)],
) -> Vec<bool> {
    let mut filled: Vec<bool> = (0..n).map(|c| reads_lane(books, c, largest)).collect();
    for &(column, unit) in copies {
        filled[unit] |= filled[column];
    }
    for &(column, _) in copies {
        filled[column] = false;
    }
    filled
}
