//! OP_SIMULATE_OPTIONS prices option books on kept scenarios with each block's option columns
//! written where the block is priced: its partial is OP_SIMULATE_KEPT's on OP_OPTION_UNITS'
//! answer, bit for bit but for the order of tail values (seeded from the kept tails, a full
//! revaluation's tail keeps the same values in another order; the figures keep every bit), for
//! every valuation, a foreign underlying, a given sensitivity, long and short books, two books
//! compared as a what-if, every kept method and split ranges; what either refuses, it refuses.
mod common;

use common::option_book::input;
use common::*;
use risk_engine_core::abi::constants::*;
use risk_engine_core::abi::{call, call_led};
use risk_engine_core::spec::{Comparison, Method, Mode, SpecFields};

/// `f` over its three assets and `m` option columns after them: the columns draw nothing (zero
/// means, zero loadings, zero returns), as the service pads its estimation for kept pricing.
fn widened(f: &SpecFields, m: usize, weights: &[f64]) -> SpecFields {
    let mut w = f.clone();
    let wide = 3 + m;
    w.mean.resize(wide, 0.0);
    if !f.factor.is_empty() {
        // The triangular factor read as 3 × 3 loadings, the options' rows zero.
        w.factor.resize(wide * 3, 0.0);
        w.factor_columns = 3;
    }
    if !f.returns.is_empty() {
        w.returns = f
            .returns
            .chunks_exact(3)
            .flat_map(|row| row.iter().copied().chain(std::iter::repeat(0.0).take(m)))
            .collect();
    }
    w.books = vec![book(1_000_000.0, weights)];
    w
}

/// Kept scenarios of `f`'s blocks first..end (OP_UNITS after its status word).
fn kept(f: &SpecFields, first: usize, end: usize) -> Vec<f64> {
    let units = call(OP_UNITS, &encode_spec(f, first, end));
    assert_eq!(units[0], 0.0, "units failed: {}", message(&units));
    units[1..].to_vec()
}

/// The figures of a partial of every block.
fn finalized(partial: &[f64]) -> Vec<f64> {
    let results = call(OP_FINALIZE, &[&[1.0], partial].concat());
    assert_eq!(results[0], 0.0, "finalize failed: {}", message(&results));
    results
}

/// OP_SIMULATE_KEPT on OP_OPTION_UNITS' answer, and OP_SIMULATE_OPTIONS, over the same range.
fn both(
    lead: &[f64],
    words: &[f64],
    w: &SpecFields,
    first: usize,
    end: usize,
) -> (Vec<f64>, Vec<f64>) {
    let spec_input = encode_spec(w, first, end);
    let widened_units = call_led(OP_OPTION_UNITS, lead, words);
    let want = if widened_units[0] == 0.0 {
        call_led(OP_SIMULATE_KEPT, &widened_units[1..], &spec_input)
    } else {
        widened_units
    };
    let got = call_led(
        OP_SIMULATE_OPTIONS,
        lead,
        &[words, &spec_input[..]].concat(),
    );
    (want, got)
}

#[test]
fn priced_block_by_block_it_is_the_written_columns_partial() {
    let words = input();
    let m = words[2] as usize;
    let mut rng = Draw(20_261_129);
    for f in [
        spec(Method::MonteCarloNormal, Mode::BuyAndHold, 2_000),
        spec(Method::MonteCarloStudentT, Mode::BuyAndHold, 1_500),
        historical_spec(Mode::BuyAndHold, 900),
    ] {
        let all = blocks(&f);
        for weights in [
            // Long only, then long and short (both tail lanes), then the options alone.
            (0..3 + m)
                .map(|i| 0.1 + (i % 4) as f64 * 0.05)
                .collect::<Vec<_>>(),
            (0..3 + m).map(|_| rng.unit() * 2.0 - 1.0).collect(),
            (0..3 + m)
                .map(|i| if i < 3 { 0.0 } else { rng.unit() })
                .collect(),
        ] {
            // One book, then two compared as a what-if (the service's book at its delta, then as
            // asked): the books' sums run inside each group of columns, not book after book.
            let mut twin = widened(&f, m, &weights);
            let delta: Vec<f64> = weights.iter().map(|x| 0.5 * x).collect();
            twin.books.insert(0, book(1_000_000.0, &delta));
            twin.comparison = Comparison::WhatIf;
            for w in [widened(&f, m, &weights), twin] {
                for (first, end) in [(0, all), (0, all / 2), (all / 2, all)] {
                    let lead = kept(&f, first, end);
                    // The same units without their tails (every column's computed at pricing,
                    // a column at delta copying its underlying's lanes from there).
                    let count = lead[0] as usize;
                    let untailed = [&lead[..1 + count], &[0.0, 0.0]].concat();
                    for lead in [lead, untailed] {
                        let (want, got) = both(&lead, &words, &w, first, end);
                        assert_eq!(want[0], 0.0, "{:?}: {}", f.method, message(&want));
                        assert!(
                            same_bits(&canonical_partial(&want), &canonical_partial(&got)),
                            "{:?} blocks {first}..{end}: the partials differ",
                            f.method
                        );
                        if (first, end) == (0, all) {
                            assert!(same_bits(&finalized(&want), &finalized(&got)));
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn what_either_refuses_it_refuses() {
    let f = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 700);
    let all = blocks(&f);
    let lead = kept(&f, 0, all);
    let words = input();
    let m = words[2] as usize;
    let w = widened(&f, m, &vec![0.1; 3 + m]);
    // A strike of 0 (the first option's), an underlying out of range.
    let mut bad_strike = words.clone();
    bad_strike[3 + 5] = 0.0;
    let mut bad_underlying = words.clone();
    bad_underlying[3] = 3.0;
    for bad in [bad_strike, bad_underlying] {
        let (want, got) = both(&lead, &bad, &w, 0, all);
        assert_ne!(want[0], 0.0);
        assert_eq!(got[0], want[0], "{}", message(&got));
    }
    // An option past double precision (a full revaluation at a spot of 1e300, q = −1, 100 years):
    // the same overflow, not ∞ or NaN.
    let mut overflow = words.clone();
    let first = 3;
    overflow[first + 4] = 1e300;
    overflow[first + 5] = 1e300;
    overflow[first + 8] = -1.0;
    overflow[first + 9] = 100.0;
    let (want, got) = both(&lead, &overflow, &w, 0, all);
    assert_eq!(want[0], ERR_OVERFLOW as f64, "{}", message(&want));
    assert!(same_bits(&want, &got), "{}", message(&got));
    // A spec whose assets are not the units' and then one per option; units that are not finite;
    // a range the lead does not cover.
    let short = widened(&f, m - 1, &vec![0.1; 2 + m]);
    let got = call_led(
        OP_SIMULATE_OPTIONS,
        &lead,
        &[&words[..], &encode_spec(&short, 0, all)[..]].concat(),
    );
    assert_eq!(got[0], ERR_INVALID_INPUT as f64, "{}", message(&got));
    // An asset count at the end of the range: refused, not wrapped past it.
    let mut huge = words.clone();
    huge[0] = 4_294_967_295.0;
    let got = call_led(
        OP_SIMULATE_OPTIONS,
        &lead,
        &[&huge[..], &encode_spec(&w, 0, all)[..]].concat(),
    );
    assert_eq!(got[0], ERR_INVALID_INPUT as f64, "{}", message(&got));
    let mut nan = lead.clone();
    nan[5] = f64::NAN;
    let (_, got) = both(&nan, &words, &w, 0, all);
    assert_eq!(got[0], ERR_INVALID_INPUT as f64, "{}", message(&got));
    let got = call_led(
        OP_SIMULATE_OPTIONS,
        &lead,
        &[&words[..], &encode_spec(&w, 0, all - 1)[..]].concat(),
    );
    assert_eq!(got[0], ERR_INVALID_INPUT as f64, "{}", message(&got));
}

#[test]
fn kept_tails_that_mislead_the_seeds_cost_time_never_a_bit() {
    // The kept tails are the host's, and full revaluations' tails are seeded from them: forged
    // far into the units' tails, every seed is too tight (each seeded lane comes up short and the
    // range is priced again unseeded); forged at the middle, too loose (most values enter).
    let words = input();
    let m = words[2] as usize;
    let f = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 2_000);
    let all = blocks(&f);
    let mut rng = Draw(20_261_130);
    // An option at delta in the reporting currency takes its underlying's kept lanes, forged
    // here too: those are revalued in full instead.
    let mut words = words;
    for option in words[3..].chunks_exact_mut(OPTION_FIELDS) {
        if option[1] == VALUATION_DELTA as f64 && option[10] == OPTION_NO_FX as f64 {
            option[1] = VALUATION_FULL as f64;
        }
    }
    // Long and short positions: both lanes of every column.
    let weights: Vec<f64> = (0..3 + m).map(|_| rng.unit() * 2.0 - 1.0).collect();
    let w = widened(&f, m, &weights);
    let lead = kept(&f, 0, all);
    let count = lead[0] as usize;
    assert_eq!(lead[1 + count], 3.0, "the lead holds every asset's tails");
    assert!(lead[2 + count] > 0.0);
    for forged in [-0.9, 0.0] {
        let mut misleading = lead.clone();
        misleading[3 + count..].iter_mut().for_each(|x| *x = forged);
        let (want, got) = both(&misleading, &words, &w, 0, all);
        assert_eq!(want[0], 0.0, "{}", message(&want));
        assert!(
            same_bits(&canonical_partial(&want), &canonical_partial(&got)),
            "forged at {forged}: the partials differ"
        );
        assert!(same_bits(&finalized(&want), &finalized(&got)));
    }
}
