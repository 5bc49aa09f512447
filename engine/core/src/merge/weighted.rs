//! Figures of likelihood-ratio-weighted scenarios (importance sampling). With weights w_s over N
//! scenarios the model's distribution function is F(x) = Σ_{x_s ≤ x} w_s / N; at level α = 1 − c
//! the tail is the worst scenarios whose weights fill α·N, the last one counted with the part of
//! its weight that fills it: VaR = −x_J, ES = −(Σ_{s before J} w_s·x_s + f·x_J) / (α·N). Scenarios
//! are ordered by (P&L, index); every sum runs in an order fixed by the scenarios alone (the tail
//! order, or scenario order where one pass over the rows is cheaper), so builds agree bit for bit
//! and no split of the work changes a bit.

use super::figures::{
    between, bin_edges, finite, rescaled, simulated_metrics, AssetFigures, Batches, Moments,
    SE_BATCHES,
};
use super::finalize_params::FinalizeParams;
use super::partial_vectors;
use crate::error::Result;
use crate::kept_vectors;
use crate::limits::MAX_SCENARIOS;
use crate::metrics::{compensated_sum, CompensatedSum, Metrics, PERCENTILES, PERCENTILE_LEVELS};
use crate::select::{ascending_order, level_mass};
use crate::simulate::Partial;
use crate::spec::Comparison;
use crate::spec::{var_window, Book};

/// The position J in `order` where the weights first fill `mass`, and the part f of w_J that
/// fills it; where all the weights fall short, the last scenario carries the rest.
pub(crate) fn cut(order: &[usize], weights: &[f64], mass: f64) -> (usize, f64) {
    let mut filled = 0.0;
    for (p, &s) in order.iter().enumerate() {
        if filled + weights[s] >= mass || p + 1 == order.len() {
            return (p, mass - filled);
        }
        filled += weights[s];
    }
    (0, mass)
}

/// VaR and ES of `values` (any order) at tail mass `mass`, given their ascending `order`, ES kept
/// between VaR and the worst loss.
fn var_es(values: &[f64], weights: &[f64], order: &[usize], mass: f64) -> (f64, f64, usize, f64) {
    let (j, part) = cut(order, weights, mass);
    let mut sum = 0.0;
    for &s in &order[..j] {
        sum += weights[s] * values[s];
    }
    sum += part * values[order[j]];
    // The tail's weights fill `mass` exactly: ES is a weighted mean of the tail's losses.
    let var = -values[order[j]];
    let es = between(-sum / mass, var, -values[order[0]]);
    (var, es, j, part)
}

/// VaR and ES of each of SE_BATCHES contiguous batches (none below two). A batch's ascending order
/// is the whole sample's (`order`) restricted to it: one pass hands each scenario to its batch.
pub fn batch_figures(pnl: &[f64], weights: &[f64], order: &[usize], alpha: f64) -> Batches {
    let batches = SE_BATCHES.min(pnl.len());
    if batches < 2 {
        return (Vec::new(), Vec::new());
    }
    let bounds: Vec<usize> = (0..=batches).map(|b| b * pnl.len() / batches).collect();
    let batch_of = |s: usize| bounds.partition_point(|&start| start <= s) - 1;
    let mut orders: Vec<Vec<usize>> = (0..batches)
        .map(|b| Vec::with_capacity(bounds[b + 1] - bounds[b]))
        .collect();
    for &s in order {
        orders[batch_of(s)].push(s);
    }
    let (mut vars, mut ess) = (Vec::new(), Vec::new());
    for (b, batch_order) in orders.iter().enumerate() {
        let mass = level_mass(alpha, bounds[b + 1] - bounds[b]);
        let (var, es, _, _) = var_es(pnl, weights, batch_order, mass);
        vars.push(var);
        ess.push(es);
    }
    (vars, ess)
}

/// One book's figures from its P&L and every scenario's asset P&L ([scenario][asset]) and weight.
/// The batch figures for the standard errors come back beside them.
pub fn book_metrics(
    confidence: f64,
    histogram_bins: usize,
    book: &Book,
    pnl: &[f64],
    assets: &[f64],
    weights: &[f64],
) -> (Metrics, Batches) {
    let n_scen = pnl.len();
    let n = book.weights.len();
    let alpha = 1.0 - confidence;
    let mass = level_mass(alpha, n_scen);
    let order = ascending_order(pnl.iter().copied());
    let (var, es, j, part) = var_es(pnl, weights, &order, mass);

    // Euler components: the same weighted tail mean of each asset's P&L, summed in scenario order
    // (one pass over the rows; the rounding differs from ES's sum in tail order, the total not).
    let mut share = vec![0.0; n_scen];
    for &s in &order[..j] {
        share[s] = weights[s];
    }
    share[order[j]] = part;
    let mut component_es = vec![0.0; n];
    for (w, row) in share.iter().zip(assets.chunks_exact(n.max(1))) {
        if *w != 0.0 {
            for (c, a) in component_es.iter_mut().zip(row) {
                *c += w * a;
            }
        }
    }
    component_es.iter_mut().for_each(|c| *c = -*c / mass);

    // Component VaR: the weighted mean asset losses of the scenarios ranked J − m ..= J + m.
    let m = var_window(j + 1);
    let window = &order[j.saturating_sub(m)..(j + m + 1).min(n_scen)];
    let mut raw = vec![0.0; n];
    let mut window_weight = 0.0;
    for &s in window {
        window_weight += weights[s];
        for (r, a) in raw.iter_mut().zip(&assets[s * n..(s + 1) * n]) {
            *r += weights[s] * a;
        }
    }
    let raw: Vec<f64> = if window_weight > 0.0 {
        raw.iter().map(|r| -r / window_weight).collect()
    } else {
        vec![0.0; n]
    };
    let component_var = rescaled(raw, var, book);

    let standalone_var = crate::quantiles::standalone_quantiles(assets, n, weights, mass);

    let mut percentiles = [0.0; PERCENTILES];
    for (out, level) in percentiles.iter_mut().zip(PERCENTILE_LEVELS) {
        let (p, _) = cut(&order, weights, level_mass(level, n_scen));
        *out = pnl[order[p]];
    }
    let (worst, best) = (pnl[order[0]], pnl[order[n_scen - 1]]);
    let mut sum = CompensatedSum::default();
    let mut loss = CompensatedSum::default();
    for (x, w) in pnl.iter().zip(weights) {
        sum.add(w * x);
        if *x < 0.0 {
            loss.add(*w);
        }
    }
    let mean = sum.total() / n_scen as f64;
    let volatility = if n_scen > 1 {
        let squares = pnl
            .iter()
            .zip(weights)
            .map(|(x, w)| w * (x - mean) * (x - mean));
        (compensated_sum(squares) / (n_scen as f64 - 1.0)).sqrt()
    } else {
        0.0
    };
    let batches = batch_figures(pnl, weights, &order, alpha);
    let moments = Moments {
        mean,
        volatility,
        probability_of_loss: loss.total() / n_scen as f64,
        worst,
        best,
    };
    let per_asset = AssetFigures {
        component_es,
        component_var,
        standalone_var,
    };
    let bins = histogram(pnl, weights, worst, best, histogram_bins);
    let metrics = simulated_metrics(
        n_scen,
        (var, es),
        moments,
        &batches,
        percentiles,
        per_asset,
        bins,
    );
    (metrics, batches)
}

/// Equal-width bins from the worst to the best P&L holding the weights of their scenarios: the
/// number of the N scenarios each bin expects under the model.
fn histogram(pnl: &[f64], weights: &[f64], lo: f64, hi: f64, bins: usize) -> (Vec<f64>, Vec<f64>) {
    let (edges, index) = bin_edges(lo, hi, bins);
    let mut counts = vec![0.0; bins];
    for (x, w) in pnl.iter().zip(weights) {
        counts[index(*x)] += w;
    }
    (edges, counts)
}

/// Weighted scenarios (importance sampling): every scenario's P&L, asset P&L and weight, put back
/// in scenario order, and each book's figures with its batch figures (where a comparison needs
/// them).
pub fn results(
    params: &FinalizeParams,
    partials: &mut [Partial],
) -> Result<(Vec<Metrics>, Vec<Batches>)> {
    // The ascending order indexes scenarios as u32 (decoded partials could claim more).
    crate::error::ensure(
        params.scenarios <= MAX_SCENARIOS,
        "weighted scenarios must be at most MAX_SCENARIOS",
    )?;
    let weights = gather(partials, |p| &mut p.weights);
    let mut books = Vec::with_capacity(params.books.len());
    let mut batches = Vec::new();
    for (b, book) in params.books.iter().enumerate() {
        let pnl = partial_vectors::gathered(partials, b, params.scenarios);
        let assets = gather(partials, |p| &mut p.books[b].worst.asset_pnl);
        let (m, figures) = book_metrics(
            params.confidence,
            params.histogram_bins,
            book,
            &pnl,
            &assets,
            &weights,
        );
        kept_vectors::give_back(pnl);
        books.push(finite(m)?);
        if params.comparison != Comparison::None {
            batches.push(figures);
        }
    }
    Ok((books, batches))
}

/// One vector of every partial's `part`, in their (scenario) order; one partial's is taken as is.
fn gather<'a>(
    partials: &mut [Partial<'a>],
    part: impl for<'p> Fn(&'p mut Partial<'a>) -> &'p mut Vec<f64>,
) -> Vec<f64> {
    if partials.len() == 1 {
        return std::mem::take(part(&mut partials[0]));
    }
    let mut all = Vec::new();
    for p in partials.iter_mut() {
        // Each partial's copy is freed as it is gathered: finalize holds the data once more at most.
        all.extend_from_slice(&std::mem::take(part(p)));
    }
    all
}
