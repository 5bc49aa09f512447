//! The merge's order statistics from the parts' bucket counts: the buckets tell where each rank
//! lies, so one pass over the P&L keeps only the keys of those buckets (and every key up to the
//! component-VaR window) and selection runs on them alone. The keys found are those a selection
//! over every scenario finds: a rank's key is a value, not a position. `select_all` is the single
//! merge's way in: it takes the counts of the merge's first pass, or selects in place where
//! counting does not pay.

use super::figures::{batch_var_es, Batches};
use super::part_summary::{batch_bounds, bucket, BUCKETS};
use super::pnl_passes::CHUNK;
use crate::error::{ensure, Result};
use crate::select::{multi_select, nth_smallest, order_key, rank_of_level, smallest_sorted};

/// What `book_metrics` takes of a book's sorted keys.
pub(crate) struct Selected {
    /// The key of each rank asked for, in the same order.
    pub(crate) at: Vec<u64>,
    /// The `k` smallest keys, ascending.
    pub(crate) sorted: Vec<u64>,
    /// How many keys lie below the key of rank `worst_k`.
    pub(crate) below: usize,
}

/// The keys of `ranks` (1-based, each ≤ the scenarios), the `k` smallest sorted and the count
/// below rank `worst_k` (k ≤ worst_k), from `counts` (keys per bucket over `pnl`, given by the
/// parts). Counts that do not match the P&L, bucket by bucket, are an error.
pub(crate) fn select_by_buckets(
    pnl: &[f64],
    counts: &[u64],
    ranks: &[usize],
    k: usize,
    worst_k: usize,
) -> Result<Selected> {
    select_in_buckets(pnl, counts, ranks, k, worst_k, true)
}

/// `select_by_buckets`, counting every bucket again to check `counts` when `recount` (counts the
/// merge took itself from the same P&L need no check).
fn select_in_buckets(
    pnl: &[f64],
    counts: &[u64],
    ranks: &[usize],
    k: usize,
    worst_k: usize,
    recount: bool,
) -> Result<Selected> {
    let mismatch = "finalize parts do not match their partials";
    let mut cum = Vec::with_capacity(BUCKETS);
    let mut total = 0u64;
    for &c in counts {
        total = total.saturating_add(c);
        cum.push(total);
    }
    ensure(total == pnl.len() as u64, mismatch)?;
    let bucket_of = |r: usize| cum.partition_point(|&c| c < r as u64);
    let low_bucket = bucket_of(worst_k);
    // Where each bucket's keys go: 0 = the low run (every bucket up to worst_k's), 1 + t = target
    // bucket t (one holding a rank above it), SKIP = nowhere.
    const SKIP: u8 = u8::MAX;
    let mut slot = vec![SKIP; BUCKETS];
    slot[..=low_bucket].fill(0);
    let mut targets: Vec<usize> = Vec::new();
    for &r in ranks {
        let b = bucket_of(r);
        if slot[b] == SKIP {
            targets.push(b);
            slot[b] = targets.len() as u8;
        }
    }
    let mut gathered: Vec<Vec<u64>> = [cum[low_bucket]]
        .into_iter()
        .chain(targets.iter().map(|&b| counts[b]))
        .map(|count| Vec::with_capacity(count as usize))
        .collect();
    // Given counts are checked bucket by bucket: counts moved between buckets would move the
    // ranks' places.
    let mut seen = vec![0u64; if recount { BUCKETS } else { 0 }];
    // Every key is staged with its destination and only those kept advance (no branch on a
    // destination, which the P&L's order makes unpredictable); the few kept are then put in place.
    let mut keys = [0u64; CHUNK];
    let mut places = [0u8; CHUNK];
    for chunk in pnl.chunks(CHUNK) {
        let mut staged = 0;
        for &x in chunk {
            let key = order_key(x);
            let b = bucket(key);
            if recount {
                seen[b] += 1;
            }
            keys[staged] = key;
            places[staged] = slot[b];
            staged += usize::from(slot[b] != SKIP);
        }
        for (&key, &place) in keys[..staged].iter().zip(&places[..staged]) {
            gathered[usize::from(place)].push(key);
        }
    }
    let mut low = std::mem::take(&mut gathered[0]);
    let found = &mut gathered[1..];
    ensure(
        (!recount || seen == counts)
            && low.len() as u64 == cum[low_bucket]
            && targets
                .iter()
                .zip(found.iter())
                .all(|(&b, f)| f.len() as u64 == counts[b]),
        mismatch,
    )?;
    let mut in_low: Vec<usize> = ranks.iter().copied().filter(|&r| r <= low.len()).collect();
    in_low.push(worst_k);
    in_low.sort_unstable();
    in_low.dedup();
    multi_select(&mut low, &in_low);
    let at = ranks
        .iter()
        .map(|&r| {
            if r <= low.len() {
                low[r - 1]
            } else {
                let b = bucket_of(r);
                let before = if b == 0 { 0 } else { cum[b - 1] } as usize;
                nth_smallest(&mut found[usize::from(slot[b]) - 1], r - before)
            }
        })
        .collect();
    let boundary = low[worst_k - 1];
    let below = low[..worst_k - 1].iter().filter(|&&x| x < boundary).count();
    let sorted = smallest_sorted(&mut low[..k], k);
    Ok(Selected { at, sorted, below })
}

/// The batch VaRs and ESs: those the parts gave, the others (straddling parts) from the P&L, as
/// `figures::batch_figures` computes each.
pub(crate) fn batches_with(
    pnl: &[f64],
    confidence: f64,
    given: &[Option<(f64, f64)>],
) -> Result<Batches> {
    let bounds = batch_bounds(pnl.len());
    ensure(
        given.len() == bounds.len().saturating_sub(1),
        "finalize part batches do not match",
    )?;
    let (mut vars, mut ess) = (Vec::new(), Vec::new());
    for (w, g) in bounds.windows(2).zip(given) {
        let (v, e) = match *g {
            Some(figures) => figures,
            None => batch_var_es(
                &[&pnl[w[0]..w[1]]],
                rank_of_level(1.0 - confidence, w[1] - w[0]),
            ),
        };
        vars.push(v);
        ess.push(e);
    }
    Ok((vars, ess))
}

/// The single merge's selection. Over many scenarios (`buckets`: their keys per bucket, counted in
/// the merge's first pass; empty over few): `select_by_buckets`'s way (only the buckets holding a
/// rank are gathered, where `multi_select` over a million keys went over them several times). Over
/// few, or when one bucket holds most keys (a flat P&L, which gathering would copy whole): every
/// key, in place.
pub(crate) fn select_all(
    pnl: &[f64],
    buckets: &[u64],
    ranks: &[usize],
    k: usize,
    worst_k: usize,
    keys: &mut Vec<u64>,
) -> Result<Selected> {
    if !buckets.is_empty() && buckets.iter().all(|&c| c <= pnl.len() as u64 / 2) {
        return select_in_buckets(pnl, buckets, ranks, k, worst_k, false);
    }
    keys.clear();
    keys.extend(pnl.iter().map(|&x| order_key(x)));
    multi_select(keys, ranks);
    let at = ranks.iter().map(|&r| keys[r - 1]).collect();
    // Every key before index worst_k − 1 is no larger than the worst_k-th: the merge ends there.
    let boundary = keys[worst_k - 1];
    let below = keys[..worst_k - 1]
        .iter()
        .filter(|&&x| x < boundary)
        .count();
    // Likewise keys[..k] is the tail: VaR and ES from its keys in ascending order.
    let sorted = smallest_sorted(&mut keys[..k], k);
    Ok(Selected { at, sorted, below })
}

#[cfg(test)]
mod tests {
    use super::super::pnl_passes::{summarize, BUCKETS_FROM};
    use super::*;
    use crate::rng::XorShift;

    /// Over many scenarios the single merge selects among the buckets its first pass counted (no
    /// recount): the same keys as selecting every key in place, ties and signed zeros included.
    #[test]
    fn counted_buckets_select_what_selecting_in_place_does() {
        let mut draw = XorShift(0x5e1e_c7ed_b0c4_e7a1);
        for case in 0..4 {
            let n = BUCKETS_FROM + (draw.uniform() * 50_000.0) as usize;
            let pnl: Vec<f64> = (0..n)
                .map(|i| match (case + i) % 11 {
                    0 => [0.0, -0.0][i % 2],
                    1 => -1234.5, // a tie among the losses
                    _ => (draw.uniform() - 0.5) * 1e5 * (1 + case) as f64,
                })
                .collect();
            let k = rank_of_level(1.0 - [0.99, 0.95, 0.999, 0.9][case], n);
            let worst_k = k + 7;
            let mut ranks = vec![1, k, worst_k, n / 2, n - 3, n];
            ranks.sort_unstable();
            ranks.dedup();
            let buckets = summarize(&pnl, true).buckets;
            let by_buckets = select_all(&pnl, &buckets, &ranks, k, worst_k, &mut Vec::new());
            let in_place = select_all(&pnl, &[], &ranks, k, worst_k, &mut Vec::new());
            let (a, b) = (by_buckets.unwrap(), in_place.unwrap());
            assert_eq!(
                (a.at, a.sorted, a.below),
                (b.at, b.sorted, b.below),
                "case {case}"
            );
        }
    }
}
