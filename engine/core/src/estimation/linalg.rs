//! Cholesky factorisation with the smallest diagonal jitter that makes Σ positive definite.

use crate::error::{EngineError, Result};
use std::ops::Range;

/// A pivot counts as positive when it exceeds this fraction of its diagonal entry: below that the
/// factor is dominated by rounding noise.
const PIVOT_TOLERANCE: f64 = 1e-14;

/// Columns factored together: their updates from the columns before are one tiled product.
const PANEL: usize = 32;
/// Rows × panel columns of one register tile.
const TILE: usize = 4;
/// Earlier columns per pass: a row tile's part (TILE × K_PER_PASS) and the panel's part
/// (K_PER_PASS × PANEL, 32 KiB) stay in cache while the tiles read them.
const K_PER_PASS: usize = 128;

/// Lower-triangular L (row-major, n×n) with L·Lᵀ = a, or None if `a` is not positive definite.
///
/// Left-looking by panels of PANEL columns: first every entry of the panel gets a_ij − Σ l_ik·l_jk
/// over the columns k before the panel, in tiles; then the panel is factored column by column as
/// the plain Crout loop does, subtracting its own columns. Each entry still subtracts its terms
/// l_ik·l_jk one at a time in increasing k from a_ij, so the bits are the plain loop's (tests).
pub fn cholesky(a: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; n * n];
    let mut packed = vec![0.0; K_PER_PASS * PANEL];
    for j0 in (0..n).step_by(PANEL) {
        let j1 = (j0 + PANEL).min(n);
        // The panel's running sums live in L's own entries until their column is factored.
        for i in j0..n {
            let end = j1.min(i + 1);
            l[i * n + j0..i * n + end].copy_from_slice(&a[i * n + j0..i * n + end]);
        }
        for k0 in (0..j0).step_by(K_PER_PASS) {
            let k1 = (k0 + K_PER_PASS).min(j0);
            // packed[k][b] = l[j0 + b][k]: the panel rows' earlier columns, contiguous per k.
            packed.iter_mut().for_each(|p| *p = 0.0);
            for b in 0..j1 - j0 {
                for k in k0..k1 {
                    packed[(k - k0) * PANEL + b] = l[(j0 + b) * n + k];
                }
            }
            for i0 in (j0..n).step_by(TILE) {
                for b0 in (0..(j1 - j0).min(i0 + TILE - j0)).step_by(TILE) {
                    subtract_tile(&mut l, n, i0, j0 + b0, &packed[b0..], k0..k1);
                }
            }
        }
        for j in j0..j1 {
            let mut d = l[j * n + j];
            for k in j0..j {
                d -= l[j * n + k] * l[j * n + k];
            }
            let positive = d > 0.0 && d > PIVOT_TOLERANCE * a[j * n + j].abs() && d.is_finite();
            if !positive {
                return None;
            }
            let ljj = d.sqrt();
            l[j * n + j] = ljj;
            for i in j + 1..n {
                let mut s = l[i * n + j];
                for k in j0..j {
                    s -= l[i * n + k] * l[j * n + k];
                }
                l[i * n + j] = s / ljj;
            }
        }
    }
    Some(l)
}

/// Subtracts Σ_{k in ks} l_ik·l_jk from the running sums at rows i0.., columns j0.. (entries
/// j ≤ i < n only); `packed[(k − k0)·PANEL + b]` holds l[j0 + b][k].
// Its own function, not inlined: V8 moves a hot WASM function to optimised code between calls,
// never within one, so a first estimation would otherwise run whole in the baseline tier.
#[inline(never)]
fn subtract_tile(l: &mut [f64], n: usize, i0: usize, j0: usize, packed: &[f64], ks: Range<usize>) {
    let kept = |a: usize, b: usize| i0 + a < n && j0 + b <= i0 + a;
    // Rows past the end read the last row again; their sums are dropped.
    let rows: [usize; TILE] = std::array::from_fn(|a| (i0 + a).min(n - 1) * n);
    let mut acc = [[0.0; TILE]; TILE];
    for (a, row) in acc.iter_mut().enumerate() {
        for (b, s) in row.iter_mut().enumerate() {
            if kept(a, b) {
                *s = l[i0 * n + a * n + j0 + b];
            }
        }
    }
    let [r0, r1, r2, r3]: [&[f64]; TILE] =
        std::array::from_fn(|a| &l[rows[a] + ks.start..rows[a] + ks.end]);
    let columns = packed.chunks(PANEL);
    for ((((l0, l1), l2), l3), lj) in r0.iter().zip(r1).zip(r2).zip(r3).zip(columns) {
        let ljs: &[f64; TILE] = lj[..TILE].try_into().expect("a whole tile");
        for (row, li) in acc.iter_mut().zip([l0, l1, l2, l3]) {
            for (s, lj) in row.iter_mut().zip(ljs) {
                *s -= li * lj;
            }
        }
    }
    for (a, row) in acc.iter().enumerate() {
        for (b, s) in row.iter().enumerate() {
            if kept(a, b) {
                l[i0 * n + a * n + j0 + b] = *s;
            }
        }
    }
}

/// Factor of Σ + δI for the smallest δ in {0} ∪ {s·10^e : e = −14, …, 2}, s the mean variance.
/// Returns (L, δ).
pub fn cholesky_with_jitter(a: &[f64], n: usize) -> Result<(Vec<f64>, f64)> {
    if let Some(l) = cholesky(a, n) {
        return Ok((l, 0.0));
    }
    let mean_var = (0..n).map(|i| a[i * n + i]).sum::<f64>() / n as f64;
    let scale = if mean_var > 1e-300 { mean_var } else { 1e-300 };
    let mut jittered = a.to_vec();
    for e in -14..=2 {
        let delta = scale * 10f64.powi(e);
        for i in 0..n {
            jittered[i * n + i] = a[i * n + i] + delta;
        }
        if let Some(l) = cholesky(&jittered, n) {
            return Ok((l, delta));
        }
    }
    Err(EngineError::invalid(
        "covariance matrix cannot be made positive definite",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain Crout loop, entry by entry.
    fn cholesky_reference(a: &[f64], n: usize) -> Option<Vec<f64>> {
        let mut l = vec![0.0; n * n];
        for j in 0..n {
            let mut d = a[j * n + j];
            for k in 0..j {
                d -= l[j * n + k] * l[j * n + k];
            }
            let positive = d > 0.0 && d > PIVOT_TOLERANCE * a[j * n + j].abs() && d.is_finite();
            if !positive {
                return None;
            }
            let ljj = d.sqrt();
            l[j * n + j] = ljj;
            for i in j + 1..n {
                let mut s = a[i * n + j];
                for k in 0..j {
                    s -= l[i * n + k] * l[j * n + k];
                }
                l[i * n + j] = s / ljj;
            }
        }
        Some(l)
    }

    /// a = XᵀX/m + shift·I from a SplitMix stream: rank ≤ m before the shift.
    fn gram(n: usize, m: usize, shift: f64, seed: u64) -> Vec<f64> {
        let mut state = seed;
        let x: Vec<f64> = (0..n * m)
            .map(|_| {
                state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let z = (state ^ (state >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                (z >> 11) as f64 / (1u64 << 53) as f64 - 0.5
            })
            .collect();
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                let dot: f64 = (0..m).map(|t| x[t * n + i] * x[t * n + j]).sum();
                a[i * n + j] = dot / m as f64 + if i == j { shift } else { 0.0 };
            }
        }
        a
    }

    #[test]
    fn panels_give_the_plain_loops_bits() {
        // Sizes across tile, panel and pass edges; full rank, singular (rank m < n: the plain loop
        // fails at a pivot, and so must the panels), jittered, and not positive definite at all.
        let mut outcomes = [0, 0];
        for n in [
            1, 2, 3, 4, 5, 31, 32, 33, 63, 64, 65, 100, 129, 160, 161, 300,
        ] {
            for (m, shift) in [(n + 7, 0.0), (n / 2 + 1, 0.0), (n / 2 + 1, 1e-9), (n, -0.5)] {
                let a = gram(n, m, shift, (n * 31 + m) as u64);
                let fast = cholesky(&a, n);
                let plain = cholesky_reference(&a, n);
                assert_eq!(
                    fast.is_some(),
                    plain.is_some(),
                    "n {n}, m {m}, shift {shift}"
                );
                outcomes[usize::from(fast.is_some())] += 1;
                if let (Some(f), Some(p)) = (fast, plain) {
                    for (k, (x, y)) in f.iter().zip(&p).enumerate() {
                        assert_eq!(x.to_bits(), y.to_bits(), "n {n}, m {m}: entry {k}");
                    }
                }
            }
        }
        assert!(
            outcomes[0] >= 20 && outcomes[1] >= 30,
            "refused / factored: {outcomes:?}"
        );
    }

    #[test]
    fn factors_a_positive_definite_matrix_exactly() {
        let a = [4.0, 2.0, 2.0, 3.0];
        let l = cholesky(&a, 2).unwrap();
        assert_eq!(l, vec![2.0, 0.0, 1.0, 2f64.sqrt()]);
        assert_eq!(cholesky_with_jitter(&a, 2).unwrap().1, 0.0);
    }

    #[test]
    fn singular_matrix_gets_the_smallest_working_jitter() {
        // Two perfectly correlated assets: rank one.
        let a = [1e-4, 1e-4, 1e-4, 1e-4];
        assert!(cholesky(&a, 2).is_none());
        let (l, delta) = cholesky_with_jitter(&a, 2).unwrap();
        assert!(delta > 0.0 && delta <= 1e-4 * 1e-12, "jitter {delta}");
        // The previous decade must fail, or δ was not the smallest.
        let smaller = [1e-4 + delta / 10.0, 1e-4, 1e-4, 1e-4 + delta / 10.0];
        assert!(cholesky(&smaller, 2).is_none());
        // L·Lᵀ reproduces Σ + δI.
        let r11 = l[2] * l[2] + l[3] * l[3];
        assert!((r11 - (1e-4 + delta)).abs() < 1e-18);
    }

    #[test]
    fn zero_matrix_is_repaired_with_a_finite_factor() {
        let (l, delta) = cholesky_with_jitter(&[0.0; 4], 2).unwrap();
        assert!(delta > 0.0 && l.iter().all(|x| x.is_finite()));
    }
}
