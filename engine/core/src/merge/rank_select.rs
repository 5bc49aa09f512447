//! The single merge's order statistics by one counting pass: the keys' leading bits name a bucket,
//! the buckets' counts say which bucket holds each rank, and only those buckets (with every key
//! below the tail's) are gathered and selected in. The answer is the order statistics themselves,
//! so it is the same whatever the algorithm; `multi_select` over every key, which it replaces, went
//! over the million keys of a large calculation several times (two thirds of its merge, measured).

use crate::select::{multi_select, smallest_sorted};

/// Leading key bits per bucket: the sign, the exponent and three bits of the mantissa, so a
/// binade of P&L spreads over eight buckets; 2^15 counts stay in the cache.
const BUCKET_BITS: u32 = 15;
const BUCKETS: usize = 1 << BUCKET_BITS;
const NONE: u16 = u16::MAX;

#[inline(always)]
fn bucket(key: u64) -> usize {
    (key >> (64 - BUCKET_BITS)) as usize
}

/// What the merge takes of every scenario's key.
pub struct Ranked {
    /// The key of each rank asked for, in their order.
    pub at: Vec<u64>,
    /// For each rank, how many keys are strictly below its key.
    pub below: Vec<usize>,
    /// The `k` smallest keys, ascending.
    pub smallest: Vec<u64>,
}

/// The keys of `ranks` (1-based, ascending, distinct, each ≤ the number of keys), the count below
/// each, and the `k` smallest in ascending order (1 ≤ k ≤ the number of keys).
pub fn select_ranks(keys: &[u64], ranks: &[usize], k: usize) -> Ranked {
    // Scenario counts stay below 2^32 (MAX_SCENARIOS); 4-byte counts keep the table in the cache.
    let mut counts = vec![0u32; BUCKETS];
    keys.iter().for_each(|&key| counts[bucket(key)] += 1);
    // starts[b]: the keys in buckets before b.
    let mut starts = Vec::with_capacity(BUCKETS);
    let mut total = 0;
    for &count in &counts {
        starts.push(total);
        total += count as usize;
    }
    let bucket_of = |rank: usize| starts.partition_point(|&start| start < rank) - 1;
    let targets: Vec<usize> = ranks.iter().map(|&rank| bucket_of(rank)).collect();
    let tail_bucket = bucket_of(k);
    // Each target bucket's slot among the gathered ones (targets ascend with the ranks).
    let mut slot = vec![NONE; BUCKETS];
    let mut gathered: Vec<Vec<u64>> = Vec::new();
    for &b in targets.iter().chain([&tail_bucket]) {
        if slot[b] == NONE {
            slot[b] = gathered.len() as u16;
            gathered.push(Vec::with_capacity(counts[b] as usize));
        }
    }
    let mut low = Vec::with_capacity(starts[tail_bucket]);
    for &key in keys {
        let b = bucket(key);
        if b < tail_bucket {
            low.push(key);
        }
        let s = slot[b];
        if s != NONE {
            gathered[s as usize].push(key);
        }
    }
    // Every bucket's ranks at once (the tail's k among them), local to the bucket.
    let mut at = Vec::with_capacity(ranks.len());
    let mut below = Vec::with_capacity(ranks.len());
    for (s, keys_in) in gathered.iter_mut().enumerate() {
        let b = bucket(keys_in[0]);
        let mut local: Vec<usize> = ranks
            .iter()
            .chain([&k])
            .filter(|&&rank| rank >= 1 && bucket_of(rank) == b)
            .map(|&rank| rank - starts[b])
            .collect();
        local.sort_unstable();
        local.dedup();
        multi_select(keys_in, &local);
        if b == tail_bucket {
            low.extend_from_slice(&keys_in[..k - starts[b]]);
        }
        debug_assert_eq!(slot[b] as usize, s);
    }
    for (&rank, &b) in ranks.iter().zip(&targets) {
        let keys_in = &gathered[slot[b] as usize];
        let key = keys_in[rank - starts[b] - 1];
        at.push(key);
        below.push(
            starts[b]
                + keys_in[..rank - starts[b] - 1]
                    .iter()
                    .filter(|&&x| x < key)
                    .count(),
        );
    }
    Ranked {
        at,
        below,
        smallest: smallest_sorted(&mut low, k),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::XorShift;
    use crate::select::order_key;

    /// Against a full sort, over keys of wide and narrow spread, ties, one bucket, one key.
    #[test]
    fn ranks_below_counts_and_the_tail_match_a_sort() {
        let mut draw = XorShift(0x5851_f42d_4c95_7f2d_u64);
        let mut cases: Vec<Vec<u64>> = Vec::new();
        for &(n, spread) in &[
            (1usize, 1.0),
            (7, 1.0),
            (1000, 1e5),
            (20_000, 3e4),
            (5000, 1e-3),
        ] {
            cases.push(
                (0..n)
                    .map(|_| order_key(spread * (draw.uniform() - 0.4)))
                    .collect(),
            );
        }
        cases.push(vec![order_key(2.5); 300]);
        cases.push((0..3000).map(|i| order_key((i % 7) as f64 - 3.0)).collect());
        cases.push(
            (0..3000)
                .map(|i| order_key(1e4 + (i % 50) as f64))
                .collect(),
        );
        for keys in cases {
            let n = keys.len();
            let mut sorted = keys.clone();
            sorted.sort_unstable();
            let mut ranks: Vec<usize> = [1, n / 100, n / 20, n / 2, n - n / 10, n]
                .iter()
                .map(|&r| r.clamp(1, n))
                .collect();
            ranks.sort_unstable();
            ranks.dedup();
            for &k in &ranks {
                let got = select_ranks(&keys, &ranks, k);
                for (i, &rank) in ranks.iter().enumerate() {
                    let key = sorted[rank - 1];
                    assert_eq!(got.at[i], key, "n {n} rank {rank}");
                    assert_eq!(got.below[i], sorted.partition_point(|&x| x < key));
                }
                assert_eq!(got.smallest, sorted[..k].to_vec(), "n {n} k {k}");
            }
        }
    }
}
