//! The single merge's order statistics. Over many keys, one counting pass over their leading bits
//! says which bucket holds each rank, and only those buckets (with every key below the tail's) are
//! gathered and selected in: `multi_select` over a million keys went over them several times (two
//! thirds of W2's merge, measured). Few keys, or ranks whose buckets hold most of them (a flat
//! P&L), are selected in place as before. Either way the answer is the order statistics
//! themselves, so the path never changes a bit.

use crate::select::{multi_select, smallest_sorted};

/// Leading key bits per bucket: the sign, the exponent and three bits of the mantissa, so a
/// binade of P&L spreads over eight buckets; 2^15 four-byte counts stay in the cache.
const BUCKET_BITS: u32 = 15;
const BUCKETS: usize = 1 << BUCKET_BITS;
/// Below this many keys the tables cost more than selecting in place.
const BUCKETS_FROM: usize = 4 * BUCKETS;
const NONE: u16 = u16::MAX;

#[inline(always)]
fn bucket(key: u64) -> usize {
    (key >> (64 - BUCKET_BITS)) as usize
}

/// What the merge takes of every scenario's key.
pub(crate) struct Ranked {
    /// The key of each rank asked for, in their order.
    pub at: Vec<u64>,
    /// How many keys lie strictly below the key of rank `boundary`.
    pub below: usize,
    /// The `k` smallest keys, ascending.
    pub smallest: Vec<u64>,
}

/// The keys of `ranks` (1-based, ascending, distinct, each ≤ the number of keys), the count below
/// the key of rank `boundary` (one of them), and the `k` smallest in ascending order
/// (1 ≤ k ≤ the number of keys). `keys` is scratch: it is reordered.
pub(crate) fn select_ranks(keys: &mut [u64], ranks: &[usize], boundary: usize, k: usize) -> Ranked {
    debug_assert!(ranks.first().map_or(true, |&r| r >= 1) && k >= 1 && ranks.contains(&boundary));
    // Counts fit four bytes below 2^32 keys (MAX_SCENARIOS is 10^8; decoded partials are not
    // trusted to keep to it).
    if keys.len() < BUCKETS_FROM || keys.len() > u32::MAX as usize {
        return in_place(keys, ranks, boundary, k);
    }
    let mut counts = vec![0u32; BUCKETS];
    keys.iter().for_each(|&key| counts[bucket(key)] += 1);
    // starts[b]: the keys in buckets before b.
    let mut starts = Vec::with_capacity(BUCKETS + 1);
    let mut total = 0;
    for &count in &counts {
        starts.push(total);
        total += count as usize;
    }
    starts.push(total);
    // The bucket b with starts[b] < rank ≤ starts[b + 1] (never an empty one).
    let bucket_of = |rank: usize| starts.partition_point(|&start| start < rank) - 1;
    let tail_bucket = bucket_of(k);
    let mut slot = vec![NONE; BUCKETS];
    let mut wanted = Vec::new();
    for b in ranks
        .iter()
        .map(|&rank| bucket_of(rank))
        .chain([tail_bucket])
    {
        if slot[b] == NONE {
            slot[b] = wanted.len() as u16;
            wanted.push(b);
        }
    }
    let gathered_total: usize = wanted.iter().map(|&b| counts[b] as usize).sum();
    if gathered_total + starts[tail_bucket] > keys.len() / 2 {
        return in_place(keys, ranks, boundary, k);
    }
    let mut gathered: Vec<Vec<u64>> = wanted
        .iter()
        .map(|&b| Vec::with_capacity(counts[b] as usize))
        .collect();
    let mut low = Vec::with_capacity(k);
    for &key in keys.iter() {
        let b = bucket(key);
        if b < tail_bucket {
            low.push(key);
        }
        if slot[b] != NONE {
            gathered[slot[b] as usize].push(key);
        }
    }
    // Each bucket's ranks at once (the tail's k among them), local to the bucket.
    for (&b, keys_in) in wanted.iter().zip(gathered.iter_mut()) {
        let mut local: Vec<usize> = ranks
            .iter()
            .chain([&k])
            .filter(|&&rank| bucket_of(rank) == b)
            .map(|&rank| rank - starts[b])
            .collect();
        local.sort_unstable();
        local.dedup();
        multi_select(keys_in, &local);
        if b == tail_bucket {
            low.extend_from_slice(&keys_in[..k - starts[b]]);
        }
    }
    let key_at = |rank: usize| {
        let b = bucket_of(rank);
        let keys_in = &gathered[slot[b] as usize];
        (b, keys_in, keys_in[rank - starts[b] - 1])
    };
    let at = ranks.iter().map(|&rank| key_at(rank).2).collect();
    let (b, keys_in, key) = key_at(boundary);
    let before = &keys_in[..boundary - starts[b] - 1];
    Ranked {
        at,
        below: starts[b] + before.iter().filter(|&&x| x < key).count(),
        smallest: smallest_sorted(&mut low, k),
    }
}

/// `select_ranks` by `multi_select` over every key, in place (`k` among the ranks or not).
fn in_place(keys: &mut [u64], ranks: &[usize], boundary: usize, k: usize) -> Ranked {
    multi_select(keys, ranks);
    let at = ranks.iter().map(|&rank| keys[rank - 1]).collect();
    // Every key before the boundary's place is no larger than it, every key after no smaller.
    let key = keys[boundary - 1];
    let below = keys[..boundary - 1].iter().filter(|&&x| x < key).count();
    // With k among the ranks the k smallest already lead.
    let tail = if ranks.binary_search(&k).is_ok() {
        &mut keys[..k]
    } else {
        keys
    };
    Ranked {
        at,
        below,
        smallest: smallest_sorted(tail, k),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::XorShift;
    use crate::select::order_key;

    /// Against a full sort: few keys (in place), many of wide spread (by buckets), many in few
    /// buckets (in place again), ties, a single key.
    #[test]
    fn ranks_the_boundary_count_and_the_tail_match_a_sort() {
        let mut draw = XorShift(0x5851_f42d_4c95_7f2d_u64);
        let mut cases: Vec<Vec<u64>> = Vec::new();
        let shapes = [
            (1usize, 1.0),
            (7, 1.0),
            (20_000, 3e4),
            (300_000, 3e4),
            (200_000, 1e-3),
        ];
        for &(n, spread) in &shapes {
            cases.push(
                (0..n)
                    .map(|_| order_key(spread * (draw.uniform() - 0.4)))
                    .collect(),
            );
        }
        // Normal-like P&L over many binades, both signs: the bucket path with ranks spread out.
        cases.push(
            (0..250_000)
                .map(|_| order_key(1e4 * (draw.uniform() - 0.5) / (draw.uniform() + 1e-3)))
                .collect(),
        );
        cases.push(vec![order_key(2.5); 150_000]);
        cases.push(
            (0..140_000)
                .map(|i| order_key((i % 7) as f64 - 3.0))
                .collect(),
        );
        cases.push(
            (0..3000)
                .map(|i| order_key(1e4 + (i % 50) as f64))
                .collect(),
        );
        for keys in cases {
            let n = keys.len();
            let mut sorted = keys.clone();
            sorted.sort_unstable();
            let mut ranks: Vec<usize> = [1, n / 100, n / 100 + 30, n / 20, n / 2, n - n / 10, n]
                .iter()
                .map(|&r| r.clamp(1, n))
                .collect();
            ranks.sort_unstable();
            ranks.dedup();
            for (&k, &boundary) in ranks.iter().zip(ranks.iter().rev()) {
                let got = select_ranks(&mut keys.clone(), &ranks, boundary, k);
                for (&rank, &key) in ranks.iter().zip(&got.at) {
                    assert_eq!(key, sorted[rank - 1], "n {n} rank {rank}");
                }
                let key = sorted[boundary - 1];
                assert_eq!(got.below, sorted.partition_point(|&x| x < key), "n {n}");
                assert_eq!(got.smallest, sorted[..k].to_vec(), "n {n} k {k}");
            }
        }
    }
}
