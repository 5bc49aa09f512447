//! The merge's two passes over a book's P&L in scenario order. Each compensated sum is a chain of
//! dependent additions (about four cycles a scenario), which leaves the core idle beside it: the
//! first pass also counts the order keys per bucket (for the single merge's selection), the
//! extremes and the losses, the second bins the histogram beside the squared deviations. The
//! figures are those of separate passes, bit for bit: the sums keep their order, and the counts
//! are integers.

use super::figures::{between, bin_edges};
use super::part_summary::{bucket, BUCKETS};
use crate::metrics::CompensatedSum;
use crate::select::order_key;

/// Scenarios from which the first pass counts keys per bucket for the selection: below, the count
/// table (allocated, filled and scanned whole) costs more than selecting in place. Counting rides
/// along the sum, so the bound is lower than when it took a pass of its own (4 · BUCKETS): over
/// 100,000 scenarios the buckets save about 0.2 ms of a live tick's merge, over 30,000 they cost
/// 0.27 ms more than selecting in place (measured).
pub(crate) const BUCKETS_FROM: usize = BUCKETS;

/// Values a pass over the P&L takes at a time where part of its work runs in a loop of its own
/// (the chunk's staged values kept in L1).
pub(crate) const CHUNK: usize = 256;

/// The first pass: the compensated sum, the count of losses and the extremes, and (`counted`) the
/// keys per bucket.
pub(crate) struct Summary {
    pub(crate) sum: f64,
    pub(crate) losses: usize,
    pub(crate) worst: f64,
    pub(crate) best: f64,
    /// Keys per bucket (BUCKETS entries) when asked for, else empty.
    pub(crate) buckets: Vec<u64>,
}

/// The first pass over `pnl`, counting keys per bucket when `counted`.
pub(crate) fn summarize(pnl: &[f64], counted: bool) -> Summary {
    if counted {
        let mut buckets = vec![0u64; BUCKETS];
        let summary = summarize_with(pnl, |x| buckets[bucket(order_key(x))] += 1);
        Summary { buckets, ..summary }
    } else {
        summarize_with(pnl, |_| {})
    }
}

/// `summarize`'s sum, losses and extremes, with `each` called on every value beside them.
#[inline(always)]
fn summarize_with(pnl: &[f64], mut each: impl FnMut(f64)) -> Summary {
    let mut sum = CompensatedSum::default();
    let (mut losses, mut worst, mut best) = (0, f64::INFINITY, f64::NEG_INFINITY);
    for &x in pnl {
        sum.add(x);
        losses += usize::from(x < 0.0);
        worst = if x < worst { x } else { worst };
        best = if x > best { x } else { best };
        each(x);
    }
    Summary {
        sum: sum.total(),
        losses,
        worst,
        best,
        buckets: Vec::new(),
    }
}

/// The second pass: the mean (kept within the extremes), the sample volatility around it and the
/// histogram of `bins` equal-width bins from the worst to the best value (edges, counts; the last
/// bin closed), from the first pass's summary.
pub(crate) fn spread(
    pnl: &[f64],
    first: &Summary,
    bins: usize,
) -> (f64, f64, (Vec<f64>, Vec<f64>)) {
    let n = pnl.len();
    let mean = between(first.sum / n as f64, first.worst, first.best);
    let (edges, index) = bin_edges(first.worst, first.best, bins);
    let mut counts = vec![0u32; bins];
    let mut squares = CompensatedSum::default();
    // The bins of a chunk first, in a loop of their own that vectorises, then the sum's chain.
    let mut at = [0u32; CHUNK];
    for chunk in pnl.chunks(CHUNK) {
        for (a, &x) in at.iter_mut().zip(chunk) {
            *a = index(x) as u32;
        }
        for (&a, &x) in at.iter().zip(chunk) {
            squares.add((x - mean) * (x - mean));
            counts[a as usize] += 1;
        }
    }
    let volatility = if n > 1 {
        (squares.total() / (n as f64 - 1.0)).sqrt()
    } else {
        0.0
    };
    let counts = counts.into_iter().map(f64::from).collect();
    (mean, volatility, (edges, counts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::compensated_sum;
    use crate::rng::XorShift;

    /// The figures of one pass per figure, as the merge took them before the passes were fused.
    fn separate(pnl: &[f64], bins: usize) -> (f64, usize, f64, f64, Vec<u64>, f64, f64, Vec<f64>) {
        let sum = compensated_sum(pnl.iter().copied());
        let losses = pnl.iter().filter(|&&x| x < 0.0).count();
        let worst = pnl
            .iter()
            .fold(f64::INFINITY, |w, &x| if x < w { x } else { w });
        let best = pnl
            .iter()
            .fold(f64::NEG_INFINITY, |b, &x| if x > b { x } else { b });
        let mut buckets = vec![0u64; BUCKETS];
        pnl.iter().for_each(|&x| buckets[bucket(order_key(x))] += 1);
        let mean = between(sum / pnl.len() as f64, worst, best);
        let squares = compensated_sum(pnl.iter().map(|x| (x - mean) * (x - mean)));
        let volatility = if pnl.len() > 1 {
            (squares / (pnl.len() as f64 - 1.0)).sqrt()
        } else {
            0.0
        };
        let (_, index) = bin_edges(worst, best, bins);
        let mut counts = vec![0.0; bins];
        pnl.iter().for_each(|&x| counts[index(x)] += 1.0);
        (sum, losses, worst, best, buckets, mean, volatility, counts)
    }

    #[test]
    fn the_fused_passes_give_the_separate_passes_bits() {
        let mut draw = XorShift(0x0b5e_55ed_f00d_0001);
        for case in 0..60 {
            let len = 1 + (draw.uniform() * [3.0, 2_000.0, 70_000.0][case % 3]) as usize;
            let flat = case % 10 == 9; // every scenario equal: the bins widened by ½ each side
            let pnl: Vec<f64> = (0..len)
                .map(|i| match (case + i) % 9 {
                    _ if flat => -3.25,
                    0 => [0.0, -0.0, 5e-324, -5e-324][i % 4],
                    1 if case % 2 == 0 => [1e300, -1e300, 1e-300][i % 3],
                    2 => 1.0, // ties
                    _ => (draw.uniform() - 0.45) * 1e6,
                })
                .collect();
            let bins = [1, 20, 1000][case % 3];
            let want = separate(&pnl, bins);
            let first = summarize(&pnl, true);
            let (mean, volatility, (edges, counts)) = spread(&pnl, &first, bins);
            let bits = |x: f64| x.to_bits();
            assert_eq!(bits(first.sum), bits(want.0), "case {case}: sum");
            assert_eq!(
                (first.losses, bits(first.worst), bits(first.best)),
                (want.1, bits(want.2), bits(want.3)),
                "case {case}"
            );
            assert_eq!(first.buckets, want.4, "case {case}: buckets");
            assert_eq!(
                (bits(mean), bits(volatility)),
                (bits(want.5), bits(want.6)),
                "case {case}: moments"
            );
            assert_eq!(counts, want.7, "case {case}: histogram");
            assert_eq!(edges.len(), bins + 1);
            assert!(summarize(&pnl, false).buckets.is_empty());
        }
    }
}
