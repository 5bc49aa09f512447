//! One block's scenarios into a task's tails: each book's P&L and worst scenarios, and each
//! asset's extreme units.

use crate::error::{EngineError, Result};
use crate::kernels::Assets;
use crate::partial::BookPartial;
use crate::spec::BLOCK;
use crate::tail::ValueTail;

/// Every scenario of one block for one book into its partial.
pub(crate) fn record(
    book: &mut BookPartial,
    tails: &mut [ValueTail],
    block_start: usize,
    count: usize,
    n: usize,
    assets: Assets,
    pnl: &[f64],
) -> Result<()> {
    let own = book.pnl.to_mut();
    for (s, &x) in pnl[..count].iter().enumerate() {
        // Extreme leverage or horizons can leave double precision; say so rather than rank NaN.
        if !x.is_finite() {
            return Err(EngineError::Overflow(
                "a scenario's P&L overflows double precision (exposure, leverage or horizon too large)"
                    .into(),
            ));
        }
        own.push(x);
        if book.worst.admits(x) {
            let values = (0..n).map(|i| assets.at(i, s));
            book.worst.push(x, (block_start + s) as u64, values);
        }
    }
    // Per-book asset tails are kept where asset P&L is stored (rebalanced); else they are shared.
    if let Assets::Values(values) = assets {
        for (i, tail) in tails.iter_mut().enumerate() {
            tail.push_all(&values[i * BLOCK..i * BLOCK + count]);
        }
    }
    Ok(())
}

/// Pushes the block's units of assets `first..` into their lanes (`smallest[j]` is asset first + j).
pub(crate) fn push_unit_tails(
    smallest: &mut [ValueTail],
    largest: &mut [ValueTail],
    units: &[f64],
    in_block: usize,
    first: usize,
) {
    for (j, tail) in smallest.iter_mut().enumerate() {
        let i = first + j;
        tail.push_all(&units[i * BLOCK..i * BLOCK + in_block]);
    }
    for (j, tail) in largest.iter_mut().enumerate() {
        let i = first + j;
        tail.push_all_negated(&units[i * BLOCK..i * BLOCK + in_block]);
    }
}
