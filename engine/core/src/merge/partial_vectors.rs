//! A merge's vectors from the thread's kept ones (`kept_vectors`): a book's P&L gathered in
//! scenario order, and the partials' worst rows given back once the merge is done with them.

use crate::kept_vectors::{give_back, take};
use crate::simulate::Partial;
use std::borrow::Cow;

/// Book `b`'s P&L over `partials` (tiling `scenarios` in scenario order) in one vector: a task's own
/// P&L is taken as it is (its values not copied again) and the others' put after it; decoded ones,
/// read where the input holds them, are copied once, into a kept vector. The first partial's P&L
/// is taken out of it. `give_back` the vector when done.
pub(crate) fn gathered(partials: &mut [Partial], b: usize, scenarios: usize) -> Vec<f64> {
    let mut all = match std::mem::take(&mut partials[0].books[b].pnl) {
        Cow::Owned(own) => own,
        Cow::Borrowed(values) => {
            let mut copy = take(scenarios);
            copy.extend_from_slice(values);
            copy
        }
    };
    all.reserve_exact(scenarios - all.len());
    for p in partials[1..].iter() {
        all.extend_from_slice(&p.books[b].pnl);
    }
    all
}

/// Every partial's worst rows given back (see `take`): the merge is done with them.
pub(crate) fn give_back_rows(partials: &mut [Partial]) {
    for book in partials.iter_mut().flat_map(|p| p.books.iter_mut()) {
        give_back(std::mem::take(&mut book.worst.asset_pnl));
    }
}
