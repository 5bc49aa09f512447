//! Any split of the blocks over tasks gives the single-task answer, bit for bit.
mod common;

use common::*;
use risk_engine_core::spec::{BlockRange, Method, Mode, SpecFields};

fn assert_split_invariant(spec: &SpecFields) {
    let whole = run_split(spec, &[]);
    assert_eq!(whole[0], 0.0);
    let blocks = blocks(spec);
    for cuts in [vec![1], vec![blocks / 2], vec![1, 2, 3, 5, 8, blocks - 1]] {
        let split = run_split(spec, &cuts);
        let same = whole
            .iter()
            .zip(&split)
            .all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(
            same && whole.len() == split.len(),
            "split {cuts:?} of {:?}",
            spec.method
        );
    }
}

#[test]
fn normal_buy_and_hold_merges_exactly() {
    assert_split_invariant(&spec(Method::MonteCarloNormal, Mode::BuyAndHold, 10_000));
}

#[test]
fn rebalanced_and_student_t_merge_exactly() {
    let mut s = spec(Method::MonteCarloNormal, Mode::Rebalanced, 5_000);
    assert_split_invariant(&s);
    s.method = Method::MonteCarloStudentT;
    assert_split_invariant(&s);
    s.mode = Mode::BuyAndHold;
    s.antithetic = true;
    s.confidence = 0.5; // a large tail: k = N/2
    assert_split_invariant(&s);
}

#[test]
fn historical_merges_exactly() {
    let mut s = historical_spec(Mode::BuyAndHold, 3_000);
    assert_split_invariant(&s);
    s.mode = Mode::Rebalanced;
    assert_split_invariant(&s);
}

#[test]
fn more_scenarios_extend_the_same_draws() {
    // A scenario depends only on (seed, index): the first 1000 P&L of a 2000 run equal a 1000 run.
    let a = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 1_000);
    let b = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 2_000);
    let pa = encode_partial_of(&a, build(&a).all_blocks());
    let pb = encode_partial_of(
        &b,
        BlockRange {
            first: 0,
            end: blocks(&b),
        },
    );
    let (at, bt) = (pnl_offset(&pa), pnl_offset(&pb));
    assert_eq!(&pa[at..at + 1000], &pb[bt..bt + 1000]);
}

#[test]
fn partials_of_a_larger_spec_finalize_as_its_first_scenarios() {
    // Precision rounds simulate under the spec of the cap and finalize a prefix: every figure must
    // be the one of a spec of exactly that many scenarios, however the prefix was split.
    use risk_engine_core::abi::call;
    use risk_engine_core::abi::constants::{OP_FINALIZE, OP_SIMULATE, PARTIAL_SCENARIOS_AT};
    let mut cases = vec![
        spec(Method::MonteCarloNormal, Mode::BuyAndHold, 10_000),
        spec(Method::MonteCarloStudentT, Mode::Rebalanced, 6_000),
    ];
    let mut long_short = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 10_000);
    long_short.books = vec![book(1e6, &[1.5, -0.8, 0.3]), book(1e6, &[0.5, 0.3, 0.2])];
    long_short.comparison = risk_engine_core::spec::Comparison::WhatIf;
    long_short.antithetic = true;
    cases.push(long_short);
    for mut cap in cases {
        for confidence in [0.6, 0.99] {
            cap.confidence = confidence;
            let cap_blocks = blocks(&cap);
            for prefix_blocks in [1, 7, cap_blocks / 2, cap_blocks - 1] {
                let mut exact = cap.clone();
                exact.scenarios = prefix_blocks * 256;
                let whole = run_split(&exact, &[]);
                for cuts in [vec![], vec![prefix_blocks / 2], vec![1, prefix_blocks - 1]] {
                    let mut bounds = vec![0];
                    bounds.extend(cuts.iter().copied().filter(|&c| c > 0 && c < prefix_blocks));
                    bounds.push(prefix_blocks);
                    let mut input = vec![(bounds.len() - 1) as f64];
                    for w in bounds.windows(2) {
                        let mut partial = call(OP_SIMULATE, &encode_spec(&cap, w[0], w[1]));
                        assert_eq!(partial[0], 0.0, "simulate failed");
                        partial[PARTIAL_SCENARIOS_AT] = exact.scenarios as f64;
                        input.extend(partial);
                    }
                    let prefix = call(OP_FINALIZE, &input);
                    let same = prefix.len() == whole.len()
                        && prefix
                            .iter()
                            .zip(&whole)
                            .all(|(a, b)| a.to_bits() == b.to_bits());
                    assert!(
                        same,
                        "{:?} {:?} c = {confidence}: the first {prefix_blocks} blocks of {cap_blocks}, cuts {cuts:?}",
                        cap.method, cap.mode
                    );
                }
            }
        }
    }
}
