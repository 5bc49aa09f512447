//! Weighted quantiles of many positions at once (standalone VaRs of likelihood-ratio-weighted
//! scenarios), in a few passes over the rows rather than a sort per position.

use crate::select::order_key;

/// Most value buckets of a standalone quantile (the cut is found bucket by bucket, then inside
/// one); fewer for few scenarios, so that n assets × buckets stays near the rows' own size.
const QUANTILE_BUCKETS: usize = 1024;

/// Each asset's −x_J at tail mass `mass` (standalone VaRs) from the rows `assets` ([scenario][asset])
/// in three passes over the rows instead of a sort per asset: the range of each asset, its weights
/// summed per equal-width value bucket (each in scenario order), and the values of the one bucket
/// where they reach the mass, sorted by (value, index) to find the cut. A bucket is monotone in the
/// value, so the cut is the one of the full order; only the rounding of the running sum differs from
/// summing in that order (and every build sums alike).
pub fn standalone_quantiles(assets: &[f64], n: usize, weights: &[f64], mass: f64) -> Vec<f64> {
    let rows = || assets.chunks_exact(n);
    let buckets = (weights.len() / 64).clamp(16, QUANTILE_BUCKETS);
    let mut lo = vec![f64::INFINITY; n];
    let mut hi = vec![f64::NEG_INFINITY; n];
    for row in rows() {
        for ((l, h), &x) in lo.iter_mut().zip(hi.iter_mut()).zip(row) {
            *l = if x < *l { x } else { *l };
            *h = if x > *h { x } else { *h };
        }
    }
    let scale: Vec<f64> = lo
        .iter()
        .zip(&hi)
        .map(|(l, h)| if h > l { buckets as f64 / (h - l) } else { 0.0 })
        .collect();
    // Monotone in x: a range past double precision (scale 0, or NaN products) is bucket 0 or the last.
    let bucket = |i: usize, x: f64| (((x - lo[i]) * scale[i]) as usize).min(buckets - 1);
    let mut sums = vec![0.0; n * buckets];
    for (row, w) in rows().zip(weights) {
        for (i, &x) in row.iter().enumerate() {
            sums[i * buckets + bucket(i, x)] += w;
        }
    }
    let mut target = vec![0; n];
    let mut filled = vec![0.0; n];
    for i in 0..n {
        let sums = &sums[i * buckets..(i + 1) * buckets];
        let mut b = 0;
        while b + 1 < buckets && filled[i] + sums[b] < mass {
            filled[i] += sums[b];
            b += 1;
        }
        target[i] = b;
    }
    // A constant position (a zero exposure) is its own quantile: no bucket to search.
    let constant: Vec<bool> = lo.iter().zip(&hi).map(|(l, h)| h <= l).collect();
    let mut members: Vec<Vec<u128>> = vec![Vec::new(); n];
    for (s, row) in rows().enumerate() {
        for (i, &x) in row.iter().enumerate() {
            if !constant[i] && bucket(i, x) == target[i] {
                members[i].push((u128::from(order_key(x)) << 64) | s as u128);
            }
        }
    }
    members
        .into_iter()
        .enumerate()
        .map(|(i, mut keys)| {
            // An empty last bucket: the weights fell short of the mass, and the largest value carries
            // the rest (as in `cut`).
            if constant[i] || keys.is_empty() {
                return -hi[i];
            }
            keys.sort_unstable();
            let mut last = 0;
            for key in keys {
                let s = key as u64 as usize;
                last = s;
                if filled[i] + weights[s] >= mass {
                    break;
                }
                filled[i] += weights[s];
            }
            -assets[last * n + i]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merge::weighted::cut;
    use crate::select::ascending_order;

    /// The quantile of a sort: the first value whose weights, in (value, index) order, fill `mass`;
    /// the largest where they fall short.
    fn by_sorting(values: &[f64], weights: &[f64], mass: f64) -> f64 {
        let order = ascending_order(values.iter().copied());
        -values[order[cut(&order, weights, mass).0]]
    }

    #[test]
    fn standalone_quantiles_are_those_of_a_sort_at_the_edges() {
        let cases: [(&[f64], &[f64], f64); 5] = [
            // A range past double precision, weights short of the mass.
            (&[-1e308, 0.0, 1e308, 5.0], &[1.0, 1.0, 1.0, 1.0], 10.0),
            (&[-1e308, 0.0, 1e308, 5.0], &[1.0, 1.0, 1.0, 1.0], 2.5),
            // A constant column, zero weights, ties.
            (&[3.0, 3.0, 3.0], &[0.5, 0.0, 2.0], 1.0),
            (
                &[1.0, -2.0, 1.0, -2.0, 0.0],
                &[0.0, 0.0, 0.7, 0.2, 3.0],
                0.3,
            ),
            (
                &[1.0, -2.0, 1.0, -2.0, 0.0],
                &[0.0, 0.0, 0.0, 0.0, 0.0],
                0.3,
            ),
        ];
        for (values, weights, mass) in cases {
            let got = standalone_quantiles(values, 1, weights, mass)[0];
            assert_eq!(
                got,
                by_sorting(values, weights, mass),
                "{values:?} {weights:?} {mass}"
            );
        }
        // Many values, two assets side by side, against a sort of each column.
        let rows: Vec<f64> = (0..20_000u64)
            .map(|i| ((i.wrapping_mul(2_654_435_761) % 10_007) as f64 - 5_000.0) * 1e-3)
            .collect();
        let weights: Vec<f64> = (0..10_000u64).map(|i| (i % 7) as f64 * 0.3).collect();
        let got = standalone_quantiles(&rows, 2, &weights, 123.4);
        for (i, q) in got.iter().enumerate() {
            let column: Vec<f64> = rows.chunks_exact(2).map(|r| r[i]).collect();
            assert_eq!(*q, by_sorting(&column, &weights, 123.4));
        }
    }
}
