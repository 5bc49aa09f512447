//! Ranked tails (a pooled lead holding each asset's k-th smallest alone) are taken only where they
//! fit: the one pool of a calculation over every asset, at its rank.
mod common;

use common::pooled_tails::pooled_leads;
use common::*;
use risk_engine_core::abi::constants::*;
use risk_engine_core::abi::{call, call_led};
use risk_engine_core::spec::{Method, Mode};

/// A ranked lead (each asset's k-th of every range alone) is taken only as the one pool of a
/// calculation over every asset, at its rank: beside a range keeping its own tails the finalize
/// refuses it, and so it does a ranked partial re-headed to another confidence level; a ranked
/// lead of the first assets only, or priced at another confidence level, is refused, and so is a
/// partial claiming to be ranked while holding k values per asset.
#[test]
fn ranked_tails_are_refused_where_they_do_not_fit() {
    let f = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 3_000);
    let cuts = [blocks(&f) / 2];
    let leads = pooled_leads(&f, &f, &cuts, true);
    let ranges = [(0, cuts[0]), (cuts[0], blocks(&f))];
    let partial_of = |lead: &[f64], (first, end): (usize, usize)| {
        call_led(OP_SIMULATE_KEPT, lead, &encode_spec(&f, first, end))
    };
    // The other range keeping its own k tails instead of none.
    let own = call(OP_UNITS, &encode_spec(&f, ranges[1].0, ranges[1].1))[1..].to_vec();
    let owner = leads
        .iter()
        .position(|u| u.len() > 3 + u[0] as usize)
        .unwrap();
    let mut input = vec![2.0];
    for (r, range) in ranges.into_iter().enumerate() {
        let lead = if r == owner { &leads[r] } else { &own };
        let partial = partial_of(lead, range);
        assert_eq!(partial[0], 0.0);
        input.extend(partial);
    }
    assert_eq!(call(OP_FINALIZE, &input)[0], f64::from(ERR_INVALID_INPUT));

    // The pooled partials as they come, then with another confidence level in every header.
    let partials: Vec<Vec<f64>> = leads
        .iter()
        .zip(ranges)
        .map(|(lead, range)| partial_of(lead, range))
        .collect();
    for (confidence, answer) in [(0.99, 0.0), (0.995, f64::from(ERR_INVALID_INPUT))] {
        let mut input = vec![2.0];
        for partial in &partials {
            let mut partial = partial.clone();
            partial[3] = confidence;
            input.extend(partial);
        }
        let out = call(OP_FINALIZE, &input);
        assert_eq!(out[0], answer, "at {confidence}");
        if answer != 0.0 {
            assert!(message(&out).contains("rank"), "{}", message(&out));
        }
    }

    // The ranked lead priced at another confidence level (another rank k).
    let mut other = f.clone();
    other.confidence = 0.995;
    let (first, end) = ranges[owner];
    let at_other = call_led(
        OP_SIMULATE_KEPT,
        &leads[owner],
        &encode_spec(&other, first, end),
    );
    assert_eq!(at_other[0], f64::from(ERR_INVALID_INPUT));
    assert!(
        message(&at_other).contains("rank"),
        "{}",
        message(&at_other)
    );

    // Ranked values for the first two of three assets: the third would need its k tails.
    let lead = &leads[owner];
    let count = lead[0] as usize;
    let mut short = lead[..1 + count].to_vec();
    short.extend([2.0, lead[2 + count]]);
    short.extend([
        lead[3 + count],
        lead[4 + count],
        lead[6 + count],
        lead[7 + count],
    ]);
    assert_eq!(
        partial_of(&short, ranges[owner])[0],
        f64::from(ERR_INVALID_INPUT)
    );

    // A plain partial (k values per asset) flagged ranked.
    let whole_range = (0, blocks(&f));
    let plain = partial_of(
        &call(OP_UNITS, &encode_spec(&f, 0, blocks(&f)))[1..],
        whole_range,
    );
    assert_eq!(plain[0], 0.0);
    let mut flagged = plain.clone();
    flagged[PARTIAL_HEADER_LEN - 1] = 1.0;
    for (partial, answer) in [(plain, 0.0), (flagged, f64::from(ERR_INVALID_INPUT))] {
        let mut input = vec![1.0];
        input.extend(partial);
        assert_eq!(call(OP_FINALIZE, &input)[0], answer);
    }
}
