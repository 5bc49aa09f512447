//! One task: simulate a range of blocks and keep what the exact merge needs — per book every
//! portfolio P&L and its worst scenarios with their per-asset P&L; per asset its k worst values
//! (once for all books where they share the asset returns, else per book).

use crate::block_tails::{push_unit_tails, record};
use crate::deadline::Deadline;
use crate::error::{EngineError, Result};
use crate::group_sums::GroupSums;
use crate::kept_rows::kept_rows;
use crate::kept_vectors;
use crate::kernels::{group_size, price_block_from, scaled_factor, Assets, Priced, Workspace};
use crate::options::option_blocks::OptionBlocks;
use crate::options::revalue::option_overflow;
use crate::partial::give_back_books;
pub use crate::partial::{BookPartial, Partial};
use crate::scenario_tail::ScenarioTail;
use crate::spec::{BlockRange, Spec, TaskTails, BLOCK};
use crate::tail::ValueTail;
use crate::unit_tails::lanes_filled;
pub use crate::unit_tails::UnitTails;
use crate::widened_block::WidenedBlock;
use std::borrow::Cow;

/// Simulates the blocks of `range`; stops with DeadlineExceeded once `deadline` has passed. The
/// spec is valid by construction; only the range, which belongs to no spec, is checked here.
pub fn simulate(spec: &Spec, range: BlockRange, deadline: &Deadline) -> Result<Partial<'static>> {
    simulate_from(spec, range, deadline, None, None, None, TaskTails::Full)
}

/// `simulate` keeping each tail to the task's own share (`Spec::task_tail`; the worst lists full
/// beside a book of no exposure, `Spec::task_worst_tail`): the merge gives the same figures, or
/// `TailsShort` when it cannot prove a kept tail long enough.
pub fn simulate_own_tails(
    spec: &Spec,
    range: BlockRange,
    deadline: &Deadline,
) -> Result<Partial<'static>> {
    simulate_from(spec, range, deadline, None, None, None, TaskTails::OwnShare)
}

/// Values one block's units take: every asset's BLOCK scenarios.
pub(crate) fn block_units(spec: &Spec) -> usize {
    spec.n_assets() * BLOCK
}

pub(crate) fn in_block(spec: &Spec, block: usize) -> usize {
    BLOCK.min(spec.scenarios() - block * BLOCK)
}

pub(crate) fn simulate_from(
    spec: &Spec,
    range: BlockRange,
    deadline: &Deadline,
    kept: Option<(&[f64], UnitTails)>,
    widen: Option<OptionBlocks>,
    sums: Option<&mut [f64]>,
    tails: TaskTails,
) -> Result<Partial<'static>> {
    range.validate(spec)?;
    let mut sums = sums.and_then(|memory| GroupSums::open(memory, spec, range));
    let n = spec.n_assets();
    // Kept units outlive the loop: the worst scenarios' asset P&L is read from them once at the
    // end, not gathered (n strided values) at every admission and moved at every cut. Option
    // columns priced block by block do not outlive it: their rows are gathered.
    let rows_at_end = kept.is_some() && widen.is_none();
    let row_assets = if rows_at_end { 0 } else { n };
    let (start, end) = range.scenarios(spec);
    let count = end - start;
    // Kept scenarios' tails are pooled over the whole calculation (`simulate_kept`): full.
    let tails = if kept.is_some() || widen.is_some() {
        TaskTails::Full
    } else {
        tails
    };
    let k = spec.task_tail(spec.tail_count(), count, tails);
    let worst_k = spec.task_worst_tail(count, tails);
    let shared = spec.shares_asset_tails();
    let per_book_tails = if shared { 0 } else { n };
    let mut books: Vec<BookPartial> = spec
        .books()
        .iter()
        .map(|_| BookPartial {
            pnl: Cow::Owned(kept_vectors::take(count)),
            worst: if spec.importance_sampling() {
                ScenarioTail::every(count, n)
            } else {
                let mut tail = ScenarioTail::new(worst_k, row_assets);
                tail.reserve_for(count);
                tail
            },
            asset_tails: Vec::new(),
        })
        .collect();
    let mut book_tails: Vec<Vec<ValueTail>> = books
        .iter()
        .map(|_| {
            (0..per_book_tails)
                .map(|_| ValueTail::new(k, count))
                .collect()
        })
        .collect();
    // Kept tails need no pushes: only the assets after those they cover.
    let covered = kept.as_ref().map_or(0, |(_, tails)| tails.smallest.len());
    let mut widened = widen.map(|w| WidenedBlock::new(w, spec.books().len()));
    // A column copying a unit keeps nothing (pushes return at once): `copy_unit_lanes` fills it.
    // Nor does a lane no book reads, unless a column copying it reads it (`lanes_filled`).
    let copies: Vec<(usize, usize)> = widened.iter().flat_map(WidenedBlock::copies).collect();
    let lanes = |on: bool, largest: bool| -> Vec<ValueTail> {
        if !on {
            return Vec::new();
        }
        let filled = lanes_filled(spec.books(), n, largest, &copies);
        (covered..n)
            .map(|c| ValueTail::new(if filled[c] { k } else { 0 }, count))
            .collect()
    };
    let mut smallest = lanes(shared, false);
    let mut largest = lanes(shared && spec.needs_largest(), true);
    if let (Some(w), Some((_, tails))) = (&widened, &kept) {
        w.seed_lanes(tails, (k, count), covered, &mut smallest, &mut largest);
    }
    let mut ws = Workspace::new(n, group_size(n));
    let factor_t = scaled_factor(spec);
    let mut weights = Vec::with_capacity(if spec.importance_sampling() { count } else { 0 });

    for block in range.first..range.end {
        if deadline.passed() {
            return Err(EngineError::DeadlineExceeded);
        }
        let block_start = block * BLOCK;
        let in_block = in_block(spec, block);
        let mut outcome = Ok(());
        let per_block = widened
            .as_ref()
            .map_or(block_units(spec), WidenedBlock::kept_width);
        let units = kept
            .as_ref()
            .map(|(u, _)| &u[(block - range.first) * per_block..][..per_block]);
        if let (Some(plain), Some(w)) = (units, widened.as_mut()) {
            let (s, l) = (&mut smallest, &mut largest);
            if !w.price(spec.books(), plain, in_block, covered, s, l) {
                return Err(option_overflow());
            }
            for (b, book) in spec.books().iter().enumerate() {
                let assets = Assets::Scaled {
                    units: &w.units,
                    book,
                };
                let p = (&mut books[b], &mut book_tails[b]);
                outcome = outcome.and_then(|()| {
                    record(
                        p.0,
                        p.1,
                        block_start,
                        in_block,
                        row_assets,
                        assets,
                        w.pnl(b),
                    )
                });
            }
            outcome?;
            continue;
        }
        price_block_from(
            spec,
            &factor_t,
            &mut ws,
            block,
            units,
            sums.as_mut(),
            &mut |priced| match priced {
                Priced::Units(units) => {
                    push_unit_tails(&mut smallest, &mut largest, units, in_block, covered);
                }
                Priced::Book { book, assets, pnl } => {
                    if outcome.is_ok() {
                        outcome = record(
                            &mut books[book],
                            &mut book_tails[book],
                            block_start,
                            in_block,
                            row_assets,
                            assets,
                            pnl,
                        );
                    }
                }
            },
        );
        outcome?;
        if spec.importance_sampling() {
            weights.extend_from_slice(&ws.weight[..in_block]);
        }
    }
    // A seed that misjudged left its lane short: the range again, unseeded (option columns come
    // without group sums).
    if smallest.iter().chain(&largest).any(ValueTail::short) {
        // The first pass's vectors go back (or go) before the second takes its own.
        give_back_books(books);
        drop((book_tails, smallest, largest, ws, weights));
        let widen = widened.map(|w| w.into_blocks().unseeded());
        return simulate_from(spec, range, deadline, kept, widen, None, TaskTails::Full);
    }
    for (b, (book, tails)) in books.iter_mut().zip(book_tails).enumerate() {
        book.worst = std::mem::replace(&mut book.worst, ScenarioTail::new(0, 0)).finish();
        book.asset_tails = tails.into_iter().map(ValueTail::finish).collect();
        if let (Some((units, _)), true) = (&kept, rows_at_end) {
            book.worst.asset_pnl =
                kept_rows(spec, range, units, b, &book.worst.indices, sums.as_mut());
        }
    }
    // Clean once the worst rows are kept too: a pricing cut short before leaves the memory dirty.
    if let Some(sums) = sums {
        sums.close(spec, range);
    }
    // The kept tails first, then those computed here, in asset order.
    let joined = |cached: Vec<Vec<u64>>, computed: Vec<ValueTail>| -> Vec<Vec<u64>> {
        let mut lane = cached;
        lane.extend(computed.into_iter().map(ValueTail::finish));
        lane
    };
    let mut units = match kept {
        Some((_, tails)) => UnitTails {
            smallest: joined(tails.smallest, smallest),
            largest: if spec.needs_largest() {
                joined(tails.largest, largest)
            } else {
                Vec::new()
            },
            ranked: tails.ranked,
        },
        None => UnitTails {
            smallest: smallest.into_iter().map(ValueTail::finish).collect(),
            largest: largest.into_iter().map(ValueTail::finish).collect(),
            ranked: 0,
        },
    };
    if let Some(w) = &widened {
        w.copy_unit_lanes(&mut units);
    }
    units.keep_read(spec.books());
    Ok(Partial {
        first: start,
        books,
        units,
        weights,
    })
}
