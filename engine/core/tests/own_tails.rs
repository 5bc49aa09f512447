//! Tasks that keep only their own share of each tail (OP_SIMULATE_OWN_TAILS): merged, they give
//! OP_RUN's answer bit for bit over drawn shapes and splits, or ERR_TAILS_SHORT where the merge
//! cannot prove a kept tail long enough (a book whose P&L ties at the boundary, a lane whose k-th
//! lies beyond a short list), never a wrong figure. Historical and weighted scenarios keep full
//! tails.
mod common;

use common::task_split::{drawn_bounds, split_finalize};
use common::*;
use risk_engine_core::abi::call;
use risk_engine_core::abi::constants::{
    ERR_TAILS_SHORT, OP_FINALIZE, OP_RUN, OP_SIMULATE, OP_SIMULATE_OWN_TAILS, PARTIAL_HEADER_LEN,
};
use risk_engine_core::spec::{Book, Comparison, Method, Mode, SpecFields, TaskTails};

/// The tasks' partials over blocks cut at `bounds`, by `op`.
fn partials(f: &SpecFields, op: u32, bounds: &[usize]) -> Vec<Vec<f64>> {
    bounds
        .windows(2)
        .map(|w| {
            let p = call(op, &encode_spec(f, w[0], w[1]));
            assert_eq!(p[0], 0.0, "simulate failed: {}", message(&p));
            p
        })
        .collect()
}

/// OP_FINALIZE over the partials, handed over in reverse order.
fn merged(partials: &[Vec<f64>]) -> Vec<f64> {
    let mut input = vec![partials.len() as f64];
    for p in partials.iter().rev() {
        input.extend_from_slice(p);
    }
    call(OP_FINALIZE, &input)
}

/// Confidence levels from the bounds of the domain inwards.
const LEVELS: [f64; 7] = [0.5, 0.9, 0.95, 0.975, 0.99, 0.999, 1.0 - f64::EPSILON / 2.0];

/// A drawn spec: either Monte Carlo method and mode, one to three books (some short, some of no
/// exposure), what-if.
fn drawn_spec(d: &mut Draw) -> SpecFields {
    let method = [Method::MonteCarloNormal, Method::MonteCarloStudentT][d.below(2)];
    let mode = [Mode::BuyAndHold, Mode::Rebalanced][d.below(2)];
    let scenarios = [1, 255, 256, 257, 3_000, 40_000, 120_000][d.below(7)];
    // Rebalanced paths cost a draw per day each: fewer of them.
    let scenarios = if mode == Mode::Rebalanced {
        scenarios.min(40_000)
    } else {
        scenarios
    };
    let mut f = spec(method, mode, scenarios);
    f.horizon = 1 + d.below(10);
    f.antithetic = d.below(2) == 1;
    f.confidence = LEVELS[d.below(LEVELS.len())];
    f.books = (0..1 + d.below(3))
        .map(|_| book(1e6, &[d.unit() * 2.0 - 0.5, d.unit() - 0.3, d.unit()]))
        .collect();
    if f.books.len() == 2 && d.below(2) == 1 {
        f.comparison = Comparison::WhatIf;
    }
    // A book of no exposure (under a what-if, the book after trades that close it) in some cases.
    if d.below(4) == 0 {
        let last = f.books.len() - 1;
        f.books[last] = book(1e6, &[0.0, -0.0, 0.0]);
    }
    f
}

#[test]
fn own_share_tails_merge_to_the_full_answer_bit_for_bit() {
    let mut d = Draw(0x0A11_7A15);
    let (mut shortened, mut unexposed) = (0, 0);
    for case in 0..48 {
        let f = drawn_spec(&mut d);
        let bounds = drawn_bounds(&f, 2 + d.below(6), &mut d);
        let whole = call(OP_RUN, &encode_spec(&f, 0, blocks(&f)));
        assert_eq!(whole[0], 0.0, "run failed: {}", message(&whole));
        let own = partials(&f, OP_SIMULATE_OWN_TAILS, &bounds);
        let full = partials(&f, OP_SIMULATE, &bounds);
        let short = own.iter().zip(&full).any(|(o, w)| o.len() < w.len());
        shortened += usize::from(short);
        unexposed += usize::from(short && !f.books.iter().all(Book::has_exposure));
        let answer = merged(&own);
        assert!(
            same_bits(&answer, &whole),
            "case {case}: {:?} {:?} N={} c={} cuts {bounds:?}: {}",
            f.method,
            f.mode,
            f.scenarios,
            f.confidence,
            message(&answer)
        );
        if own.len() >= 2 {
            assert!(
                same_bits(&split_finalize(&own, 2), &whole),
                "case {case}: split"
            );
        }
    }
    // The large drawn shapes keep shorter tails than the full ones: the check above is not idle.
    assert!(shortened >= 8, "only {shortened} cases kept shorter tails");
    assert!(
        unexposed >= 2,
        "only {unexposed} of them with a book of no exposure"
    );
}

/// A book on an asset of no volatility (its factor row zeroed) has the same P&L in every
/// scenario: every key ties at the boundary, so an own share cannot be proven long enough.
#[test]
fn a_book_tied_at_its_boundary_answers_tails_short_and_full_tails_answer() {
    let mut f = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 100_000);
    f.books = vec![book(1e6, &[1.0, 0.0, 0.0])];
    f.factor[0] = 0.0;
    let bounds = [0, blocks(&f) / 2, blocks(&f)];
    let short = merged(&partials(&f, OP_SIMULATE_OWN_TAILS, &bounds));
    assert_eq!(short[0], f64::from(ERR_TAILS_SHORT), "{}", message(&short));
    let whole = call(OP_RUN, &encode_spec(&f, 0, blocks(&f)));
    assert!(same_bits(
        &merged(&partials(&f, OP_SIMULATE, &bounds)),
        &whole
    ));
}

/// A book of no exposure (weights 0 of either sign: a what-if closing the book) ties at every
/// rank too, so the books keep their full worst lists and the merge answers; the asset lanes
/// still keep their own share.
#[test]
fn a_book_of_no_exposure_keeps_its_full_worst_list() {
    let mut f = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 100_000);
    f.books.push(book(1e6, &[0.0, -0.0, 0.0]));
    let bounds = [0, blocks(&f) / 2, blocks(&f)];
    let own = partials(&f, OP_SIMULATE_OWN_TAILS, &bounds);
    let whole = call(OP_RUN, &encode_spec(&f, 0, blocks(&f)));
    assert!(
        same_bits(&merged(&own), &whole),
        "{}",
        message(&merged(&own))
    );
    let full = partials(&f, OP_SIMULATE, &bounds);
    for (o, w) in own.iter().zip(&full) {
        // Header words 10 and 11: the worst lists' length w and the lanes' k, as the task kept them.
        assert_eq!(o[10], w[10], "full worst lists");
        assert!(o[11] < w[11], "own-share asset lanes");
    }
}

/// The first asset's lane of smallest units in an encoded partial (shared lanes, one book).
fn first_lane(p: &mut [f64]) -> &mut [f64] {
    let (n, books, held) = (p[2] as usize, p[4] as usize, p[11] as usize);
    let at = PARTIAL_HEADER_LEN + books * (1 + n);
    &mut p[at..at + held]
}

/// Lane values moved far above the rest in the second task: the union's k-th then lies beyond the
/// first task's short lane, which may have left out smaller ones. Full lanes are not questioned.
#[test]
fn a_lane_whose_kth_lies_beyond_a_short_list_answers_tails_short() {
    let f = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 100_000);
    let bounds = [0, blocks(&f) / 2, blocks(&f)];
    for (op, expected) in [
        (OP_SIMULATE_OWN_TAILS, f64::from(ERR_TAILS_SHORT)),
        (OP_SIMULATE, 0.0),
    ] {
        let mut tasks = partials(&f, op, &bounds);
        for (i, x) in first_lane(&mut tasks[1]).iter_mut().enumerate() {
            *x = 10.0 + i as f64 * 1e-3;
        }
        assert_eq!(merged(&tasks)[0], expected, "op {op}");
    }
}

/// Historical windows (not exchangeable) and weighted scenarios keep the full tails.
#[test]
fn historical_and_weighted_scenarios_keep_full_tails() {
    let historical = historical_spec(Mode::BuyAndHold, 3_000);
    let mut weighted = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 20_000);
    weighted.importance_sampling = true;
    for f in [historical, weighted] {
        let bounds = [0, blocks(&f) / 2, blocks(&f)];
        let own = partials(&f, OP_SIMULATE_OWN_TAILS, &bounds);
        let full = partials(&f, OP_SIMULATE, &bounds);
        assert!(own.iter().zip(&full).all(|(o, w)| same_bits(o, w)));
    }
}

/// A task's own share: about k/T and a margin, never more than the full tail or its scenarios.
#[test]
fn an_own_share_is_the_expected_share_and_its_margin() {
    let f = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 1_000_000);
    let s = build(&f);
    // k = 10,000: half the scenarios expect 5,000, deviation √(5,000 · ½) = 50: six of them and 64 more.
    assert_eq!(s.task_tail(10_000, 500_000, TaskTails::OwnShare), 5_364);
    assert_eq!(s.task_tail(10_000, 500_000, TaskTails::Full), 10_000);
    // The whole calculation, small tails and small tasks keep what a full tail keeps.
    assert_eq!(s.task_tail(10_000, 1_000_000, TaskTails::OwnShare), 10_000);
    assert_eq!(s.task_tail(40, 500_000, TaskTails::OwnShare), 40);
    // A block of a million: 2.56 expected, deviation 1.6, ⌈2.56 + 9.6⌉ + 64.
    assert_eq!(s.task_tail(10_000, 256, TaskTails::OwnShare), 77);
    assert_eq!(s.task_tail(10_000, 64, TaskTails::OwnShare), 64);
    assert_eq!(s.task_tail(0, 500_000, TaskTails::OwnShare), 0);
    for count in [1, 255, 4_096, 65_536, 999_999] {
        let kept = s.task_tail(10_000, count, TaskTails::OwnShare);
        assert!(kept <= count.min(10_000) && kept * 1_000_000 >= 10_000 * count);
    }
}
