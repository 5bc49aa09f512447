//! Σ = Σ_t w_t (r_t − r̄)(r_t − r̄)ᵀ, the estimation's n²·m/2 multiply-adds, in register tiles over
//! cache-sized blocks. Every entry is still summed over t in increasing order from 0, each term
//! (w_t·(r_ti − r̄_i))·(r_tj − r̄_j), exactly as the plain loop in the tests does it: the same bits.

use std::ops::Range;

/// Rows × columns of one register tile. Tiling never changes a result, so each target takes what
/// measured fastest on it.
#[cfg(not(target_arch = "wasm32"))]
const ROWS: usize = 4;
#[cfg(target_arch = "wasm32")]
const ROWS: usize = 8;
const COLS: usize = 4;
/// Returns per pass over a column block: a tile's sums go back to memory between passes.
const RETURNS_PER_PASS: usize = 128;
/// Columns per block: one pass's columns (RETURNS_PER_PASS × COLUMNS_PER_BLOCK × 8 bytes, 256 KiB)
/// stay in cache while every row tile reads them.
const COLUMNS_PER_BLOCK: usize = 256;

/// Σ, n×n row-major, from returns [t][asset], their mean and one weight per return.
pub fn covariance(returns: &[f64], sample_mean: &[f64], weights: &[f64]) -> Vec<f64> {
    let n = sample_mean.len();
    symmetric_from_lower(&covariance_rows(returns, sample_mean, weights, 0..n), n)
}

/// Rows `rows` of Σ's lower triangle: row i's entries j ≤ i, row after row. Each entry is the
/// one `covariance` computes, bit for bit, whatever the rows asked with it.
pub fn covariance_rows(
    returns: &[f64],
    sample_mean: &[f64],
    weights: &[f64],
    rows: Range<usize>,
) -> Vec<f64> {
    lower_rows_in_tiles::<ROWS>(returns, sample_mean, weights, rows)
}

/// Σ, n×n row-major, from its lower triangle row by row.
pub fn symmetric_from_lower(lower: &[f64], n: usize) -> Vec<f64> {
    let mut sigma = vec![0.0; n * n];
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
    sigma
}

/// Entries of the lower triangle before row i.
fn triangle(i: usize) -> usize {
    i * (i + 1) / 2
}

/// `covariance_rows` with tiles of R rows (a multiple of COLS): any R gives the same bits.
fn lower_rows_in_tiles<const R: usize>(
    returns: &[f64],
    sample_mean: &[f64],
    weights: &[f64],
    rows: Range<usize>,
) -> Vec<f64> {
    let n = sample_mean.len();
    let m = weights.len();
    // Centred (x) and weighted centred (wx) returns of the assets these rows reach (j ≤ i <
    // rows.end), padded with zeros to whole tiles.
    let width = rows.end.min(n);
    let stride = (width + R - 1) / R * R;
    let mut x = vec![0.0; m * stride];
    let mut wx = vec![0.0; m * stride];
    for (t, (row, w)) in returns.chunks_exact(n).zip(weights).enumerate() {
        let (xr, wxr) = (&mut x[t * stride..], &mut wx[t * stride..]);
        for i in 0..width {
            xr[i] = row[i] - sample_mean[i];
            wxr[i] = w * xr[i];
        }
    }
    let mut lower = Lower {
        values: vec![0.0; triangle(rows.end) - triangle(rows.start)],
        rows: rows.clone(),
    };
    let first_tile = rows.start / R * R;
    let last_column = (rows.end + COLS - 1) / COLS * COLS;
    for block in (0..rows.end).step_by(COLUMNS_PER_BLOCK) {
        let block_end = (block + COLUMNS_PER_BLOCK).min(last_column);
        for first in (0..m).step_by(RETURNS_PER_PASS) {
            let pass = first..(first + RETURNS_PER_PASS).min(m);
            // Lower triangle only: row tiles from the block's first column down.
            for i0 in (block.max(first_tile)..rows.end).step_by(R) {
                for j0 in (block..block_end.min(i0 + R)).step_by(COLS) {
                    add_tile::<R>(&mut lower, i0, j0, &x, &wx, stride, pass.clone());
                }
            }
        }
    }
    lower.values
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

/// Adds the returns `pass` to the tile of Σ at rows i0.., columns j0.. (the entries `lower` keeps).
// Its own function, not inlined: V8 moves a hot WASM function to optimised code between calls,
// never within one, so a first estimation would otherwise run whole in the baseline tier.
#[inline(never)]
fn add_tile<const R: usize>(
    lower: &mut Lower,
    i0: usize,
    j0: usize,
    x: &[f64],
    wx: &[f64],
    stride: usize,
    pass: Range<usize>,
) {
    let mut acc = [[0.0; COLS]; R];
    for (a, row) in acc.iter_mut().enumerate() {
        for (b, s) in row.iter_mut().enumerate() {
            if let Some(k) = lower.slot(i0 + a, j0 + b) {
                *s = lower.values[k];
            }
        }
    }
    let rows = x[pass.start * stride..pass.end * stride].chunks_exact(stride);
    let weighted = wx[pass.start * stride..pass.end * stride].chunks_exact(stride);
    for (xr, wr) in rows.zip(weighted) {
        let xs: &[f64; COLS] = xr[j0..j0 + COLS].try_into().expect("a whole tile");
        let ws: &[f64; R] = wr[i0..i0 + R].try_into().expect("a whole tile");
        for (row, w) in acc.iter_mut().zip(ws) {
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
mod tests {
    use super::*;

    /// The plain loop: one rank-one update per return, over t in order.
    fn covariance_reference(returns: &[f64], sample_mean: &[f64], weights: &[f64]) -> Vec<f64> {
        let n = sample_mean.len();
        let mut covariance = vec![0.0; n * n];
        let mut centred = vec![0.0; n];
        for (row, w) in returns.chunks_exact(n).zip(weights) {
            for i in 0..n {
                centred[i] = row[i] - sample_mean[i];
            }
            for i in 0..n {
                let wi = w * centred[i];
                let out = &mut covariance[i * n..i * n + i + 1];
                for (c, x) in out.iter_mut().zip(&centred[..=i]) {
                    *c += wi * x;
                }
            }
        }
        for i in 0..n {
            for j in 0..i {
                covariance[j * n + i] = covariance[i * n + j];
            }
        }
        covariance
    }

    fn stream(seed: u64, len: usize) -> Vec<f64> {
        let mut state = seed;
        (0..len)
            .map(|_| {
                state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let z = (state ^ (state >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                ((z >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 0.05
            })
            .collect()
    }

    #[test]
    fn tiles_give_the_plain_loops_bits() {
        // Sizes across every tile, pass and block edge; sample and decaying weights; a return of
        // exactly the mean (zero centred), signed zeros and extreme magnitudes.
        for (n, m) in [
            (1, 30),
            (2, 31),
            (3, 127),
            (4, 128),
            (5, 129),
            (7, 257),
            (33, 40),
            (255, 60),
            (256, 130),
            (257, 131),
            (300, 300),
        ] {
            let mut returns = stream((n * 1000 + m) as u64, n * m);
            returns[0] = -0.0;
            returns[n * m - 1] = 1e150;
            if n > 2 {
                returns[n + 1] = 1e-300;
            }
            let mut mean = vec![0.0; n];
            for row in returns.chunks_exact(n) {
                mean.iter_mut().zip(row).for_each(|(s, r)| *s += r);
            }
            mean.iter_mut().for_each(|s| *s /= m as f64);
            returns[2 * n % (n * m)] = mean[(2 * n % (n * m)) % n];
            let sample = vec![1.0 / (m as f64 - 1.0); m];
            let decaying: Vec<f64> = (0..m).map(|t| 0.94f64.powi((m - 1 - t) as i32)).collect();
            for w in [sample, decaying] {
                let fast = covariance(&returns, &mean, &w);
                let plain = covariance_reference(&returns, &mean, &w);
                assert_eq!(fast.len(), plain.len());
                for (k, (f, p)) in fast.iter().zip(&plain).enumerate() {
                    assert_eq!(
                        f.to_bits(),
                        p.to_bits(),
                        "n {n}, m {m}, entry {k}: {f} vs {p}"
                    );
                }
            }
        }
    }
}
