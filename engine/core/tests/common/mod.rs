//! Shared fixtures of the engine's integration tests.
#![allow(dead_code)]

use risk_engine_core::api::{call, OP_FINALIZE, OP_RUN, OP_SIMULATE};
use risk_engine_core::codec::{decode_spec, encode_partial};
use risk_engine_core::deadline::Deadline;
use risk_engine_core::finalize::{finalize, FinalizeParams};
use risk_engine_core::metrics::Metrics;
use risk_engine_core::simulate::simulate;
use risk_engine_core::spec::{BlockRange, Method, Mode, Spec};

/// Three assets with realistic daily moments and correlation.
pub fn three_assets() -> (Vec<f64>, Vec<f64>) {
    let vol = [0.012, 0.018, 0.009];
    let corr = [[1.0, 0.6, 0.3], [0.6, 1.0, 0.2], [0.3, 0.2, 1.0]];
    let mut cov = vec![0.0; 9];
    for i in 0..3 {
        for j in 0..3 {
            cov[i * 3 + j] = corr[i][j] * vol[i] * vol[j];
        }
    }
    (vec![0.0004, 0.0002, 0.0001], cov)
}

pub fn cholesky(cov: &[f64], n: usize) -> Vec<f64> {
    risk_engine_core::linalg::cholesky(cov, n).expect("positive definite")
}

pub fn spec(method: Method, mode: Mode, scenarios: usize) -> Spec {
    let (mean, cov) = three_assets();
    Spec {
        method,
        mode,
        portfolio_value: 1_000_000.0,
        weights: vec![0.5, 0.3, 0.2],
        horizon: 10,
        degrees_of_freedom: 5.0,
        seed: 123_456_789,
        antithetic: false,
        scenarios,
        confidence: 0.99,
        histogram_bins: 50,
        mean,
        cholesky: cholesky(&cov, 3),
        returns: Vec::new(),
    }
}

/// Historical simulation over `obs` synthetic daily returns of the three assets.
pub fn historical_spec(mode: Mode, obs: usize) -> Spec {
    let mut s = spec(Method::Historical, mode, 0);
    s.cholesky = Vec::new();
    s.returns = synthetic_returns(obs, 3);
    s.scenarios = obs - s.horizon + 1;
    s
}

/// Deterministic pseudo-returns for historical tests.
pub fn synthetic_returns(obs: usize, n: usize) -> Vec<f64> {
    (0..obs * n)
        .map(|i| {
            let x = ((i as u64).wrapping_mul(2_654_435_761) % 10_007) as f64 / 10_007.0;
            (x - 0.5) * 0.04
        })
        .collect()
}

pub fn params(spec: &Spec) -> FinalizeParams {
    FinalizeParams {
        scenarios: spec.scenarios,
        n_assets: spec.n_assets(),
        confidence: spec.confidence,
        portfolio_value: spec.portfolio_value,
        histogram_bins: spec.histogram_bins,
    }
}

pub fn run(spec: &Spec) -> Metrics {
    let partial = simulate(
        spec,
        BlockRange {
            first: 0,
            end: spec.blocks(),
        },
        &Deadline::none(),
    )
    .expect("valid spec");
    finalize(&params(spec), &mut [partial]).expect("finalize")
}

/// Encodes a spec in the flat ABI layout (what the TypeScript side sends).
pub fn encode_spec(spec: &Spec, first: usize, end: usize) -> Vec<f64> {
    let n = spec.n_assets();
    let method = match spec.method {
        Method::MonteCarloNormal => 0.0,
        Method::MonteCarloStudentT => 1.0,
        Method::Historical => 2.0,
    };
    let mut out = vec![
        method,
        if spec.mode == Mode::Rebalanced {
            1.0
        } else {
            0.0
        },
        n as f64,
        spec.portfolio_value,
        spec.horizon as f64,
        spec.degrees_of_freedom,
        spec.seed as f64,
        if spec.antithetic { 1.0 } else { 0.0 },
        spec.scenarios as f64,
        spec.confidence,
        spec.histogram_bins as f64,
        first as f64,
        end as f64,
        0.0, // no time budget
    ];
    out.extend_from_slice(&spec.weights);
    out.extend_from_slice(&spec.mean);
    if spec.method == Method::Historical {
        out.push((spec.returns.len() / n) as f64);
        out.extend_from_slice(&spec.returns);
    } else {
        out.extend_from_slice(&spec.cholesky);
    }
    let (decoded, _, _) = decode_spec(&out).expect("round trip");
    assert!(&decoded == spec, "spec does not survive encoding");
    out
}

/// Runs through the flat ABI, split at the given block boundaries.
pub fn run_split(spec: &Spec, cuts: &[usize]) -> Vec<f64> {
    let mut bounds = vec![0];
    bounds.extend_from_slice(cuts);
    bounds.push(spec.blocks());
    if bounds.len() == 2 {
        return call(OP_RUN, &encode_spec(spec, 0, spec.blocks()));
    }
    let mut input = vec![(bounds.len() - 1) as f64];
    // Partials in reverse order: finalize must not depend on their order.
    for w in bounds.windows(2).rev() {
        let partial = call(OP_SIMULATE, &encode_spec(spec, w[0], w[1]));
        assert_eq!(partial[0], 0.0, "simulate failed");
        input.extend(partial);
    }
    call(OP_FINALIZE, &input)
}

pub fn encode_partial_of(spec: &Spec, range: BlockRange) -> Vec<f64> {
    encode_partial(spec, &simulate(spec, range, &Deadline::none()).unwrap())
}
