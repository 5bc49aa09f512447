//! Cholesky factorisation with the smallest diagonal jitter that makes Σ positive definite.

use super::covariance::{COLS, ROWS};
use crate::error::{EngineError, Result};

/// A pivot counts as positive when it exceeds this fraction of its diagonal entry: below that the
/// factor is dominated by rounding noise.
const PIVOT_TOLERANCE: f64 = 1e-14;

/// Columns factored together: their updates from the columns before are one tiled product (a
/// multiple of every target's COLS).
const PANEL: usize = 32;
/// Earlier columns per pass: a row tile's part (ROWS × K_PER_PASS) and the panel's part
/// (K_PER_PASS × PANEL, 32 KiB) stay in cache while the tiles read them.
const K_PER_PASS: usize = 128;
/// Rows of a panel column whose sums run side by side: one sum's subtractions wait on each
/// other, several sums' do not.
const SIDE_BY_SIDE: usize = 8;

/// Lower-triangular L (row-major, n×n) with L·Lᵀ = a, or None if `a` is not positive definite.
///
/// Left-looking by panels of PANEL columns: first every entry of the panel gets a_ij − Σ l_ik·l_jk
/// over the columns k before the panel, in register tiles (ROWS × COLS, as the covariance's) of
/// packed operands; then the panel is factored column by column as the plain Crout loop does,
/// subtracting its own columns. Each entry still subtracts its terms l_ik·l_jk one at a time in
/// increasing k from a_ij, so the bits are the plain loop's (tests).
pub fn cholesky(a: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; n * n];
    cholesky_into(a, n, &mut l).then_some(l)
}

/// `cholesky` written into `l` (n×n), whose entries above the diagonal it leaves as they are (a
/// fresh zeroed buffer: the factor's zeros); false when `a` is not positive definite, and then
/// `l` below the diagonal holds nothing of use (a next attempt overwrites all it reads).
pub fn cholesky_into(a: &[f64], n: usize, l: &mut [f64]) -> bool {
    // The panel rows' earlier columns by column tile, [tile][k][COLS]; a row tile's, [k][ROWS].
    let mut panel = vec![0.0; K_PER_PASS * PANEL];
    let mut rows = vec![0.0; K_PER_PASS * ROWS];
    for j0 in (0..n).step_by(PANEL) {
        let j1 = (j0 + PANEL).min(n);
        // The panel's running sums live in L's own entries until their column is factored.
        for i in j0..n {
            let end = j1.min(i + 1);
            l[i * n + j0..i * n + end].copy_from_slice(&a[i * n + j0..i * n + end]);
        }
        for k0 in (0..j0).step_by(K_PER_PASS) {
            let k1 = (k0 + K_PER_PASS).min(j0);
            let depth = k1 - k0;
            // In a narrow last panel the lanes past its columns keep an earlier panel's values:
            // their sums are dropped, and no sum reads another's lane.
            for b in 0..j1 - j0 {
                let at = b / COLS * K_PER_PASS * COLS + b % COLS;
                for k in k0..k1 {
                    panel[at + (k - k0) * COLS] = l[(j0 + b) * n + k];
                }
            }
            for i0 in (j0..n).step_by(ROWS) {
                // Rows past the end read the last row again; their sums are dropped.
                for a in 0..ROWS {
                    let row = (i0 + a).min(n - 1) * n;
                    for k in k0..k1 {
                        rows[(k - k0) * ROWS + a] = l[row + k];
                    }
                }
                for b0 in (0..(j1 - j0).min(i0 + ROWS - j0)).step_by(COLS) {
                    let columns = &panel[b0 / COLS * K_PER_PASS * COLS..][..depth * COLS];
                    subtract_tile::<ROWS, COLS>(l, n, i0, j0 + b0, &rows[..depth * ROWS], columns);
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
                return false;
            }
            let ljj = d.sqrt();
            l[j * n + j] = ljj;
            // The rows below, SIDE_BY_SIDE at a time: independent sums, each in its own order.
            // Rows past the end read the last row again; their sums are dropped.
            for i0 in (j + 1..n).step_by(SIDE_BY_SIDE) {
                let rows: [usize; SIDE_BY_SIDE] = std::array::from_fn(|a| (i0 + a).min(n - 1) * n);
                let mut sums = rows.map(|row| l[row + j]);
                for k in j0..j {
                    let ljk = l[j * n + k];
                    for (s, row) in sums.iter_mut().zip(rows) {
                        *s -= l[row + k] * ljk;
                    }
                }
                for (i, s) in (i0..n).zip(sums) {
                    l[i * n + j] = s / ljj;
                }
            }
        }
    }
    true
}

/// Subtracts Σ_k l_ik·l_jk over one pass's columns k from the running sums at rows i0.., columns
/// j0.. (entries j ≤ i < n only): `rows` holds the rows' l_ik as [k][R], `columns` the columns'
/// l_jk as [k][C], so each k feeds the R·C sums R broadcasts and one C-wide load.
// Its own function, not inlined: V8 moves a hot WASM function to optimised code between calls,
// never within one, so a first estimation would otherwise run whole in the baseline tier.
#[inline(never)]
fn subtract_tile<const R: usize, const C: usize>(
    l: &mut [f64],
    n: usize,
    i0: usize,
    j0: usize,
    rows: &[f64],
    columns: &[f64],
) {
    let kept = |a: usize, b: usize| i0 + a < n && j0 + b <= i0 + a;
    let mut acc = [[0.0; C]; R];
    for (a, row) in acc.iter_mut().enumerate() {
        for (b, s) in row.iter_mut().enumerate() {
            if kept(a, b) {
                *s = l[(i0 + a) * n + j0 + b];
            }
        }
    }
    for (li, lj) in rows.chunks_exact(R).zip(columns.chunks_exact(C)) {
        let lj: &[f64; C] = lj.try_into().expect("a whole tile");
        for (row, x) in acc.iter_mut().zip(li) {
            for (s, y) in row.iter_mut().zip(lj) {
                *s -= x * y;
            }
        }
    }
    for (a, row) in acc.iter().enumerate() {
        for (b, s) in row.iter().enumerate() {
            if kept(a, b) {
                l[(i0 + a) * n + j0 + b] = *s;
            }
        }
    }
}

/// Factor of Σ + δI for the smallest δ in {0} ∪ {s·10^e : e = −14, …, 2}, s the mean variance.
/// Returns (L, δ).
pub fn cholesky_with_jitter(a: &[f64], n: usize) -> Result<(Vec<f64>, f64)> {
    let mut l = vec![0.0; n * n];
    let jitter = cholesky_with_jitter_into(a, n, &mut l)?;
    Ok((l, jitter))
}

/// `cholesky_with_jitter` written into `l` (n×n, zero above the diagonal: see `cholesky_into`);
/// returns δ.
pub fn cholesky_with_jitter_into(a: &[f64], n: usize, l: &mut [f64]) -> Result<f64> {
    if cholesky_into(a, n, l) {
        return Ok(0.0);
    }
    let mean_var = (0..n).map(|i| a[i * n + i]).sum::<f64>() / n as f64;
    let scale = if mean_var > 1e-300 { mean_var } else { 1e-300 };
    let mut jittered = a.to_vec();
    for e in -14..=2 {
        let delta = scale * 10f64.powi(e);
        for i in 0..n {
            jittered[i * n + i] = a[i * n + i] + delta;
        }
        if cholesky_into(&jittered, n, l) {
            return Ok(delta);
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
