//! Order statistics. Values are mapped to order-preserving u64 keys (integer compares are cheaper
//! than float compares and make the order total); selection is O(N).

/// Maps a finite f64 to a u64 whose unsigned order is the float order.
#[inline(always)]
pub fn order_key(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

/// Inverse of `order_key`.
#[inline(always)]
pub fn from_order_key(k: u64) -> f64 {
    if k >> 63 == 1 {
        f64::from_bits(k & !(1 << 63))
    } else {
        f64::from_bits(!k)
    }
}

/// Rank j (1-based) of a probability level q in a sample of n: j = ⌈q·n⌉, clamped to [1, n].
/// A product within 1e-9 of an integer counts as that integer, so that decimal levels such as 0.05
/// (stored as 0.05000000000000004) give the rank a person computes by hand.
pub fn rank_of_level(q: f64, n: usize) -> usize {
    let p = q * n as f64;
    let nearest = p.round();
    let j = if (p - nearest).abs() <= 1e-9 * p.max(1.0) {
        nearest
    } else {
        p.ceil()
    };
    (j as usize).clamp(1, n.max(1))
}

/// Scenario indices in ascending (value, index) order (see `sort_keys_stably`).
pub fn ascending_order(values: impl Iterator<Item = f64>) -> Vec<usize> {
    let keys: Vec<u64> = values.map(order_key).collect();
    // Scenario counts stay below 2^32 (MAX_SCENARIOS).
    let index: Vec<u32> = (0..keys.len() as u32).collect();
    let (_, index) = sort_keys_stably(keys, index);
    index.into_iter().map(|i| i as usize).collect()
}

/// Bits of a radix digit (wider digits measured slower on wasm32: their counts leave the cache).
const DIGIT_BITS: usize = 8;
const DIGITS: usize = 1 << DIGIT_BITS;

/// Sorts `keys` ascending and carries `payload` along: a least-significant-digit radix sort,
/// stable, so entries of equal keys keep their order; a digit every key shares is skipped. Fed
/// in scenario order it gives the order of (key, index) pairs in O(N) passes (a comparison sort
/// of 128-bit pairs is several times slower on wasm32).
pub fn sort_keys_stably<P: Copy + Default>(
    mut keys: Vec<u64>,
    mut payload: Vec<P>,
) -> (Vec<u64>, Vec<P>) {
    let n = keys.len();
    debug_assert_eq!(n, payload.len());
    let (mut keys_out, mut payload_out) = (vec![0u64; n], vec![P::default(); n]);
    for shift in (0..64).step_by(DIGIT_BITS) {
        let digit = |k: u64| ((k >> shift) as usize) & (DIGITS - 1);
        let mut counts = [0usize; DIGITS];
        keys.iter().for_each(|&k| counts[digit(k)] += 1);
        if counts.contains(&n) {
            continue;
        }
        let mut next = [0usize; DIGITS];
        let mut total = 0;
        for (slot, count) in next.iter_mut().zip(counts) {
            *slot = total;
            total += count;
        }
        for (&k, &p) in keys.iter().zip(&payload) {
            let slot = &mut next[digit(k)];
            keys_out[*slot] = k;
            payload_out[*slot] = p;
            *slot += 1;
        }
        std::mem::swap(&mut keys, &mut keys_out);
        std::mem::swap(&mut payload, &mut payload_out);
    }
    (keys, payload)
}

/// The share q of n scenarios as a mass, q·n, snapped to a whole number within 1e-9 like
/// `rank_of_level`: with equal weights the weighted tail then ends where the counted one does.
pub fn level_mass(q: f64, n: usize) -> f64 {
    let p = q * n as f64;
    let nearest = p.round();
    if (p - nearest).abs() <= 1e-9 * p.max(1.0) {
        nearest
    } else {
        p
    }
}

/// Sorted ascending copy of the `k` smallest keys of `keys` (reorders `keys`).
pub fn smallest_sorted(keys: &mut [u64], k: usize) -> Vec<u64> {
    let k = k.min(keys.len());
    if k == 0 {
        return Vec::new();
    }
    if k < keys.len() {
        keys.select_nth_unstable(k - 1);
    }
    let mut tail = keys[..k].to_vec();
    // Radix passes beat comparisons once the tail is large (a low confidence level).
    if k < RADIX_FROM {
        tail.sort_unstable();
        tail
    } else {
        sort_keys_stably(tail, vec![(); k]).0
    }
}

/// Tail length from which `smallest_sorted` sorts by radix.
const RADIX_FROM: usize = 2048;

/// Places the key of every rank in `ranks` (1-based, ascending, distinct) at index rank − 1, with
/// smaller keys before it and larger after, in O(N log m): select the middle rank, then recurse
/// into each side with the ranks that fall there.
pub fn multi_select(keys: &mut [u64], ranks: &[usize]) {
    if ranks.is_empty() || keys.is_empty() {
        return;
    }
    let mid = ranks.len() / 2;
    let pos = ranks[mid] - 1;
    keys.select_nth_unstable(pos);
    let (left, right) = keys.split_at_mut(pos);
    multi_select(left, &ranks[..mid]);
    let offset = pos + 1;
    let upper: Vec<usize> = ranks[mid + 1..].iter().map(|r| r - offset).collect();
    multi_select(&mut right[1..], &upper);
}

/// The j-th smallest (1-based) key; reorders `keys`.
pub fn nth_smallest(keys: &mut [u64], j: usize) -> u64 {
    *keys.select_nth_unstable(j - 1).1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascending_order_is_the_order_of_value_index_pairs() {
        let mut values: Vec<f64> = (0..5000u64)
            .map(|i| ((i.wrapping_mul(2_654_435_761) % 997) as f64 - 498.0) * 1e-3)
            .collect();
        values.extend([0.0, -0.0, 1e300, -1e300, 5e-324, -5e-324, 0.0, -0.0]);
        let mut pairs: Vec<(u64, usize)> = values
            .iter()
            .enumerate()
            .map(|(i, &x)| (order_key(x), i))
            .collect();
        pairs.sort_unstable();
        let want: Vec<usize> = pairs.into_iter().map(|(_, i)| i).collect();
        assert_eq!(ascending_order(values.iter().copied()), want);
        assert_eq!(
            ascending_order([2.0; 7].into_iter()),
            (0..7).collect::<Vec<_>>()
        );
        assert!(ascending_order(std::iter::empty()).is_empty());
    }

    #[test]
    fn keys_preserve_order() {
        let xs = [-1e300, -2.5, -0.0, 0.0, 1e-300, 3.0, 1e300];
        for w in xs.windows(2) {
            assert!(order_key(w[0]) <= order_key(w[1]));
        }
        for &x in &xs {
            assert_eq!(from_order_key(order_key(x)).to_bits(), x.to_bits());
        }
    }

    #[test]
    fn ranks_of_decimal_levels() {
        assert_eq!(rank_of_level(1.0 - 0.95, 10_000), 500);
        assert_eq!(rank_of_level(1.0 - 0.99, 100), 1);
        assert_eq!(rank_of_level(0.05, 101), 6);
        assert_eq!(rank_of_level(0.5, 3), 2);
        assert_eq!(rank_of_level(1e-9, 10), 1);
        assert_eq!(rank_of_level(0.999_999, 10), 10);
    }

    #[test]
    fn multi_select_places_every_rank() {
        let mut v: Vec<u64> = (0..10_000u64).map(|i| (i * 7919) % 10_007).collect();
        let mut sorted = v.clone();
        sorted.sort_unstable();
        let ranks = [1, 100, 500, 2500, 5000, 5001, 9000, 10_000];
        multi_select(&mut v, &ranks);
        for r in ranks {
            assert_eq!(v[r - 1], sorted[r - 1]);
        }
        assert!(v[..99].iter().all(|&x| x <= sorted[99]));
    }

    #[test]
    fn selection_matches_sorting() {
        let mut v: Vec<u64> = (0..1000u64).map(|i| (i * 7919) % 1009).collect();
        let mut sorted = v.clone();
        sorted.sort_unstable();
        assert_eq!(smallest_sorted(&mut v.clone(), 10), sorted[..10].to_vec());
        assert_eq!(nth_smallest(&mut v, 500), sorted[499]);
    }
}
