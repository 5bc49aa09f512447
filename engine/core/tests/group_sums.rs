//! A live book's group sums (OP_SIMULATE_KEPT given memory it keeps between calls): whatever the
//! memory holds — nothing, sums for the same exposures, for others, for another range, for another
//! book count, of a pricing cut short, of the wrong length, kept rows spoiled — the partial is the
//! one pricing without it gives, bit for bit, at books of 1 to 3 groups and their edges, with worst
//! sets within the kept rows' room and beyond it.
mod common;

use common::*;
use risk_engine_core::abi::constants::*;
use risk_engine_core::abi::{call, call_led, call_led_summed, group_sums_words};
use risk_engine_core::group_sums::{group_count, GROUP_SUMS_HEADER, ROW_CACHE_PER_BLOCK};
use risk_engine_core::spec::{Method, Mode, SpecFields};

/// `n` uncorrelated assets (volatilities 0.5 % to 2.5 % a day), one book over them.
fn wide(n: usize, scenarios: usize, d: &mut Draw) -> SpecFields {
    let mut f = spec(Method::MonteCarloNormal, Mode::BuyAndHold, scenarios);
    f.mean = (0..n).map(|i| 0.0001 * (i % 5) as f64).collect();
    let mut factor = vec![0.0; n * n];
    for i in 0..n {
        factor[i * n + i] = 0.005 + 0.02 * d.unit();
    }
    f.factor = factor;
    f.books = vec![book(1_000_000.0, &weights(n, d))];
    f
}

/// Weights of either sign, some zero (+0 and −0).
fn weights(n: usize, d: &mut Draw) -> Vec<f64> {
    (0..n)
        .map(|_| match d.below(8) {
            0 => 0.0,
            1 => -0.0,
            2 => -d.unit(),
            _ => d.unit(),
        })
        .collect()
}

/// One range's lead: OP_UNITS's answer after its status word.
fn lead(f: &SpecFields, first: usize, end: usize) -> Vec<f64> {
    let units = call(OP_UNITS, &encode_spec(f, first, end));
    assert_eq!(units[0], 0.0, "units failed: {}", message(&units));
    units[1..].to_vec()
}

/// Prices `f` over blocks `(first, end)` on `lead` with and without `sums`; both must be the same
/// partial.
fn check(f: &SpecFields, (first, end): (usize, usize), lead: &[f64], sums: &mut [f64], what: &str) {
    let input = encode_spec(f, first, end);
    let plain = call_led(OP_SIMULATE_KEPT, lead, &input);
    let summed = call_led_summed(OP_SIMULATE_KEPT, lead, &input, sums);
    assert!(same_bits(&plain, &summed), "{what}: summed differs");
}

#[test]
fn kept_group_sums_price_as_summing_again() {
    let mut d = Draw(31);
    for n in [1, 15, 16, 17, 31, 32, 33, 40] {
        let mut f = wide(n, 1_500, &mut d);
        let blocks = blocks(&f);
        let (first, end) = (1, blocks);
        let range = (first, end);
        let lead = lead(&f, first, end);
        let words = group_sums_words(OP_SIMULATE_KEPT, &encode_spec(&f, first, end)).unwrap();
        let mut sums = vec![0.0; words];
        check(&f, range, &lead, &mut sums, &format!("n {n}: empty"));
        assert_eq!(sums[0], 1.0, "n {n}: clean after a whole pricing");
        check(
            &f,
            range,
            &lead,
            &mut sums,
            &format!("n {n}: same exposures"),
        );
        for round in 0..12 {
            let w = &mut f.books[0].weights;
            match round % 4 {
                // One exposure moved (a price tick), in a group chosen at random.
                0 => w[d.below(n)] *= 1.0 + 0.01 * d.unit(),
                // Several, across groups.
                1 => (0..3).for_each(|_| w[d.below(n)] = d.unit() - 0.5),
                // A sign only: −0 for +0, a short for a long.
                2 => {
                    let i = d.below(n);
                    w[i] = -w[i];
                }
                // The capital: every exposure.
                _ => f.books[0].capital *= 1.5,
            }
            check(&f, range, &lead, &mut sums, &format!("n {n} round {round}"));
        }
        // A second book (a what-if's twin): other sums, the memory of one book is not theirs.
        let mut two = f.clone();
        two.books.push(book(500_000.0, &weights(n, &mut d)));
        two.comparison = risk_engine_core::spec::Comparison::WhatIf;
        let mut sums2 =
            vec![0.0; group_sums_words(OP_SIMULATE_KEPT, &encode_spec(&two, first, end)).unwrap()];
        check(&two, range, &lead, &mut sums2, &format!("n {n}: two books"));
        check(
            &f,
            range,
            &lead,
            &mut sums,
            &format!("n {n}: one book again"),
        );
    }
}

#[test]
fn memory_of_another_range_length_or_state_is_summed_again() {
    let mut d = Draw(7);
    let f = wide(20, 2_048, &mut d);
    let (a, b) = (lead(&f, 0, 4), lead(&f, 4, 8));
    let words = group_sums_words(OP_SIMULATE_KEPT, &encode_spec(&f, 0, 4)).unwrap();
    let mut sums = vec![0.0; words];
    check(&f, (0, 4), &a, &mut sums, "range 0..4");
    // The same length, another range (and other units): summed again, not reused.
    check(&f, (4, 8), &b, &mut sums, "range 4..8 in 0..4's memory");
    check(&f, (0, 4), &a, &mut sums, "back to 0..4");
    // A stamp altered by hand (an exposure the sums were not made for): that group summed again.
    let stamp = 5 + 3;
    sums[stamp] += 1.0;
    check(&f, (0, 4), &a, &mut sums, "altered stamp");
    // A dirty state (a pricing cut short): every group summed again.
    sums[0] = 0.0;
    // The header, then 20 exposures, then the sums: one of them spoiled.
    sums[5 + 20 + 100] = f64::NAN;
    check(&f, (0, 4), &a, &mut sums, "dirty");
    // Memory of the wrong length is not used at all.
    for len in [0, words - 1, words + 1] {
        let mut other = vec![-1.0; len];
        check(&f, (0, 4), &a, &mut other, &format!("length {len}"));
        assert!(other.iter().all(|&x| x == -1.0), "length {len}: untouched");
    }
}

/// Where book 0's kept rows start in the memory of `books` books of `n` assets over `blocks`.
fn rows_at(books: usize, n: usize, blocks: usize) -> usize {
    GROUP_SUMS_HEADER + books * n + blocks * books * group_count(n) * BLOCK
}

#[test]
fn kept_rows_are_the_units_and_spoiled_ones_are_not_used() {
    let mut d = Draw(11);
    let n = 20;
    let mut f = wide(n, 4_096, &mut d);
    let (first, end) = (2, 8);
    let blocks = end - first;
    let lead = lead(&f, first, end);
    let words = group_sums_words(OP_SIMULATE_KEPT, &encode_spec(&f, first, end)).unwrap();
    let mut sums = vec![0.0; words];
    check(&f, (first, end), &lead, &mut sums, "first");
    let at = rows_at(1, n, blocks);
    let capacity = blocks * ROW_CACHE_PER_BLOCK;
    let held = sums[at] as usize;
    assert!(held > 0 && held <= capacity, "the worst set kept: {held}");
    // Each kept row is its scenario's units, as the lead holds them (after its count: asset-major
    // per block).
    let block_words = n * BLOCK;
    for j in 0..held {
        let index = sums[at + 1 + j] as usize;
        let block = &lead[1 + (index / BLOCK - first) * block_words..][..block_words];
        for i in 0..n {
            let kept = sums[at + 1 + capacity + j * n + i];
            assert_eq!(
                kept.to_bits(),
                block[i * BLOCK + index % BLOCK].to_bits(),
                "row {j} asset {i}"
            );
        }
    }
    // A tick, then the same again: rows read from the memory give the same partial.
    f.books[0].weights[3] *= 1.01;
    check(&f, (first, end), &lead, &mut sums, "a tick");
    check(&f, (first, end), &lead, &mut sums, "again");
    // Spoiled rows are not read: a count past the room, not whole, negative or NaN; indices not
    // rising, outside the range or not whole; a row's value changed is a row still believed (the
    // memory is the engine's own, like the sums), so only the bookkeeping is checked here.
    for k in 0..8 {
        check(
            &f,
            (first, end),
            &lead,
            &mut sums,
            &format!("before spoiling {k}"),
        );
        match k {
            0 => sums[at] = (capacity + 1) as f64,
            1 => sums[at] = 2.5,
            2 => sums[at] = -1.0,
            3 => sums[at] = f64::NAN,
            4 => sums.swap(at + 1, at + 2),
            5 => sums[at + 1] = 0.0,
            6 => sums[at + 1] += 0.5,
            _ => sums[at + 2] = 1e18,
        }
        check(&f, (first, end), &lead, &mut sums, &format!("spoiled {k}"));
    }
    // A worst set past the room (80 % confidence: a fifth of the scenarios): rows from the units.
    let mut wide_tail = f.clone();
    wide_tail.confidence = 0.8;
    let mut other = vec![0.0; words];
    check(&wide_tail, (first, end), &lead, &mut other, "past the room");
    assert_eq!(other[at], 0.0, "nothing kept past the room");
    // Another range (as many blocks) whose worst set is past the room: the rows kept for the
    // first range are forgotten, never left for the next pricing of this one to believe.
    let (first2, end2) = (first + 3, end + 3);
    let lead2 = crate::lead(&wide_tail, first2, end2);
    assert!(sums[at] > 0.0, "rows kept for the first range");
    check(
        &wide_tail,
        (first2, end2),
        &lead2,
        &mut sums,
        "another range past the room",
    );
    assert_eq!(sums[at], 0.0, "another range's rows forgotten");
}

/// Natively a call stops itself at its deadline (in WASM the host ends the worker instead).
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn a_pricing_cut_short_leaves_the_memory_dirty() {
    let mut d = Draw(99);
    let f = wide(24, 1_024, &mut d);
    let lead = lead(&f, 0, 4);
    let mut sums = vec![0.0; group_sums_words(OP_SIMULATE_KEPT, &encode_spec(&f, 0, 4)).unwrap()];
    check(&f, (0, 4), &lead, &mut sums, "first");
    // A budget already spent (the header's budget word): refused at the first block.
    let mut late = encode_spec(&f, 0, 4);
    late[13] = 1e-9;
    let out = call_led_summed(OP_SIMULATE_KEPT, &lead, &late, &mut sums);
    assert_ne!(out[0], 0.0, "a pricing past its deadline is refused");
    assert_eq!(sums[0], 0.0, "dirty after a pricing cut short");
    check(&f, (0, 4), &lead, &mut sums, "after the failure");
    assert_eq!(sums[0], 1.0);
}

#[test]
fn other_operations_ignore_the_memory() {
    let mut d = Draw(3);
    let f = wide(18, 512, &mut d);
    assert_eq!(group_sums_words(OP_SIMULATE, &encode_spec(&f, 0, 2)), None);
    let mut sums = vec![7.0; 10];
    let input = encode_spec(&f, 0, 2);
    let lead = lead(&f, 0, 2);
    for op in [OP_SIMULATE, OP_UNITS, OP_OPTION_UNITS] {
        let plain = call_led(op, &lead, &input);
        let led = call_led_summed(op, &lead, &input, &mut sums);
        assert!(same_bits(&plain, &led), "op {op}");
    }
    assert!(sums.iter().all(|&x| x == 7.0));
}
