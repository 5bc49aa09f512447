//! The inputs of `tests/bit_for_bit.rs`: every operation of the flat ABI with several methods,
//! modes, comparisons and importance sampling, built from the shared fixtures, and each answer.

mod filter;
mod garch;
mod options;
mod specs;

use crate::common::*;
use risk_engine_core::abi::call;
use risk_engine_core::abi::constants::*;
use risk_engine_core::spec::{Method, Mode};
use specs::{historical_specs, monte_carlo_specs};

/// OP_RUN, and OP_SIMULATE over three task splits with OP_FINALIZE of their partials.
fn simulation_cases(cases: &mut Vec<(String, Vec<f64>)>) {
    for (name, f) in monte_carlo_specs().into_iter().chain(historical_specs()) {
        let blocks = blocks(&f);
        cases.push((
            format!("run {name}"),
            call(OP_RUN, &encode_fields(&f, 0, blocks)),
        ));
        let first = call(OP_SIMULATE, &encode_fields(&f, 0, blocks / 2));
        let second = call(OP_SIMULATE, &encode_fields(&f, blocks / 2, blocks - 1));
        let third = call(OP_SIMULATE, &encode_fields(&f, blocks - 1, blocks));
        let mut input = vec![3.0];
        for p in [&third, &first, &second] {
            input.extend_from_slice(p);
        }
        cases.push((format!("simulate {name}"), canonical_partial(&first)));
        cases.push((format!("finalize split {name}"), call(OP_FINALIZE, &input)));
    }
}

/// [n, books, T, c, comparison], books, mean, then Σ (dense) or loadings.
fn parametric_cases(cases: &mut Vec<(String, Vec<f64>)>) {
    let (mean, cov) = three_assets();
    let books = [[1e6, 0.5, 0.3, 0.2], [2e6, -0.1, 0.6, 0.5]];
    for (what_if, horizon, confidence) in [(false, 10, 0.99), (true, 1, 0.95), (true, 250, 0.999)] {
        for dense in [true, false] {
            let count = if what_if { 2 } else { 1 };
            let mut input = vec![3.0, count as f64, horizon as f64, confidence];
            input.push(if what_if {
                COMPARISON_WHAT_IF
            } else {
                COMPARISON_NONE
            } as f64);
            for b in &books[..count] {
                input.extend_from_slice(b);
            }
            input.extend_from_slice(&mean);
            if dense {
                input.push(COVARIANCE_DENSE as f64);
                input.extend_from_slice(&cov);
            } else {
                input.push(2.0);
                input.extend_from_slice(&[0.01, 0.002, 0.012, -0.004, 0.003, 0.008]);
            }
            let name =
                format!("parametric what_if={what_if} T={horizon} c={confidence} dense={dense}");
            cases.push((name, call(OP_PARAMETRIC, &input)));
        }
    }
}

/// A kept answer ([status, count, units…, n, k, both lanes' tails]) with each tail in ascending
/// order, as `canonical_partial` orders a partial's: the kept tails are sets too.
pub(crate) fn canonical_kept(p: &[f64]) -> Vec<f64> {
    let at = 2 + p[1] as usize;
    let (n, k) = (p[at] as usize, p[at + 1] as usize);
    let mut out = p.to_vec();
    for list in out[at + 2..].chunks_mut(k.max(1)) {
        list.sort_by(f64::total_cmp);
    }
    assert_eq!(at + 2 + 2 * n * k, p.len(), "kept layout");
    out
}

/// Prices [date][asset] of a SplitMix stream, some missing.
fn prices(n: usize, dates: usize) -> Vec<f64> {
    let mut state = (n * 7919 + dates) as u64;
    let mut p = vec![100.0; n];
    let mut out = Vec::with_capacity(n * dates);
    for d in 0..dates {
        out.extend_from_slice(&p);
        if d % 23 == 5 {
            out[d * n + d % n] = f64::NAN;
        }
        for x in p.iter_mut() {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let z = (state ^ (state >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            *x *= 1.0 + 0.04 * ((z >> 11) as f64 / (1u64 << 53) as f64 - 0.5);
        }
    }
    out
}

/// OP_ESTIMATE (sample, EWMA, lookback, zero drift, a given Σ) and OP_COVARIANCE_PART.
fn estimation_cases(cases: &mut Vec<(String, Vec<f64>)>) {
    let shapes = [
        (1, 40, 0),
        (3, 60, 0),
        (7, 130, 90),
        (40, 120, 0),
        (90, 150, 0),
    ];
    for (n, dates, lookback) in shapes {
        for (zero_drift, ewma) in [(false, false), (true, false), (false, true)] {
            let mut input = vec![dates as f64, n as f64, lookback as f64];
            input.extend_from_slice(&[f64::from(u8::from(zero_drift)), f64::from(u8::from(ewma))]);
            input.extend_from_slice(&[0.94, 0.0]);
            input.extend_from_slice(&prices(n, dates));
            let name =
                format!("n={n} dates={dates} lookback={lookback} zero={zero_drift} ewma={ewma}");
            cases.push((format!("estimate {name}"), call(OP_ESTIMATE, &input)));
            for (part, parts) in [(0, 1), (0, 3), (2, 3), (1, 7)] {
                let mut p = vec![part as f64, parts as f64];
                p.extend_from_slice(&input);
                let out = call(OP_COVARIANCE_PART, &p);
                cases.push((format!("covariance part {part}/{parts} {name}"), out));
            }
        }
    }
    // A given covariance (its lower triangle) instead of the sample one.
    let (n, dates) = (3, 60);
    let mut input = vec![dates as f64, n as f64, 0.0, 0.0, 0.0, 0.94, 1.0];
    input.extend_from_slice(&prices(n, dates));
    input.extend_from_slice(&[4e-4, 1e-4, 9e-4, -5e-5, 2e-5, 1e-4]);
    cases.push((
        "estimate given covariance".to_string(),
        call(OP_ESTIMATE, &input),
    ));
}

/// OP_CONDITIONAL over Σ and loadings, with jitter, and OP_WORST_WINDOW.
fn stress_cases(cases: &mut Vec<(String, Vec<f64>)>) {
    let (mean, cov) = three_assets();
    let scenarios: [&[f64]; 3] = [
        &[1.0, 1.0, 0.0, -0.05],
        &[10.0, 2.0, 1.0, 0.2, 2.0, -0.1],
        &[250.0, 1.0, 2.0, 0.03],
    ];
    for (own, jitter) in [(3, 0.0), (2, 1e-10)] {
        for dense in [true, false] {
            let columns = if dense { COVARIANCE_DENSE } else { 2 };
            let mut input = vec![0.0, 3.0, own as f64, columns as f64, jitter, 3.0];
            input.extend_from_slice(&mean);
            if dense {
                input.extend_from_slice(&cov);
            } else {
                input.extend_from_slice(&[0.01, 0.002, 0.012, -0.004, 0.003, 0.008]);
            }
            scenarios.iter().for_each(|s| input.extend_from_slice(s));
            let name = format!("conditional own={own} jitter={jitter} dense={dense}");
            cases.push((name, call(OP_CONDITIONAL, &input)));
        }
    }
    let (rows, assets) = (300, 3);
    let returns = synthetic_returns(rows, assets);
    let mut prices = vec![100.0; assets];
    for r in returns.chunks(assets) {
        let last = prices[prices.len() - assets..].to_vec();
        prices.extend(last.iter().zip(r).map(|(p, x)| p * (1.0 + x)));
    }
    let rows = rows + 1;
    for exposures in [[1e6, 5e5, -2e5], [0.0, 0.0, 1.0]] {
        let horizons = [1.0, 5.0, 20.0, 250.0, 400.0];
        let mut input = vec![0.0, rows as f64, assets as f64, horizons.len() as f64];
        input.extend_from_slice(&horizons);
        input.extend_from_slice(&exposures);
        input.extend_from_slice(&prices);
        let name = format!("worst window {exposures:?}");
        cases.push((name, call(OP_WORST_WINDOW, &input)));
    }
}

/// Refusals carry their code, detail and message bytes: those must not move either.
fn error_cases(cases: &mut Vec<(String, Vec<f64>)>) {
    let mut f = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 1_000);
    f.confidence = 1.5;
    let errors = [
        ("unknown op", call(99, &[])),
        ("abi with input", call(OP_ABI, &[1.0])),
        ("run bad confidence", call(OP_RUN, &encode_fields(&f, 0, 4))),
        (
            "estimate too short",
            call(
                OP_ESTIMATE,
                &[5.0, 1.0, 0.0, 0.0, 0.0, 0.94, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0],
            ),
        ),
        ("finalize none", call(OP_FINALIZE, &[0.0])),
        (
            "parametric truncated",
            call(OP_PARAMETRIC, &[3.0, 1.0, 10.0]),
        ),
        (
            "conditional bad own",
            call(OP_CONDITIONAL, &[0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 1.0]),
        ),
        (
            "worst window negative budget",
            call(OP_WORST_WINDOW, &[-1.0, 0.0, 0.0, 0.0]),
        ),
    ];
    cases.extend(errors.into_iter().map(|(n, o)| (n.to_string(), o)));
}

pub fn corpus() -> Vec<(String, Vec<f64>)> {
    let mut cases = vec![("abi table".to_string(), call(OP_ABI, &[]))];
    simulation_cases(&mut cases);
    parametric_cases(&mut cases);
    estimation_cases(&mut cases);
    stress_cases(&mut cases);
    error_cases(&mut cases);
    garch::garch_cases(&mut cases);
    garch::bootstrap_cases(&mut cases);
    options::option_cases(&mut cases);
    filter::filter_cases(&mut cases);
    finalize_part_cases(&mut cases);
    own_tail_cases(&mut cases);
    cases
}

/// OP_SIMULATE_OWN_TAILS over halves whose tails it shortens (k = 3,000 of 60,000: a half keeps
/// about 1,730), and OP_FINALIZE of them (OP_RUN's answer: the hash repeats that line's).
fn own_tail_cases(cases: &mut Vec<(String, Vec<f64>)>) {
    let mut f = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 60_000);
    f.confidence = 0.95;
    f.books.push(book(2e6, &[-0.2, 0.7, 0.5]));
    let blocks = blocks(&f);
    let halves = [(0, blocks / 2), (blocks / 2, blocks)]
        .map(|(first, end)| call(OP_SIMULATE_OWN_TAILS, &encode_fields(&f, first, end)));
    cases.push((
        "simulate own tails 60k c=0.95".to_string(),
        canonical_partial(&halves[0]),
    ));
    let mut input = vec![2.0];
    halves.iter().for_each(|p| input.extend_from_slice(p));
    cases.push((
        "finalize own tails 60k c=0.95".to_string(),
        call(OP_FINALIZE, &input),
    ));
    cases.push((
        "run 60k c=0.95".to_string(),
        call(OP_RUN, &encode_fields(&f, 0, blocks)),
    ));
}

/// OP_FINALIZE_PART over runs of three partials and OP_FINALIZE_SPLIT of their summaries (its
/// answer is OP_FINALIZE's: the hash repeats that line's).
fn finalize_part_cases(cases: &mut Vec<(String, Vec<f64>)>) {
    for (name, f) in monte_carlo_specs().into_iter().chain(historical_specs()) {
        let blocks = blocks(&f);
        let partials: Vec<Vec<f64>> = [
            (0, blocks / 2),
            (blocks / 2, blocks - 1),
            (blocks - 1, blocks),
        ]
        .iter()
        .map(|&(first, end)| call(OP_SIMULATE, &encode_fields(&f, first, end)))
        .collect();
        let run = |ps: &[Vec<f64>]| {
            let mut input = vec![ps.len() as f64];
            ps.iter().for_each(|p| input.extend_from_slice(p));
            input
        };
        let (a, b) = (
            call(OP_FINALIZE_PART, &run(&partials[..2])),
            call(OP_FINALIZE_PART, &run(&partials[2..])),
        );
        cases.push((format!("finalize part {name}"), a.clone()));
        let mut input = vec![2.0];
        input.extend(b);
        input.extend(a);
        input.extend(run(&partials));
        cases.push((
            format!("finalize parts merged {name}"),
            call(OP_FINALIZE_SPLIT, &input),
        ));
    }
}
