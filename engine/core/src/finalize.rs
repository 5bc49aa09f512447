//! Exact merge of task partials into the metrics. The answer depends only on the scenarios, never on
//! how they were split: partials are put back in scenario order and every tie is broken by index.

use crate::error::{ensure, EngineError, Result};
use crate::limits::{check_books, confidence_in_range, histogram_bins_in_range};
use crate::metrics::{
    compensated_sum, CompensatedSum, Metrics, Results, WhatIf, PERCENTILES, PERCENTILE_LEVELS,
};
use crate::select::{
    from_order_key, multi_select, nth_smallest, order_key, rank_of_level, smallest_sorted,
};
use crate::simulate::Partial;
use crate::spec::{var_window, Book, Comparison, Spec};
use crate::weighted;

/// Independent batches the standard errors come from.
const SE_BATCHES: usize = 20;

/// What the merge needs of the calculation. Every partial repeats it as its header, so that
/// finalize needs nothing but the partials.
#[derive(Clone, Debug, PartialEq)]
pub struct FinalizeParams {
    pub scenarios: usize,
    pub n_assets: usize,
    pub confidence: f64,
    pub histogram_bins: usize,
    pub comparison: Comparison,
    /// Per-asset tails kept once for all books: 0 (each book keeps its own), 1 (smallest) or 2
    /// (smallest and largest).
    pub lanes: usize,
    pub books: Vec<Book>,
    /// Whether scenarios carry likelihood-ratio weights (importance sampling).
    pub weighted: bool,
}

impl FinalizeParams {
    pub fn of(spec: &Spec) -> Self {
        FinalizeParams {
            scenarios: spec.scenarios(),
            n_assets: spec.n_assets(),
            confidence: spec.confidence(),
            histogram_bins: spec.histogram_bins(),
            comparison: spec.comparison(),
            lanes: if spec.shares_asset_tails() {
                1 + usize::from(spec.needs_largest())
            } else {
                0
            },
            books: spec.books().to_vec(),
            weighted: spec.importance_sampling(),
        }
    }

    /// Decoded parameters come from outside; from a `Spec` they are in range already.
    fn validate(&self) -> Result<()> {
        ensure(
            confidence_in_range(self.confidence) && histogram_bins_in_range(self.histogram_bins),
            "finalize parameters out of range",
        )?;
        check_books(self.books.len())?;
        ensure(
            self.books.iter().all(|b| {
                b.weights.len() == self.n_assets
                    && b.capital.is_finite()
                    && b.weights.iter().all(|w| w.is_finite())
            }),
            "books must hold one finite weight per asset",
        )?;
        ensure(
            self.comparison == Comparison::None || self.books.len() == 2,
            "a what-if compares exactly two books",
        )?;
        // A short book's standalone VaR needs the largest returns: one lane is not enough.
        let short = self.books.iter().any(Book::has_short);
        ensure(
            self.lanes == 0 || self.lanes == 1 + usize::from(short),
            "per-asset tail lanes do not match the books",
        )
    }
}

pub fn finalize(params: &FinalizeParams, partials: &mut [Partial]) -> Result<Results> {
    params.validate()?;
    let n = params.n_assets;
    partials.sort_by_key(|p| p.first);
    let mut next = 0;
    for p in partials.iter() {
        ensure(
            p.first == next,
            "partials must tile the scenarios without gaps",
        )?;
        let count = p.count();
        ensure(
            p.books.len() == params.books.len()
                && p.books.iter().all(|b| {
                    b.pnl.len() == count
                        && b.asset_tails.len() == if params.lanes == 0 { n } else { 0 }
                }),
            "asset tails per asset",
        )?;
        // Weighted partials keep every scenario, each with its likelihood ratio.
        ensure(
            !params.weighted
                || (p.weights.len() == count
                    && p.books.iter().all(|b| b.worst.indices.len() == count)),
            "weighted partials must keep every scenario and its weight",
        )?;
        let lane = |on: bool, tails: &Vec<Vec<u64>>| tails.len() == if on { n } else { 0 };
        ensure(
            lane(params.lanes >= 1, &p.units.smallest) && lane(params.lanes == 2, &p.units.largest),
            "asset tails per asset",
        )?;
        next += count;
    }
    ensure(
        next == params.scenarios && next > 0,
        "partials must cover every scenario",
    )?;
    if params.weighted {
        let (books, batches) = weighted::results(params, partials)?;
        return Ok(compared(params, books, &batches));
    }
    let k = rank_of_level(1.0 - params.confidence, next);
    // Shared lanes: each asset's k-th smallest and k-th largest e^{R} − 1, once for all books.
    let kth_of = |lane: &dyn Fn(&Partial) -> &Vec<Vec<u64>>, i: usize| {
        let mut all: Vec<u64> = partials
            .iter()
            .flat_map(|p| lane(p)[i].iter().copied())
            .collect();
        // Honest partials hold min(k, count) each, k in all; decoded ones may hold fewer.
        ensure(all.len() >= k, "partial tails do not match their P&L")?;
        Ok(from_order_key(nth_smallest(&mut all, k)))
    };
    let smallest = (0..if params.lanes >= 1 { n } else { 0 })
        .map(|i| kth_of(&|p: &Partial| &p.units.smallest, i))
        .collect::<Result<Vec<f64>>>()?;
    let largest = (0..if params.lanes == 2 { n } else { 0 })
        .map(|i| kth_of(&|p: &Partial| &p.units.largest, i).map(|x| -x))
        .collect::<Result<Vec<f64>>>()?;
    let mut books = Vec::with_capacity(params.books.len());
    // Only a comparison needs the books' batch figures after their figures.
    let mut batches = Vec::new();
    // One key buffer for every book: a fresh one each time is mostly page faults.
    let mut keys: Vec<u64> = Vec::with_capacity(next);
    for (b, book) in params.books.iter().enumerate() {
        // One task's P&L is taken as it is; several are put back in scenario order.
        let pnl: Vec<f64> = if partials.len() == 1 {
            std::mem::take(&mut partials[0].books[b].pnl)
        } else {
            let mut all = Vec::with_capacity(next);
            for p in partials.iter() {
                all.extend_from_slice(&p.books[b].pnl);
            }
            all
        };
        let standalone_var = if params.lanes == 0 {
            (0..n)
                .map(|i| {
                    let mut all: Vec<u64> = partials
                        .iter()
                        .flat_map(|p| p.books[b].asset_tails[i].iter().copied())
                        .collect();
                    ensure(all.len() >= k, "partial tails do not match their P&L")?;
                    Ok(-from_order_key(nth_smallest(&mut all, k)))
                })
                .collect::<Result<Vec<f64>>>()?
        } else {
            // Asset P&L e·u is monotone in u (rounding included): its k-th smallest is e times
            // u's k-th smallest for e ≥ +0 and e times u's k-th largest for e ≤ −0, exactly.
            (0..n)
                .map(|i| {
                    let e = book.exposure(i);
                    -(e * if e.is_sign_negative() {
                        largest[i]
                    } else {
                        smallest[i]
                    })
                })
                .collect()
        };
        let (m, vars, ess) = book_metrics(params, partials, b, &pnl, standalone_var, &mut keys)?;
        books.push(finite(m)?);
        if params.comparison != Comparison::None {
            batches.push((vars, ess));
        }
    }
    Ok(compared(params, books, &batches))
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

/// The books' figures with the comparison the parameters ask for (`batches`: each book's batch
/// VaRs and ESs, where a comparison needs them).
fn compared(params: &FinalizeParams, books: Vec<Metrics>, batches: &[Batches]) -> Results {
    let what_if = match params.comparison {
        Comparison::None => None,
        Comparison::WhatIf => Some(what_if(&books, &batches[0], &batches[1])),
    };
    Results { books, what_if }
}

/// Batch VaRs and ESs of one book.
pub(crate) type Batches = (Vec<f64>, Vec<f64>);

/// One book's figures from its P&L (in scenario order) and its partials' tails.
fn book_metrics(
    params: &FinalizeParams,
    partials: &[Partial],
    b: usize,
    pnl: &[f64],
    standalone_var: Vec<f64>,
    keys: &mut Vec<u64>,
) -> Result<(Metrics, Vec<f64>, Vec<f64>)> {
    let n_scen = pnl.len();
    let k = rank_of_level(1.0 - params.confidence, n_scen);
    let worst_k = (k + var_window(k)).min(n_scen);
    keys.clear();
    keys.extend(pnl.iter().map(|&x| order_key(x)));
    let percentile_ranks = PERCENTILE_LEVELS.map(|level| rank_of_level(level, n_scen));
    let mut ranks: Vec<usize> = percentile_ranks
        .iter()
        .copied()
        .chain([k, worst_k])
        .collect();
    ranks.sort_unstable();
    ranks.dedup();
    multi_select(keys, &ranks);
    let mut percentiles = [0.0; PERCENTILES];
    for (out, rank) in percentiles.iter_mut().zip(percentile_ranks) {
        *out = from_order_key(keys[rank - 1]);
    }
    let worst_pnl = from_order_key(keys[worst_k - 1]);
    // Every key before index k − 1 is no larger than the k-th: the tail is keys[..k].
    let (var, es) = var_es(&mut keys[..k], k);
    let tail = tail_indices(pnl, worst_pnl, worst_k);
    let n = params.n_assets;
    let component_es = mean_asset_loss(n, partials, b, &tail[..k])?;
    let m = var_window(k);
    let window = &tail[k.saturating_sub(m + 1)..worst_k];
    let component_var = rescaled(
        mean_asset_loss(n, partials, b, window)?,
        var,
        &params.books[b],
    );

    let Summary {
        sum,
        losses,
        worst,
        best,
    } = summarize(pnl);
    let mean = between(sum / n_scen as f64, worst, best);
    let volatility = if n_scen > 1 {
        (compensated_sum(pnl.iter().map(|x| (x - mean) * (x - mean))) / (n_scen as f64 - 1.0))
            .sqrt()
    } else {
        0.0
    };
    let (vars, ess) = batch_figures(pnl, params.confidence, keys);
    let (bin_edges, counts) = histogram(pnl, worst, best, params.histogram_bins);
    let metrics = Metrics {
        scenarios: n_scen,
        value_at_risk: var,
        expected_shortfall: es,
        expected_pnl: mean,
        volatility,
        probability_of_loss: losses as f64 / n_scen as f64,
        worst_loss: worst,
        best_gain: best,
        value_at_risk_standard_error: standard_error(&vars),
        expected_shortfall_standard_error: standard_error(&ess),
        percentiles,
        component_es,
        component_var,
        standalone_var,
        bin_edges,
        counts,
    };
    Ok((metrics, vars, ess))
}

/// Incremental VaR and ES of book 1 over book 0, with the standard errors of the differences from
/// the same batches (common random numbers: far below either figure's own).
fn what_if(books: &[Metrics], before: &Batches, after: &Batches) -> WhatIf {
    let ((before_var, before_es), (after_var, after_es)) = (before, after);
    let differences =
        |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x - y).collect::<Vec<f64>>();
    WhatIf {
        incremental_var: books[1].value_at_risk - books[0].value_at_risk,
        incremental_es: books[1].expected_shortfall - books[0].expected_shortfall,
        incremental_var_standard_error: standard_error(&differences(after_var, before_var)),
        incremental_es_standard_error: standard_error(&differences(after_es, before_es)),
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
struct Summary {
    sum: f64,
    losses: usize,
    worst: f64,
    best: f64,
}

/// One pass for the compensated sum, the count of losses and the extremes.
fn summarize(pnl: &[f64]) -> Summary {
    let mut sum = CompensatedSum::default();
    let (mut losses, mut worst, mut best) = (0, f64::INFINITY, f64::NEG_INFINITY);
    for &x in pnl {
        sum.add(x);
        losses += usize::from(x < 0.0);
        worst = if x < worst { x } else { worst };
        best = if x > best { x } else { best };
    }
    Summary {
        sum: sum.total(),
        losses,
        worst,
        best,
    }
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

/// VaR = −x_(k); ES = −(x_(1) + … + x_(k)) / k, the tail summed in ascending order (and kept
/// between VaR and the worst loss).
fn var_es(keys: &mut [u64], k: usize) -> (f64, f64) {
    let tail = smallest_sorted(keys, k);
    let sum: f64 = tail.iter().map(|&key| from_order_key(key)).sum();
    let var = -from_order_key(tail[k - 1]);
    (var, between(-sum / k as f64, var, -from_order_key(tail[0])))
}

/// Indices of the k worst scenarios by (P&L, index), in that order; `var_pnl` is the k-th worst.
fn tail_indices(pnl: &[f64], var_pnl: f64, k: usize) -> Vec<usize> {
    let threshold = order_key(var_pnl);
    let below = pnl.iter().filter(|&&x| order_key(x) < threshold).count();
    let mut at_threshold = k - below;
    let mut tail: Vec<usize> = Vec::with_capacity(k);
    for (i, &x) in pnl.iter().enumerate() {
        let key = order_key(x);
        if key < threshold {
            tail.push(i);
        } else if key == threshold && at_threshold > 0 {
            tail.push(i);
            at_threshold -= 1;
        }
    }
    tail.sort_by_key(|&i| (order_key(pnl[i]), i));
    tail
}

/// −mean of each asset's P&L over the scenarios `indices` of book `b`, summed in their order.
fn mean_asset_loss(
    n: usize,
    partials: &[Partial],
    b: usize,
    indices: &[usize],
) -> Result<Vec<f64>> {
    let mut sums = vec![0.0; n];
    for &index in indices {
        let owner = partials
            .iter()
            .rev()
            .find(|p| p.first <= index)
            .expect("partials tile the scenarios");
        let worst = &owner.books[b].worst;
        // A task's tail holds every global tail scenario it simulated, unless the partial was
        // altered on its way here.
        let pos = worst
            .indices
            .binary_search(&(index as u64))
            .map_err(|_| EngineError::invalid("partial tails do not match their P&L"))?;
        let assets = &worst.asset_pnl[pos * n..(pos + 1) * n];
        for (s, a) in sums.iter_mut().zip(assets) {
            *s += a;
        }
    }
    Ok(sums.iter().map(|s| -s / indices.len() as f64).collect())
}

/// VaR and ES of each of SE_BATCHES contiguous batches of the scenarios (none below two).
fn batch_figures(pnl: &[f64], confidence: f64, keys: &mut Vec<u64>) -> (Vec<f64>, Vec<f64>) {
    let batches = SE_BATCHES.min(pnl.len());
    if batches < 2 {
        return (Vec::new(), Vec::new());
    }
    let mut vars = Vec::with_capacity(batches);
    let mut ess = Vec::with_capacity(batches);
    for b in 0..batches {
        let slice = &pnl[b * pnl.len() / batches..(b + 1) * pnl.len() / batches];
        keys.clear();
        keys.extend(slice.iter().map(|&x| order_key(x)));
        let (v, e) = var_es(keys, rank_of_level(1.0 - confidence, slice.len()));
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

/// Equal-width bins from the worst to the best P&L; the last bin is closed.
fn histogram(pnl: &[f64], lo: f64, hi: f64, bins: usize) -> (Vec<f64>, Vec<f64>) {
    let (edges, index) = bin_edges(lo, hi, bins);
    let mut counts = vec![0u32; bins];
    for &x in pnl {
        counts[index(x)] += 1;
    }
    let counts = counts.into_iter().map(f64::from).collect();
    (edges, counts)
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
    let index = move |x: f64| (((x - lo) * scale) as usize).min(bins - 1);
    (edges, index)
}
