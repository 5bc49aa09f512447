//! Simulated figures against the model they sample and against closed forms.
mod common;

use common::*;
use risk_engine_core::kernels::{fill_units, scaled_factor, Workspace};
use risk_engine_core::math::{normal_pdf, normal_quantile};
use risk_engine_core::parametric::{parametric, CovarianceForm, ParametricInput};
use risk_engine_core::spec::{BlockRange, Comparison, Method, Mode, SpecFields, BLOCK};

/// Buy-and-hold log returns R[asset][sim] recovered from the kernel's e^R − 1.
fn simulated_log_returns(fields: &SpecFields, blocks: usize) -> Vec<Vec<f64>> {
    let spec = &build(fields);
    let n = spec.n_assets();
    let factor_t = scaled_factor(spec);
    let mut ws = Workspace::new(n, 1);
    let mut out = vec![Vec::new(); n];
    for b in 0..blocks {
        fill_units(spec, &factor_t, &mut ws, b);
        for (i, r) in out.iter_mut().enumerate() {
            r.extend(
                ws.unit[i * BLOCK..(i + 1) * BLOCK]
                    .iter()
                    .map(|u| u.ln_1p()),
            );
        }
    }
    out
}

fn check_moments(spec: &SpecFields, cov_scale: f64) {
    let (_, cov) = three_assets();
    check_moments_of(spec, &cov, cov_scale);
}

/// The simulated log returns have mean T·μ and covariance T·`cov`·scale, within 4 (6) SE.
fn check_moments_of(spec: &SpecFields, cov: &[f64], cov_scale: f64) {
    let mean = &spec.mean;
    let t = spec.horizon as f64;
    let r = simulated_log_returns(spec, 400);
    let n_sim = r[0].len() as f64;
    let means: Vec<f64> = r.iter().map(|x| x.iter().sum::<f64>() / n_sim).collect();
    for i in 0..3 {
        let var = cov[i * 3 + i] * t * cov_scale;
        let se = (var / n_sim).sqrt();
        assert!(
            (means[i] - t * mean[i]).abs() < 4.0 * se,
            "mean of asset {i}"
        );
        for j in 0..=i {
            let c = r[i]
                .iter()
                .zip(&r[j])
                .map(|(a, b)| (a - means[i]) * (b - means[j]))
                .sum::<f64>()
                / (n_sim - 1.0);
            let target = cov[i * 3 + j] * t * cov_scale;
            // SE of a sample covariance: sqrt((σ_ii σ_jj + σ_ij²) / N).
            let se = ((cov[i * 3 + i] * cov[j * 3 + j] + cov[i * 3 + j].powi(2)) / n_sim).sqrt()
                * t
                * cov_scale;
            assert!(
                (c - target).abs() < 4.0 * se * 1.5,
                "cov[{i}][{j}] = {c}, want {target}"
            );
        }
    }
}

#[test]
fn simulated_moments_match_the_model() {
    // 400 blocks of draws, whatever the fixture's N (which must only be valid).
    let n = 400 * BLOCK;
    check_moments(&spec(Method::MonteCarloNormal, Mode::BuyAndHold, n), 1.0);
    // Student-t with ν = 5 is scaled to covariance Σ per day; sums of T days have covariance TΣ.
    check_moments(&spec(Method::MonteCarloStudentT, Mode::BuyAndHold, n), 1.0);
}

/// F·Fᵀ of a row-major n×m factor.
fn product_with_transpose(f: &[f64], n: usize, m: usize) -> Vec<f64> {
    let mut out = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            out[i * n + j] = (0..m).map(|k| f[i * m + k] * f[j * m + k]).sum();
        }
    }
    out
}

#[test]
fn sampling_through_loadings_has_the_covariance_they_factor() {
    let n = 400 * BLOCK;
    // Dense 3×3 loadings L·Q (Q a rotation): the same Σ as the Cholesky fixture, other draws.
    let (_, cov) = three_assets();
    let l = cholesky(&cov, 3);
    let (c, s) = (0.6f64, 0.8f64);
    let q = [c, -s, 0.0, s * c, c * c, -s, s * s, s * c, c];
    let mut rotated = vec![0.0; 9];
    for i in 0..3 {
        for j in 0..3 {
            rotated[i * 3 + j] = (0..3).map(|k| l[i * 3 + k] * q[k * 3 + j]).sum();
        }
    }
    for method in [Method::MonteCarloNormal, Method::MonteCarloStudentT] {
        let mut f = spec(method, Mode::BuyAndHold, n);
        f.factor = rotated.clone();
        f.factor_columns = 3;
        check_moments(&f, 1.0);
    }
    // Two columns for three assets: a singular Σ = F·Fᵀ of rank 2, sampled exactly.
    let low = [0.010, 0.004, 0.012, -0.009, 0.003, 0.006];
    let mut f = spec(Method::MonteCarloNormal, Mode::BuyAndHold, n);
    f.factor = low.to_vec();
    f.factor_columns = 2;
    check_moments_of(&f, &product_with_transpose(&low, 3, 2), 1.0);
}

#[test]
fn single_asset_var_matches_the_lognormal_quantile() {
    let mut s = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 1_000_000);
    s.books = vec![book(1e6, &[1.0])];
    s.mean = vec![0.0003];
    s.factor = vec![0.015];
    let m = run(&s);
    let t = s.horizon as f64;
    let z = normal_quantile(1.0 - s.confidence);
    let exact = -s.books[0].capital * ((t * 0.0003 + t.sqrt() * 0.015 * z).exp() - 1.0);
    assert!(
        (m.value_at_risk - exact).abs() < 4.0 * m.value_at_risk_standard_error,
        "VaR {} vs exact {exact} (se {})",
        m.value_at_risk,
        m.value_at_risk_standard_error
    );
    assert!((m.value_at_risk / exact - 1.0).abs() < 0.01);
    assert!(m.expected_shortfall > m.value_at_risk);
}

#[test]
fn parametric_matches_the_closed_forms() {
    let (mean, cov) = three_assets();
    let input = ParametricInput {
        horizon: 10,
        confidence: 0.99,
        comparison: Comparison::None,
        books: vec![book(1e6, &[0.5, 0.3, 0.2])],
        mean: mean.clone(),
        covariance: CovarianceForm::Dense(cov.clone()),
    };
    let m = parametric(&input).unwrap().books.remove(0);
    let w = &input.books[0].weights;
    let mut var_p = 0.0;
    for i in 0..3 {
        for j in 0..3 {
            var_p += w[i] * w[j] * cov[i * 3 + j];
        }
    }
    let mu_p = 1e6 * 10.0 * (0..3).map(|i| w[i] * mean[i]).sum::<f64>();
    let sigma_p = 1e6 * (10.0 * var_p).sqrt();
    let z = 2.326_347_874_040_840_8;
    assert!((m.value_at_risk - (z * sigma_p - mu_p)).abs() < 1e-8);
    let es = sigma_p * normal_pdf(z) / 0.01 - mu_p;
    assert!((m.expected_shortfall - es).abs() < 1e-8);
    let sum: f64 = m.component_es.iter().sum();
    assert!((sum / m.expected_shortfall - 1.0).abs() < 1e-12);
    assert!(
        (m.percentiles[0] + m.value_at_risk).abs() < 1e-8,
        "p01 = −VaR(99 %)"
    );
    // Through loadings F with F·Fᵀ = Σ (the Cholesky factor is one): the same figures, to rounding.
    let through = ParametricInput {
        covariance: CovarianceForm::Loadings {
            columns: 3,
            values: cholesky(&cov, 3),
        },
        ..input.clone()
    };
    let f = parametric(&through).unwrap().books.remove(0);
    for (a, b) in [
        (f.value_at_risk, m.value_at_risk),
        (f.expected_shortfall, m.expected_shortfall),
    ]
    .into_iter()
    .chain(
        f.component_es
            .iter()
            .copied()
            .zip(m.component_es.iter().copied()),
    )
    .chain(
        f.standalone_var
            .iter()
            .copied()
            .zip(m.standalone_var.iter().copied()),
    ) {
        assert!((a - b).abs() <= 1e-12 * m.value_at_risk, "{a} vs {b}");
    }
}

#[test]
fn component_es_sums_to_es_for_every_method() {
    let hist = historical_spec(Mode::BuyAndHold, 1_500);
    let hist_rebalanced = historical_spec(Mode::Rebalanced, 1_500);
    let cases = [
        spec(Method::MonteCarloNormal, Mode::BuyAndHold, 50_000),
        spec(Method::MonteCarloNormal, Mode::Rebalanced, 20_000),
        spec(Method::MonteCarloStudentT, Mode::BuyAndHold, 20_000),
        spec(Method::MonteCarloStudentT, Mode::Rebalanced, 20_000),
        hist,
        hist_rebalanced,
    ];
    for s in &cases {
        let m = run(s);
        let sum: f64 = m.component_es.iter().sum();
        assert!(
            (sum / m.expected_shortfall - 1.0).abs() < 1e-9,
            "{:?} {:?}: components {sum} vs ES {}",
            s.method,
            s.mode,
            m.expected_shortfall
        );
        assert!(m.all_finite());
        assert!(m.expected_shortfall >= m.value_at_risk);
        assert_eq!(m.counts.iter().sum::<f64>() as usize, m.scenarios);
        assert!(m.percentiles.windows(2).all(|p| p[0] <= p[1]));
        assert!(m.worst_loss <= m.percentiles[0] && m.best_gain >= m.percentiles[8]);
        // Standalone VaR of the largest position is positive at 99 %.
        assert!(m.standalone_var[0] > 0.0);
    }
}

#[test]
fn var_and_es_follow_the_k_worst_definition() {
    let s = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 1_000);
    let partial = risk_engine_core::simulate::simulate(
        &build(&s),
        BlockRange {
            first: 0,
            end: blocks(&s),
        },
        &risk_engine_core::deadline::Deadline::none(),
    )
    .unwrap();
    let mut sorted = partial.books[0].pnl.to_vec();
    sorted.sort_by(f64::total_cmp);
    let m = run(&s);
    let k = 10; // ⌈0.01 · 1000⌉
    assert_eq!(m.value_at_risk, -sorted[k - 1]);
    let es = -sorted[..k].iter().sum::<f64>() / k as f64;
    assert_eq!(m.expected_shortfall, es);
    assert_eq!(m.worst_loss, sorted[0]);
    assert_eq!(m.percentiles[4], sorted[499]); // p50 = x_(500)
}

#[test]
fn antithetic_pairs_mirror_the_normals() {
    let mut s = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 256);
    s.antithetic = true;
    s.mean = vec![0.0; 3];
    let r = simulated_log_returns(&s, 1);
    // R and −R, seen through e^R − 1 and back.
    for pair in r[0].chunks_exact(2) {
        assert!(pair[0] != 0.0 && (pair[0] + pair[1]).abs() < 1e-15);
    }
}
