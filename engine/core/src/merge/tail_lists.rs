//! The tasks' kept tails as the merge reads them: the k-th smallest over one tail's lists, and
//! whether lists a task kept to its own share (`OP_SIMULATE_OWN_TAILS`) provably hold every
//! scenario of the calculation's tail. A short list holds its task's first keys only, so whatever
//! it left out ranks after its last: when that last lies beyond the calculation's boundary, nothing
//! left out is inside it, and the figures are those of full lists, bit for bit.

use crate::error::{EngineError, Result};
use crate::select::nth_smallest;
use crate::simulate::Partial;
use crate::spec::own_share_of;

/// One task's list of a tail's keys, and whether it holds its task's own share of the tail only.
#[derive(Clone, Copy, Debug)]
pub struct TailList<'a> {
    pub keys: &'a [u64],
    pub short: bool,
}

impl<'a> TailList<'a> {
    /// The list of a task of `count` of `scenarios` scenarios for a tail of `k`: short when it
    /// holds exactly the task's own share (`own_share_of`) and that is less than the full
    /// min(k, count). Any other length is taken as full (a kept range's pooled tail, or a list
    /// that does not match its P&L, is judged as before).
    pub fn of(keys: &'a [u64], k: usize, count: usize, scenarios: usize) -> Self {
        let own = own_share_of(k, count, scenarios);
        TailList {
            keys,
            short: own < k.min(count) && keys.len() == own,
        }
    }
}

/// The k-th smallest key over the tasks' lists of one tail of values (their order does not matter).
/// Full lists hold min(k, count) each (one task: k in all, the k-th then the largest, found
/// without copying); own-share lists hold fewer each and usually more than k in all. The union's k-th is the calculation's when it is no
/// larger than every short list's largest: a key left out is at least that, so none lies below it
/// (and a tie repeats its value). Otherwise `TailsShort`; full lists holding fewer than k in all
/// do not match their P&L.
pub fn kth_smallest<'a>(
    lists: impl Iterator<Item = TailList<'a>> + Clone,
    k: usize,
) -> Result<u64> {
    let held: usize = lists.clone().map(|l| l.keys.len()).sum();
    if held < k {
        return Err(if lists.clone().any(|l| l.short) {
            EngineError::TailsShort
        } else {
            EngineError::invalid("partial tails do not match their P&L")
        });
    }
    let kth = if held == k {
        lists
            .clone()
            .flat_map(|l| l.keys)
            .copied()
            .max()
            .unwrap_or(0)
    } else {
        let mut all: Vec<u64> = lists.clone().flat_map(|l| l.keys).copied().collect();
        nth_smallest(&mut all, k)
    };
    let covered = |l: TailList| !l.short || l.keys.iter().any(|&x| x >= kth);
    if lists.clone().all(covered) {
        Ok(kth)
    } else {
        Err(EngineError::TailsShort)
    }
}

/// Whether book `b`'s worst lists hold every scenario of its first `worst_k` by (P&L, index), the
/// last of which has order key `key`: every short list (`TailList::of`) must keep a key above
/// `key`. Its left-out scenarios rank after its last by (key, index); an equal key could have
/// left out a tie the prefix takes, with a row of its own (`TailsShort`).
/// `counts` are the partials' scenarios (`task_counts`), `scenarios` their sum.
pub fn worst_lists_cover(
    (partials, counts): (&[Partial], &[usize]),
    b: usize,
    (worst_k, key): (usize, u64),
    scenarios: usize,
) -> Result<()> {
    let covers = |(p, &count): (&Partial, &usize)| {
        let worst = &p.books[b].worst.keys;
        !TailList::of(worst, worst_k, count, scenarios).short || worst.iter().any(|&x| x > key)
    };
    if partials.iter().zip(counts).all(covers) {
        Ok(())
    } else {
        Err(EngineError::TailsShort)
    }
}

/// Each task's scenarios, read from where the next partial starts (partials in scenario order over
/// `scenarios`): the merge takes a partial's P&L out as it gathers a book's.
pub fn task_counts(partials: &[Partial], scenarios: usize) -> Vec<usize> {
    partials
        .iter()
        .enumerate()
        .map(|(t, p)| partials.get(t + 1).map_or(scenarios, |next| next.first) - p.first)
        .collect()
}
