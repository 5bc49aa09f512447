//! Any split of the blocks over tasks gives the single-task answer, bit for bit; altered partials
//! are refused.
mod common;

use common::*;
use risk_engine_core::abi::call;
use risk_engine_core::abi::constants::{ERR_INVALID_INPUT, OP_FINALIZE, PARTIAL_HEADER_LEN};
use risk_engine_core::deadline::Deadline;
use risk_engine_core::merge::finalize::{finalize, FinalizeParams};
use risk_engine_core::scenario_tail::ScenarioTail;
use risk_engine_core::simulate::{simulate, Partial};
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
fn ties_at_the_tail_merge_exactly() {
    // Returns from three values: thousands of scenarios share each P&L, also at the VaR rank and
    // at the ends of the component-VaR window, and the split puts equal P&L in different tasks.
    // 20,000 scenarios: at c = 0.6 a task's candidates are cut at sampled keys (from 4,096 on).
    let mut s = historical_spec(Mode::BuyAndHold, 20_000);
    s.horizon = 1;
    s.scenarios = 20_000;
    s.returns = (0..20_000 * 3)
        .map(|i| [-0.01, 0.0, 0.01][(i * 7 + i / 5) % 3])
        .collect();
    for confidence in [0.6, 0.95, 0.99] {
        s.confidence = confidence;
        assert_split_invariant(&s);
    }
}

#[test]
fn a_worst_list_that_disagrees_with_its_pnl_is_refused() {
    let mut f = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 4_000);
    f.confidence = 0.9;
    let spec = build(&f);
    let half = spec.blocks() / 2;
    let split = |alter: &dyn Fn(&mut ScenarioTail)| {
        let mut partials: Vec<Partial> = [(0, half), (half, spec.blocks())]
            .iter()
            .map(|&(first, end)| {
                simulate(&spec, BlockRange { first, end }, &Deadline::none()).expect("valid")
            })
            .collect();
        alter(&mut partials[1].books[0].worst);
        finalize(&FinalizeParams::of(&spec), &mut partials)
    };
    assert!(split(&|_| {}).is_ok());
    let altered: [&dyn Fn(&mut ScenarioTail); 3] = [
        // A key that is not its scenario's P&L.
        &|w| w.keys[0] ^= 1,
        // A tail scenario missing (with its asset P&L): the task's worst, in any tail.
        &|w| {
            let p = (0..w.keys.len()).min_by_key(|&p| w.keys[p]).unwrap();
            w.keys.remove(p);
            w.indices.remove(p);
            w.asset_pnl.drain(3 * p..3 * p + 3);
        },
        // An index outside the partial.
        &|w| w.indices[0] = 0,
    ];
    for alter in altered {
        let err = split(alter).expect_err("an altered worst list");
        assert!(
            format!("{err:?}").contains("partial tails do not match"),
            "{err:?}"
        );
    }
}

/// Partials altered on their way to finalize are refused, never a panic (a P&L moved out of the
/// task's reported tail, or a confidence that asks for a larger tail than the task kept).
#[test]
fn altered_partials_are_refused_without_panicking() {
    let s = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 1_000);
    let partial = encode_partial_of(&s, build(&s).all_blocks());
    let k = partial[PARTIAL_HEADER_LEN - 3] as usize;
    let first_pnl = pnl_offset(&partial);
    let pnl = first_pnl..first_pnl + 1_000;
    let mut worse = partial.clone();
    let (at, _) = worse[pnl]
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .unwrap();
    worse[first_pnl + at] = -1e12; // the best scenario now the worst, but not in the tail
    let mut wider = partial;
    wider[3] = 0.9; // k = 100, the task kept 10
    assert!(k < 100);
    for bad in [worse, wider] {
        let mut input = vec![1.0];
        input.extend(bad);
        let out = call(OP_FINALIZE, &input);
        assert_eq!(out[0], f64::from(ERR_INVALID_INPUT));
    }
}
