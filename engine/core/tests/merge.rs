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
