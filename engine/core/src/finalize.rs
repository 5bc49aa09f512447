//! Exact merge of task partials into the metrics. The answer depends only on the scenarios, never on
//! how they were split: partials are put back in scenario order and every tie is broken by index.

use crate::error::{ensure, EngineError, Result};
use crate::limits::{confidence_in_range, histogram_bins_in_range};
use crate::metrics::{compensated_sum, CompensatedSum, Metrics, PERCENTILES, PERCENTILE_LEVELS};
use crate::select::{
    from_order_key, multi_select, nth_smallest, order_key, rank_of_level, smallest_sorted,
};
use crate::simulate::Partial;
use crate::spec::Spec;

/// Independent batches the standard errors come from.
const SE_BATCHES: usize = 20;

/// What the merge needs of the calculation. Every partial repeats it as its header, so that
/// finalize needs nothing but the partials.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FinalizeParams {
    pub scenarios: usize,
    pub n_assets: usize,
    pub confidence: f64,
    pub portfolio_value: f64,
    pub histogram_bins: usize,
}

impl FinalizeParams {
    pub fn of(spec: &Spec) -> Self {
        FinalizeParams {
            scenarios: spec.scenarios(),
            n_assets: spec.n_assets(),
            confidence: spec.confidence(),
            portfolio_value: spec.portfolio_value(),
            histogram_bins: spec.histogram_bins(),
        }
    }
}

pub fn finalize(params: &FinalizeParams, partials: &mut [Partial]) -> Result<Metrics> {
    // Decoded partials carry these from outside; from a `Spec` they are in range already.
    ensure(
        confidence_in_range(params.confidence) && histogram_bins_in_range(params.histogram_bins),
        "finalize parameters out of range",
    )?;
    partials.sort_by_key(|p| p.first);
    let mut next = 0;
    for p in partials.iter() {
        ensure(
            p.first == next,
            "partials must tile the scenarios without gaps",
        )?;
        ensure(
            p.asset_tails.len() == params.n_assets,
            "asset tails per asset",
        )?;
        next += p.pnl.len();
    }
    ensure(
        next == params.scenarios && next > 0,
        "partials must cover every scenario",
    )?;
    let mut pnl: Vec<f64> = Vec::with_capacity(params.scenarios);
    for p in partials.iter() {
        pnl.extend_from_slice(&p.pnl);
    }
    let n_scen = pnl.len();
    let k = rank_of_level(1.0 - params.confidence, n_scen);
    let mut keys: Vec<u64> = pnl.iter().map(|&x| order_key(x)).collect();
    let percentile_ranks = PERCENTILE_LEVELS.map(|level| rank_of_level(level, n_scen));
    let mut ranks: Vec<usize> = percentile_ranks.iter().copied().chain([k]).collect();
    ranks.sort_unstable();
    ranks.dedup();
    multi_select(&mut keys, &ranks);
    let mut percentiles = [0.0; PERCENTILES];
    for (out, rank) in percentiles.iter_mut().zip(percentile_ranks) {
        *out = from_order_key(keys[rank - 1]);
    }
    // Every key before index k − 1 is no larger than the k-th: the tail is keys[..k].
    let (var, es) = var_es(&mut keys[..k], k);
    let tail = tail_indices(&pnl, from_order_key(keys[k - 1]), k);
    let component_es = component_es(params.n_assets, partials, &tail, k)?;
    let standalone_var = (0..params.n_assets)
        .map(|i| {
            let mut all: Vec<u64> = partials
                .iter()
                .flat_map(|p| p.asset_tails[i].iter().copied())
                .collect();
            // Honest partials hold min(k, count) each, k in all; decoded ones may hold fewer.
            ensure(all.len() >= k, "partial tails do not match their P&L")?;
            Ok(-from_order_key(nth_smallest(&mut all, k)))
        })
        .collect::<Result<Vec<f64>>>()?;

    let Summary {
        sum,
        losses,
        worst,
        best,
    } = summarize(&pnl);
    let mean = sum / n_scen as f64;
    let volatility = if n_scen > 1 {
        (compensated_sum(pnl.iter().map(|x| (x - mean) * (x - mean))) / (n_scen as f64 - 1.0))
            .sqrt()
    } else {
        0.0
    };
    let (var_se, es_se) = batch_standard_errors(&pnl, params.confidence);
    let (bin_edges, counts) = histogram(&pnl, worst, best, params.histogram_bins);
    Ok(Metrics {
        scenarios: n_scen,
        value_at_risk: var,
        expected_shortfall: es,
        expected_pnl: mean,
        volatility,
        probability_of_loss: losses as f64 / n_scen as f64,
        worst_loss: worst,
        best_gain: best,
        value_at_risk_standard_error: var_se,
        expected_shortfall_standard_error: es_se,
        percentiles,
        component_es,
        standalone_var,
        bin_edges,
        counts,
    })
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

/// VaR = −x_(k); ES = −(x_(1) + … + x_(k)) / k, the tail summed in ascending order.
fn var_es(keys: &mut [u64], k: usize) -> (f64, f64) {
    let tail = smallest_sorted(keys, k);
    let sum: f64 = tail.iter().map(|&key| from_order_key(key)).sum();
    (-from_order_key(tail[k - 1]), -sum / k as f64)
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

/// −E[P&L_i | scenario in the tail], summed in tail order.
fn component_es(n: usize, partials: &[Partial], tail: &[usize], k: usize) -> Result<Vec<f64>> {
    let mut sums = vec![0.0; n];
    for &index in tail {
        let owner = partials
            .iter()
            .rev()
            .find(|p| p.first <= index)
            .expect("partials tile the scenarios");
        // A task's tail holds every global tail scenario it simulated, unless the partial was
        // altered on its way here.
        let pos = owner
            .worst
            .indices
            .binary_search(&(index as u64))
            .map_err(|_| EngineError::invalid("partial tails do not match their P&L"))?;
        let assets = &owner.worst.asset_pnl[pos * n..(pos + 1) * n];
        for (s, a) in sums.iter_mut().zip(assets) {
            *s += a;
        }
    }
    Ok(sums.iter().map(|s| -s / k as f64).collect())
}

/// Standard errors of VaR and ES from contiguous batches of the scenarios.
fn batch_standard_errors(pnl: &[f64], confidence: f64) -> (f64, f64) {
    let batches = SE_BATCHES.min(pnl.len());
    if batches < 2 {
        return (0.0, 0.0);
    }
    let mut vars = Vec::with_capacity(batches);
    let mut ess = Vec::with_capacity(batches);
    for b in 0..batches {
        let slice = &pnl[b * pnl.len() / batches..(b + 1) * pnl.len() / batches];
        let mut keys: Vec<u64> = slice.iter().map(|&x| order_key(x)).collect();
        let (v, e) = var_es(&mut keys, rank_of_level(1.0 - confidence, slice.len()));
        vars.push(v);
        ess.push(e);
    }
    let se = |xs: &[f64]| {
        let m = xs.iter().sum::<f64>() / xs.len() as f64;
        let var = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (xs.len() as f64 - 1.0);
        (var / xs.len() as f64).sqrt()
    };
    (se(&vars), se(&ess))
}

/// Equal-width bins from the worst to the best P&L; the last bin is closed.
fn histogram(pnl: &[f64], lo: f64, hi: f64, bins: usize) -> (Vec<f64>, Vec<f64>) {
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
    let mut counts = vec![0u32; bins];
    let scale = bins as f64 / width;
    for &x in pnl {
        let j = ((x - lo) * scale) as usize;
        counts[j.min(bins - 1)] += 1;
    }
    let counts = counts.into_iter().map(f64::from).collect();
    (edges, counts)
}
