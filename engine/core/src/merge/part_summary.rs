//! A finalize split over the workers: each part summarizes a contiguous run of partials (its
//! scenarios) in figures that merge exactly, so the merge no longer selects over every scenario.
//! Per book a part gives how many of its P&L order keys fall in each of BUCKETS buckets (the keys'
//! top bits: integer counts, added in any order) and the batch VaR and ES of every standard-error
//! batch wholly inside it (the very computation the single merge runs on that batch). Weighted
//! (importance-sampled) calculations summarize nothing: their merge is the single one.

use super::figures::{batch_var_es, SE_BATCHES};
use super::finalize_params::FinalizeParams;
use crate::error::{ensure, Result};
use crate::select::{order_key, rank_of_level};
use crate::simulate::Partial;

/// Order keys are bucketed by their top BUCKET_BITS bits (sign, exponent and four mantissa bits).
pub const BUCKET_BITS: u32 = 16;
pub const BUCKETS: usize = 1 << BUCKET_BITS;

/// The bucket of an order key.
pub fn bucket(key: u64) -> usize {
    (key >> (64 - BUCKET_BITS)) as usize
}

/// One book's summary over a part's scenarios.
#[derive(Clone, Debug, PartialEq)]
pub struct BookSummary {
    /// Keys per bucket (BUCKETS entries).
    pub buckets: Vec<u64>,
    /// (standard-error batch, its VaR, its ES) of the batches wholly inside the part.
    pub batches: Vec<(usize, f64, f64)>,
}

/// A part's summary: its scenarios [first, end) and, unless weighted, one summary per book.
#[derive(Clone, Debug, PartialEq)]
pub struct PartSummary {
    pub first: usize,
    pub end: usize,
    pub books: Vec<BookSummary>,
}

/// The scenario bounds of the standard-error batches of `n` scenarios (none below two batches).
pub fn batch_bounds(n: usize) -> Vec<usize> {
    let batches = SE_BATCHES.min(n);
    if batches < 2 {
        return Vec::new();
    }
    (0..=batches).map(|b| b * n / batches).collect()
}

/// The summary of `partials` (decoded, of one calculation, in any order): they must follow each
/// other without gaps.
pub fn summarize_part(params: &FinalizeParams, partials: &mut [Partial]) -> Result<PartSummary> {
    params.validate()?;
    ensure(!partials.is_empty(), "at least one partial")?;
    partials.sort_by_key(|p| p.first);
    let first = partials[0].first;
    let mut end = first;
    for p in partials.iter() {
        ensure(
            p.first == end && p.books.len() == params.books.len(),
            "partials must tile the scenarios without gaps",
        )?;
        ensure(
            p.books.iter().all(|b| b.pnl.len() == p.count()),
            "partial books of one length",
        )?;
        end += p.count();
    }
    ensure(
        end <= params.scenarios && end > first,
        "partials must lie within the scenarios",
    )?;
    if params.weighted {
        return Ok(PartSummary {
            first,
            end,
            books: Vec::new(),
        });
    }
    let bounds = batch_bounds(params.scenarios);
    let books = (0..params.books.len())
        .map(|b| {
            let mut buckets = vec![0u64; BUCKETS];
            for p in partials.iter() {
                for &x in p.books[b].pnl.iter() {
                    buckets[bucket(order_key(x))] += 1;
                }
            }
            let mut batches = Vec::new();
            for (i, w) in bounds.windows(2).enumerate() {
                if w[0] >= first && w[1] <= end {
                    let (v, e) = batch_var_es(
                        &scenario_runs(partials, b, w[0], w[1]),
                        rank_of_level(1.0 - params.confidence, w[1] - w[0]),
                    );
                    batches.push((i, v, e));
                }
            }
            BookSummary { buckets, batches }
        })
        .collect();
    Ok(PartSummary { first, end, books })
}

/// Book `b`'s P&L over scenarios [from, to), as runs in scenario order, from contiguous `partials`.
fn scenario_runs<'p>(
    partials: &'p [Partial<'_>],
    b: usize,
    from: usize,
    to: usize,
) -> Vec<&'p [f64]> {
    partials
        .iter()
        .map(|p| {
            let pnl = &p.books[b].pnl;
            let lo = from.clamp(p.first, p.first + pnl.len()) - p.first;
            let hi = to.clamp(p.first, p.first + pnl.len()) - p.first;
            &pnl[lo..hi]
        })
        .filter(|run| !run.is_empty())
        .collect()
}

/// What the merge takes of the parts, per book: the keys per bucket over every scenario, and the
/// batch (VaR, ES) each part gave (None where a batch straddles parts: the merge computes it).
pub(crate) type BookParts = (Vec<u64>, Vec<Option<(f64, f64)>>);

/// The parts' summaries merged per book, checked to tile the scenarios, each part's counts to add
/// up to its scenarios and each batch to lie wholly inside its part. Weighted: nothing per book.
pub(crate) fn merged_parts(
    params: &FinalizeParams,
    parts: &mut [PartSummary],
) -> Result<Vec<BookParts>> {
    parts.sort_by_key(|p| p.first);
    let mut next = 0;
    for p in parts.iter() {
        ensure(
            p.first == next && p.end > p.first,
            "finalize parts must tile the scenarios without gaps",
        )?;
        next = p.end;
    }
    ensure(
        next == params.scenarios,
        "finalize parts must cover every scenario",
    )?;
    if params.weighted {
        ensure(
            parts.iter().all(|p| p.books.is_empty()),
            "weighted finalize parts summarize nothing",
        )?;
        return Ok(Vec::new());
    }
    let bounds = batch_bounds(params.scenarios);
    let batches = bounds.len().saturating_sub(1);
    let mut out: Vec<BookParts> = (0..params.books.len())
        .map(|_| (vec![0u64; BUCKETS], vec![None; batches]))
        .collect();
    for p in parts.iter() {
        ensure(
            p.books.len() == params.books.len(),
            "finalize part books do not match",
        )?;
        for ((counts, given), book) in out.iter_mut().zip(&p.books) {
            ensure(
                book.buckets.len() == BUCKETS,
                "finalize part buckets do not match",
            )?;
            let mut held = 0u64;
            for (c, &x) in counts.iter_mut().zip(&book.buckets) {
                held = held.saturating_add(x);
                *c = c.saturating_add(x);
            }
            ensure(
                held == (p.end - p.first) as u64,
                "finalize part counts do not match its scenarios",
            )?;
            for &(i, var, es) in &book.batches {
                ensure(
                    i < batches
                        && bounds[i] >= p.first
                        && bounds[i + 1] <= p.end
                        && given[i].is_none(),
                    "finalize part batches do not match",
                )?;
                given[i] = Some((var, es));
            }
        }
    }
    Ok(out)
}
