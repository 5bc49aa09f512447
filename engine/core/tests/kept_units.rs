//! Live books (OP_UNITS, OP_SIMULATE_KEPT): a block range's units kept once and priced again for
//! other books gives the partial, and after finalize the results, that drawing them gives, bit for
//! bit, for every method in buy-and-hold, any split, long/short books; other specs are refused.
mod common;

use common::*;
use risk_engine_core::abi::constants::*;
use risk_engine_core::abi::{call, call_led};
use risk_engine_core::spec::{Method, Mode, SpecFields, BLOCK};

/// The block bounds of the ranges `cuts` splits `f` into.
fn bounds(f: &SpecFields, cuts: &[usize]) -> Vec<usize> {
    let mut bounds = vec![0];
    bounds.extend_from_slice(cuts);
    bounds.push(blocks(f));
    bounds
}

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

/// `run_kept` with the ranges' tails pooled as a live host pools them: each asset's k smallest of
/// every range (per lane) held by one range with more scenarios than k, the others holding none;
/// `ranked`, that range holding each asset's k-th smallest alone (k kept, one value per lane).
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

/// The ranges' leads of `run_pooled`.
fn pooled_leads(
    f: &SpecFields,
    units_book: &SpecFields,
    cuts: &[usize],
    ranked: bool,
) -> Vec<Vec<f64>> {
    let bounds = bounds(f, cuts);
    let n = f.mean.len();
    let mut leads: Vec<Vec<f64>> = bounds
        .windows(2)
        .map(|w| call(OP_UNITS, &encode_spec(units_book, w[0], w[1]))[1..].to_vec())
        .collect();
    let layout = |u: &Vec<f64>| (u[0] as usize, u[2 + u[0] as usize] as usize);
    let scenarios = |w: &[usize]| (w[1] * BLOCK).min(f.scenarios) - w[0] * BLOCK;
    let owner = bounds
        .windows(2)
        .zip(&leads)
        .position(|(w, u)| layout(u).1 < scenarios(w))
        .expect("a range larger than the tail");
    let (owner_count, k) = layout(&leads[owner]);
    let mut kth = Vec::new();
    for lane in 0..2 {
        for i in 0..n {
            let mut pool: Vec<f64> = leads
                .iter()
                .flat_map(|u| {
                    let (count, kb) = layout(u);
                    let at = 3 + count + (lane * n + i) * kb;
                    u[at..at + kb].to_vec()
                })
                .collect();
            pool.sort_by(f64::total_cmp);
            let at = 3 + owner_count + (lane * n + i) * k;
            leads[owner][at..at + k].copy_from_slice(&pool[..k]);
            kth.push(pool[k - 1]);
        }
    }
    if ranked {
        let lead = &mut leads[owner];
        lead.truncate(3 + owner_count);
        lead.extend(kth);
    }
    for (b, u) in leads.iter_mut().enumerate() {
        if b != owner {
            let count = layout(u).0;
            u.truncate(3 + count);
            u[2 + count] = 0.0;
        }
    }
    leads
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
