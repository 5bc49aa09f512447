//! Σ = Σ_t w_t (r_t − r̄)(r_t − r̄)ᵀ, the estimation's n²·m/2 multiply-adds, in register tiles over
//! cache-sized blocks. Every entry is still summed over t in increasing order from 0, each term
//! (w_t·(r_ti − r̄_i))·(r_tj − r̄_j), exactly as the plain loop in the tests does it: the same bits.

use std::ops::Range;
use std::slice::ChunksExact;

/// Rows × columns of one register tile: ROWS·COLS sums stay in registers while each return
/// feeds them ROWS broadcasts and one COLS-wide load. Tiling never changes a result, so each target
/// takes what measured fastest on it: AVX-512 has 32 vector registers for 8×8 sums, AVX's 16
/// hold 4×8, plain x86-64 4×4; WASM engines keep 8×4 live.
/// The Cholesky factor's updates (`linalg`) take the same tiles.
#[cfg(all(not(target_arch = "wasm32"), target_feature = "avx512f"))]
pub(super) const ROWS: usize = 8;
#[cfg(all(not(target_arch = "wasm32"), not(target_feature = "avx512f")))]
pub(super) const ROWS: usize = 4;
#[cfg(target_arch = "wasm32")]
pub(super) const ROWS: usize = 8;
#[cfg(all(not(target_arch = "wasm32"), target_feature = "avx"))]
pub(super) const COLS: usize = 8;
#[cfg(any(target_arch = "wasm32", not(target_feature = "avx")))]
pub(super) const COLS: usize = 4;
/// Returns per pass over a column block: a tile's sums go back to memory between passes (512
/// measured 32 → 44 % of the no-FMA peak on AVX-512 against 128: fewer loads and stores of sums).
const RETURNS_PER_PASS: usize = 512;
/// Columns per block: one pass's packed columns (RETURNS_PER_PASS × COLUMNS_PER_BLOCK × 8 bytes,
/// 1 MiB) stay in L2 while every row tile reads them.
const COLUMNS_PER_BLOCK: usize = 256;

/// Σ, n×n row-major, from returns [t][asset], their mean and one weight per return.
pub fn covariance(returns: &[f64], sample_mean: &[f64], weights: &[f64]) -> Vec<f64> {
    let n = sample_mean.len();
    let mut sigma = vec![0.0; n * n];
    covariance_into(returns, sample_mean, weights, &mut sigma);
    sigma
}

/// `covariance` written into `sigma` (n×n).
pub fn covariance_into(returns: &[f64], sample_mean: &[f64], weights: &[f64], sigma: &mut [f64]) {
    let n = sample_mean.len();
    let lower = covariance_rows(returns, sample_mean, weights, 0..n);
    symmetric_from_lower_into(&lower, n, sigma);
}

/// Rows `rows` of Σ's lower triangle: row i's entries j ≤ i, row after row. Each entry is the
/// one `covariance` computes, bit for bit, whatever the rows asked with it.
pub fn covariance_rows(
    returns: &[f64],
    sample_mean: &[f64],
    weights: &[f64],
    rows: Range<usize>,
) -> Vec<f64> {
    lower_rows_in_tiles::<ROWS, COLS>(returns, sample_mean, weights, rows)
}

/// Σ, n×n row-major, written into `sigma` from its lower triangle row by row.
pub fn symmetric_from_lower_into(lower: &[f64], n: usize, sigma: &mut [f64]) {
    let mut at = 0;
    for i in 0..n {
        sigma[i * n..=i * n + i].copy_from_slice(&lower[at..=at + i]);
        at += i + 1;
    }
    for i in 0..n {
        for j in 0..i {
            sigma[j * n + i] = sigma[i * n + j];
        }
    }
}

/// Entries of the lower triangle before row i.
fn triangle(i: usize) -> usize {
    i * (i + 1) / 2
}

/// `covariance_rows` with tiles of R rows × C columns (one a multiple of the other): any tile
/// gives the same bits.
fn lower_rows_in_tiles<const R: usize, const C: usize>(
    returns: &[f64],
    sample_mean: &[f64],
    weights: &[f64],
    rows: Range<usize>,
) -> Vec<f64> {
    let n = sample_mean.len();
    let m = weights.len();
    // Per pass of returns, the centred returns of the assets these rows reach (j ≤ i < rows.end)
    // packed by column tile, [tile][t][C], one column block at a time, and the weighted ones by
    // row tile, [tile][t][R]: a tile's pass reads both front to back. Tiles are RETURNS_PER_PASS
    // long whatever the pass; columns past the last asset may hold another block's values, whose
    // sums no kept entry takes. Two buffers for every pass: fresh ones for the whole history cost
    // more in page faults than the packing (measured).
    let width = rows.end.min(n);
    let padded = (width + R.max(C) - 1) / R.max(C) * R.max(C);
    // Tiles one return longer than a pass: a whole pass apart, they would start a multiple of
    // 4 KiB apart, and a return's values, one per tile, would all land in one set of L1.
    let stride = RETURNS_PER_PASS.min(m) + 1;
    let mut x = vec![0.0; stride * COLUMNS_PER_BLOCK.min(padded)];
    let mut wx = vec![0.0; stride * padded];
    let mut lower = Lower {
        values: vec![0.0; triangle(rows.end) - triangle(rows.start)],
        rows: rows.clone(),
    };
    let first_tile = rows.start / R * R;
    let last_column = (rows.end + C - 1) / C * C;
    for first in (0..m).step_by(RETURNS_PER_PASS) {
        let pass = first..(first + RETURNS_PER_PASS).min(m);
        let pass_rows = returns[first * n..pass.end * n].chunks_exact(n);
        let weighted = &mut wx[first_tile / R * stride * R..];
        let own = first_tile.min(width)..width;
        let pass_weights = Some(&weights[pass.clone()]);
        pack_pass::<R>(
            weighted,
            pass_rows.clone(),
            sample_mean,
            own,
            stride,
            pass_weights,
        );
        for block in (0..rows.end).step_by(COLUMNS_PER_BLOCK) {
            let block_end = (block + COLUMNS_PER_BLOCK).min(last_column);
            let columns = block.min(width)..block_end.min(width);
            pack_pass::<C>(
                &mut x,
                pass_rows.clone(),
                sample_mean,
                columns,
                stride,
                None,
            );
            // Lower triangle only: row tiles from the block's first column down.
            for i0 in (block.max(first_tile)..rows.end).step_by(R) {
                let ws = &wx[i0 / R * stride * R..][..pass.len() * R];
                for j0 in (block..block_end.min(i0 + R)).step_by(C) {
                    let xs = &x[(j0 - block) / C * stride * C..][..pass.len() * C];
                    add_tile::<R, C>(&mut lower, i0, j0, ws, xs);
                }
            }
        }
    }
    lower.values
}

/// One pass's returns `rows` of `assets` (from a whole tile on), centred (times each return's
/// weight when `weights` are given), into `out` by tiles of T assets, [tile][t][T], tiles `stride`
/// long. Tile by tile: one bounds check per tile, not per value (the packing cost a fifth of the
/// multiply-adds, measured).
fn pack_pass<const T: usize>(
    out: &mut [f64],
    rows: ChunksExact<f64>,
    sample_mean: &[f64],
    assets: Range<usize>,
    stride: usize,
    weights: Option<&[f64]>,
) {
    for (t, row) in rows.enumerate() {
        let weight = weights.map(|w| w[t]);
        let tiles = row[assets.clone()].chunks(T);
        for (tile, (values, mean)) in tiles.zip(sample_mean[assets.clone()].chunks(T)).enumerate() {
            let at = (tile * stride + t) * T;
            pack_tile::<T>(&mut out[at..at + values.len()], values, mean, weight);
        }
    }
}

/// One return's tile of centred values, out = r − r̄ (times `weight` when given); a whole tile as
/// T fixed lanes (a slice of unknown length became masked loads and stores, slow on some CPUs).
#[inline(always)]
fn pack_tile<const T: usize>(out: &mut [f64], values: &[f64], mean: &[f64], weight: Option<f64>) {
    let centre = |r: f64, mu: f64| match weight {
        Some(w) => w * (r - mu),
        None => r - mu,
    };
    let whole = (
        <&mut [f64; T]>::try_from(&mut *out),
        <&[f64; T]>::try_from(values),
        <&[f64; T]>::try_from(mean),
    );
    if let (Ok(out), Ok(values), Ok(mean)) = whole {
        for ((o, &r), &mu) in out.iter_mut().zip(values).zip(mean) {
            *o = centre(r, mu);
        }
    } else {
        for ((o, &r), &mu) in out.iter_mut().zip(values).zip(mean) {
            *o = centre(r, mu);
        }
    }
}

/// Rows of a lower triangle being summed.
struct Lower {
    values: Vec<f64>,
    rows: Range<usize>,
}

impl Lower {
    /// Where entry (i, j) is kept, if it is one of these rows' (j ≤ i).
    fn slot(&self, i: usize, j: usize) -> Option<usize> {
        (self.rows.contains(&i) && j <= i).then(|| triangle(i) - triangle(self.rows.start) + j)
    }
}

/// Adds one pass of returns to the tile of Σ at rows i0.., columns j0.. (the entries `lower`
/// keeps): `ws` the rows' weighted centred returns [t][R], `xs` the columns' centred ones [t][C].
// Its own function, not inlined: V8 moves a hot WASM function to optimised code between calls,
// never within one, so a first estimation would otherwise run whole in the baseline tier.
#[inline(never)]
fn add_tile<const R: usize, const C: usize>(
    lower: &mut Lower,
    i0: usize,
    j0: usize,
    ws: &[f64],
    xs: &[f64],
) {
    let mut acc = [[0.0; C]; R];
    for (a, row) in acc.iter_mut().enumerate() {
        for (b, s) in row.iter_mut().enumerate() {
            if let Some(k) = lower.slot(i0 + a, j0 + b) {
                *s = lower.values[k];
            }
        }
    }
    for (wr, xr) in ws.chunks_exact(R).zip(xs.chunks_exact(C)) {
        let xs: &[f64; C] = xr.try_into().expect("a whole tile");
        for (row, w) in acc.iter_mut().zip(wr) {
            for (s, xv) in row.iter_mut().zip(xs) {
                *s += w * xv;
            }
        }
    }
    for (a, row) in acc.iter().enumerate() {
        for (b, s) in row.iter().enumerate() {
            if let Some(k) = lower.slot(i0 + a, j0 + b) {
                lower.values[k] = *s;
            }
        }
    }
}

#[cfg(test)]
#[path = "covariance_tests.rs"]
mod tests;
