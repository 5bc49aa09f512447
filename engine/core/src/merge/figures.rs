//! The estimators every merge shares: VaR and ES of a sorted tail, the batch standard errors,
//! the histogram's bins, component VaR's rescaling, the rule that keeps a mean between its
//! extremes, and the one constructor of a simulated book's `Metrics`.

use crate::error::{EngineError, Result};
use crate::metrics::{Metrics, PERCENTILES};
use crate::select::{from_order_key, rank_of_level, smallest_sorted};
use crate::spec::Book;
use crate::tail::ValueTail;

/// Independent batches the standard errors come from.
pub(crate) const SE_BATCHES: usize = 20;

/// Batch VaRs and ESs of one book.
pub(crate) type Batches = (Vec<f64>, Vec<f64>);

/// A book's moments over its scenarios (weighted or not).
pub(crate) struct Moments {
    pub(crate) mean: f64,
    pub(crate) volatility: f64,
    pub(crate) probability_of_loss: f64,
    pub(crate) worst: f64,
    pub(crate) best: f64,
}

/// Per asset: the Euler contributions to ES, the contributions to VaR and the standalone VaRs.
pub(crate) struct AssetFigures {
    pub(crate) component_es: Vec<f64>,
    pub(crate) component_var: Vec<f64>,
    pub(crate) standalone_var: Vec<f64>,
}

/// A simulated book's metrics from its `scenarios`, (VaR, ES), moments, batch figures (their
/// standard errors), percentiles, asset figures and histogram (edges, counts): put together one
/// way, whether the scenarios were weighted or not.
pub(crate) fn simulated_metrics(
    scenarios: usize,
    (var, es): (f64, f64),
    moments: Moments,
    (vars, ess): &Batches,
    percentiles: [f64; PERCENTILES],
    assets: AssetFigures,
    (bin_edges, counts): (Vec<f64>, Vec<f64>),
) -> Metrics {
    Metrics {
        scenarios,
        value_at_risk: var,
        expected_shortfall: es,
        expected_pnl: moments.mean,
        volatility: moments.volatility,
        probability_of_loss: moments.probability_of_loss,
        worst_loss: moments.worst,
        best_gain: moments.best,
        value_at_risk_standard_error: standard_error(vars),
        expected_shortfall_standard_error: standard_error(ess),
        percentiles,
        component_es: assets.component_es,
        component_var: assets.component_var,
        standalone_var: assets.standalone_var,
        bin_edges,
        counts,
    }
}

/// Figures that left double precision are an error, never a response.
pub(crate) fn finite(m: Metrics) -> Result<Metrics> {
    if m.all_finite() {
        Ok(m)
    } else {
        Err(EngineError::Overflow(
            "the figures overflow double precision (exposure, leverage or horizon too large)"
                .into(),
        ))
    }
}

/// Component VaR: the window's mean asset losses, scaled so that they add up to VaR. A window
/// whose losses add up to zero (or scale past double precision) cannot be scaled: VaR is then
/// shared in proportion to the gross exposures.
pub(crate) fn rescaled(raw: Vec<f64>, var: f64, book: &Book) -> Vec<f64> {
    let total: f64 = raw.iter().sum();
    let scale = var / total;
    if total != 0.0 && raw.iter().all(|x| (x * scale).is_finite()) {
        return raw.iter().map(|x| x * scale).collect();
    }
    let gross: f64 = book.weights.iter().map(|w| w.abs()).sum();
    if gross == 0.0 {
        return vec![0.0; raw.len()];
    }
    book.weights
        .iter()
        .map(|w| var * (w.abs() / gross))
        .collect()
}

/// `x` brought within [lo, hi]: a mean lies between the values it averages, but its rounded sum
/// and quotient can carry it an ulp beyond them (every scenario equal: ES past the worst loss, a
/// mean off the common value and a volatility of rounding noise).
pub(crate) fn between(x: f64, lo: f64, hi: f64) -> f64 {
    debug_assert!(lo <= hi);
    // Comparisons, not f64::max/min: a NaN stays NaN (for `finite` to refuse) and ±0 is kept.
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

/// VaR = −x_(k); ES = −(x_(1) + … + x_(k)) / k of the k smallest keys (reorders `keys`).
pub(crate) fn var_es(keys: &mut [u64], k: usize) -> (f64, f64) {
    var_es_of_sorted(&smallest_sorted(keys, k))
}

/// VaR and ES of a tail given ascending, summed in that order (and ES kept between VaR and the
/// worst loss).
pub(crate) fn var_es_of_sorted(tail: &[u64]) -> (f64, f64) {
    let k = tail.len();
    let sum: f64 = tail.iter().map(|&key| from_order_key(key)).sum();
    let var = -from_order_key(tail[k - 1]);
    (var, between(-sum / k as f64, var, -from_order_key(tail[0])))
}

/// −mean of each asset's P&L over the scenario rows given, summed in their order.
pub(crate) fn mean_asset_loss(n: usize, rows: &[&[f64]]) -> Vec<f64> {
    let mut sums = vec![0.0; n];
    for row in rows {
        for (s, a) in sums.iter_mut().zip(row.iter()) {
            *s += a;
        }
    }
    sums.iter().map(|s| -s / rows.len() as f64).collect()
}

/// VaR and ES of the k smallest values of one batch, given as its runs (a batch may span several
/// tasks' partials): a bounded tail streams through them (its threshold soon refuses nearly every
/// value), where copying every key and selecting among them took several times as long. The k
/// smallest are the same whichever way they are found, so the figures keep their bits.
pub(crate) fn batch_var_es(runs: &[&[f64]], k: usize) -> (f64, f64) {
    let mut tail = ValueTail::new(k, runs.iter().map(|r| r.len()).sum());
    for run in runs {
        tail.push_all(run);
    }
    var_es(&mut tail.finish(), k)
}

/// VaR and ES of each of SE_BATCHES contiguous batches of the scenarios (none below two).
pub(crate) fn batch_figures(pnl: &[f64], confidence: f64) -> (Vec<f64>, Vec<f64>) {
    let batches = SE_BATCHES.min(pnl.len());
    if batches < 2 {
        return (Vec::new(), Vec::new());
    }
    let mut vars = Vec::with_capacity(batches);
    let mut ess = Vec::with_capacity(batches);
    for b in 0..batches {
        let slice = &pnl[b * pnl.len() / batches..(b + 1) * pnl.len() / batches];
        let (v, e) = batch_var_es(&[slice], rank_of_level(1.0 - confidence, slice.len()));
        vars.push(v);
        ess.push(e);
    }
    (vars, ess)
}

/// The standard error of the mean of the batch figures `xs` (0 for fewer than two).
pub(crate) fn standard_error(xs: &[f64]) -> f64 {
    if xs.len() < 2 {
        return 0.0;
    }
    let m = xs.iter().sum::<f64>() / xs.len() as f64;
    let var = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (xs.len() as f64 - 1.0);
    (var / xs.len() as f64).sqrt()
}

/// `bins` equal-width bins from `lo` to `hi` (widened by ½ on each side when equal): their edges,
/// and the bin of a value (the last bin is closed).
pub(crate) fn bin_edges(lo: f64, hi: f64, bins: usize) -> (Vec<f64>, impl Fn(f64) -> usize) {
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else {
        (lo - 0.5, hi + 0.5)
    };
    let width = hi - lo;
    let edges = (0..=bins)
        .map(|j| {
            if j == bins {
                hi
            } else {
                lo + width * (j as f64 / bins as f64)
            }
        })
        .collect();
    let scale = bins as f64 / width;
    // Saturated to u32 (NaN to 0), which vectorises on every target: the same bin as through usize,
    // as bins never exceed MAX_HISTOGRAM_BINS.
    let last = bins as u32 - 1;
    let index = move |x: f64| (((x - lo) * scale) as u32).min(last) as usize;
    (edges, index)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::XorShift;
    use crate::select::order_key;

    /// The streamed tail's figures are those of every key copied and selected, bit for bit: drawn
    /// batches cut into runs, with ties, signed zeros and extremes, k from 1 to the whole batch.
    #[test]
    fn a_streamed_batch_tail_gives_the_selected_figures() {
        let mut draw = XorShift(0x5eed_ba7c_4e5f_0001);
        for case in 0..300 {
            let len = 1 + (draw.uniform() * [10.0, 3_000.0, 40_000.0][case % 3]) as usize;
            let values: Vec<f64> = (0..len)
                .map(|i| match (case + i) % 7 {
                    0 => [0.0, -0.0, 1.0, -1.0][i % 4],
                    1 => [f64::MAX, -f64::MAX, 5e-324][i % 3],
                    _ => (draw.uniform() - 0.6) * 1e6,
                })
                .collect();
            let k = match case % 4 {
                0 => 1,
                1 => len,
                _ => 1 + (draw.uniform() * len as f64) as usize % len,
            };
            let cuts = [len / 3, len / 2, len];
            let runs = [
                &values[..cuts[0]],
                &values[cuts[0]..cuts[1]],
                &values[cuts[1]..],
            ];
            let mut keys: Vec<u64> = values.iter().map(|&x| order_key(x)).collect();
            let (want_var, want_es) = var_es(&mut keys, k);
            let (var, es) = batch_var_es(&runs, k);
            assert_eq!(
                (var.to_bits(), es.to_bits()),
                (want_var.to_bits(), want_es.to_bits()),
                "case {case}: len {len}, k {k}"
            );
        }
    }

    /// A value's bin through u32 is its bin through usize (`as usize` saturating, the last bin
    /// closed), at the edges of the range, beyond it, for subnormal and huge widths (where the
    /// scale overflows and 0 · ∞ is NaN) and at the bounds of the bin count.
    #[test]
    fn bins_through_u32_are_those_through_usize() {
        use crate::limits::{MAX_HISTOGRAM_BINS, MIN_HISTOGRAM_BINS};
        let ranges = [
            (-1.0, 1.0),
            (0.0, 5e-324),
            (-5e-324, 5e-324),
            (-f64::MAX, f64::MAX),
            (-3.25, -3.25),
            (1e300, 1e300 * (1.0 + f64::EPSILON)),
            (-0.0, 0.0),
        ];
        let mut draw = XorShift(0xb1a5_ed0f_0123_4567);
        for bins in [MIN_HISTOGRAM_BINS, 2, 3, 7, 20, 999, MAX_HISTOGRAM_BINS] {
            for (lo, hi) in ranges {
                let (edges, index) = bin_edges(lo, hi, bins);
                let (a, b) = (edges[0], edges[bins]);
                let scale = bins as f64 / (b - a);
                let through_usize = |x: f64| (((x - a) * scale) as usize).min(bins - 1);
                let mut xs = vec![lo, hi, a, b, -0.0, 0.0, 5e-324, f64::MAX, -f64::MAX];
                xs.extend(edges.iter().copied());
                xs.extend((0..200).map(|_| a + (b - a) * draw.uniform()));
                for x in xs {
                    assert_eq!(
                        index(x),
                        through_usize(x),
                        "bins {bins}, [{lo}, {hi}], x {x}"
                    );
                }
            }
        }
    }
}
