//! Exact merge of task partials into the metrics. The answer depends only on the scenarios, never on
//! how they were split: partials are put back in scenario order and every tie is broken by index.

use super::bucket_select::{batches_with, select_all, select_by_buckets, Selected};
use super::figures::{
    batch_figures, finite, mean_asset_loss, rescaled, simulated_metrics, standard_error,
    var_es_of_sorted, AssetFigures, Batches, Moments,
};
pub use super::finalize_params::FinalizeParams;
use super::merged_tail::{merged_tail, Prefix};
use super::part_summary::{merged_parts, BookParts, PartSummary};
use super::partial_vectors;
use super::pnl_passes::{spread, summarize, BUCKETS_FROM};
use super::tail_lists::{kth_smallest, task_counts, worst_lists_cover, TailList};
use super::weighted;
use crate::error::{ensure, EngineError, Result};
use crate::grid_sum::column_sums;
use crate::kept_vectors;
use crate::metrics::{Metrics, Results, WhatIf, PERCENTILES, PERCENTILE_LEVELS};
use crate::select::{from_order_key, rank_of_level};
use crate::simulate::Partial;
use crate::spec::{reads_lane, var_window, Comparison};

pub fn finalize(params: &FinalizeParams, partials: &mut [Partial]) -> Result<Results> {
    finalize_split(params, partials, &mut [])
}

/// `finalize` given the summaries of finalize parts over the same partials (none: the single
/// merge): the same figures, bit for bit, with the selections and batch figures left to the parts.
/// The partials are consumed: sorted, and the first one's P&L taken out of it.
pub fn finalize_split(
    params: &FinalizeParams,
    partials: &mut [Partial],
    parts: &mut [PartSummary],
) -> Result<Results> {
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
    let split = if parts.is_empty() {
        Vec::new()
    } else {
        merged_parts(params, parts)?
    };
    if params.weighted {
        let (books, batches) = weighted::results(params, partials)?;
        return Ok(compared(params, books, &batches));
    }
    let k = rank_of_level(1.0 - params.confidence, next);
    // Each task's scenarios, read before any P&L is taken out of the partials.
    let counts = task_counts(partials, next);
    // Ranked lanes (kept scenarios' tails pooled once) give each asset's k-th itself.
    let ranked = partials.iter().any(|p| p.units.ranked > 0);
    ensure(
        partials
            .iter()
            .all(|p| p.units.ranked == 0 || p.units.ranked == k),
        "ranked tails must be of the calculation's rank k",
    )?;
    // Shared lanes: each asset's k-th smallest and k-th largest e^{R} − 1, once for all books. A
    // lane no book reads was left empty by the simulation (its words in the partial zeros): it
    // stands at 0, never read.
    let kth_of = |i: usize, largest: bool| -> Result<f64> {
        if !reads_lane(&params.books, i, largest) {
            return Ok(0.0);
        }
        let lists = partials.iter().zip(&counts).map(|(p, &count)| {
            let lane = if largest {
                &p.units.largest
            } else {
                &p.units.smallest
            };
            TailList::of(&lane[i], k, count, next)
        });
        let key = if ranked {
            the_only(lists.map(|l| l.keys))?
        } else {
            kth_smallest(lists, k)?
        };
        let u = from_order_key(key);
        Ok(if largest { -u } else { u })
    };
    let smallest = (0..if params.lanes >= 1 { n } else { 0 })
        .map(|i| kth_of(i, false))
        .collect::<Result<Vec<f64>>>()?;
    let largest = (0..if params.lanes == 2 { n } else { 0 })
        .map(|i| kth_of(i, true))
        .collect::<Result<Vec<f64>>>()?;
    let mut books = Vec::with_capacity(params.books.len());
    // Only a comparison needs the books' batch figures after their figures.
    let mut batches = Vec::new();
    // One key buffer for every book: a fresh one each time is mostly page faults. It grows only
    // where a selection runs in place (few scenarios); the bucket path leaves it unused.
    let mut keys: Vec<u64> = Vec::new();
    for (b, book) in params.books.iter().enumerate() {
        let pnl = partial_vectors::gathered(partials, b, next);
        let standalone_var = if params.lanes == 0 {
            (0..n)
                .map(|i| {
                    let lists = partials.iter().zip(&counts).map(|(p, &count)| {
                        TailList::of(&p.books[b].asset_tails[i], k, count, next)
                    });
                    kth_smallest(lists, k).map(|key| -from_order_key(key))
                })
                .collect::<Result<Vec<f64>>>()?
        } else {
            // Asset P&L e·u is monotone in u (rounding included): its k-th smallest is e times
            // u's k-th smallest for e ≥ +0 and e times u's k-th largest for e ≤ −0, exactly.
            (0..n)
                .map(|i| {
                    let u = if book.reads_largest(i) {
                        largest[i]
                    } else {
                        smallest[i]
                    };
                    -(book.exposure(i) * u)
                })
                .collect()
        };
        let (m, figures) = book_metrics(
            params,
            (partials, &counts),
            (b, split.get(b)),
            &pnl,
            standalone_var,
            &mut keys,
        )?;
        kept_vectors::give_back(pnl);
        books.push(finite(m)?);
        if params.comparison != Comparison::None {
            batches.push(figures);
        }
    }
    partial_vectors::give_back_rows(partials);
    Ok(compared(params, books, &batches))
}

/// The one key the partials' lists of a ranked tail hold between them.
fn the_only<'a>(lists: impl Iterator<Item = &'a [u64]>) -> Result<u64> {
    let mut keys = lists.flatten();
    match (keys.next(), keys.next()) {
        (Some(&key), None) => Ok(key),
        _ => Err(EngineError::invalid(
            "a ranked tail is one value over all partials",
        )),
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

/// One book's figures from its P&L (in scenario order) and its partials' tails (with each one's
/// scenarios, `task_counts`).
fn book_metrics(
    params: &FinalizeParams,
    (partials, counts): (&[Partial], &[usize]),
    (b, split): (usize, Option<&BookParts>),
    pnl: &[f64],
    standalone_var: Vec<f64>,
    keys: &mut Vec<u64>,
) -> Result<(Metrics, Batches)> {
    let n_scen = pnl.len();
    let k = rank_of_level(1.0 - params.confidence, n_scen);
    let worst_k = (k + var_window(k)).min(n_scen);
    let percentile_ranks = PERCENTILE_LEVELS.map(|level| rank_of_level(level, n_scen));
    let mut ranks: Vec<usize> = percentile_ranks
        .iter()
        .copied()
        .chain([k, worst_k])
        .collect();
    ranks.sort_unstable();
    ranks.dedup();
    // The single merge counts the keys per bucket in its first pass, over many scenarios.
    let first = summarize(pnl, split.is_none() && n_scen >= BUCKETS_FROM);
    let Selected { at, sorted, below } = match split {
        Some((counts, _)) => select_by_buckets(pnl, counts, &ranks, k, worst_k)?,
        None => select_all(pnl, &first.buckets, &ranks, k, worst_k, keys)?,
    };
    let key_of = |rank: usize| at[ranks.binary_search(&rank).unwrap_or(0)];
    let mut percentiles = [0.0; PERCENTILES];
    for (out, rank) in percentiles.iter_mut().zip(percentile_ranks) {
        *out = from_order_key(key_of(rank));
    }
    let end = Prefix {
        count: worst_k,
        key: key_of(worst_k),
        below,
    };
    let (var, es) = var_es_of_sorted(&sorted);
    let m = var_window(k);
    let start = k.saturating_sub(m + 1);
    let n = params.n_assets;
    worst_lists_cover((partials, counts), b, (worst_k, end.key), n_scen)?;
    let rows = merged_tail(
        partials,
        b,
        n,
        pnl,
        [
            Prefix::of_sorted(&sorted, start),
            Prefix::of_sorted(&sorted, k),
            end,
        ],
    )?;
    // Summed exactly: the same bits whatever order the rows come in.
    let component_es = column_sums(&rows.tail, n)
        .iter()
        .map(|s| -s / k as f64)
        .collect();
    let component_var = rescaled(mean_asset_loss(n, &rows.window), var, &params.books[b]);

    let (mean, volatility, bins) = spread(pnl, &first, params.histogram_bins);
    let batches = match split {
        Some((_, given)) => batches_with(pnl, params.confidence, given)?,
        None => batch_figures(pnl, params.confidence),
    };
    let moments = Moments {
        mean,
        volatility,
        probability_of_loss: first.losses as f64 / n_scen as f64,
        worst: first.worst,
        best: first.best,
    };
    let per_asset = AssetFigures {
        component_es,
        component_var,
        standalone_var,
    };
    let metrics = simulated_metrics(
        n_scen,
        (var, es),
        moments,
        &batches,
        percentiles,
        per_asset,
        bins,
    );
    Ok((metrics, batches))
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
