//! The correlation step r_i = base_i + Σ_j F_ij z_j for every asset of a block: the engine's
//! inner loop (n·m or n²/2 multiply-adds per scenario). `correlate` is the plain row kernel;
//! `correlate_rows` tiles TILE_ASSETS assets × TILE_SIMS simulations so that one load of z serves
//! several assets and the partial sums stay in registers. Every sum still runs over j in
//! increasing order from `base`, exactly as `correlate` does it, so the bits are the same.

use crate::spec::{Spec, BLOCK, FACTOR_TRIANGULAR};

/// Assets per tile: each z load feeds this many multiply-adds. Tiling never changes a result, so
/// each target takes what measured fastest on it (native 4; WASM, whose engines keep more
/// partial sums live, 8).
#[cfg(not(target_arch = "wasm32"))]
const TILE_ASSETS: usize = 4;
#[cfg(target_arch = "wasm32")]
const TILE_ASSETS: usize = 8;
/// Simulations per tile: TILE_ASSETS × TILE_SIMS partial sums fit the vector registers of every
/// build (16 × 128-bit on WASM simd128). 16 measured slower on AVX-512, as did 8 × 8 there.
const TILE_SIMS: usize = 8;
/// Rows of z per pass (ROWS_PER_PASS × BLOCK × 8 bytes, 256 KiB, stay in cache while every asset
/// tile reads them); the partial sums go back to `out` between passes, which keeps their bits.
const ROWS_PER_PASS: usize = 128;

/// out[s] = base + Σ_j l[j] · z[j][s] over the row's nonzero part, summed in increasing j.
#[inline(always)]
pub fn correlate(out: &mut [f64], base: f64, l_row: &[f64], z: &[f64]) {
    out.iter_mut().for_each(|x| *x = base);
    for (l, zj) in l_row.iter().zip(z.chunks_exact(BLOCK)) {
        for (x, zv) in out.iter_mut().zip(zj) {
            *x += l * zv;
        }
    }
}

/// out[i][s] = base(i) + Σ_j F_ij z[j][s] for every asset i (`factor` as `spec.factor_row` reads
/// it: the factor or the factor scaled by √T), [asset][simulation] like z.
pub fn correlate_rows(
    spec: &Spec,
    factor: &[f64],
    base: impl Fn(usize) -> f64,
    z: &[f64],
    out: &mut [f64],
) {
    correlate_factor(spec.n_assets(), spec.factor_columns(), factor, base, z, out);
}

/// Row i of an n-asset factor with `columns` columns (FACTOR_TRIANGULAR: its nonzero part).
fn factor_row(factor: &[f64], n: usize, columns: usize, i: usize) -> &[f64] {
    match columns {
        FACTOR_TRIANGULAR => &factor[i * n..=i * n + i],
        m => &factor[i * m..(i + 1) * m],
    }
}

/// `correlate_rows` on a bare factor: n assets, `columns` as `Spec::factor_row` reads them.
pub fn correlate_factor(
    n: usize,
    columns: usize,
    factor: &[f64],
    base: impl Fn(usize) -> f64,
    z: &[f64],
    out: &mut [f64],
) {
    correlate_tiles::<TILE_ASSETS, TILE_SIMS>(n, columns, factor, base, z, out);
}

/// `correlate_factor` with tiles of A assets × S simulations: any tile gives the same bits.
fn correlate_tiles<const A: usize, const S: usize>(
    n: usize,
    columns: usize,
    factor: &[f64],
    base: impl Fn(usize) -> f64,
    z: &[f64],
    out: &mut [f64],
) {
    let tiled = n - n % A;
    for (i, row) in out[..tiled * BLOCK].chunks_exact_mut(BLOCK).enumerate() {
        row.iter_mut().for_each(|x| *x = base(i));
    }
    let width = (0..tiled).map(|i| factor_row(factor, n, columns, i).len());
    let width = width.max().unwrap_or(0);
    // The pass's rows of z by simulation tile, [s / S][j][S]: a tile then reads its z front to
    // back. Read in place, rows 2 KiB apart share two of L1's sets, and every load of z missed.
    let mut z_pass = vec![0.0; ROWS_PER_PASS.min(width) * BLOCK];
    for pass in (0..width).step_by(ROWS_PER_PASS) {
        let pass = pass..(pass + ROWS_PER_PASS).min(width);
        let z_pass = &mut z_pass[..pass.len() * BLOCK];
        let rows_of_z = z[pass.start * BLOCK..pass.end * BLOCK].chunks_exact(BLOCK);
        for (j, z_row) in rows_of_z.enumerate() {
            for (tile, values) in z_row.chunks_exact(S).enumerate() {
                z_pass[(tile * pass.len() + j) * S..][..S].copy_from_slice(values);
            }
        }
        for first in (0..tiled).step_by(A) {
            let rows: [&[f64]; A] =
                std::array::from_fn(|k| factor_row(factor, n, columns, first + k));
            if rows.iter().all(|r| r.len() <= pass.start) {
                continue; // a triangle's rows that end before this pass
            }
            add_pass::<A, S>(&rows, pass.clone(), z_pass, &mut out[first * BLOCK..]);
        }
    }
    for i in tiled..n {
        correlate(
            &mut out[i * BLOCK..(i + 1) * BLOCK],
            base(i),
            factor_row(factor, n, columns, i),
            z,
        );
    }
}

/// Adds z's rows `pass` (where each row of the tile reaches them; `z_pass` holds them by
/// simulation tile, [s / S][j − pass.start][S]) to the tile's partial sums in `out`
/// [asset][simulation], j in increasing order.
// Its own function, not inlined: V8 moves a hot WASM function to optimised code between calls.
#[inline(never)]
fn add_pass<const A: usize, const S: usize>(
    rows: &[&[f64]; A],
    pass: std::ops::Range<usize>,
    z_pass: &[f64],
    out: &mut [f64],
) {
    // Rows of a triangular factor grow by one entry each: the shortest is shared by all of them.
    let shared = rows.iter().map(|r| r.len()).min().unwrap_or(0);
    let shared = pass.start..shared.clamp(pass.start, pass.end);
    // The tile's factor entries of the shared rows side by side, read once per pass: the inner
    // loop then indexes nothing (a bounds check per row and entry cost more than its arithmetic).
    let mut entries = [[0.0; A]; ROWS_PER_PASS];
    let entries = &mut entries[..shared.len()];
    for (j, e) in shared.clone().zip(entries.iter_mut()) {
        *e = std::array::from_fn(|k| rows[k][j]);
    }
    let at = |j: usize| (j - pass.start) * S;
    for (tile, z_tile) in z_pass.chunks_exact(pass.len() * S).enumerate() {
        let s = tile * S;
        let mut acc: [[f64; S]; A] = std::array::from_fn(|k| {
            out[k * BLOCK + s..k * BLOCK + s + S]
                .try_into()
                .expect("a whole tile")
        });
        let z_shared = &z_tile[at(shared.start)..at(shared.end)];
        for (e, zj) in entries.iter().zip(z_shared.chunks_exact(S)) {
            let zj: &[f64; S] = zj.try_into().expect("a whole tile");
            for (a, &f) in acc.iter_mut().zip(e) {
                for (x, zv) in a.iter_mut().zip(zj) {
                    *x += f * zv;
                }
            }
        }
        for (k, (a, row)) in acc.iter_mut().zip(rows).enumerate() {
            for j in shared.end..row.len().min(pass.end) {
                let zj = &z_tile[at(j)..at(j) + S];
                for (x, zv) in a.iter_mut().zip(zj) {
                    *x += row[j] * zv;
                }
            }
            out[k * BLOCK + s..k * BLOCK + s + S].copy_from_slice(a);
        }
    }
}

#[cfg(test)]
#[path = "correlate_tiles_tests.rs"]
mod tiles_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{Book, Comparison, Method, Mode, SpecFields};

    fn spec_with(n: usize, columns: usize, factor: Vec<f64>) -> Spec {
        Spec::new(SpecFields {
            method: Method::MonteCarloNormal,
            mode: Mode::BuyAndHold,
            books: vec![Book {
                capital: 1.0,
                weights: vec![1.0 / n as f64; n],
            }],
            comparison: Comparison::None,
            horizon: 1,
            degrees_of_freedom: 5.0,
            seed: 1,
            antithetic: false,
            importance_sampling: false,
            scenarios: BLOCK,
            confidence: 0.99,
            histogram_bins: 10,
            mean: vec![0.0; n],
            factor,
            factor_columns: columns,
            returns: Vec::new(),
        })
        .expect("valid")
    }

    #[test]
    fn tiles_give_the_bits_of_the_plain_row_kernel() {
        let mut state = 7u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        for n in 1..=13usize {
            for columns in [FACTOR_TRIANGULAR, 1, (n + 1) / 2, n] {
                let width = if columns == FACTOR_TRIANGULAR {
                    n
                } else {
                    columns
                };
                let spec = spec_with(n, columns, (0..n * width).map(|_| next()).collect());
                let z: Vec<f64> = (0..width * BLOCK).map(|_| next()).collect();
                let base = |i: usize| 0.25 * i as f64 - 1.0;
                let mut tiled = vec![0.0; n * BLOCK];
                correlate_rows(&spec, spec.factor(), base, &z, &mut tiled);
                for i in 0..n {
                    let mut plain = vec![0.0; BLOCK];
                    correlate(&mut plain, base(i), spec.factor_row(spec.factor(), i), &z);
                    let same = plain
                        .iter()
                        .zip(&tiled[i * BLOCK..(i + 1) * BLOCK])
                        .all(|(a, b)| a.to_bits() == b.to_bits());
                    assert!(same, "n {n}, columns {columns}, asset {i}");
                }
            }
        }
    }
}
