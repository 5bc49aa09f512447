//! The vector a merge gathers a book's P&L into, kept by each thread from one merge to the next: one
//! made afresh for every merge is mostly page faults (a million scenarios: about 2,000 of them,
//! measured at a fifth of the merge's time on a worker thread). Its values never outlive the book
//! they were gathered for (it is emptied before every use), so no answer depends on it; a vector
//! past RETAINED_WORDS is let go rather than kept.

use crate::simulate::Partial;
use std::borrow::Cow;
use std::cell::RefCell;

/// The largest vector a thread keeps: 32 MiB, four million scenarios.
const RETAINED_WORDS: usize = 1 << 22;

thread_local! {
    static KEPT: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
}

/// Book `b`'s P&L over `partials` (tiling `scenarios` in scenario order) in one vector: a task's own
/// P&L is taken as it is (its values not copied again) and the others' put after it; decoded ones,
/// read where the input holds them, are copied once, into the thread's kept vector. The first
/// partial's P&L is taken out of it. `give_back` the vector when done.
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

/// An empty vector with room for `words`: the one this thread kept when it is large enough (a
/// smaller one is dropped rather than grown, which would copy its old contents), else a new one.
fn take(words: usize) -> Vec<f64> {
    let mut v = KEPT.with(|kept| std::mem::take(&mut *kept.borrow_mut()));
    v.clear();
    if v.capacity() < words {
        v = Vec::with_capacity(words);
    }
    v
}

/// Keeps `v` (emptied) for this thread's next merge, unless it is past RETAINED_WORDS.
pub(crate) fn give_back(mut v: Vec<f64>) {
    if v.capacity() <= RETAINED_WORDS {
        v.clear();
        KEPT.with(|kept| *kept.borrow_mut() = v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_vector_comes_back_empty_and_a_large_one_is_not_kept() {
        let mut v = take(1000);
        v.extend([1.0, 2.0, 3.0]);
        let at = v.as_ptr();
        give_back(v);
        let again = take(10);
        assert!(again.is_empty() && again.capacity() >= 1000);
        assert_eq!(again.as_ptr(), at, "the same allocation");
        give_back(vec![0.0; RETAINED_WORDS + 1]);
        assert_eq!(take(0).capacity(), 0, "a vector past the bound is let go");
    }
}
