//! Live books (OP_UNITS, OP_SIMULATE_KEPT): a block range's units kept once and priced again for
//! other books gives the partial, and after finalize the results, that drawing them gives, bit for
//! bit, for every method in buy-and-hold, any split, long/short books; other specs are refused.
mod common;

use common::pooled_tails::{bounds, pooled_leads};
use common::*;
use risk_engine_core::abi::constants::*;
use risk_engine_core::abi::{call, call_led};
use risk_engine_core::spec::{Method, Mode, SpecFields};

/// The whole run through kept units: OP_UNITS with `units_book`, then OP_SIMULATE_KEPT of `f`
/// (its own books) on each part of the split, then OP_FINALIZE.
fn run_kept(f: &SpecFields, units_book: &SpecFields, cuts: &[usize]) -> Vec<f64> {
    let bounds = bounds(f, cuts);
    let mut input = vec![(bounds.len() - 1) as f64];
    for w in bounds.windows(2) {
        let units = call(OP_UNITS, &encode_spec(units_book, w[0], w[1]));
        assert_eq!(units[0], 0.0, "units failed");
        let count = units[1] as usize;
        let n = f.mean.len();
        assert_eq!(
            units.len(),
            2 + count + 2 + 2 * n * units[3 + count] as usize
        );
        let mut kept = vec![(units.len() - 1) as f64];
        kept.extend_from_slice(&units[1..]);
        kept.extend(encode_spec(f, w[0], w[1]));
        let partial = call(OP_SIMULATE_KEPT, &kept);
        assert_eq!(partial[0], 0.0, "simulate kept failed: {:?}", &partial[..2]);
        // The units read in place (the host's shared buffer) give the same partial.
        let led = call_led(OP_SIMULATE_KEPT, &units[1..], &encode_spec(f, w[0], w[1]));
        assert!(same_bits(&partial, &led), "call_led differs from call");
        // Partial for partial what drawing gives: P&L, worst scenarios with their asset rows
        // (read from the kept units at the end), tails.
        let drawn = call(OP_SIMULATE, &encode_spec(f, w[0], w[1]));
        assert!(
            same_bits(&partial, &drawn),
            "kept partial differs from drawn"
        );
        input.extend(partial);
    }
    call(OP_FINALIZE, &input)
}

/// `run_kept` on `pooled_leads`: the ranges' tails pooled as a live host pools them.
fn run_pooled(f: &SpecFields, units_book: &SpecFields, cuts: &[usize], ranked: bool) -> Vec<f64> {
    let leads = pooled_leads(f, units_book, cuts, ranked);
    let bounds = bounds(f, cuts);
    let mut input = vec![(bounds.len() - 1) as f64];
    for (w, lead) in bounds.windows(2).zip(&leads) {
        let partial = call_led(OP_SIMULATE_KEPT, lead, &encode_spec(f, w[0], w[1]));
        assert_eq!(partial[0], 0.0, "pooled kept failed: {:?}", &partial[..2]);
        input.extend(partial);
    }
    call(OP_FINALIZE, &input)
}

fn check(f: &SpecFields) {
    // Units drawn for another book (long only) price this one as if drawn for it.
    let mut other = f.clone();
    other.books = vec![book(1.0, &[0.2, 0.3, 0.5])];
    let drawn = run_split(f, &[]);
    assert_eq!(drawn[0], 0.0);
    let b = blocks(f);
    for cuts in [vec![], vec![1], vec![b / 2], vec![1, 2, b - 1]] {
        let cuts: Vec<usize> = cuts.into_iter().filter(|&c| c > 0 && c < b).collect();
        assert!(
            same_bits(&drawn, &run_kept(f, &other, &cuts)),
            "{:?} split {cuts:?}",
            f.method
        );
        if !cuts.is_empty() {
            for ranked in [false, true] {
                assert!(
                    same_bits(&drawn, &run_pooled(f, &other, &cuts, ranked)),
                    "{:?} pooled (ranked {ranked}) split {cuts:?}",
                    f.method
                );
            }
        }
    }
}

#[test]
fn kept_units_price_as_drawn_ones() {
    for method in [Method::MonteCarloNormal, Method::MonteCarloStudentT] {
        let mut f = spec(method, Mode::BuyAndHold, 3_000);
        check(&f);
        f.books = vec![book(2_000_000.0, &[0.9, -0.6, 0.4])];
        check(&f);
        f.antithetic = true;
        check(&f);
    }
    check(&historical_spec(Mode::BuyAndHold, 1_300));
}

#[test]
fn kept_units_refuse_what_they_cannot_price() {
    let rebalanced = spec(Method::MonteCarloNormal, Mode::Rebalanced, 1_000);
    assert_ne!(call(OP_UNITS, &encode_spec(&rebalanced, 0, 1))[0], 0.0);
    let f = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 1_000);
    let units = call(OP_UNITS, &encode_spec(&f, 0, 1));
    // Units of one block offered for two.
    let mut kept = vec![(units.len() - 1) as f64];
    kept.extend_from_slice(&units[1..]);
    kept.extend(encode_spec(&f, 0, 2));
    assert_ne!(call(OP_SIMULATE_KEPT, &kept)[0], 0.0);
    // A count beyond the input.
    assert_ne!(call(OP_SIMULATE_KEPT, &[1e6, 1.0])[0], 0.0);
    // The same refusals when the units are read in place.
    let refused = call_led(OP_SIMULATE_KEPT, &units[1..], &encode_spec(&f, 0, 2));
    assert!(same_bits(&refused, &call(OP_SIMULATE_KEPT, &kept)));
    // Tails of another k (a spec at another confidence level) or cut short.
    let mut other = f.clone();
    other.confidence = 0.9;
    let spec_one = encode_spec(&other, 0, 1);
    assert_ne!(call_led(OP_SIMULATE_KEPT, &units[1..], &spec_one)[0], 0.0);
    let short = &units[1..units.len() - 1];
    assert_ne!(
        call_led(OP_SIMULATE_KEPT, short, &encode_spec(&f, 0, 1))[0],
        0.0
    );
    assert_eq!(
        call_led(OP_SIMULATE_KEPT, &units[1..], &encode_spec(&f, 0, 1))[0],
        0.0
    );
}

/// Any other op given a lead reads the buffer `call` would: [lead.len(), lead…, input…].
#[test]
fn a_lead_is_the_inputs_first_part_for_every_op() {
    let f = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 1_000);
    let encoded = encode_spec(&f, 0, 1);
    let (lead, rest) = encoded.split_at(4);
    let expected = {
        let mut joined = vec![lead.len() as f64];
        joined.extend_from_slice(lead);
        joined.extend_from_slice(rest);
        call(OP_SIMULATE, &joined)
    };
    assert!(same_bits(&call_led(OP_SIMULATE, lead, rest), &expected));
}

/// Kept tails may cover the first assets only (columns appended to the units later, such as
/// options', have theirs computed at pricing): the same partial as with every tail kept.
#[test]
fn kept_tails_of_the_first_assets_price_as_all_of_them() {
    for method in [Method::MonteCarloNormal, Method::MonteCarloStudentT] {
        let mut f = spec(method, Mode::BuyAndHold, 2_500);
        f.books = vec![book(1_000_000.0, &[0.7, -0.5, 0.3])];
        let units = call(OP_UNITS, &encode_spec(&f, 0, blocks(&f)));
        assert_eq!(units[0], 0.0);
        let kept = &units[1..];
        let count = kept[0] as usize;
        let (n, k) = (kept[1 + count] as usize, kept[2 + count] as usize);
        let lanes = &kept[3 + count..];
        let spec_input = encode_spec(&f, 0, blocks(&f));
        let all = call_led(OP_SIMULATE_KEPT, kept, &spec_input);
        assert_eq!(all[0], 0.0);
        for covered in 0..n {
            let mut fewer = kept[..1 + count].to_vec();
            fewer.extend([covered as f64, k as f64]);
            fewer.extend_from_slice(&lanes[..covered * k]);
            fewer.extend_from_slice(&lanes[n * k..n * k + covered * k]);
            let priced = call_led(OP_SIMULATE_KEPT, &fewer, &spec_input);
            assert!(
                same_bits(&all, &priced),
                "{method:?}: tails of the first {covered}"
            );
        }
        // More tails than assets are refused.
        let mut more = kept[..1 + count].to_vec();
        more.extend([(n + 1) as f64, k as f64]);
        more.extend(std::iter::repeat(0.0).take(2 * (n + 1) * k));
        assert_ne!(call_led(OP_SIMULATE_KEPT, &more, &spec_input)[0], 0.0);
    }
}
