//! Every input the engine refuses, refused at the boundary with InvalidInput (never a panic).
mod common;

use common::*;
use risk_engine_core::abi::call;
use risk_engine_core::abi::constants::{
    ERR_DEADLINE_EXCEEDED, ERR_INSUFFICIENT_DATA, ERR_INVALID_INPUT, ERR_LIMIT_EXCEEDED,
    OP_ESTIMATE, OP_FINALIZE, OP_NORMALS, OP_PARAMETRIC, OP_RUN, OP_SIMULATE, PARTIAL_HEADER_LEN,
};
use risk_engine_core::spec::{Method, Mode};

const INVALID: f64 = ERR_INVALID_INPUT as f64;
const INSUFFICIENT: f64 = ERR_INSUFFICIENT_DATA as f64;

fn valid_input() -> Vec<f64> {
    encode_spec(
        &spec(Method::MonteCarloStudentT, Mode::BuyAndHold, 1_000),
        0,
        4,
    )
}

fn assert_refused(input: &[f64], what: &str) {
    let out = call(OP_RUN, input);
    assert_eq!(out[0], INVALID, "{what} was accepted");
    assert!(
        message(&out).starts_with("invalid engine input"),
        "{what}: {}",
        message(&out)
    );
}

#[test]
fn every_spec_field_is_checked() {
    assert_eq!(call(OP_RUN, &valid_input())[0], 0.0);
    // (index in the header, bad value, what)
    let cases: &[(usize, f64, &str)] = &[
        (0, 7.0, "unknown method"),
        (0, 0.5, "fractional method"),
        (2, 0.0, "no assets"),
        (2, 4.0, "asset count longer than the data"),
        (3, 0.0, "zero portfolio value"),
        (3, f64::INFINITY, "infinite portfolio value"),
        (3, f64::NAN, "NaN portfolio value"),
        (4, 0.0, "zero horizon"),
        (4, 1001.0, "horizon over 1000"),
        (5, 2.0, "2 degrees of freedom"),
        (5, 5.5, "fractional degrees of freedom"),
        (6, -1.0, "negative seed"),
        (6, 1e300, "seed beyond 2^53"),
        (8, 0.0, "no scenarios"),
        (8, 2e8, "too many scenarios"),
        (9, 0.4, "confidence below 0.5"),
        (9, 1.0, "confidence of 1"),
        (10, 0.0, "no histogram bins"),
        (11, 3.0, "range not starting at 0 for run"),
        (12, 5.0, "range past the last block"),
        (13, -1.0, "negative time budget"),
        (14, f64::NAN, "NaN weight"),
        (17, f64::INFINITY, "infinite mean"),
        (20, f64::NAN, "NaN in the Cholesky factor"),
    ];
    for &(at, bad, what) in cases {
        let mut input = valid_input();
        input[at] = bad;
        assert_refused(&input, what);
    }
    let mut short = valid_input();
    short.pop();
    assert_refused(&short, "truncated input");
    let mut long = valid_input();
    long.push(0.0);
    assert_refused(&long, "trailing values");
    assert_refused(&[], "empty input");
}

#[test]
fn tail_memory_is_bounded() {
    let mut s = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 100_000_000);
    s.confidence = 0.5;
    s.books[0].weights = vec![1.0 / 3.0; 3];
    let input = encode_fields(&s, 0, 1);
    let out = call(OP_SIMULATE, &input);
    assert_eq!(out[0], ERR_LIMIT_EXCEEDED as f64, "LimitExceeded");
    assert!(message(&out).contains("too large"), "{}", message(&out));
}

#[test]
fn historical_scenarios_must_match_the_windows() {
    let s = historical_spec(Mode::BuyAndHold, 100);
    let mut input = encode_spec(&s, 0, blocks(&s));
    input[8] = 50.0;
    assert_refused(&input, "wrong window count");
    let mut t = s.clone();
    t.horizon = 100; // one window only
    t.scenarios = 1;
    assert_eq!(call(OP_RUN, &encode_spec(&t, 0, 1))[0], 0.0);
}

#[test]
fn estimation_input_is_checked() {
    let ok = |prices: Vec<f64>, dates: usize| {
        let mut v = vec![dates as f64, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0];
        v.extend(prices);
        v
    };
    let good: Vec<f64> = (0..40).map(|d| 100.0 + (d % 3) as f64).collect();
    assert_eq!(call(OP_ESTIMATE, &ok(good.clone(), 40))[0], 0.0);
    let mut zero = good.clone();
    zero[5] = 0.0;
    assert_eq!(call(OP_ESTIMATE, &ok(zero, 40))[0], INVALID);
    let mut inf = good.clone();
    inf[5] = f64::INFINITY;
    assert_eq!(call(OP_ESTIMATE, &ok(inf, 40))[0], INVALID);
    let few = call(OP_ESTIMATE, &ok(good[..20].to_vec(), 20));
    assert_eq!((few[0], few[1]), (INSUFFICIENT, 19.0));
    let mut ewma = ok(good, 40);
    ewma[4] = 1.0;
    ewma[5] = 1.5;
    assert_eq!(call(OP_ESTIMATE, &ewma)[0], INVALID);
}

#[test]
fn parametric_and_finalize_inputs_are_checked() {
    let (mean, cov) = three_assets();
    // [n, books, T, c, comparison], the book [capital, weights], mean, dense covariance.
    let mut p = vec![3.0, 1.0, 10.0, 0.99, 0.0, 1e6, 0.5, 0.3, 0.2];
    p.extend(mean);
    p.push(0.0);
    p.extend(cov);
    assert_eq!(call(OP_PARAMETRIC, &p)[0], 0.0);
    let bad_fields = [
        (0, 0.0),
        (1, 0.0),
        (1, 2.0),
        (2, 0.0),
        (3, 1.0),
        (4, 2.0),
        (4, 1.0), // a what-if needs two books
        (5, -1.0),
        (6, f64::NAN),
    ];
    for (at, bad) in bad_fields {
        let mut q = p.clone();
        q[at] = bad;
        assert_eq!(call(OP_PARAMETRIC, &q)[0], INVALID, "parametric field {at}");
    }
    assert_eq!(call(OP_FINALIZE, &[0.0])[0], INVALID, "no partials");
    let s = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 1_000);
    let partial = call(OP_SIMULATE, &encode_spec(&s, 0, 2));
    let mut input = vec![1.0];
    input.extend(&partial);
    assert_eq!(
        call(OP_FINALIZE, &input)[0],
        INVALID,
        "a gap: blocks 2..4 missing"
    );
    assert_eq!(call(99, &[])[0], INVALID, "unknown operation");
}

/// OP_FINALIZE's input: the count, then the partials.
fn finalize_input(partials: &[Vec<f64>]) -> Vec<f64> {
    let mut input = vec![partials.len() as f64];
    partials.iter().for_each(|p| input.extend(p));
    input
}

#[test]
fn finalize_refuses_headers_no_spec_would_make() {
    // Where a partial's first book lies: its capital, then its weights.
    let capital_at = PARTIAL_HEADER_LEN;
    // Long only (one lane of smallest values), and with a short and a flat position (two lanes).
    for weights in [[0.5, 0.3, 0.2], [0.6, 0.0, -0.2]] {
        let mut s = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 1_000);
        s.books[0].weights = weights.to_vec();
        let halves = [
            call(OP_SIMULATE, &encode_spec(&s, 0, 2)),
            call(OP_SIMULATE, &encode_spec(&s, 2, 4)),
        ];
        assert_eq!(call(OP_FINALIZE, &finalize_input(&halves))[0], 0.0);
        // A capital ≤ 0 turns every exposure's sign: long only, it would read a lane never kept
        // (0, −0 and −1 passed before; NaN and ∞ were refused already and stay refused).
        for bad in [0.0, -0.0, -1.0, f64::NAN, f64::INFINITY] {
            let mut parts = halves.clone();
            parts.iter_mut().for_each(|p| p[capital_at] = bad);
            let out = call(OP_FINALIZE, &finalize_input(&parts));
            assert_eq!(out[0], INVALID, "{weights:?}: capital {bad}");
        }
        // The same header but for a weight's sign: +0 and −0 read different lanes (the flat
        // weight is the case `==` let through; a non-zero one negated was refused already).
        for at in 1..=3 {
            let mut parts = halves.clone();
            parts[1][capital_at + at] = -parts[1][capital_at + at];
            let out = call(OP_FINALIZE, &finalize_input(&parts));
            assert_eq!(
                out[0], INVALID,
                "{weights:?}: weight {at} negated in one partial"
            );
        }
    }
}

#[cfg(feature = "bench-ops")]
#[test]
fn the_bench_op_draws_normals() {
    let normals = call(OP_NORMALS, &[7.0, 1000.0]);
    assert_eq!(normals[0], 0.0);
    assert!(
        normals[1].abs() < 4.0 * 1000f64.sqrt(),
        "sum of 1000 normals"
    );
    assert_eq!(call(OP_NORMALS, &[7.0])[0], INVALID);
    let too_many = call(OP_NORMALS, &[7.0, 2e9]);
    assert_eq!(
        message(&too_many),
        "invalid engine input: at most 1e9 normals"
    );
}

/// Benchmark operations are not part of the product ABI: their code is reserved, and unknown.
#[cfg(not(feature = "bench-ops"))]
#[test]
fn the_bench_op_is_unknown_without_its_feature() {
    let out = call(OP_NORMALS, &[7.0, 1000.0]);
    assert_eq!(out[0], INVALID);
    assert_eq!(message(&out), "invalid engine input: unknown operation");
}

/// Natively only: wasm32 has no clock, and there the host terminates the worker instead.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn a_spent_time_budget_stops_the_task() {
    let s = spec(Method::MonteCarloStudentT, Mode::Rebalanced, 2_000_000);
    let mut input = encode_spec(&s, 0, blocks(&s));
    input[13] = 1.0; // 1 ms for two million simulations
    let out = call(OP_RUN, &input);
    assert_eq!(out[0], ERR_DEADLINE_EXCEEDED as f64, "DeadlineExceeded");
}

#[test]
fn a_partial_claiming_absurd_dimensions_is_refused_without_allocating() {
    // Regression (cargo fuzz): n = 1e12 assets with an empty tail used to allocate per asset.
    let partial = [0.0, 1.0, 1e12, 0.99, 1.0, 10.0, 0.0, 1.0, 0.0, -5.0];
    let mut input = vec![1.0];
    input.extend_from_slice(&partial);
    assert_eq!(call(OP_FINALIZE, &input)[0], INVALID);
}

/// Option Greeks that leave double precision are refused as an overflow, never answered as ∞ or
/// NaN: Γ = φ(d₁)/(S·σ√τ) for a spot near the smallest doubles, and the input the fuzzer found
/// (a spot of 1.5e-213 and τ of 1e-314 years, where S·σ√τ underflows to 0 and Γ was 0/0).
#[test]
fn option_greeks_that_overflow_are_refused() {
    use risk_engine_core::abi::constants::{
        ERR_OVERFLOW, MODEL_BLACK_SCHOLES, OPTION_CALL, OPTION_NO_FX, OP_OPTION_GREEKS,
        VALUATION_FULL,
    };
    let greeks = |spot: f64, strike: f64, volatility: f64, dividend: f64, tau: f64| {
        call(
            OP_OPTION_GREEKS,
            &[
                1.0,
                0.0,
                VALUATION_FULL as f64,
                OPTION_CALL as f64,
                MODEL_BLACK_SCHOLES as f64,
                spot,
                strike,
                volatility,
                0.0,
                dividend,
                tau,
                OPTION_NO_FX as f64,
            ],
        )
    };
    let overflow = ERR_OVERFLOW as f64;
    assert_eq!(
        greeks(1.5e-213, 1.5e-42, 2.0, 1.9e-307, 1.0e-314)[0],
        overflow
    );
    // A day to expiry at the least volatility: S·σ√τ = 5e-311 for a spot of 1e-303.
    assert_eq!(greeks(1e-303, 1e-303, 1e-6, 0.0, 1.0 / 365.0)[0], overflow);
    // The same option at a spot the Greeks fit answers every one finite.
    let fine = greeks(100.0, 100.0, 0.2, 0.0, 1.0 / 365.0);
    assert_eq!(fine[0], 0.0);
    assert!(fine.iter().all(|x| x.is_finite()));
}
