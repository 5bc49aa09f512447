//! The estimation: the window's mean and covariance (sample or EWMA), and the factor the models
//! sample through (the Cholesky factor of Σ, or the window's loadings).

use super::covariance::{covariance_into, symmetric_from_lower_into};
use super::linalg::cholesky_with_jitter_into;
use super::returns::{returns_into, window, EstimationInput};
pub use super::vectors::Estimation;
use super::vectors::{Buffer, Lengths};
use crate::error::{ensure, Result};
use crate::finite::all_finite;
use crate::spec::FACTOR_TRIANGULAR;

/// The rule choosing the sampling path, a function of the shape alone (so every build and request
/// agree): loadings when the window has no more returns than assets. Σ then has rank ≤ m − 1 < n:
/// its Cholesky factor would need jitter (a changed model), n²·m/2 work to form Σ and n³/6 per
/// factoring attempt, while the loadings are exact and cost nothing to form; their n·m work per
/// draw is at most twice the triangular factor's n²/2 (at m = n).
pub fn uses_loadings(observations: usize, assets: usize) -> bool {
    observations <= assets
}

/// F[i][t] = √w_t·(r_ti − r̄_i), row-major n×m, into `f`: Σ_t w_t (r_t − r̄)(r_t − r̄)ᵀ = F·Fᵀ exactly.
fn loadings_into(returns: &[f64], sample_mean: &[f64], weights: &[f64], f: &mut [f64]) {
    let (n, m) = (sample_mean.len(), weights.len());
    for (t, (row, w)) in returns.chunks_exact(n).zip(weights).enumerate() {
        let scale = w.sqrt();
        for (i, (r, mean)) in row.iter().zip(sample_mean).enumerate() {
            f[i * m + t] = scale * (r - mean);
        }
    }
}

pub fn estimate(input: &EstimationInput) -> Result<Estimation> {
    estimate_after(input, 0)
}

/// `estimate` with `front` words left free before the vectors in its buffer (an encoding's header).
pub fn estimate_after(input: &EstimationInput, front: usize) -> Result<Estimation> {
    let w = window(input)?;
    let (n, obs) = (input.n_assets, w.observations);
    if let Some(lower) = input.covariance_lower {
        ensure(
            !uses_loadings(obs, n),
            "a covariance was given for a window that samples through loadings",
        )?;
        ensure(
            n.checked_mul(n + 1).map(|x| x / 2) == Some(lower.len()),
            "a given covariance holds n(n + 1)/2 values",
        )?;
        ensure(all_finite(lower), "a given covariance must be finite")?;
    }
    let loadings = uses_loadings(obs, n);
    let mut buffer = Buffer::new(
        front,
        Lengths {
            mean: n,
            sample_mean: n,
            covariance: if loadings { 0 } else { n * n },
            factor: if loadings { n * obs } else { n * n },
            volatility: n,
            returns: obs * n,
        },
    );
    let s = buffer.slots();
    let weights = returns_into(input, &w, s.returns, s.sample_mean)?;
    let (factor_columns, jitter) = if loadings {
        loadings_into(s.returns, s.sample_mean, &weights, s.factor);
        for (v, row) in s.volatility.iter_mut().zip(s.factor.chunks_exact(obs)) {
            *v = row.iter().map(|x| x * x).sum::<f64>().sqrt();
        }
        (obs, 0.0)
    } else {
        match input.covariance_lower {
            Some(lower) => symmetric_from_lower_into(lower, n, s.covariance),
            None => covariance_into(s.returns, s.sample_mean, &weights, s.covariance),
        }
        let jitter = cholesky_with_jitter_into(s.covariance, n, s.factor)?;
        for (i, v) in s.volatility.iter_mut().enumerate() {
            *v = s.covariance[i * n + i].sqrt();
        }
        (FACTOR_TRIANGULAR, jitter)
    };
    if !input.zero_drift {
        s.mean.copy_from_slice(s.sample_mean);
    }
    let dates = (w.complete[w.first], w.complete[w.first + obs]);
    Ok(buffer.finish(obs, dates, factor_columns, jitter))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::EngineError;
    use crate::estimation::returns::{ewma_weights, Covariance};

    fn input(prices: &[f64], n_dates: usize, n_assets: usize) -> EstimationInput<'_> {
        EstimationInput {
            prices,
            n_dates,
            n_assets,
            lookback: 0,
            zero_drift: false,
            covariance: Covariance::Sample,
            covariance_lower: None,
        }
    }

    fn geometric(n_dates: usize) -> Vec<f64> {
        // Asset 0 never moves (zero variance); asset 1 alternates.
        let mut p = Vec::new();
        for d in 0..n_dates {
            p.push(100.0);
            p.push(if d % 2 == 0 { 50.0 } else { 55.0 });
        }
        p
    }

    #[test]
    fn mean_and_covariance_of_known_returns() {
        let p = geometric(41);
        let e = estimate(&input(&p, 41, 2)).unwrap();
        assert_eq!(e.observations, 40);
        assert_eq!((e.mean()[0], e.covariance()[0]), (0.0, 0.0));
        // Asset 1: returns ±ln(1.1), mean 0, variance ln(1.1)² · 40/39.
        let v = 1.1f64.ln().powi(2) * 40.0 / 39.0;
        assert!((e.covariance()[3] - v).abs() < 1e-15);
        assert!(e.jitter > 0.0, "asset 0 has zero variance: jitter expected");
        assert!(e.factor().iter().all(|x| x.is_finite()));
        assert_eq!((e.first_date, e.last_date), (0, 40));
    }

    #[test]
    fn missing_prices_drop_dates_and_lookback_keeps_the_latest() {
        let mut p = geometric(50);
        p[2 * 2] = f64::NAN; // date 2, asset 0
        let mut i = input(&p, 50, 2);
        let e = estimate(&i).unwrap();
        assert_eq!(e.observations, 48);
        i.lookback = 30;
        let e = estimate(&i).unwrap();
        assert_eq!((e.observations, e.first_date, e.last_date), (30, 19, 49));
    }

    #[test]
    fn too_few_returns_is_insufficient_data() {
        let p = geometric(30);
        assert_eq!(
            estimate(&input(&p, 30, 2)).unwrap_err(),
            EngineError::InsufficientData {
                observations: 29,
                required: 30
            }
        );
    }

    #[test]
    fn a_price_ratio_beyond_a_double_is_an_overflow() {
        // Every price finite and positive; 1e300 / 1e-10 is not, nor 1e-300 / 1e300 (a ratio of 0).
        for (from, to) in [
            (1e-10, 1e300),
            (1e300, 1e-300),
            (f64::MIN_POSITIVE, f64::MAX),
        ] {
            let mut p = geometric(41);
            p[2 * 20] = from; // asset 0 at date 20, then date 21
            p[2 * 21] = to;
            for d in 22..41 {
                p[2 * d] = to;
            }
            match estimate(&input(&p, 41, 2)) {
                Err(EngineError::Overflow(m)) => {
                    assert!(m.contains("ratio beyond double precision"), "{m}")
                }
                other => panic!("{from} → {to}: {other:?}"),
            }
        }
        // The largest ratio that fits is priced: e^709 ≈ 8e307.
        let mut p = geometric(41);
        for d in 21..41 {
            p[2 * d] = 1e-300 * 8e307;
        }
        p[2 * 20] = 1e-300;
        assert!(estimate(&input(&p, 41, 2)).is_ok());
    }

    /// Prices of `n` assets over `dates` days, from a SplitMix-style stream (no two alike).
    fn wide(n: usize, dates: usize) -> Vec<f64> {
        let mut state = 0x5EED_u64;
        let mut p = vec![100.0; n];
        let mut out = Vec::with_capacity(n * dates);
        for _ in 0..dates {
            out.extend_from_slice(&p);
            for x in p.iter_mut() {
                state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let u = ((state ^ (state >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9) >> 11) as f64
                    / (1u64 << 53) as f64;
                *x *= 1.0 + 0.04 * (u - 0.5);
            }
        }
        out
    }

    #[test]
    fn no_more_returns_than_assets_sample_through_exact_loadings() {
        for covariance in [Covariance::Sample, Covariance::Ewma(0.94)] {
            // 30 returns, 61 assets: loadings F (61×30) with F·Fᵀ = Σ, no jitter.
            let p = wide(61, 31);
            let mut i = input(&p, 31, 61);
            i.covariance = covariance;
            let e = estimate(&i).unwrap();
            assert_eq!((e.factor_columns, e.jitter), (30, 0.0));
            assert_eq!(e.factor().len(), 61 * 30);
            assert!(e.covariance().is_empty(), "Σ is not formed");
            // Σ straight from the prices: log returns, their mean, the estimator's weights.
            let r: Vec<Vec<f64>> = (1..31)
                .map(|d| {
                    (0..61)
                        .map(|a| (p[d * 61 + a] / p[(d - 1) * 61 + a]).ln())
                        .collect()
                })
                .collect();
            let mean: Vec<f64> = (0..61)
                .map(|a| r.iter().map(|x| x[a]).sum::<f64>() / 30.0)
                .collect();
            let w = match covariance {
                Covariance::Sample => vec![1.0 / 29.0; 30],
                Covariance::Ewma(l) => ewma_weights(30, l),
            };
            let sigma = |a: usize, b: usize| -> f64 {
                (0..30)
                    .map(|t| w[t] * (r[t][a] - mean[a]) * (r[t][b] - mean[b]))
                    .sum()
            };
            for a in 0..61 {
                assert!(
                    (e.volatility()[a] - sigma(a, a).sqrt()).abs() <= 1e-12 * e.volatility()[a]
                );
                for b in 0..61 {
                    let fft: f64 = (0..30)
                        .map(|t| e.factor()[a * 30 + t] * e.factor()[b * 30 + t])
                        .sum();
                    let c = sigma(a, b);
                    let scale = (sigma(a, a) * sigma(b, b)).sqrt();
                    assert!((fft - c).abs() <= 1e-12 * scale, "{a},{b}: {fft} vs {c}");
                }
            }
            // 30 assets: still loadings (Σ has rank 29); 29 assets: the Cholesky factor of a
            // full-rank Σ, no jitter.
            let p = wide(30, 31);
            assert_eq!(estimate(&input(&p, 31, 30)).unwrap().factor_columns, 30);
            let p = wide(29, 31);
            let e = estimate(&input(&p, 31, 29)).unwrap();
            assert_eq!(
                (e.factor_columns, e.factor().len(), e.jitter),
                (FACTOR_TRIANGULAR, 29 * 29, 0.0)
            );
        }
    }

    #[test]
    fn rejects_bad_prices_and_options() {
        let p = [1.0, -1.0];
        assert!(matches!(
            estimate(&input(&p, 2, 1)),
            Err(EngineError::InvalidInput(_))
        ));
        let p = geometric(40);
        let mut i = input(&p, 40, 2);
        i.covariance = Covariance::Ewma(1.0);
        assert!(estimate(&i).is_err());
        assert!(estimate(&input(&p, 41, 2)).is_err());
    }
}
