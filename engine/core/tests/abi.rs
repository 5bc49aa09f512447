//! The ABI's named constants: `OP_ABI` reports each by name with its value, and the layouts are as
//! long as the constants say.
mod common;

use common::*;
use risk_engine_core::abi::call;
use risk_engine_core::abi::codec::{
    decode_covariance_part_input, decode_estimation_input, decode_parametric, decode_spec,
    encode_results,
};
use risk_engine_core::abi::constants::*;
use risk_engine_core::spec::{Method, Mode};

/// Every constant the TypeScript side may compare, in `OP_ABI`'s order, written out by hand so
/// that a constant dropped from (or renamed in) the table fails here.
fn expected() -> Vec<(&'static str, f64)> {
    vec![
        ("OP_ESTIMATE", f64::from(OP_ESTIMATE)),
        ("OP_SIMULATE", f64::from(OP_SIMULATE)),
        ("OP_FINALIZE", f64::from(OP_FINALIZE)),
        ("OP_PARAMETRIC", f64::from(OP_PARAMETRIC)),
        ("OP_RUN", f64::from(OP_RUN)),
        ("OP_NORMALS", f64::from(OP_NORMALS)),
        ("OP_BENCH_PEAK", f64::from(OP_BENCH_PEAK)),
        ("OP_BENCH_COVARIANCE", f64::from(OP_BENCH_COVARIANCE)),
        ("OP_BENCH_CORRELATE", f64::from(OP_BENCH_CORRELATE)),
        ("OP_ABI", f64::from(OP_ABI)),
        ("OP_COVARIANCE_PART", f64::from(OP_COVARIANCE_PART)),
        ("OP_CONDITIONAL", f64::from(OP_CONDITIONAL)),
        ("OP_WORST_WINDOW", f64::from(OP_WORST_WINDOW)),
        ("OP_UNITS", f64::from(OP_UNITS)),
        ("OP_SIMULATE_KEPT", f64::from(OP_SIMULATE_KEPT)),
        ("OP_GARCH_FIT", f64::from(OP_GARCH_FIT)),
        ("OP_BOOTSTRAP_PATHS", f64::from(OP_BOOTSTRAP_PATHS)),
        ("OP_OPTION_UNITS", f64::from(OP_OPTION_UNITS)),
        ("OP_OPTION_GREEKS", f64::from(OP_OPTION_GREEKS)),
        ("OP_FILTER", f64::from(OP_FILTER)),
        ("OP_FINALIZE_PART", f64::from(OP_FINALIZE_PART)),
        ("OP_FINALIZE_SPLIT", f64::from(OP_FINALIZE_SPLIT)),
        ("OP_SIMULATE_OPTIONS", f64::from(OP_SIMULATE_OPTIONS)),
        ("OP_SIMULATE_OWN_TAILS", f64::from(OP_SIMULATE_OWN_TAILS)),
        ("BLOCK", BLOCK as f64),
        ("PNL_GROUP", PNL_GROUP as f64),
        ("GROUP_SUMS_HEADER", GROUP_SUMS_HEADER as f64),
        ("ROW_CACHE_PER_BLOCK", ROW_CACHE_PER_BLOCK as f64),
        ("FACTOR_TRIANGULAR", FACTOR_TRIANGULAR as f64),
        (
            "METHOD_MONTE_CARLO_NORMAL",
            METHOD_MONTE_CARLO_NORMAL as f64,
        ),
        (
            "METHOD_MONTE_CARLO_STUDENT_T",
            METHOD_MONTE_CARLO_STUDENT_T as f64,
        ),
        ("METHOD_HISTORICAL", METHOD_HISTORICAL as f64),
        ("MODE_BUY_AND_HOLD", MODE_BUY_AND_HOLD as f64),
        ("MODE_REBALANCED", MODE_REBALANCED as f64),
        ("ESTIMATION_HEADER_LEN", ESTIMATION_HEADER_LEN as f64),
        (
            "COVARIANCE_PART_HEADER_LEN",
            COVARIANCE_PART_HEADER_LEN as f64,
        ),
        (
            "COVARIANCE_PART_RESULT_HEADER_LEN",
            COVARIANCE_PART_RESULT_HEADER_LEN as f64,
        ),
        ("SPEC_HEADER_LEN", SPEC_HEADER_LEN as f64),
        ("PARTIAL_HEADER_LEN", PARTIAL_HEADER_LEN as f64),
        (
            "ESTIMATION_RESULT_HEADER_LEN",
            ESTIMATION_RESULT_HEADER_LEN as f64,
        ),
        ("RESULTS_HEADER_LEN", RESULTS_HEADER_LEN as f64),
        ("COMPARISON_FIGURES", COMPARISON_FIGURES as f64),
        ("COMPARISON_NONE", COMPARISON_NONE as f64),
        ("COMPARISON_WHAT_IF", COMPARISON_WHAT_IF as f64),
        ("VARIANCE_REDUCTION_NONE", VARIANCE_REDUCTION_NONE as f64),
        (
            "VARIANCE_REDUCTION_IMPORTANCE_SAMPLING",
            VARIANCE_REDUCTION_IMPORTANCE_SAMPLING as f64,
        ),
        ("METRICS_SCALARS", METRICS_SCALARS as f64),
        ("PERCENTILES", PERCENTILES as f64),
        ("PARAMETRIC_HEADER_LEN", PARAMETRIC_HEADER_LEN as f64),
        ("COVARIANCE_DENSE", COVARIANCE_DENSE as f64),
        ("CONDITIONAL_HEADER_LEN", CONDITIONAL_HEADER_LEN as f64),
        (
            "CONDITIONAL_RESULT_HEADER_LEN",
            CONDITIONAL_RESULT_HEADER_LEN as f64,
        ),
        ("WORST_WINDOW_HEADER_LEN", WORST_WINDOW_HEADER_LEN as f64),
        (
            "WORST_WINDOW_RESULT_HEADER_LEN",
            WORST_WINDOW_RESULT_HEADER_LEN as f64,
        ),
        ("WORST_WINDOW_NONE", WORST_WINDOW_NONE),
        ("GARCH_FIT_HEADER_LEN", GARCH_FIT_HEADER_LEN as f64),
        (
            "GARCH_FIT_RESULT_HEADER_LEN",
            GARCH_FIT_RESULT_HEADER_LEN as f64,
        ),
        ("GARCH_FIT_WORDS", GARCH_FIT_WORDS as f64),
        ("BOOTSTRAP_HEADER_LEN", BOOTSTRAP_HEADER_LEN as f64),
        (
            "BOOTSTRAP_RESULT_HEADER_LEN",
            BOOTSTRAP_RESULT_HEADER_LEN as f64,
        ),
        ("FILTER_HEADER_LEN", FILTER_HEADER_LEN as f64),
        ("FILTER_RESULT_HEADER_LEN", FILTER_RESULT_HEADER_LEN as f64),
        ("FILTER_SEED_RETURNS", FILTER_SEED_RETURNS as f64),
        ("ERR_INVALID_INPUT", f64::from(ERR_INVALID_INPUT)),
        ("ERR_INSUFFICIENT_DATA", f64::from(ERR_INSUFFICIENT_DATA)),
        ("ERR_LIMIT_EXCEEDED", f64::from(ERR_LIMIT_EXCEEDED)),
        ("ERR_DEADLINE_EXCEEDED", f64::from(ERR_DEADLINE_EXCEEDED)),
        ("ERR_OVERFLOW", f64::from(ERR_OVERFLOW)),
        ("ERR_TAILS_SHORT", f64::from(ERR_TAILS_SHORT)),
        ("MAX_BOOKS", MAX_BOOKS as f64),
        ("MAX_PRICED_SCENARIOS", MAX_PRICED_SCENARIOS as f64),
        ("MAX_COUNT", MAX_COUNT as f64),
        ("MAX_EXACT_INT", MAX_EXACT_INT),
        (
            "MIN_IMPORTANCE_DEGREES_OF_FREEDOM",
            MIN_IMPORTANCE_DEGREES_OF_FREEDOM,
        ),
        ("MAX_BOOTSTRAP_STEPS", MAX_BOOTSTRAP_STEPS as f64),
        ("OPTION_HEADER_LEN", OPTION_HEADER_LEN as f64),
        ("OPTION_FIELDS", OPTION_FIELDS as f64),
        ("OPTION_NO_FX", OPTION_NO_FX as f64),
        ("OPTION_CALL", OPTION_CALL as f64),
        ("OPTION_PUT", OPTION_PUT as f64),
        ("MODEL_BLACK_SCHOLES", MODEL_BLACK_SCHOLES as f64),
        ("MODEL_BLACK76", MODEL_BLACK76 as f64),
        ("VALUATION_FULL", VALUATION_FULL as f64),
        ("VALUATION_DELTA_GAMMA", VALUATION_DELTA_GAMMA as f64),
        ("VALUATION_DELTA", VALUATION_DELTA as f64),
        ("VALUATION_GIVEN", VALUATION_GIVEN as f64),
        ("MAX_OPTIONS", MAX_OPTIONS as f64),
        ("MAX_OPTION_SCENARIOS", MAX_OPTION_SCENARIOS as f64),
        ("MIN_VOLATILITY", MIN_VOLATILITY),
        ("MAX_VOLATILITY", MAX_VOLATILITY),
        ("VERSION_MAJOR", f64::from(VERSION_MAJOR)),
        ("VERSION_MINOR", f64::from(VERSION_MINOR)),
        ("VERSION_PATCH", f64::from(VERSION_PATCH)),
    ]
}

/// Reads `[0, count, (name length, name bytes, value)…]` the way the TypeScript side does.
fn decode_table(out: &[f64]) -> Vec<(String, f64)> {
    assert_eq!(out[0], 0.0, "OP_ABI succeeds");
    let mut at = 2;
    let mut table = Vec::new();
    for _ in 0..out[1] as usize {
        let len = out[at] as usize;
        let bytes: Vec<u8> = out[at + 1..at + 1 + len].iter().map(|&b| b as u8).collect();
        let name = String::from_utf8(bytes).expect("UTF-8 names");
        table.push((name, out[at + 1 + len]));
        at += len + 2;
    }
    assert_eq!(at, out.len(), "nothing after the last constant");
    table
}

#[test]
fn op_abi_reports_every_constant_once_with_its_value() {
    let table = decode_table(&call(OP_ABI, &[]));
    let mut names: Vec<&str> = table.iter().map(|(n, _)| n.as_str()).collect();
    names.sort_unstable();
    let count = names.len();
    names.dedup();
    assert_eq!(names.len(), count, "names are unique");
    let want: Vec<(String, f64)> = expected()
        .into_iter()
        .map(|(n, v)| (n.to_string(), v))
        .collect();
    assert_eq!(table, want);
}

#[test]
fn op_abi_values_are_the_wire_values() {
    // The numbers the TypeScript binding has always sent (src/engine/ops.ts, codec.ts).
    let table = decode_table(&call(OP_ABI, &[]));
    let get = |name: &str| table.iter().find(|(n, _)| n == name).unwrap().1;
    let ops = ["OP_ESTIMATE", "OP_SIMULATE", "OP_FINALIZE", "OP_PARAMETRIC"];
    for (code, name) in (1..).zip(ops) {
        assert_eq!(get(name), f64::from(code), "{name}");
    }
    assert_eq!(
        (get("OP_RUN"), get("OP_NORMALS"), get("OP_ABI")),
        (5.0, 6.0, 7.0)
    );
    assert_eq!((get("BLOCK"), get("SPEC_HEADER_LEN")), (256.0, 16.0));
    assert_eq!(get("METHOD_HISTORICAL"), 2.0);
    assert_eq!(get("ERR_DEADLINE_EXCEEDED"), 4.0);
    assert_eq!(get("MAX_EXACT_INT"), 9_007_199_254_740_991.0);
    let version = format!(
        "{}.{}.{}",
        get("VERSION_MAJOR"),
        get("VERSION_MINOR"),
        get("VERSION_PATCH")
    );
    assert_eq!(version, risk_engine_core::VERSION);
}

#[test]
fn op_abi_takes_no_input() {
    let out = call(OP_ABI, &[1.0]);
    assert_eq!(out[0], f64::from(ERR_INVALID_INPUT));
}

/// Each decoder reads exactly its header before the arrays: one value more or less is refused.
#[test]
fn headers_are_as_long_as_their_constants() {
    let s = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 300);
    let encoded = encode_spec(&s, 0, 1);
    let arrays = &encoded[SPEC_HEADER_LEN..];
    assert_eq!(
        arrays[0], s.books[0].capital,
        "the book's capital follows the header"
    );
    assert_eq!(arrays[1..4], s.books[0].weights[..], "then its weights");
    assert!(decode_spec(&encoded).is_ok());

    let prices = [100.0, 101.0, 102.0];
    let mut estimation = vec![3.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    assert_eq!(estimation.len(), ESTIMATION_HEADER_LEN);
    estimation.extend(prices);
    assert!(decode_estimation_input(&estimation).is_ok());
    assert!(decode_estimation_input(&estimation[1..]).is_err());
    // A given covariance: one asset's lower triangle is one value.
    let mut given = estimation.clone();
    given[ESTIMATION_HEADER_LEN - 1] = 1.0;
    assert!(
        decode_estimation_input(&given).is_err(),
        "its value missing"
    );
    given.push(1e-4);
    assert!(decode_estimation_input(&given).is_ok());
    given.push(1e-4);
    assert!(
        decode_estimation_input(&given).is_err(),
        "one value too many"
    );
    let mut part = vec![0.0, 2.0];
    assert_eq!(part.len(), COVARIANCE_PART_HEADER_LEN);
    part.extend(&estimation);
    assert!(decode_covariance_part_input(&part).is_ok());
    assert!(decode_covariance_part_input(&part[1..]).is_err());

    let mut parametric = vec![1.0, 1.0, 10.0, 0.99, 0.0];
    assert_eq!(parametric.len(), PARAMETRIC_HEADER_LEN);
    parametric.extend([1e6, 1.0, 0.0, COVARIANCE_DENSE as f64, 1e-4]);
    assert!(decode_parametric(&parametric).is_ok());
    assert!(decode_parametric(&parametric[..parametric.len() - 1]).is_err());

    let results = run_all(&s);
    let m = &results.books[0];
    let out = encode_results(&results);
    assert_eq!(
        out[..RESULTS_HEADER_LEN],
        [0.0, 1.0, 0.0],
        "status, books, comparison"
    );
    let at = RESULTS_HEADER_LEN;
    let n_at = at + METRICS_SCALARS + PERCENTILES;
    assert_eq!(out[at], m.scenarios as f64);
    assert_eq!(out[at + METRICS_SCALARS..n_at], m.percentiles[..]);
    assert_eq!(out[n_at], 3.0, "asset count after the percentiles");

    // k = 3 of 300, the worst-scenario tail k + 1 = 4: header, the book, one lane of 3 × 3 tail
    // values, the P&L, and 4 worst scenarios with index, P&L and 3 asset P&L.
    let partial = encode_partial_of(&s, build(&s).all_blocks());
    assert_eq!(partial[PARTIAL_HEADER_LEN - 5], 300.0, "count");
    assert_eq!(partial[PARTIAL_HEADER_LEN - 1], 0.0, "not ranked");
    assert_eq!(
        partial.len(),
        PARTIAL_HEADER_LEN + 4 + 9 + 300 + 4 * (3 + 2)
    );
}
