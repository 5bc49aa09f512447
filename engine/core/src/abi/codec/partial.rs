//! A task's partial: `OP_SIMULATE`'s result and, several of them, `OP_FINALIZE`'s input.

use super::fields::{comparison, comparison_code, read_books, write_books};
use crate::abi::constants::PARTIAL_HEADER_LEN;
use crate::abi::reader::{product, Reader};
use crate::error::{ensure, EngineError, Result};
use crate::finite::all_finite;
use crate::kept_vectors;
use crate::limits::check_assets;
use crate::merge::finalize_params::FinalizeParams;
use crate::scenario_tail::ScenarioTail;
use crate::select::{from_order_key, order_key};
use crate::simulate::{BookPartial, Partial, UnitTails};
use crate::spec::Spec;
use std::borrow::Cow;

/// Partial layout: [0, N, n, c, books, bins, comparison, lanes, first, count, worst count w, tail
/// count k (w and k as the task kept them: min(k, count), or its own share of them under
/// OP_SIMULATE_OWN_TAILS, which the merge recognises by that length), weighted, ranked (then k is the rank of the one value each lane holds: its asset's
/// k-th of the whole calculation)], per book (capital, weights(n)), with weights their likelihood ratios(count), per lane and asset its k tail values (lane 2 holds
/// −(e^R − 1)), then per book: pnl(count), worst index(w), worst P&L(w), worst per-asset P&L(w·n),
/// and with no lanes its asset tails(n·k).
pub fn encode_partial(spec: &Spec, p: &Partial) -> Vec<f64> {
    let h = FinalizeParams::of(spec);
    let n = h.n_assets;
    let count = p.count();
    let worst = p.books[0].worst.indices.len();
    // Lanes no book reads hold nothing (`reads_lane`): every other lane holds as many values.
    let shared = p.units.smallest.iter().chain(&p.units.largest);
    let held = match (shared.map(Vec::len).max(), p.books[0].asset_tails.first()) {
        (Some(most), _) => most,
        (None, Some(lane)) => lane.len(),
        (None, None) => 0,
    };
    let k = p.units.count_word(held);
    let header: [f64; PARTIAL_HEADER_LEN] = [
        0.0,
        h.scenarios as f64,
        n as f64,
        h.confidence,
        h.books.len() as f64,
        h.histogram_bins as f64,
        comparison_code(h.comparison) as f64,
        h.lanes as f64,
        p.first as f64,
        count as f64,
        worst as f64,
        k as f64,
        f64::from(u8::from(h.weighted)),
        f64::from(u8::from(p.units.ranked > 0)),
    ];
    // Sized once: growing by doubling copied a live tick's megabytes of partial several times over.
    let lanes = p.units.smallest.len() + p.units.largest.len();
    let per_book = count + worst * (2 + n) + p.books[0].asset_tails.len() * held;
    let mut out = kept_vectors::take(
        PARTIAL_HEADER_LEN + h.books.len() * (1 + n + per_book) + p.weights.len() + lanes * held,
    );
    out.extend_from_slice(&header);
    write_books(&mut out, &h.books);
    out.extend_from_slice(&p.weights);
    for tail in p.units.smallest.iter().chain(&p.units.largest) {
        out.extend(tail.iter().map(|&key| from_order_key(key)));
        // An unread lane's place, in a layout of equal lanes: zeros the merge never reads.
        out.resize(out.len() + held - tail.len(), 0.0);
    }
    for b in &p.books {
        out.extend_from_slice(&b.pnl);
        out.extend(b.worst.indices.iter().map(|&i| i as f64));
        out.extend(b.worst.keys.iter().map(|&key| from_order_key(key)));
        out.extend_from_slice(&b.worst.asset_pnl);
        for tail in &b.asset_tails {
            out.extend(tail.iter().map(|&key| from_order_key(key)));
        }
    }
    out
}

/// `assets` tails of `k` values each, as order keys.
fn read_tails(r: &mut Reader, assets: usize, k: usize) -> Result<Vec<Vec<u64>>> {
    (0..assets)
        .map(|_| Ok(r.take(k)?.iter().map(|&x| order_key(x)).collect()))
        .collect()
}

/// One partial of `OP_FINALIZE`'s input: the calculation's parameters (its header, the same in
/// every partial of one calculation) and the task's results.
pub fn decode_partial<'a>(r: &mut Reader<'a>) -> Result<(FinalizeParams, Partial<'a>)> {
    let start = r.position();
    ensure(r.scalar()? == 0.0, "partial must be a success result")?;
    let scenarios = r.count()?;
    let n = r.count()?;
    // Bounded like every other decoder: with k = 0 nothing below would limit n (found by fuzzing).
    check_assets(n)?;
    let confidence = r.scalar()?;
    let book_count = r.count()?;
    let histogram_bins = r.count()?;
    let comparison = comparison(r.count()?)?;
    let lanes = r.count()?;
    ensure(lanes <= 2, "at most two per-asset tail lanes")?;
    let first = r.count()?;
    let count = r.count()?;
    let worst_count = r.count()?;
    let k = r.count()?;
    let weighted = r.flag()?;
    let ranked = r.flag()?;
    debug_assert_eq!(r.position() - start, PARTIAL_HEADER_LEN);
    ensure(
        !ranked || (k >= 1 && lanes >= 1),
        "ranked tails are of a rank, in shared lanes",
    )?;
    let held = if ranked { 1 } else { k };
    ensure(
        worst_count <= count && k <= count,
        "tail larger than the partial",
    )?;
    let end = first
        .checked_add(count)
        .ok_or_else(|| EngineError::invalid("partial beyond the count range"))?;
    let books = read_books(r, book_count, n)?;
    let weights = r.take(if weighted { count } else { 0 })?.to_vec();
    ensure(
        weights.iter().all(|w| w.is_finite() && *w >= 0.0),
        "likelihood ratios must be finite, ≥ 0",
    )?;
    let units = UnitTails {
        smallest: read_tails(r, if lanes >= 1 { n } else { 0 }, held)?,
        largest: read_tails(r, if lanes == 2 { n } else { 0 }, held)?,
        ranked: if ranked { k } else { 0 },
    };
    let mut partials = Vec::with_capacity(book_count);
    for _ in 0..book_count {
        // Read in place: the merge copies it once, into the book's P&L in scenario order.
        let pnl = Cow::Borrowed(r.take(count)?);
        ensure(all_finite(&pnl), "partial P&L must be finite")?;
        let mut worst = ScenarioTail::new(worst_count, n);
        worst.indices = (0..worst_count)
            .map(|_| r.integer())
            .collect::<Result<Vec<u64>>>()?;
        worst.keys = r.take(worst_count)?.iter().map(|&x| order_key(x)).collect();
        // Copied into a vector the thread keeps (a fresh one is mostly page faults); the merge
        // gives it back.
        let rows = r.take(product(worst_count, n)?)?;
        worst.asset_pnl = kept_vectors::take(rows.len());
        worst.asset_pnl.extend_from_slice(rows);
        ensure(
            all_finite(&worst.asset_pnl),
            "partial asset P&L must be finite",
        )?;
        ensure(
            worst.indices.windows(2).all(|w| w[0] < w[1])
                && worst
                    .indices
                    .iter()
                    .all(|&i| (first as u64..end as u64).contains(&i)),
            "tail indices must be increasing and inside the partial",
        )?;
        let asset_tails = read_tails(r, if lanes == 0 { n } else { 0 }, k)?;
        partials.push(BookPartial {
            pnl,
            worst,
            asset_tails,
        });
    }
    Ok((
        FinalizeParams {
            scenarios,
            n_assets: n,
            confidence,
            histogram_bins,
            comparison,
            lanes,
            books,
            weighted,
        },
        Partial {
            first,
            books: partials,
            units,
            weights,
        },
    ))
}
