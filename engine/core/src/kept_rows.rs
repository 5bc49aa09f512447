//! A book's asset P&L in its worst scenarios, row by row, from a range's kept units (and, for a
//! live book, the unit rows its group sums memory kept from the last pricing).

use crate::group_sums::GroupSums;
use crate::kept_vectors;
use crate::spec::{BlockRange, Spec, BLOCK};

/// Book `b`'s asset P&L in the scenarios `indices` (global, ascending, inside `range`), row by row,
/// from the range's kept units: the products `Assets::Scaled` gives while pricing, bit for bit.
/// With the book's group sums memory, the unit rows of the last pricing's worst scenarios come from
/// there (`GroupSums::unit_rows`).
pub fn kept_rows(
    spec: &Spec,
    range: BlockRange,
    units: &[f64],
    b: usize,
    indices: &[u64],
    sums: Option<&mut GroupSums>,
) -> Vec<f64> {
    let book = &spec.books()[b];
    let n = spec.n_assets();
    let block_units = n * BLOCK;
    let block_of =
        |index: usize| &units[(index / BLOCK - range.first) * block_units..][..block_units];
    let unit_row = |index: usize, row: &mut Vec<f64>| {
        let (block, s) = (block_of(index), index % BLOCK);
        row.extend((0..n).map(|i| block[i * BLOCK + s]));
    };
    let mut rows = kept_vectors::take(indices.len() * n);
    match sums {
        Some(sums) if n > 0 => sums.unit_rows(b, indices, unit_row, &mut rows),
        _ => indices
            .iter()
            .for_each(|&i| unit_row(i as usize, &mut rows)),
    }
    // u·e_i is e_i·u, bit for bit (a product commutes).
    if n > 0 {
        for row in rows.chunks_exact_mut(n) {
            for (i, u) in row.iter_mut().enumerate() {
                *u *= book.exposure(i);
            }
        }
    }
    rows
}
