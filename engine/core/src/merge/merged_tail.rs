//! A book's worst scenarios over every task, taken from the tasks' own worst lists: the global
//! worst by (P&L, index) all lie in their union, so the merge neither rescans the P&L for them nor
//! looks each one up again to find its asset P&L.

use crate::error::{ensure, Result};
use crate::select::{order_key, sort_keys_stably};
use crate::simulate::Partial;

/// The first `count` scenarios of a book in (P&L, index) order, told apart in one pass in index
/// order: every key below `key`, and of the keys equal to it the first `count − below`.
#[derive(Clone, Copy, Debug)]
pub struct Prefix {
    pub count: usize,
    pub key: u64,
    pub below: usize,
}

impl Prefix {
    /// The first `count` of the ascending keys `sorted` (`count` ≤ their number).
    pub fn of_sorted(sorted: &[u64], count: usize) -> Self {
        if count == 0 {
            return Prefix {
                count,
                key: 0,
                below: 0,
            };
        }
        let key = sorted[count - 1];
        Prefix {
            count,
            key,
            below: sorted.partition_point(|&x| x < key),
        }
    }
}

/// A prefix's membership test, fed every candidate in index order.
struct Member {
    prefix: Prefix,
    ties: usize,
    below: usize,
    admitted: usize,
}

impl Member {
    fn new(prefix: Prefix) -> Self {
        Member {
            prefix,
            ties: prefix.count - prefix.below,
            below: 0,
            admitted: 0,
        }
    }

    fn admits(&mut self, key: u64) -> bool {
        let p = &self.prefix;
        let inside = if key < p.key {
            self.below += 1;
            true
        } else if key == p.key && self.ties > 0 {
            self.ties -= 1;
            true
        } else {
            false
        };
        self.admitted += usize::from(inside);
        inside
    }

    /// Whether exactly the prefix was found.
    fn complete(&self) -> bool {
        self.admitted == self.prefix.count && self.below == self.prefix.below
    }
}

/// Asset P&L rows of a book's worst scenarios.
pub struct MergedTail<'a> {
    /// The tail's rows, in scenario order (their sums do not depend on the order).
    pub tail: Vec<&'a [f64]>,
    /// The rows after `start` up to `end`, in (P&L, index) order.
    pub window: Vec<&'a [f64]>,
}

/// The rows of book `b`'s prefix `tail`, and those of `end` beyond `start` (both within `end`);
/// `pnl` is the book's P&L in scenario order. A decoded partial's worst list is checked entry by
/// entry against the P&L (its key, that its index lies in the partial, index order) and each
/// prefix for its count and the count below its boundary; a list that fails is an error. (A list
/// missing a scenario whose P&L equals a boundary's would pass with its twin's row: the same P&L,
/// and checking the twins' indices would cost a pass over all P&L.)
pub fn merged_tail<'a>(
    partials: &'a [Partial],
    b: usize,
    n: usize,
    pnl: &[f64],
    [start, tail, end]: [Prefix; 3],
) -> Result<MergedTail<'a>> {
    let mut rows = Vec::with_capacity(tail.count);
    let mut window_keys = Vec::with_capacity(end.count - start.count);
    let mut window_rows: Vec<&[f64]> = Vec::with_capacity(end.count - start.count);
    let [mut in_start, mut in_tail, mut in_end] = [start, tail, end].map(Member::new);
    let mut honest = true;
    // Partials arrive in scenario order and each list in index order: every membership test sees
    // the candidates in scenario order, which is how ties are broken.
    for (t, p) in partials.iter().enumerate() {
        let worst = &p.books[b].worst;
        honest &= worst.indices.len() == worst.keys.len()
            && worst.asset_pnl.len() == worst.keys.len() * n;
        if !honest {
            break;
        }
        // A partial's own P&L may have been taken already: it ends where the next one starts.
        let range = p.first..partials.get(t + 1).map_or(pnl.len(), |next| next.first);
        let mut previous = None;
        for (pos, (&key, &index)) in worst.keys.iter().zip(&worst.indices).enumerate() {
            let i = index as usize;
            honest &=
                range.contains(&i) && previous.map_or(true, |j| j < i) && order_key(pnl[i]) == key;
            previous = Some(i);
            let row = &worst.asset_pnl[pos * n..(pos + 1) * n];
            let before_window = in_start.admits(key);
            if in_tail.admits(key) {
                rows.push(row);
            }
            if in_end.admits(key) && !before_window {
                window_keys.push(key);
                window_rows.push(row);
            }
        }
    }
    ensure(
        honest && in_start.complete() && in_tail.complete() && in_end.complete(),
        "partial tails do not match their P&L",
    )?;
    // At most MAX_SCENARIOS < 2^32 entries.
    let order: Vec<u32> = (0..window_keys.len() as u32).collect();
    let (_, order) = sort_keys_stably(window_keys, order);
    Ok(MergedTail {
        tail: rows,
        window: order.into_iter().map(|o| window_rows[o as usize]).collect(),
    })
}
