//! Unit tests of `estimate` (its private helpers included).
use super::*;

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
    assert_eq!((e.mean[0], e.covariance[0]), (0.0, 0.0));
    // Asset 1: returns ±ln(1.1), mean 0, variance ln(1.1)² · 40/39.
    let v = 1.1f64.ln().powi(2) * 40.0 / 39.0;
    assert!((e.covariance[3] - v).abs() < 1e-15);
    assert!(e.jitter > 0.0, "asset 0 has zero variance: jitter expected");
    assert!(e.factor.iter().all(|x| x.is_finite()));
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
        assert_eq!(e.factor.len(), 61 * 30);
        assert!(e.covariance.is_empty(), "Σ is not formed");
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
            assert!((e.volatility[a] - sigma(a, a).sqrt()).abs() <= 1e-12 * e.volatility[a]);
            for b in 0..61 {
                let fft: f64 = (0..30)
                    .map(|t| e.factor[a * 30 + t] * e.factor[b * 30 + t])
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
            (e.factor_columns, e.factor.len(), e.jitter),
            (FACTOR_TRIANGULAR, 29 * 29, 0.0)
        );
    }
}

#[test]
fn ewma_weights_sum_to_one_and_favour_recent_returns() {
    let w = ewma_weights(100, 0.94);
    assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-15);
    assert!((w[99] / w[98] - 1.0 / 0.94).abs() < 1e-12);
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
