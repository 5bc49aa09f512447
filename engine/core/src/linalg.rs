//! Cholesky factorisation with the smallest diagonal jitter that makes Σ positive definite.

use crate::error::{EngineError, Result};

/// A pivot counts as positive when it exceeds this fraction of its diagonal entry: below that the
/// factor is dominated by rounding noise.
const PIVOT_TOLERANCE: f64 = 1e-14;

/// Lower-triangular L (row-major, n×n) with L·Lᵀ = a, or None if `a` is not positive definite.
pub fn cholesky(a: &[f64], n: usize) -> Option<Vec<f64>> {
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
