//! Books whose P&L, or its squares, leave double precision: an `Overflow`, never a number that is
//! not one, whether one task runs the calculation or its parts are merged.
mod common;

use common::*;
use risk_engine_core::abi::call;
use risk_engine_core::abi::constants::{ERR_OVERFLOW, OP_FINALIZE, OP_RUN, OP_SIMULATE};
use risk_engine_core::spec::{Method, Mode};

#[test]
fn leverage_beyond_double_precision_is_an_overflow_not_a_number() {
    let mut f = spec(Method::MonteCarloNormal, Mode::Rebalanced, 1_000);
    // Capital 1e-6 holding 1e15 of exposure: a daily move of 1 % multiplies the value by 1e19.
    f.books = vec![book(1e-6, &[1e21, -1e21, 0.0])];
    f.horizon = 1000;
    let out = call(OP_RUN, &encode_spec(&f, 0, blocks(&f)));
    assert_eq!(out[0], f64::from(ERR_OVERFLOW));
}

/// A P&L within double precision whose squares are not (beyond 1e154): the volatility overflows,
/// and the merge of the tasks' partials says so as one task over every scenario does.
#[test]
fn squares_beyond_double_precision_overflow_whether_split_or_not() {
    let mut f = spec(Method::MonteCarloNormal, Mode::Rebalanced, 1_000);
    // As above: each day of the path multiplies the value by about 1e19.
    f.books = vec![book(1e-6, &[1e21, -1e21, 0.0])];
    let mut overflowed = 0;
    for horizon in 6..=16 {
        f.horizon = horizon;
        let whole = call(OP_RUN, &encode_spec(&f, 0, blocks(&f)));
        let halves: Vec<Vec<f64>> = [(0, 2), (2, blocks(&f))]
            .iter()
            .map(|&(a, b)| call(OP_SIMULATE, &encode_spec(&f, a, b)))
            .collect();
        if halves.iter().any(|h| h[0] != 0.0) {
            continue; // the P&L itself beyond double precision: refused by the tasks
        }
        let mut input = vec![2.0];
        halves.iter().for_each(|h| input.extend(h));
        let merged = call(OP_FINALIZE, &input);
        assert_eq!(merged[0], whole[0], "horizon {horizon}");
        overflowed += usize::from(whole[0] == f64::from(ERR_OVERFLOW));
    }
    assert!(
        overflowed > 0,
        "some horizon's squares overflow while its P&L does not"
    );
}
