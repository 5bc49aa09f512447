//! What one task keeps for the exact merge (`simulate`): per book its P&L, worst scenarios and
//! (where not shared) per-asset tails, and the shared per-asset tails.

use crate::kept_vectors;
use crate::scenario_tail::ScenarioTail;
use crate::unit_tails::UnitTails;
use std::borrow::Cow;

/// One book's share of a task.
#[derive(Clone, Debug)]
pub struct BookPartial<'a> {
    /// Portfolio P&L of scenarios first, first + 1, …: the task's own, or read where a decoded
    /// input holds it (the merge then copies it once, into the book's P&L in scenario order).
    pub pnl: Cow<'a, [f64]>,
    /// The task's worst scenarios (`Spec::worst_count`, capped at its scenario count), by index.
    pub worst: ScenarioTail,
    /// Per asset, its k smallest P&L order keys (in no particular order); empty where the tails
    /// are shared.
    pub asset_tails: Vec<Vec<u64>>,
}

#[derive(Clone, Debug)]
pub struct Partial<'a> {
    /// Global index of the first scenario.
    pub first: usize,
    pub books: Vec<BookPartial<'a>>,
    pub units: UnitTails,
    /// Importance sampling: each scenario's likelihood ratio, in scenario order; else empty.
    pub weights: Vec<f64>,
}

impl Partial<'_> {
    /// Scenarios the task simulated.
    pub fn count(&self) -> usize {
        self.books.first().map_or(0, |b| b.pnl.len())
    }

    /// Gives its books' own P&L and worst rows back to the thread's kept vectors (once encoded).
    pub(crate) fn give_back(self) {
        give_back_books(self.books);
    }
}

/// Gives each book's own P&L and worst rows back to the thread's kept vectors.
pub(crate) fn give_back_books(books: Vec<BookPartial>) {
    for book in books {
        if let Cow::Owned(pnl) = book.pnl {
            kept_vectors::give_back(pnl);
        }
        kept_vectors::give_back(book.worst.asset_pnl);
    }
}
