//! The large vectors of a task and of a merge, kept by each thread from one call to the next: one
//! made afresh for every call is mostly page faults. A merge reads a book's P&L and its partials'
//! worst rows into them (a million scenarios: about 2,000 faults, measured at a fifth of the
//! merge's time on a worker thread; a live tick's two partials' rows, 1.8 MB, a sixth of its
//! merge); a task builds its partial's P&L, worst rows and encoded answer in them, and a host
//! that has copied an answer gives it back (`abi::recycle_answer`). Their values never outlive
//! the call they were filled for (each is emptied when given back), so no answer depends on them;
//! a thread keeps at most KEPT_VECTORS of them, RETAINED_WORDS in all.

use std::cell::RefCell;

/// The most a thread keeps: 32 MiB, four million scenarios' P&L.
const RETAINED_WORDS: usize = 1 << 22;

/// The most vectors a thread keeps: a merge of two partials takes three (the P&L and each one's
/// rows), a task three (its P&L, its worst rows, its answer). Without a count bound the pool would
/// fill with small ones, each search and insertion slower.
const KEPT_VECTORS: usize = 8;

thread_local! {
    static KEPT: RefCell<Vec<Vec<f64>>> = const { RefCell::new(Vec::new()) };
}

/// An empty vector with room for `words`: the smallest kept one that is large enough (a smaller one
/// stays kept rather than grown, which would copy its old contents), else a new one.
pub(crate) fn take(words: usize) -> Vec<f64> {
    if words == 0 {
        return Vec::new();
    }
    let kept = KEPT.with(|kept| {
        let mut kept = kept.borrow_mut();
        let fits = (0..kept.len())
            .filter(|&i| kept[i].capacity() >= words)
            .min_by_key(|&i| kept[i].capacity());
        fits.map(|i| kept.swap_remove(i))
    });
    kept.unwrap_or_else(|| Vec::with_capacity(words))
}

/// Keeps `v` (emptied) for this thread's next call: the largest KEPT_VECTORS that fit within
/// RETAINED_WORDS together are kept, the others let go.
pub(crate) fn give_back(v: Vec<f64>) {
    give_back_within(v, RETAINED_WORDS);
}

/// `give_back` under a bound of `bound` words.
fn give_back_within(mut v: Vec<f64>, bound: usize) {
    if v.capacity() == 0 || v.capacity() > bound {
        return;
    }
    v.clear();
    KEPT.with(|kept| {
        let mut kept = kept.borrow_mut();
        kept.push(v);
        kept.sort_unstable_by_key(|k| std::cmp::Reverse(k.capacity()));
        let (mut total, mut count) = (0, 0);
        kept.retain(|k| {
            let keep = count < KEPT_VECTORS && total + k.capacity() <= bound;
            if keep {
                total += k.capacity();
                count += 1;
            }
            keep
        });
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_vectors_come_back_empty_and_the_thread_keeps_a_bounded_amount() {
        // Tests share a thread where they run on one (wasm32): start from an empty pool.
        KEPT.with(|kept| kept.borrow_mut().clear());
        let mut v = take(1000);
        v.extend([1.0, 2.0, 3.0]);
        let at = v.as_ptr();
        give_back(v);
        let again = take(10);
        assert!(again.is_empty() && again.capacity() >= 1000);
        assert_eq!(again.as_ptr(), at, "the same allocation");
        assert_eq!(take(0).capacity(), 0, "no rows take no kept vector");
        // Two kept at once, each taken by the smallest that fits.
        give_back(again);
        give_back(Vec::with_capacity(50_000));
        assert!((1000..50_000).contains(&take(500).capacity()));
        assert!(take(20_000).capacity() >= 50_000);
        // Past the bound the smallest go first, a smaller one that still fits is kept, and a vector
        // past the bound alone is not (a small bound: the WASI test run's memory kept small).
        let bound = 100_000;
        give_back_within(Vec::with_capacity(bound - 10), bound);
        give_back_within(Vec::with_capacity(100), bound);
        give_back_within(Vec::with_capacity(5), bound);
        assert_eq!(take(1).capacity(), 5, "the one that fits kept");
        assert_eq!(
            take(1).capacity(),
            bound - 10,
            "the one past the bound let go"
        );
        give_back_within(Vec::with_capacity(bound + 1), bound);
        assert_eq!(
            KEPT.with(|kept| kept.borrow().len()),
            0,
            "a vector past the bound is let go"
        );
        // Many vectors given back (small answers, partials): the largest few are kept.
        for words in 1..=50 {
            give_back(Vec::with_capacity(words));
        }
        let sizes: Vec<usize> = KEPT.with(|kept| kept.borrow().iter().map(Vec::capacity).collect());
        assert_eq!(sizes.len(), KEPT_VECTORS, "{sizes:?}");
        let largest = 50 - KEPT_VECTORS + 1;
        assert!(
            sizes.iter().all(|&c| c >= largest),
            "the largest kept: {sizes:?}"
        );
    }
}
