//! The stress operations: conditional scenarios against the bivariate normal's closed form and an
//! explicit 2×2 inverse, dense Σ against the same Σ through loadings, a passed deadline, and every
//! malformed input refused through the ABI (the worst window's figures: tests/worst_window.rs).
mod common;

use common::three_assets;
use risk_engine_core::abi::call;
use risk_engine_core::abi::constants::*;
use risk_engine_core::deadline::Deadline;
use risk_engine_core::error::EngineError;
use risk_engine_core::parametric::CovarianceForm;
use risk_engine_core::stress::conditional::{conditional, ConditionalInput, ConditionalScenario};
use risk_engine_core::stress::worst_window::{worst_windows, WorstWindowInput};

const MAX_HORIZON_DAYS: usize = risk_engine_core::limits::MAX_HORIZON;

fn scenario(horizon: usize, shocked: &[usize], log_shocks: &[f64]) -> ConditionalScenario {
    ConditionalScenario {
        horizon,
        shocked: shocked.to_vec(),
        log_shocks: log_shocks.to_vec(),
    }
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()).max(1e-300)
}

#[test]
fn one_shock_of_two_assets_is_the_bivariate_normals_closed_form() {
    let (s0, s1, rho, m0, m1) = (0.012, 0.02, -0.35, 0.0003, -0.0001);
    let cov = vec![s0 * s0, rho * s0 * s1, rho * s0 * s1, s1 * s1];
    for (horizon, x) in [(1, -0.05), (10, 0.2), (1000, -3.0)] {
        let input = ConditionalInput::new(
            2,
            vec![m0, m1],
            CovarianceForm::Dense(cov.clone()),
            0.0,
            vec![scenario(horizon, &[1], &[x])],
        )
        .unwrap();
        let out = &conditional(&input, &Deadline::none()).unwrap()[0];
        let t = horizon as f64;
        let mean = t * m0 + rho * s0 / s1 * (x - t * m1);
        let sd = t.sqrt() * s0 * (1.0 - rho * rho).sqrt();
        assert!(close(out.log_means[0], mean, 1e-12), "{out:?} {mean}");
        assert!(close(out.sds[0], sd, 1e-12), "{out:?} {sd}");
        assert_eq!(
            (out.log_means[1], out.sds[1]),
            (x, 0.0),
            "the shocked symbol keeps its shock"
        );
    }
}

#[test]
fn two_shocks_of_three_assets_match_an_explicit_inverse() {
    let (mean, cov) = three_assets();
    let (horizon, x) = (5.0, [-0.1, 0.04]);
    let input = ConditionalInput::new(
        3,
        mean.clone(),
        CovarianceForm::Dense(cov.clone()),
        0.0,
        vec![scenario(5, &[1, 2], &x)],
    )
    .unwrap();
    let out = &conditional(&input, &Deadline::none()).unwrap()[0];
    // Σ_ss⁻¹ of the 2×2 block by its adjugate.
    let (a, b, d) = (cov[4], cov[5], cov[8]);
    let det = a * d - b * b;
    let inv = [d / det, -b / det, -b / det, a / det];
    let cross = [cov[1], cov[2]];
    let dx = [x[0] - horizon * mean[1], x[1] - horizon * mean[2]];
    let w = [
        cross[0] * inv[0] + cross[1] * inv[2],
        cross[0] * inv[1] + cross[1] * inv[3],
    ];
    let want_mean = horizon * mean[0] + w[0] * dx[0] + w[1] * dx[1];
    let want_sd = (horizon * (cov[0] - w[0] * cross[0] - w[1] * cross[1])).sqrt();
    assert!(close(out.log_means[0], want_mean, 1e-12));
    assert!(close(out.sds[0], want_sd, 1e-12));
}

/// A deterministic n×m matrix of loadings, entries in (−0.01, 0.01).
fn loadings(n: usize, m: usize) -> Vec<f64> {
    (0..n * m)
        .map(|k| 0.01 * ((k as f64 * 0.618_033_988_75).fract() * 2.0 - 1.0))
        .collect()
}

#[test]
fn loadings_give_what_their_dense_covariance_gives() {
    let (n, m) = (12, 40);
    let f = loadings(n, m);
    let mut dense = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            dense[i * n + j] = (0..m).map(|t| f[i * m + t] * f[j * m + t]).sum();
        }
    }
    let mean: Vec<f64> = (0..n).map(|i| 1e-4 * i as f64).collect();
    let scenarios = vec![
        scenario(10, &[0, 7], &[-0.2, 0.05]),
        scenario(1, &[3, 4, 11], &[0.1, -0.1, 0.0]),
    ];
    let run = |covariance| {
        let input =
            ConditionalInput::new(9, mean.clone(), covariance, 0.0, scenarios.clone()).unwrap();
        conditional(&input, &Deadline::none()).unwrap()
    };
    let from_dense = run(CovarianceForm::Dense(dense));
    let from_loadings = run(CovarianceForm::Loadings {
        columns: m,
        values: f,
    });
    for (d, l) in from_dense.iter().zip(&from_loadings) {
        for i in 0..9 {
            assert!(close(d.log_means[i], l.log_means[i], 1e-10), "mean {i}");
            assert!(close(d.sds[i], l.sds[i], 1e-10), "sd {i}");
        }
    }
    // Shocked symbol 11 lies outside the book's 9: it conditions the others and is not reported.
    assert_eq!(from_dense[1].log_means.len(), 9);
}

#[test]
fn more_shocks_than_loadings_columns_are_repaired_not_refused() {
    let (n, m) = (8, 2);
    let input = ConditionalInput::new(
        8,
        vec![0.0; n],
        CovarianceForm::Loadings {
            columns: m,
            values: loadings(n, m),
        },
        0.0,
        vec![scenario(
            1,
            &[0, 1, 2, 3, 4],
            &[-0.1, -0.1, -0.1, -0.1, -0.1],
        )],
    )
    .unwrap();
    let out = &conditional(&input, &Deadline::none()).unwrap()[0];
    assert!(out.log_means.iter().chain(&out.sds).all(|x| x.is_finite()));
}

// Natively only: wasm32 has no clock (a deadline never passes there; the host terminates the
// worker instead), so the wait below would never end.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn a_passed_deadline_stops_the_solve() {
    let deadline = Deadline::after_ms(1e-3);
    // Waits for the condition itself, not a fixed time.
    while !deadline.passed() {
        std::hint::spin_loop();
    }
    let (mean, cov) = three_assets();
    let input = ConditionalInput::new(
        3,
        mean,
        CovarianceForm::Dense(cov),
        0.0,
        vec![scenario(1, &[0], &[0.1])],
    )
    .unwrap();
    assert_eq!(
        conditional(&input, &deadline),
        Err(EngineError::DeadlineExceeded)
    );
    let prices = vec![1.0, 2.0, 3.0];
    let worst = WorstWindowInput::new(vec![1.0], prices, vec![1]).unwrap();
    assert_eq!(
        worst_windows(&worst, &deadline),
        Err(EngineError::DeadlineExceeded)
    );
}

#[test]
fn invalid_scenarios_are_refused_at_construction() {
    let (mean, cov) = three_assets();
    let build = |own: usize, jitter: f64, s: ConditionalScenario| {
        ConditionalInput::new(
            own,
            mean.clone(),
            CovarianceForm::Dense(cov.clone()),
            jitter,
            vec![s],
        )
    };
    assert!(build(3, 0.0, scenario(1, &[0], &[0.1])).is_ok());
    assert!(build(3, 0.0, scenario(MAX_HORIZON_DAYS, &[0], &[0.1])).is_ok());
    let bad = [
        build(4, 0.0, scenario(1, &[0], &[0.1])),
        build(3, -1.0, scenario(1, &[0], &[0.1])),
        build(3, f64::NAN, scenario(1, &[0], &[0.1])),
        build(3, 0.0, scenario(0, &[0], &[0.1])),
        build(3, 0.0, scenario(MAX_HORIZON_DAYS + 1, &[0], &[0.1])),
        build(3, 0.0, scenario(1, &[], &[])),
        build(3, 0.0, scenario(1, &[1, 0], &[0.1, 0.1])),
        build(3, 0.0, scenario(1, &[1, 1], &[0.1, 0.1])),
        build(3, 0.0, scenario(1, &[3], &[0.1])),
        build(3, 0.0, scenario(1, &[0], &[f64::INFINITY])),
        build(3, 0.0, scenario(1, &[0, 1], &[0.1])),
    ];
    for (i, b) in bad.iter().enumerate() {
        assert!(
            matches!(b, Err(EngineError::InvalidInput(_))),
            "case {i}: {b:?}"
        );
    }
}

#[test]
fn conditional_through_the_abi_has_its_layout() {
    let (mean, cov) = three_assets();
    let mut input = vec![0.0, 3.0, 2.0, COVARIANCE_DENSE as f64, 0.0, 2.0];
    assert_eq!(input.len(), CONDITIONAL_HEADER_LEN);
    input.extend(&mean);
    input.extend(&cov);
    input.extend([10.0, 1.0, 2.0, (-0.1f64).ln_1p()]);
    input.extend([1.0, 2.0, 0.0, 0.05, 1.0, -0.02]);
    let out = call(OP_CONDITIONAL, &input);
    assert_eq!(&out[..CONDITIONAL_RESULT_HEADER_LEN], &[0.0, 2.0, 2.0]);
    assert_eq!(out.len(), CONDITIONAL_RESULT_HEADER_LEN + 2 * 2 * 2);
    // Second scenario shocks both book symbols: their own log shocks, deviations 0.
    assert_eq!(
        &out[CONDITIONAL_RESULT_HEADER_LEN + 4..],
        &[0.05, -0.02, 0.0, 0.0]
    );
}

/// A status an edited input may get: an answer, a refusal of the input, the deadline (a budget
/// made small) or an overflow (a Σ made indefinite).
fn refused_or_answered(status: f64) -> bool {
    [0, ERR_INVALID_INPUT, ERR_DEADLINE_EXCEEDED, ERR_OVERFLOW]
        .iter()
        .any(|&c| status == f64::from(c))
}

#[test]
fn malformed_stress_inputs_are_errors_never_panics() {
    let (mean, cov) = three_assets();
    let mut good = vec![0.0, 3.0, 3.0, COVARIANCE_DENSE as f64, 0.0, 1.0];
    good.extend(&mean);
    good.extend(&cov);
    good.extend([1.0, 1.0, 0.0, 0.1]);
    assert_eq!(call(OP_CONDITIONAL, &good)[0], 0.0);
    let edges = [
        0.0,
        1.0,
        2f64.powi(31),
        2f64.powi(32) - 1.0,
        2f64.powi(32),
        2f64.powi(53) - 1.0,
        -1.0,
        0.5,
        f64::NAN,
    ];
    for field in 0..good.len() {
        for &v in &edges {
            let mut bad = good.clone();
            bad[field] = v;
            let out = call(OP_CONDITIONAL, &bad);
            assert!(
                refused_or_answered(out[0]),
                "field {field} = {v}: {}",
                out[0]
            );
        }
        assert_ne!(
            call(OP_CONDITIONAL, &good[..field])[0],
            0.0,
            "truncated at {field}"
        );
    }
    let mut worst = vec![0.0, 3.0, 1.0, 1.0, 1.0, 1.0, 100.0, 90.0, 95.0];
    assert_eq!(call(OP_WORST_WINDOW, &worst)[0], 0.0);
    for field in 0..worst.len() {
        for &v in &edges {
            let saved = worst[field];
            worst[field] = v;
            let out = call(OP_WORST_WINDOW, &worst);
            assert!(
                refused_or_answered(out[0]),
                "field {field} = {v}: {}",
                out[0]
            );
            worst[field] = saved;
        }
    }
}
