//! A finalize split into parts (OP_FINALIZE_PART over runs of partials, then OP_FINALIZE_SPLIT)
//! gives OP_FINALIZE's answer bit for bit, for splits of 1, 2, 3 and 7 parts over drawn shapes;
//! parts that disagree with their partials are refused. OP_FINALIZE, OP_FINALIZE_PART and
//! OP_FINALIZE_SPLIT over their input handed as separate parts (`call_parts`, read in place)
//! answer what they answer over it joined.
mod common;

use common::task_split::{drawn_bounds, finalize_input, split_finalize};
use common::*;
use risk_engine_core::abi::constants::{
    OP_FINALIZE, OP_FINALIZE_PART, OP_FINALIZE_SPLIT, OP_SIMULATE,
};
use risk_engine_core::abi::{call, call_parts};
use risk_engine_core::spec::{Comparison, Method, Mode, SpecFields};

/// Seven partials of the spec (at drawn block cuts), encoded, in scenario order.
fn seven_partials(f: &SpecFields, d: &mut Draw) -> Vec<Vec<f64>> {
    assert!(blocks(f) >= 7, "seven partials need seven blocks");
    drawn_bounds(f, 7, d)
        .windows(2)
        .map(|w| {
            let p = call(OP_SIMULATE, &encode_spec(f, w[0], w[1]));
            assert_eq!(p[0], 0.0, "simulate failed");
            p
        })
        .collect()
}

fn assert_splits_agree(f: &SpecFields, d: &mut Draw) {
    let partials = seven_partials(f, d);
    let single = call(OP_FINALIZE, &finalize_input(&partials));
    assert_eq!(single[0], 0.0, "finalize failed");
    for parts in [1, 2, 3, 7] {
        let split = split_finalize(&partials, parts);
        assert!(
            same_bits(&single, &split),
            "split into {parts} of {:?} {:?} c={} IS={} books={}",
            f.method,
            f.mode,
            f.confidence,
            f.importance_sampling,
            f.books.len()
        );
    }
}

/// A drawn shape: method, mode, books (long, short, flat), comparison, confidence (edges
/// included), bins, antithetic and importance sampling where the method allows it.
fn drawn_shape(d: &mut Draw) -> SpecFields {
    let method = [
        Method::MonteCarloNormal,
        Method::MonteCarloStudentT,
        Method::Historical,
    ][d.below(3)];
    let mode = [Mode::BuyAndHold, Mode::Rebalanced][d.below(2)];
    let scenarios = 1_800 + d.below(4_000);
    let mut f = if method == Method::Historical {
        historical_spec(mode, scenarios + 9)
    } else {
        let mut f = spec(method, mode, scenarios);
        f.antithetic = d.below(2) == 0;
        f.importance_sampling = d.below(3) == 0;
        f
    };
    f.horizon = 1 + d.below(10);
    if method == Method::Historical {
        f.scenarios = f.returns.len() / 3 - f.horizon + 1;
    }
    f.confidence = [
        0.5,
        0.9,
        0.95,
        0.99,
        0.999,
        1.0 - 1e-9,
        0.5 + 0.5 * d.unit(),
    ][d.below(7)];
    f.histogram_bins = 1 + d.below(100);
    let weights = |d: &mut Draw| -> Vec<f64> {
        match d.below(4) {
            0 => vec![0.0, 0.0, 0.0],
            1 => vec![0.5, -0.3, 0.2],
            _ => (0..3).map(|_| d.unit() - 0.2).collect(),
        }
    };
    f.books = (0..1 + d.below(3))
        .map(|_| book(1e6 * (0.5 + d.unit()), &weights(d)))
        .collect();
    if f.books.len() == 2 && d.below(2) == 0 {
        f.comparison = Comparison::WhatIf;
    }
    f
}

#[test]
fn split_finalize_equals_the_single_one_over_drawn_shapes() {
    let mut d = Draw(20_261_126);
    for _ in 0..24 {
        let f = drawn_shape(&mut d);
        assert_splits_agree(&f, &mut d);
    }
}

#[test]
fn split_finalize_with_ties_equals_the_single_one() {
    // Returns from three values: thousands of equal P&L at every rank and in every bucket.
    let mut d = Draw(7);
    let mut s = historical_spec(Mode::BuyAndHold, 6_000);
    s.horizon = 1;
    s.scenarios = 6_000;
    s.returns = (0..6_000 * 3)
        .map(|i| [-0.01, 0.0, 0.01][(i * 7 + i / 5) % 3])
        .collect();
    for confidence in [0.5, 0.6, 0.95, 0.99] {
        s.confidence = confidence;
        assert_splits_agree(&s, &mut d);
    }
}

#[test]
fn parts_that_disagree_with_their_partials_are_refused() {
    let mut d = Draw(3);
    let f = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 4_000);
    let partials = seven_partials(&f, &mut d);
    let summary = |run: &[Vec<f64>]| call(OP_FINALIZE_PART, &finalize_input(run));
    let merge = |summaries: &[Vec<f64>]| {
        let mut input = vec![summaries.len() as f64];
        for s in summaries {
            input.extend_from_slice(s);
        }
        input.extend(finalize_input(&partials));
        call(OP_FINALIZE_SPLIT, &input)
    };
    let (a, b) = (summary(&partials[..3]), summary(&partials[3..]));
    assert_eq!(merge(&[a.clone(), b.clone()])[0], 0.0);
    // A part missing, a part twice, a count moved to another bucket, a scenario range shifted.
    let mut moved = b.clone();
    // [0, first, end, books, m, bucket₀, count₀, …]: one key from the first bucket to the next.
    assert!(moved[4] >= 2.0, "two buckets at least");
    moved[6] -= 1.0;
    moved[8] += 1.0;
    let mut shifted = b.clone();
    shifted[1] += 1.0;
    for bad in [
        vec![a.clone()],
        vec![a.clone(), a.clone(), b.clone()],
        vec![a.clone(), moved],
        vec![a.clone(), shifted],
        vec![a.clone(), vec![0.0, 1.0]],
    ] {
        let out = merge(&bad);
        assert!(out[0] != 0.0, "a bad part was accepted");
    }
}

/// `call_parts(OP_FINALIZE, [[count], partial…])` is `call` on the joined input, bit for bit, in
/// every layout: one partial per part (read in place), partials split across parts or two in one
/// part, a wrong count, mixed calculations, a damaged partial, an empty part between partials and a
/// partial with a word after it (all joined, `call`'s answer).
#[test]
fn finalize_over_parts_answers_as_over_the_joined_input() {
    let mut d = Draw(20_261_128);
    for _ in 0..8 {
        let f = drawn_shape(&mut d);
        let partials = seven_partials(&f, &mut d);
        let other = seven_partials(
            &spec(Method::MonteCarloNormal, Mode::BuyAndHold, 2_000),
            &mut d,
        );
        let mut damaged = partials[2].clone();
        damaged[1] += 1.0;
        let count = |n: usize| vec![n as f64];
        let whole: Vec<&[f64]> = partials.iter().map(|p| &p[..]).collect();
        let (a, b) = partials[3].split_at(partials[3].len() / 2);
        let layouts: Vec<Vec<Vec<f64>>> = vec![
            [vec![count(7)], partials.clone()].concat(),
            [
                vec![count(7)],
                partials[..3].to_vec(),
                vec![a.to_vec(), b.to_vec()],
                partials[4..].to_vec(),
            ]
            .concat(),
            vec![
                count(7),
                [&partials[0][..], &partials[1][..]].concat(),
                whole[2..].concat(),
            ],
            [vec![count(6)], partials.clone()].concat(),
            [vec![count(1)], vec![partials[0].clone()]].concat(),
            [vec![count(2)], vec![partials[0].clone(), other[1].clone()]].concat(),
            [
                vec![count(3)],
                vec![partials[0].clone(), partials[1].clone(), damaged],
            ]
            .concat(),
            [
                vec![count(2)],
                vec![partials[0].clone(), Vec::new(), partials[1].clone()],
            ]
            .concat(),
            [vec![count(1)], vec![[&partials[0][..], &[0.0]].concat()]].concat(),
            vec![count(0)],
            vec![Vec::new()],
        ];
        for op in [OP_FINALIZE, OP_FINALIZE_PART] {
            let joined = answered_as_joined(op, &layouts);
            assert_eq!(joined[0][0], 0.0, "op {op} failed");
        }
    }
}

/// `call_parts(OP_FINALIZE_SPLIT, [[parts], summary…, [count], partial…])` is `call` on the joined
/// input, bit for bit, and OP_FINALIZE's answer when every part is whole; summaries joined, one
/// split across parts, a count beyond them or not an integer, a damaged summary (refused by the
/// merge) and summaries of other partials are answered as joined.
#[test]
fn a_split_merge_over_parts_answers_as_over_the_joined_input() {
    let mut d = Draw(20_261_203);
    for _ in 0..6 {
        let f = drawn_shape(&mut d);
        let partials = seven_partials(&f, &mut d);
        let summary = |run: &[Vec<f64>]| call(OP_FINALIZE_PART, &finalize_input(run));
        let s = [
            summary(&partials[..2]),
            summary(&partials[2..5]),
            summary(&partials[5..]),
        ];
        let other = summary(&seven_partials(&f, &mut d)[..2]);
        // Its scenario range shifted (the words [0, first, end, …]).
        let mut damaged = s[1].clone();
        damaged[1] += 1.0;
        let count = |n: f64| vec![n];
        let tail = [vec![count(7.0)], partials.clone()].concat();
        let (a, b) = s[1].split_at(s[1].len() / 2);
        let layouts: Vec<Vec<Vec<f64>>> = vec![
            [vec![count(3.0)], s.to_vec(), tail.clone()].concat(),
            [
                vec![count(3.0), [&s[0][..], &s[1][..]].concat(), s[2].clone()],
                tail.clone(),
            ]
            .concat(),
            [
                vec![
                    count(3.0),
                    s[0].clone(),
                    a.to_vec(),
                    b.to_vec(),
                    s[2].clone(),
                ],
                tail.clone(),
            ]
            .concat(),
            [vec![count(4.0)], s.to_vec(), tail.clone()].concat(),
            [vec![count(1.5)], s.to_vec(), tail.clone()].concat(),
            [
                vec![count(3.0), s[0].clone(), damaged, s[2].clone()],
                tail.clone(),
            ]
            .concat(),
            [
                vec![count(3.0), other, s[1].clone(), s[2].clone()],
                tail.clone(),
            ]
            .concat(),
            [
                vec![count(3.0)],
                s.to_vec(),
                vec![count(6.0)],
                partials.clone(),
            ]
            .concat(),
            vec![count(0.0)],
        ];
        let single = call(OP_FINALIZE, &finalize_input(&partials));
        let joined = answered_as_joined(OP_FINALIZE_SPLIT, &layouts);
        for (i, answer) in joined.iter().enumerate().take(3) {
            assert!(
                same_bits(answer, &single),
                "layout {i}: not OP_FINALIZE's answer"
            );
        }
        assert!(joined[5][0] != 0.0, "a damaged summary was accepted");
    }
}

/// `call_parts(op, layout)` is `call` on the joined layout, bit for bit, for every layout; the joined
/// answers, in order.
fn answered_as_joined(op: u32, layouts: &[Vec<Vec<f64>>]) -> Vec<Vec<f64>> {
    layouts
        .iter()
        .enumerate()
        .map(|(i, layout)| {
            let slices: Vec<&[f64]> = layout.iter().map(|p| &p[..]).collect();
            let joined = call(op, &slices.concat());
            assert!(
                same_bits(&call_parts(op, &slices), &joined),
                "op {op} layout {i}"
            );
            joined
        })
        .collect()
}
